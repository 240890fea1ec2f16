// Command admin runs kurz's admin process and its operator commands:
//
//	admin migrate                 apply PostgreSQL and ClickHouse migrations
//	admin serve                   serve the link management and price APIs and the dashboard
//	admin user create --email E --username U [--password P] [--plan NAME]
//	                  [--rate-limit N] [--expires 'YYYY-MM-DD HH:MM:SS'] [--admin]
//	admin user rotate-key --email E   issue a fresh API key for an account
//	admin user reset-password --email E   print a one-time dashboard password link
//	admin invite create [--uses N] [--expires 'YYYY-MM-DD HH:MM:SS']
//	admin price import FILE       load price ticks (CSV or JSON lines)
//	admin geoip convert --v4 GeoIP.dat [--v6 GeoIPv6.dat] --out FILE.mmdb
//	                              legacy GeoIP country files -> the edge's .mmdb
//	admin --version               print the build
//	admin probe URL               exit 0 when URL answers 200 (container health check)
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
                 [--accept-lost-unique-clicks: see docs/operations.md]
  serve          run the admin API and dashboard (KURZ_ADMIN_ADDR; the dashboard alone
                 also on KURZ_DASHBOARD_ADDR) and the price API (also KURZ_PRICE_ADDR)
  user create    create a user and print its API key as one JSON line
  user rotate-key --email E
                 give the account a new API key (the old one stops working)
                 and print it as one JSON line
  user reset-password --email E [--url URL] [--valid 1h]
                 print a one-time link to the dashboard page that sets the
                 account's password (as one JSON line; no mail is sent)
  invite create [--uses N] [--expires 'YYYY-MM-DD HH:MM:SS' | YYYY-MM-DD]
                 make a registration code for KURZ_REGISTRATION=invite
                 (default 1 use, 0 = unlimited) and print it as one JSON line
  price import FILE
                 load price ticks from a CSV (header symbol,price,currency,timestamp)
                 or JSON-lines file; bad rows are listed on stderr (exit 1)
  geoip convert --v4 GeoIP.dat [--v6 GeoIPv6.dat] --out FILE.mmdb
                 turn legacy GeoIP country databases (Debian's geoip-database)
                 into the MaxMind DB the edge reads (KURZ_GEOIP_DB)
  --version      print the build (module version, VCS revision, commit time)
  probe URL      GET URL and exit 0 on a 200 answer (the container image's
                 health check)
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if code, ok := obs.Builtin("admin", args, stdout, stderr); ok {
		return code
	}
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
		err = migrate(ctx, cfg, log, args[1:])
	case "serve":
		err = serve(ctx, cfg, log)
	case "user":
		switch {
		case len(args) >= 2 && args[1] == "create":
			return userCreate(ctx, cfg, args[2:], stdout, stderr)
		case len(args) >= 2 && args[1] == "rotate-key":
			return userRotateKey(ctx, cfg, args[2:], stdout, stderr)
		case len(args) >= 2 && args[1] == "reset-password":
			return userResetPassword(ctx, cfg, args[2:], stdout, stderr)
		}
		fmt.Fprint(stderr, "usage: admin user create --email E --username U [flags]\n       admin user rotate-key --email E\n"+
			"       admin user reset-password --email E\n")
		return 2
	case "invite":
		return inviteCmd(ctx, cfg, args[1:], stdout, stderr)
	case "price":
		return priceCmd(ctx, cfg, args[1:], stdout, stderr)
	case "geoip":
		return geoipCmd(args[1:], stdout, stderr)
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
