package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"kurz/admin/internal/price"
	"kurz/shared/chstore"
	"kurz/shared/config"
	"kurz/shared/pgstore"
)

const priceUsage = "usage: admin price import FILE   (CSV with header symbol,price,currency,timestamp, or JSON lines)\n"

// priceCmd runs `admin price import FILE`: it loads the file's valid ticks
// (latest quotes in PostgreSQL, every tick in ClickHouse), reports each bad
// row as FILE:LINE: reason on stderr and a summary on stdout. Exit status:
// 0 every row loaded, 1 rows rejected or a store failed, 2 usage.
func priceCmd(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 || args[0] != "import" {
		fmt.Fprint(stderr, priceUsage)
		return 2
	}
	name := args[1]
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintf(stderr, "price import: %v\n", err)
		return 1
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		fmt.Fprintf(stderr, "price import: %v\n", err)
		return 1
	}
	format := price.DetectFormat(name, head[:n])

	st, err := pgstore.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		fmt.Fprintf(stderr, "price import: %v\n", err)
		return 1
	}
	defer st.Close()
	ch, err := chstore.OpenCluster(ctx, cfg.ClickHouseURL, clickHouseCluster(cfg))
	if err != nil {
		fmt.Fprintf(stderr, "price import: %v\n", err)
		return 1
	}
	defer ch.Close()
	svc, err := price.NewService(st, ch, price.Options{MaxSymbols: 1000})
	if err != nil {
		fmt.Fprintf(stderr, "price import: %v\n", err)
		return 1
	}
	defer svc.Close()

	stats, err := svc.Import(ctx, f, format, func(line int, err error) {
		fmt.Fprintf(stderr, "%s:%d: %v\n", name, line, err)
	})
	fmt.Fprintf(stdout, "%d ticks loaded (%d quotes updated), %d rows rejected\n", stats.Loaded, stats.Changed, stats.Rejected)
	if err != nil {
		fmt.Fprintf(stderr, "price import: %s: %v\n", name, err)
		return 1
	}
	if stats.Rejected > 0 {
		return 1
	}
	return 0
}
