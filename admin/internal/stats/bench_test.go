package stats_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"kurz/admin/internal/stats"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// BenchmarkLinkStats measures the single-link stats (Summary plus
// Freshness, what GET /api/url/:id runs when its kept freshness is older
// than a second) of a link with many clicks.
// KURZ_BENCH_CLICKS sets the number (default 1 000 000; the bench scenario
// runs 10 000 000). Rows are generated server-side with INSERT … SELECT
// from system.numbers, which fires the materialized views on 18.16 like a
// batch insert does: 20 countries, 200 referrer hosts, 8 browsers, 6 OSes,
// 10% bots, a visitor pool of a tenth of the clicks; plus 99 other links
// sharing the table.
func BenchmarkLinkStats(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("KURZ_BENCH_CLICKS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("KURZ_BENCH_CLICKS=%q: want a positive integer", v)
		}
	}
	conn, _ := chtest.New(b)
	ctx := context.Background()
	err := conn.Exec(ctx, `INSERT INTO `+click.Table+` (click_id, ts, kind, target_id, link_id, qr_id, owner_id, class, visitor,
		country, browser, os, device, referrer_host, referrer_category, language)
		SELECT number, toDateTime('2026-01-01 00:00:00', 'UTC') + intDiv(number * 7, 10), 1,
			if(number % 10 < 9, 1, 2 + number % 99) AS t, t, 0, 1, if(number % 10 = 3, 1, 0),
			sipHash64(number % `+strconv.Itoa(max(n/10, 1))+`),
			arrayElement(['DE','US','FR','GB','IT','ES','NL','PL','SE','CH','AT','BE','DK','NO','FI','IE','PT','CZ','JP','BR'], 1 + number % 20),
			arrayElement(['Chrome','Firefox','Safari','Edge','Opera','Samsung Internet','Brave','Other'], 1 + number % 8),
			arrayElement(['Windows','MacOS','Linux','iOS','Android','Other'], 1 + number % 6),
			'desktop', concat('site', toString(number % 200), '.example'), number % 8, 'en'
		FROM system.numbers LIMIT ?`, uint64(n))
	if err != nil {
		b.Fatal(err)
	}
	svc := stats.New(conn)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sum, err := svc.Summary(ctx, click.KindLink, 1)
		if err != nil {
			b.Fatal(err)
		}
		if sum.Clicks == 0 || len(sum.Referrers) != stats.TopN {
			b.Fatalf("summary = %+v", sum)
		}
		if _, err := svc.Freshness(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
