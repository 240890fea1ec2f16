package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// The bare server is the framework's own ceiling: fasthttp with a Go-map
// lookup of the path and a 302, nothing else (the anchor of issue 7).
// Measured beside nginx and kurz in one run, it splits the gap between
// kurz and nginx into what fasthttp and the Go runtime cost and what kurz's
// own work costs (cache, rules, click hand-off, ClickHouse on the same
// cores).

// bareProcs is the bare server's GOMAXPROCS, the edge's in `make bench`
// (its GODEBUG comes from --bare-godebug).
const bareProcs = "1"

// bareServerCmd serves the aliases of --aliases at --addr until ctx ends.
func bareServerCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bare-server", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (loopback)")
	aliases := fs.String("aliases", "aliases.tsv", "alias file written by 'bench seed'")
	if err := fs.Parse(args); err != nil {
		return err
	}
	pop, err := loadPopulation(*aliases)
	if err != nil {
		return err
	}
	paths := make(map[string]struct{}, len(pop.Entries))
	for _, e := range pop.Entries {
		paths["/"+e.Alias] = struct{}{}
	}
	location := []byte("https://example.com/")
	handler := func(ctx *fasthttp.RequestCtx) {
		if _, ok := paths[string(ctx.Path())]; !ok {
			ctx.SetStatusCode(fasthttp.StatusNotFound)
			return
		}
		ctx.SetStatusCode(fasthttp.StatusFound)
		ctx.Response.Header.SetBytesV("Location", location)
		ctx.Response.Header.Set("Cache-Control", "no-store")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	s := &fasthttp.Server{Handler: handler, NoDefaultServerHeader: true, NoDefaultContentType: true}
	go func() {
		<-ctx.Done()
		s.Shutdown() //nolint:errcheck // ends Serve
	}()
	fmt.Fprintf(stdout, "bare server on %s (%d paths)\n", ln.Addr(), len(paths))
	return s.Serve(ln)
}

// bareServer is a bare server child process started for one run.
type bareServer struct {
	addr string
	cmd  *exec.Cmd
}

// startBare starts this binary's bare-server command on a free loopback
// port with GOMAXPROCS=bareProcs and GODEBUG=godebug.
func startBare(ctx context.Context, aliases, godebug string) (*bareServer, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("bare server: %w", err)
	}
	if aliases, err = filepath.Abs(aliases); err != nil {
		return nil, fmt.Errorf("bare server: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(self, "bare-server", "--addr", addr, "--aliases", aliases)
	// exec uses the last value of a duplicated key.
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+bareProcs, "GODEBUG="+godebug)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start bare server: %w", err)
	}
	b := &bareServer{addr: addr, cmd: cmd}
	if err := waitListening(ctx, addr, 10*time.Second); err != nil {
		b.stop()
		return nil, fmt.Errorf("bare server did not start: %w", err)
	}
	return b, nil
}

func (b *bareServer) pid() int { return b.cmd.Process.Pid }

// stop ends the child (SIGTERM, then SIGKILL after 5 s).
func (b *bareServer) stop() { stopChild(b.cmd, syscall.SIGTERM) }

// compareBare runs the same load against the bare server and records
// kurz/bare and, when nginx ran too, bare/nginx.
func compareBare(ctx context.Context, o *runOptions, kurz, nginx *runReport, out *runFile, stdout io.Writer) error {
	b, err := startBare(ctx, o.aliases, o.bareGODEBUG)
	if err != nil {
		return err
	}
	defer b.stop()
	cfg := o.load
	cfg.Addr, cfg.DefaultHost = b.addr, ""
	br, err := measure(ctx, o, o.name+" (bare fasthttp)", "fasthttp map+302 "+b.addr, &cfg, b.pid(), nil, nil)
	if err != nil {
		return err
	}
	br.writeTable(stdout)
	out.Runs = append(out.Runs, br)
	if br.ReqPerCPUSec <= 0 {
		return errors.New("bare server: no CPU time measured")
	}
	out.Ratios["per_cpu_second_kurz_over_bare"] = kurz.ReqPerCPUSec / br.ReqPerCPUSec
	fmt.Fprintf(stdout, "== kurz/bare fasthttp: requests per server-CPU-second %.2f×", out.Ratios["per_cpu_second_kurz_over_bare"])
	if nginx != nil && nginx.ReqPerCPUSec > 0 {
		out.Ratios["per_cpu_second_bare_over_nginx"] = br.ReqPerCPUSec / nginx.ReqPerCPUSec
		fmt.Fprintf(stdout, "; bare fasthttp/nginx %.2f×", out.Ratios["per_cpu_second_bare_over_nginx"])
	}
	fmt.Fprintln(stdout)
	return nil
}
