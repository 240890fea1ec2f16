package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
)

// runOptions are the flags of run and sweep.
type runOptions struct {
	load         loadConfig
	name         string
	aliases      string
	kinds        string
	tables       string
	pid          int
	pidfile      string
	procs        int
	jsonOut      string
	clickhouse   string
	chPID        int
	pgPID        int
	adminPID     int
	settleTail   time.Duration
	hot          int
	flushWait    time.Duration
	quiet        time.Duration
	compareNginx bool
	compareBare  bool
	bareGODEBUG  string
	vsWrk        bool
	nginxBin     string
	wrkBin       string
	rateFrom     string
	rateFraction float64
	cpuProfile   string
	profileURL   string
	profileOut   string
	profileSecs  int
}

func (o *runOptions) register(fs *flag.FlagSet) {
	l := &o.load
	fs.StringVar(&l.Addr, "addr", "127.0.0.1:8080", "target host:port (the edge)")
	fs.IntVar(&l.Conns, "connections", 64, "keep-alive connections (one worker each)")
	fs.IntVar(&l.Conns, "c", 64, "shorthand for --connections")
	fs.DurationVar(&l.Duration, "duration", 10*time.Second, "run length (0 = bounded by --requests only)")
	fs.Int64Var(&l.Requests, "requests", 0, "stop after this many requests (0 = bounded by --duration only)")
	fs.Float64Var(&l.Rate, "rate", 0, "open loop at this many requests/s (0 = closed loop, as fast as possible)")
	fs.Float64Var(&l.ZipfS, "zipf-s", 1.1, "Zipf exponent s (> 1; larger = more skewed)")
	fs.Float64Var(&l.ZipfV, "zipf-v", 1, "Zipf offset v (>= 1)")
	fs.BoolVar(&l.Sequential, "sequential", false, "request every alias exactly once (cache warm-up) instead of Zipf")
	fs.BoolVar(&l.Uniform, "uniform", false, "draw aliases uniformly instead of Zipf (with --hot N: N equally hot links)")
	fs.IntVar(&o.hot, "hot", 0, "use only the first N links of the alias file (after --kinds); the file's order is random")
	fs.StringVar(&l.DefaultHost, "host", "", "Host header for default-domain links (default: --addr)")
	fs.StringVar(&l.CountryHeader, "country-header", "CF-IPCountry", "trusted country header to vary (empty: not sent); the edge needs KURZ_COUNTRY_HEADER set to the same")
	fs.BoolVar(&l.XFF, "xff", false, "send X-Forwarded-For with varied client IPs (edge needs KURZ_TRUSTED_PROXIES=127.0.0.1/32)")
	fs.DurationVar(&l.Timeout, "timeout", 5*time.Second, "per-request read/write timeout")
	fs.Uint64Var(&l.Seed, "seed", 1, "random seed")
	fs.StringVar(&o.name, "name", "run", "scenario name in the report")
	fs.StringVar(&o.aliases, "aliases", "aliases.tsv", "alias file written by 'bench seed'")
	fs.StringVar(&o.kinds, "kinds", "", "only these link kinds (comma-separated: direct,targeted,pixel,password,expired)")
	fs.StringVar(&o.tables, "tables", "", "directory with useragents.tsv, languages.tsv, countries.tsv, referrers.tsv (default: embedded)")
	fs.IntVar(&o.pid, "pid", 0, "target process for CPU time and RSS (/proc)")
	fs.StringVar(&o.pidfile, "pidfile", "", "file holding the target's pid")
	fs.IntVar(&o.procs, "procs", 1, "GOMAXPROCS of the load generator (wrk -t1 uses one core)")
	fs.StringVar(&o.jsonOut, "json", "", "write the results as JSON to this file")
	fs.StringVar(&o.clickhouse, "clickhouse", "", "ClickHouse DSN: run the zero-loss check (e.g. clickhouse://127.0.0.1:9000/default)")
	fs.IntVar(&o.chPID, "clickhouse-pid", 0, "ClickHouse server's pid: its CPU time goes into the machine line and the CPU split")
	fs.IntVar(&o.pgPID, "postgres-pid", 0, "PostgreSQL postmaster's pid (first line of postmaster.pid): its process tree's CPU (backends are its children) goes into the CPU split")
	fs.IntVar(&o.adminPID, "admin-pid", 0, "the admin process's pid: its CPU goes into the CPU split")
	fs.DurationVar(&o.settleTail, "settle-tail", time.Second, "the CPU split of a run with the zero-loss check goes on this long after the count settled: work the last clicks start on a timer (the admin's once-a-second steps, ClickHouse merging the last parts) is counted")
	fs.DurationVar(&o.flushWait, "flush-wait", 30*time.Second, "zero-loss check: longest wait for the click pipeline to flush")
	fs.DurationVar(&o.quiet, "quiet", 7*time.Second, "zero-loss check: the count must stay unchanged this long (longer than the edge's flush interval, 5 s by default, and an insert)")
	fs.BoolVar(&o.compareNginx, "compare-nginx", false, "run the same load against a private nginx 'return 302' and print kurz/nginx ratios")
	fs.BoolVar(&o.compareBare, "compare-bare", false, "also run it against a bare fasthttp server (map lookup + 302, GOMAXPROCS=1): the framework's own ceiling")
	fs.StringVar(&o.bareGODEBUG, "bare-godebug", "schedtrace=2147483647", "GODEBUG of the bare server (give it the edge's)")
	fs.BoolVar(&o.vsWrk, "vs-wrk", false, "also run wrk against that nginx and report bench/wrk (harness efficiency)")
	fs.StringVar(&o.nginxBin, "nginx", "nginx", "nginx binary")
	fs.StringVar(&o.wrkBin, "wrk", "wrk", "wrk binary")
	fs.StringVar(&o.rateFrom, "rate-from", "", "open loop at --rate-fraction of the first run's throughput in this JSON file")
	fs.Float64Var(&o.rateFraction, "rate-fraction", 0.5, "see --rate-from")
	fs.StringVar(&o.profileURL, "profile-url", "", "the target's pprof base URL (e.g. http://127.0.0.1:8082, the edge's KURZ_PPROF_ADDR): fetch a CPU profile during the run")
	fs.StringVar(&o.profileOut, "profile-out", "edge-cpu.pprof", "where --profile-url's profile goes")
	fs.IntVar(&o.profileSecs, "profile-seconds", 10, "length of that profile (at most the run's --duration)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write the load generator's own CPU profile to this file (is the harness the bottleneck?)")
}

// prepare loads the aliases and tables and resolves the pid and rate.
func (o *runOptions) prepare() error {
	runtime.GOMAXPROCS(max(o.procs, 1))
	pop, err := loadPopulation(o.aliases)
	if err != nil {
		return err
	}
	var keep []Kind
	if o.kinds != "" {
		for s := range strings.SplitSeq(o.kinds, ",") {
			k, err := parseKind(strings.TrimSpace(s))
			if err != nil {
				return err
			}
			keep = append(keep, k)
		}
	}
	if o.load.Entries = filterKinds(pop.Entries, keep); len(o.load.Entries) == 0 {
		return fmt.Errorf("no links of kinds %q in %s", o.kinds, o.aliases)
	}
	if o.hot > 0 {
		if len(o.load.Entries) < o.hot {
			return fmt.Errorf("--hot %d: %s holds only %d links of kinds %q", o.hot, o.aliases, len(o.load.Entries), o.kinds)
		}
		o.load.Entries = o.load.Entries[:o.hot]
	}
	o.load.ownerID = pop.OwnerID
	if o.load.Tables, err = loadTables(o.tables); err != nil {
		return err
	}
	if o.pidfile != "" {
		if o.pid, err = readPIDFile(o.pidfile); err != nil {
			return err
		}
	}
	if o.rateFrom != "" {
		var f runFile
		if err := readJSON(o.rateFrom, &f); err != nil {
			return err
		}
		if len(f.Runs) == 0 || f.Runs[0].Throughput <= 0 {
			return fmt.Errorf("%s holds no throughput", o.rateFrom)
		}
		o.load.Rate = f.Runs[0].Throughput * o.rateFraction
	}
	return nil
}

func runCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var o runOptions
	o.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := o.prepare(); err != nil {
		return err
	}
	if o.cpuProfile != "" {
		stop, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	out := &runFile{Ratios: map[string]float64{}}
	var ch driver.Conn
	if o.clickhouse != "" {
		var err error
		if ch, err = chstore.Open(ctx, o.clickhouse); err != nil {
			return err
		}
		defer ch.Close()
	}
	prof := o.profiler()
	kurz, err := measure(ctx, &o, o.name, "kurz "+o.load.Addr, &o.load, o.pid, ch, prof)
	if err != nil {
		return err
	}
	kurz.writeTable(stdout)
	out.Runs = append(out.Runs, kurz)
	var nginx *runReport
	if o.compareNginx || o.vsWrk {
		if nginx, err = compareNginx(ctx, &o, kurz, out, stdout); err != nil {
			return err
		}
	}
	if o.compareBare {
		if err := compareBare(ctx, &o, kurz, nginx, out, stdout); err != nil {
			return err
		}
	}
	if o.jsonOut != "" {
		if err := writeJSON(o.jsonOut, out); err != nil {
			return err
		}
	}
	if kurz.Clicks != nil && !kurz.Clicks.OK {
		return errors.New("zero-loss check failed")
	}
	return nil
}

// measure runs one load with CPU/RSS sampling of pid (when > 0) and of the
// harness itself, the zero-loss check when ch is set, and the CPU split of
// a local target (pid > 0): from the load's start until the clicks have
// settled (and --settle-tail), or until the load's end without a check.
func measure(ctx context.Context, o *runOptions, name, target string, cfg *loadConfig, pid int, ch driver.Conn, prof *profiler) (*runReport, error) {
	var baseline int64
	if ch != nil {
		n, settled, err := settledCount(ctx, ch, cfg.ownerID, o.quiet, o.flushWait, -1)
		if err != nil {
			return nil, err
		}
		if !settled {
			return nil, errors.New("clicks in ClickHouse did not settle before the run (a pipeline is still flushing)")
		}
		baseline = n
	}
	// The split's first reading comes first: a failure leaves no sampler running.
	var roles []splitRole
	var snap0 stackSnapshot
	if pid > 0 {
		roles = o.splitRoles(pid)
		var err error
		if snap0, err = takeSnapshot("/proc", roles); err != nil {
			return nil, err
		}
	}
	var srv *procSampler
	if pid > 0 {
		var err error
		if srv, err = startSampler(pid); err != nil {
			return nil, err
		}
	}
	self, err := startSelfSampler()
	if err != nil {
		return nil, err
	}
	// Only kurz's own runs (the --pid target) make ClickHouse ingest.
	var chSrv *procSampler
	if o.chPID > 0 && pid == o.pid {
		if chSrv, err = startSampler(o.chPID); err != nil {
			return nil, fmt.Errorf("clickhouse pid: %w", err)
		}
	}
	mBefore, mErr := readMachineCPU()
	profDone := prof.start(ctx)
	res, err := runLoad(ctx, cfg)
	loadEnd := time.Now()
	mAfter, mErr2 := readMachineCPU()
	cli, _ := self.stop()
	var chUse procUsage
	var chErr error
	if chSrv != nil {
		chUse, chErr = chSrv.stop()
	}
	if perr := <-profDone; perr != nil {
		fmt.Fprintf(os.Stderr, "bench: %v (the run goes on without a profile)\n", perr)
	}
	var su procUsage
	var serr error
	if srv != nil {
		su, serr = srv.stop()
	}
	if err != nil {
		return nil, err
	}
	r := newRunReport(name, target, cfg, res)
	r.Client = &cli
	if mErr == nil && mErr2 == nil {
		r.Machine = newMachineUsage(mBefore, mAfter, res.Completed)
		if chSrv != nil && chErr == nil {
			r.Machine.ClickHouse = &chUse
		}
	}
	if srv != nil {
		if serr != nil {
			return nil, serr
		}
		r.setServer(su)
	}
	if ch != nil {
		if r.Clicks, err = checkClicks(ctx, o, ch, cfg.ownerID, baseline, res.ExpectedClicks); err != nil {
			return nil, err
		}
	}
	if roles != nil {
		if r.Split, err = finishSplit(ctx, o, snap0, roles, loadEnd, pid == o.pid, ch, res); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// checkClicks is the zero-loss check: it waits until the owner's human
// clicks in ClickHouse reach baseline + expected (or stop changing).
func checkClicks(ctx context.Context, o *runOptions, ch driver.Conn, owner, baseline, expected int64) (*clickCheck, error) {
	n, settled, err := settledCount(ctx, ch, owner, o.quiet, o.flushWait, baseline+expected)
	if err != nil {
		return nil, err
	}
	c := &clickCheck{Expected: expected, Counted: n - baseline}
	c.Diff = c.Counted - c.Expected
	c.OK = c.Diff == 0
	if !settled {
		c.Note = "count still changing after --flush-wait"
	}
	return c, nil
}

// splitRoles are the processes the CPU split of a run against pid reads:
// the target's tree, ClickHouse, PostgreSQL's postmaster and its backends,
// the admin (each when its pid is known) and the load generator itself.
func (o *runOptions) splitRoles(pid int) []splitRole {
	roles := []splitRole{{part: partServer, pid: pid, tree: true}}
	for _, r := range []splitRole{{partClickHouse, o.chPID, true}, {partPostgres, o.pgPID, true}, {partAdmin, o.adminPID, true}} {
		if r.pid > 0 {
			roles = append(roles, r)
		}
	}
	return append(roles, splitRole{part: partLoadGen, pid: os.Getpid()})
}

// finishSplit takes the second snapshot (after --settle-tail when the run
// waited for its clicks) and returns the split. kurz's machine cost sums
// the stack per click row; a reference server's is its own CPU per request.
func finishSplit(ctx context.Context, o *runOptions, snap0 stackSnapshot, roles []splitRole, loadEnd time.Time, kurz bool, ch driver.Conn, res *loadResult) (*cpuSplit, error) {
	if ch != nil && o.settleTail > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(o.settleTail):
		}
	}
	if ch != nil {
		// The merges of the run's last parts belong to the run: left out,
		// a flush interval that makes fewer, larger inserts would leave
		// more of its work to the gap between runs, which no window covers.
		// No quiet stretch here: its idle seconds would count against
		// every run.
		if _, err := waitMerges(ctx, ch, 0, o.flushWait); err != nil {
			return nil, err
		}
	}
	snap1, err := takeSnapshot("/proc", roles)
	if err != nil {
		return nil, err
	}
	if !kurz {
		return newCPUSplit(snap0, snap1, loadEnd, res.Completed, []string{partServer}), nil
	}
	s := newCPUSplit(snap0, snap1, loadEnd, res.ClickRows, stackParts)
	if ch != nil {
		// A diagnostic: a server that refuses it costs the report a table,
		// not the run.
		if s.ClickHouseParts, err = readPartWork(ctx, ch, snap0.at, snap1.at); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: ClickHouse's work by table not read: %v\n", o.name, err)
		}
	}
	return s, nil
}

// compareNginx runs the same load against a private nginx, and wrk too
// with --vs-wrk, and records the ratios.
func compareNginx(ctx context.Context, o *runOptions, kurz *runReport, out *runFile, stdout io.Writer) (*runReport, error) {
	ng, err := startNginx(ctx, o.nginxBin)
	if err != nil {
		return nil, err
	}
	defer ng.stop()
	cfg := o.load
	cfg.Addr, cfg.DefaultHost = ng.addr, ""
	nr, err := measure(ctx, o, o.name+" (nginx)", "nginx return 302 "+ng.addr, &cfg, ng.pid(), nil, nil)
	if err != nil {
		return nil, err
	}
	first := nr // the open-loop harness check below may measure nginx again
	nr.writeTable(stdout)
	out.Runs = append(out.Runs, nr)
	if nr.Throughput > 0 {
		out.Ratios["throughput_kurz_over_nginx"] = kurz.Throughput / nr.Throughput
	}
	if nr.ReqPerCPUSec > 0 && kurz.ReqPerCPUSec > 0 {
		out.Ratios["per_cpu_second_kurz_over_nginx"] = kurz.ReqPerCPUSec / nr.ReqPerCPUSec
	}
	fmt.Fprintf(stdout, "== kurz/nginx: throughput %.2f×", out.Ratios["throughput_kurz_over_nginx"])
	if v, ok := out.Ratios["per_cpu_second_kurz_over_nginx"]; ok {
		fmt.Fprintf(stdout, ", requests per server-CPU-second %.2f×", v)
	}
	fmt.Fprintln(stdout)
	if m, ok := machineRatio(kurz, nr); ok {
		out.Ratios["machine_cpu_per_redirect_kurz_over_nginx"] = m.ratio
		fmt.Fprintf(stdout, "== machine CPU per counted redirect: kurz %.1f µs (%s) vs nginx %.1f µs of server CPU per request = %.2f× (target <= 2×)\n",
			m.kurz, kurz.Split.partsList(kurz.Split.MachineParts), m.nginx, m.ratio)
	}
	if !o.vsWrk {
		return nr, nil
	}
	d := cfg.Duration
	if d <= 0 {
		d = 10 * time.Second
	}
	wr, err := runWrk(ctx, o.wrkBin, "http://"+ng.addr+"/", 1, cfg.Conns, d)
	if err != nil {
		return nil, err
	}
	out.Wrk = wr
	if cfg.Rate > 0 {
		// The harness comparison is closed loop against closed loop.
		cfg.Rate = 0
		if nr, err = measure(ctx, o, o.name+" (nginx, closed loop)", "nginx return 302 "+ng.addr, &cfg, ng.pid(), nil, nil); err != nil {
			return nil, err
		}
		out.Runs = append(out.Runs, nr)
	}
	out.Ratios["bench_over_wrk"] = nr.Throughput / wr.Throughput
	fmt.Fprintf(stdout, "== harness: bench %s req/s vs wrk -t1 %s req/s on nginx = %.2f× (target >= 0.7×)\n",
		human(nr.Throughput), human(wr.Throughput), out.Ratios["bench_over_wrk"])
	if c := nr.Client; c != nil && c.CPUSeconds > 0 && wr.ReqPerCPU > 0 {
		benchPerCPU := float64(nr.Requests) / c.CPUSeconds
		out.Ratios["bench_over_wrk_per_client_cpu_second"] = benchPerCPU / wr.ReqPerCPU
		fmt.Fprintf(stdout, "   per client-CPU-second: bench %s vs wrk %s = %.2f×\n",
			human(benchPerCPU), human(wr.ReqPerCPU), out.Ratios["bench_over_wrk_per_client_cpu_second"])
	}
	if l, err := loadAverage(); err == nil {
		out.LoadAvg = l
		fmt.Fprintf(stdout, "   load average %s\n", l)
	}
	return first, nil
}

// startCPUProfile profiles the harness itself until the returned stop.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("start cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// loadAverage is /proc/loadavg's first three fields: how busy the machine
// was (other processes change every number of a shared-core run).
func loadAverage() (string, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "", fmt.Errorf("read loadavg: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "", errors.New("loadavg: too few fields")
	}
	return strings.Join(f[:3], " "), nil
}
