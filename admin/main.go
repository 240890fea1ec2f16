// Command admin runs kurz's admin process and its operator commands:
//
//	admin migrate                 apply PostgreSQL and ClickHouse migrations
//	admin serve                   serve the link management and price APIs
//	admin user create --email E --username U [--password P] [--plan NAME]
//	                  [--rate-limit N] [--expires 'YYYY-MM-DD HH:MM:SS'] [--admin]
//	admin price import FILE       load price ticks (CSV or JSON lines)
//
// Configuration comes from KURZ_* environment variables (see README.md).
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"kurz/shared/config"
	"kurz/shared/obs"
)

const usage = `usage: admin <command> [flags]

commands:
  migrate        apply all PostgreSQL and ClickHouse migrations (idempotent)
  serve          run the admin API (KURZ_ADMIN_ADDR) and price API (also KURZ_PRICE_ADDR)
  user create    create a user and print its API key as one JSON line
  price import FILE
                 load price ticks from a CSV (header symbol,price,currency,timestamp)
                 or JSON-lines file; bad rows are listed on stderr (exit 1)
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
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
	switch args[0] {
	case "migrate":
		err = migrate(ctx, cfg, log)
	case "serve":
		err = serve(ctx, cfg, log)
	case "user":
		if len(args) < 2 || args[1] != "create" {
			fmt.Fprint(stderr, "usage: admin user create --email E --username U [flags]\n")
			return 2
		}
		return userCreate(ctx, cfg, args[2:], stdout, stderr)
	case "price":
		return priceCmd(ctx, cfg, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err != nil && err != context.Canceled {
		fmt.Fprintf(stderr, "admin %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
