// Command edge is kurz's redirect server: `edge` and `edge serve` both run
// it. Configuration comes from KURZ_* environment variables (README.md).
package main

import (
	"fmt"
	"io"
	"os"

	"kurz/shared/config"
	"kurz/shared/obs"
)

const usage = `usage: edge [serve]
       edge --version
       edge probe URL

Serves short links on KURZ_EDGE_ADDR until SIGINT or SIGTERM. --version
prints the build; probe GETs URL and exits 0 on a 200 answer (the
container image's health check).
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if code, ok := obs.Builtin("edge", args, stdout, stderr); ok {
		return code
	}
	if len(args) > 1 || len(args) == 1 && args[0] != "serve" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "config: %v\n", err)
		return 2
	}
	log := obs.NewLogger(cfg.LogLevel)
	ctx, stop := obs.SignalContext()
	defer stop()
	if err := serve(ctx, cfg, log); err != nil {
		log.Error("edge failed", "err", err)
		return 1
	}
	return 0
}
