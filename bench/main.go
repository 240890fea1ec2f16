// Command bench is kurz's load-test harness: it seeds a realistic link
// population, drives the edge with a Zipf-distributed alias mix over
// keep-alive connections (closed or open loop, no coordinated omission),
// checks that every counted redirect became a ClickHouse row, compares
// against nginx and wrk on the same machine, and writes the reports that
// `make bench` collects in .run/bench-results/latest.md (`make bench-record`
// keeps a reference copy in bench/results/). See bench/README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: bench <command> [flags]

commands:
  seed     create the link population (admin API or PostgreSQL COPY) and write the alias file
  run      drive a target (closed loop or open loop), optionally against nginx and wrk too
  sweep    open-loop runs at increasing rates; writes an SVG latency/throughput chart
  stats    stats-latency scenario: N synthetic clicks for one link, then GET /api/url/:id
  ingest   click-ingest scenario: enrich + batch-insert clicks into ClickHouse
  dashboard  dashboard scenario: spread N clicks over an owner's links, then time the pages
  report   turn the JSON results of a 'make bench' run into latest.md (.run/bench-results/)
  bare-server  a bare fasthttp map+302 server (what 'run --compare-bare' starts)

'bench <command> -h' lists the command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmds := map[string]func(context.Context, []string, io.Writer) error{
		"seed":      seedCmd,
		"run":       runCmd,
		"sweep":     sweepCmd,
		"stats":     statsCmd,
		"ingest":    ingestCmd,
		"dashboard": dashboardCmd,
		"report":    reportCmd,
		// bare-server is started by 'run --compare-bare'.
		"bare-server": bareServerCmd,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if err := cmd(ctx, args[1:], stdout); err != nil {
		fmt.Fprintf(stderr, "bench %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
