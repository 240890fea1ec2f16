package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"kurz/shared/click"
	"kurz/shared/target"
)

func TestZipfPickerSkewAndRange(t *testing.T) {
	tests := []struct {
		name     string
		s        float64
		minShare float64 // share of draws the most popular link must get at least
	}{
		{"mild", 1.1, 0.05},
		{"steep", 2.0, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const n, draws = 1000, 200_000
			perm := rankPermutation(n, 3)
			p := newZipfPicker(rand.New(rand.NewPCG(1, 2)), tc.s, 1, perm)
			counts := make([]int, n)
			for range draws {
				i := p.next()
				if i < 0 || i >= n {
					t.Fatalf("index %d out of range", i)
				}
				counts[i]++
			}
			top := counts[perm[0]]
			if share := float64(top) / draws; share < tc.minShare {
				t.Fatalf("rank-0 link got %.3f of draws, want >= %.2f", share, tc.minShare)
			}
			if counts[perm[0]] <= counts[perm[1]] || counts[perm[1]] <= counts[perm[50]] {
				t.Fatalf("popularity not decreasing with rank: %d, %d, %d", counts[perm[0]], counts[perm[1]], counts[perm[50]])
			}
		})
	}
}

func TestRankPermutationIsPermutation(t *testing.T) {
	p := rankPermutation(5000, 9)
	seen := make([]bool, len(p))
	for _, v := range p {
		if seen[v] {
			t.Fatalf("%d twice", v)
		}
		seen[v] = true
	}
}

func TestParseStat(t *testing.T) {
	b, err := os.ReadFile("testdata/proc_stat.txt")
	if err != nil {
		t.Fatal(err)
	}
	c, ppid, err := parseStat(b)
	if err != nil {
		t.Fatal(err)
	}
	if c.UTime != 4217 || c.STime != 1311 || ppid != 1 {
		t.Fatalf("got %+v ppid %d, want utime 4217 stime 1311 ppid 1", c, ppid)
	}
	if got := c.seconds(); got != 55.28 {
		t.Fatalf("seconds = %v, want 55.28", got)
	}
	for _, bad := range []string{"", "1 (x) S 1 2", "1 no-paren S"} {
		if _, _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q) = nil error", bad)
		}
	}
}

func TestParseStatusKB(t *testing.T) {
	b, err := os.ReadFile("testdata/proc_status.txt")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int64{"VmHWM": 350212, "VmRSS": 120492} {
		got, err := parseStatusKB(b, key)
		if err != nil || got != want {
			t.Errorf("%s = %d, %v; want %d", key, got, err, want)
		}
	}
	if _, err := parseStatusKB(b, "VmSwap"); err == nil {
		t.Error("missing key: want an error")
	}
}

func TestProcTreeSelf(t *testing.T) {
	s, err := startSampler(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := range 30_000_000 {
		x += i
	}
	_ = x
	u, err := s.stop()
	if err != nil {
		t.Fatal(err)
	}
	if u.MaxRSSMB <= 0 || u.HWMMB < u.MaxRSSMB*0.5 || u.CPUSeconds < 0 {
		t.Fatalf("implausible usage %+v", u)
	}
}

func TestIntendedOffset(t *testing.T) {
	tests := []struct {
		i, k, conns int
		rate        float64
		want        time.Duration
	}{
		{0, 0, 4, 1000, 0},
		{1, 0, 4, 1000, time.Millisecond},
		{3, 0, 4, 1000, 3 * time.Millisecond},
		{0, 1, 4, 1000, 4 * time.Millisecond},
		{2, 10, 4, 1000, 42 * time.Millisecond},
		{0, 1, 1, 50_000, 20 * time.Microsecond},
	}
	for _, tc := range tests {
		if got := intendedOffset(tc.i, tc.k, tc.conns, tc.rate); got != tc.want {
			t.Errorf("intendedOffset(%d,%d,%d,%g) = %v, want %v", tc.i, tc.k, tc.conns, tc.rate, got, tc.want)
		}
	}
}

func TestOpenLatencyCountsQueueing(t *testing.T) {
	base := time.Unix(1000, 0)
	// Sent 5 ms late because the previous answer was slow: the user waited
	// those 5 ms too.
	l, s, g := openLatency(base, base.Add(5*time.Millisecond), base.Add(6*time.Millisecond))
	if l != 6*time.Millisecond || s != time.Millisecond || g != 5*time.Millisecond {
		t.Fatalf("latency %v service %v lag %v", l, s, g)
	}
	if _, _, g := openLatency(base, base, base.Add(time.Millisecond)); g != 0 {
		t.Fatalf("on-time send: lag %v", g)
	}
}

func TestSweepSVGWellFormed(t *testing.T) {
	for _, pts := range [][]sweepPoint{
		nil,
		{{Rate: 1e4, Throughput: 9990, P50: 0.2, P99: 0.9, P999: 2.5}, {Rate: 5e4, Throughput: 49000, P50: 0.4, P99: 3, P999: 40}},
	} {
		var buf bytes.Buffer
		if err := writeSweepSVG(&buf, `kurz <edge> & "co"`, pts); err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(&buf)
		polylines := 0
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("not well-formed XML: %v", err)
			}
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
				polylines++
			}
		}
		if polylines != 3 {
			t.Fatalf("%d polylines, want 3 (p50, p99, p99.9)", polylines)
		}
	}
}

func TestSummarizeAndTable(t *testing.T) {
	h := hdrhistogram.New(1, 60_000_000, 3)
	for v := int64(1); v <= 1000; v++ {
		h.RecordValue(v * 10) //nolint:errcheck
	}
	s := summarize(h)
	if s.P50 < 4.99 || s.P50 > 5.01 || s.P99 < 9.89 || s.P99 > 9.91 || s.Max < 9.99 {
		t.Fatalf("summary %+v", s)
	}
	r := &runReport{Name: "direct", Target: "kurz x", Mode: "closed", Conns: 64, Seconds: 2, Requests: 200000, Throughput: 100000,
		Latency: s, Status: map[int]int64{302: 199000, 200: 1000}, Errors: map[string]int64{"timeout": 3},
		Clicks: &clickCheck{Expected: 10, Counted: 9, Diff: -1}}
	r.setServer(procUsage{PID: 7, CPUSeconds: 1.6, MaxRSSMB: 120})
	var buf bytes.Buffer
	r.writeTable(&buf)
	out := buf.String()
	for _, want := range []string{"100k req/s", "p99 9.90ms", "200: 1000, 302: 199000", "timeout: 3", "125k req per CPU-second", "difference -1: MISMATCH"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestHuman(t *testing.T) {
	for v, want := range map[float64]string{215000: "215k", 1234: "1.23k", 12: "12", 1.5e6: "1.5M"} {
		if got := human(v); got != want {
			t.Errorf("human(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestParseWrk(t *testing.T) {
	b, err := os.ReadFile("testdata/wrk.txt")
	if err != nil {
		t.Fatal(err)
	}
	rate, p99, err := parseWrk(string(b))
	if err != nil || rate != 211345.60 || p99 != 1.23 {
		t.Fatalf("rate %v p99 %v err %v", rate, p99, err)
	}
	if _, _, err := parseWrk("unable to connect"); err == nil {
		t.Fatal("want an error without a Requests/sec line")
	}
}

// The zero-loss accounting relies on the tables' classes matching the
// edge's own classifier: a "human" UA the edge calls a bot would make the
// check fail for the wrong reason.
func TestUserAgentClassesMatchEdge(t *testing.T) {
	tb, err := loadTables("")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]click.Class{"human": click.ClassHuman, "bot": click.ClassBot, "preview": click.ClassPreview}
	for i, ua := range tb.agents.values {
		if got := target.ClassOf([]byte(ua), []byte("GET"), nil); got != want[tb.agents.class[i]] {
			t.Errorf("%q: edge says %v, table says %s", ua, got, tb.agents.class[i])
		}
	}
}

func TestPlanMixAndAliasFile(t *testing.T) {
	es := plan(10_000, defaultMix, []string{"go.a.test", "b.test"}, 100, 5)
	var byKind [numKinds]int
	branded := 0
	for _, e := range es {
		byKind[e.Kind]++
		if e.Host != "" {
			branded++
		}
	}
	if byKind != [numKinds]int{8000, 1000, 500, 300, 200} {
		t.Fatalf("kinds %v", byKind)
	}
	if branded < 800 || branded > 1200 {
		t.Fatalf("%d branded links, want about 1000", branded)
	}
	var buf bytes.Buffer
	if err := writePopulation(&buf, &population{OwnerID: 42, Entries: es}); err != nil {
		t.Fatal(err)
	}
	p, err := readPopulation(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if p.OwnerID != 42 || len(p.Entries) != len(es) || p.Entries[17] != es[17] {
		t.Fatalf("round trip: owner %d, %d entries", p.OwnerID, len(p.Entries))
	}
}

func TestParseMix(t *testing.T) {
	if _, err := parseMix("direct=900,targeted=50"); err == nil {
		t.Error("sum 950: want an error")
	}
	m, err := parseMix("direct=1000")
	if err != nil || m[KindDirect] != 1000 {
		t.Errorf("got %v, %v", m, err)
	}
}

func TestParseMachineStat(t *testing.T) {
	b, err := os.ReadFile("testdata/proc_stat_machine.txt")
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseMachineStat(b)
	if err != nil {
		t.Fatal(err)
	}
	// user 70181 + nice 0 + system 32751 + irq 0 + softirq 8412 + steal 477;
	// idle 126268 + iowait 835.
	if m.Busy != 111821 || m.Idle != 127103 {
		t.Fatalf("got %+v, want busy 111821 idle 127103", m)
	}
	u := newMachineUsage(machineCPU{Busy: 100, Idle: 100}, machineCPU{Busy: 1600, Idle: 600}, 500_000)
	if u.BusyCPUSeconds != 15 || u.IdleCPUSeconds != 5 || u.CPUMicrosPerRequest != 30 || u.busyShare() != 0.75 {
		t.Fatalf("usage %+v share %v", u, u.busyShare())
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7 8", "cpu  1 2 3", "cpu  1 2 x 4 5 6 7 8"} {
		if _, err := parseMachineStat([]byte(bad)); err == nil {
			t.Errorf("parseMachineStat(%q) = nil error", bad)
		}
	}
	if _, err := readMachineCPU(); err != nil {
		t.Fatalf("this machine's /proc/stat: %v", err)
	}
}

// The harness's own CPU leaves out the servers it starts (its children):
// the bare fasthttp server's CPU used to be counted as the harness's.
func TestSelfSamplerExcludesChildren(t *testing.T) {
	child := exec.Command("awk", "BEGIN { for (i = 0; i < 1e10; i++) ; }") // one busy process
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		child.Process.Kill() //nolint:errcheck // it may not have ended otherwise
		child.Wait()         //nolint:errcheck // killed
	}()
	tree, err := startSampler(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	self, err := startSelfSampler()
	if err != nil {
		t.Fatal(err)
	}
	// Until the child has used 0.3 CPU-s, however busy the machine is.
	busy := newProcTree(child.Process.Pid)
	for deadline := time.Now().Add(20 * time.Second); ; {
		c, err := busy.cpu()
		if err != nil {
			t.Fatal(err)
		}
		if c.seconds() >= 0.3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("busy child used only %.2f CPU-s in 20 s", c.seconds())
		}
		time.Sleep(50 * time.Millisecond)
	}
	su, err := self.stop()
	if err != nil {
		t.Fatal(err)
	}
	tu, err := tree.stop()
	if err != nil {
		t.Fatal(err)
	}
	if tu.CPUSeconds < 0.25 || su.CPUSeconds > tu.CPUSeconds-0.2 {
		t.Fatalf("self %.2f CPU-s, with children %.2f CPU-s: want the busy child in the tree only", su.CPUSeconds, tu.CPUSeconds)
	}
}
