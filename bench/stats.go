package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"golang.org/x/sync/errgroup"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// statsReport is the stats-latency scenario's result.
type statsReport struct {
	LinkID     int64   `json:"link_id"`
	ClicksInCH int64   `json:"clicks_in_clickhouse"`
	Inserted   int64   `json:"inserted"`
	InsertSecs float64 `json:"insert_seconds"`
	// Settle is the wait for ClickHouse's background merges of the insert
	// (--settle) before timing.
	Settle      settleWait      `json:"settle"`
	Requests    int             `json:"requests"`
	Latency     *latencySummary `json:"latency"`
	APIClicks   int64           `json:"api_clicks"`
	HumanClicks int64           `json:"human_clicks"`
	CountsAgree bool            `json:"counts_agree"`
	// ViewHumans is the human count in click_totals (the materialized
	// view the API should read): it must equal HumanClicks.
	ViewHumans int64 `json:"view_humans"`
	// List compares the list's clicks with the single-link answer's.
	List *listCheck `json:"list,omitempty"`
}

func statsCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	admin := fs.String("admin", "http://127.0.0.1:8081", "admin API base URL")
	key := fs.String("key", "", "API key of the link's owner")
	linkID := fs.Int64("link-id", 0, "link whose stats are read")
	owner := fs.Int64("owner-id", 0, "the link's owner (users.id)")
	dsn := fs.String("clickhouse", "", "ClickHouse DSN the synthetic clicks go to")
	clicks := fs.Int64("clicks", 10_000_000, "clicks the link must have in ClickHouse (inserted when missing)")
	requests := fs.Int("requests", 200, "GET /api/url/:id requests to time (sequential)")
	settle := fs.Duration("settle", 90*time.Second, "after inserting, wait up to this long for ClickHouse's background merges to finish before timing: a link holds 10M clicks for months, the minute after a 10M-row burst is not its typical state (0 = time at once)")
	maxTime := fs.Duration("max-time", 20*time.Second, "stop timing after this long if at least 50 requests were timed (a slow API must not stall make bench)")
	listLinks := fs.Int("list-links", 100, "after timing, compare the clicks of this many links of GET /api/urls?order=click with GET /api/url/:id (1-100; 0 = skip)")
	jsonOut := fs.String("json", "", "write the result as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *linkID <= 0 || *owner <= 0 || *dsn == "" || *key == "" {
		return errors.New("--link-id, --owner-id, --clickhouse and --key are required")
	}
	ch, err := chstore.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer ch.Close()
	rep := &statsReport{LinkID: *linkID, Requests: *requests}
	have, err := linkClickRows(ctx, ch, *linkID)
	if err != nil {
		return err
	}
	if missing := *clicks - have; missing > 0 {
		start := time.Now()
		if err := insertSyntheticClicks(ctx, ch, *linkID, *owner, missing, time.Now()); err != nil {
			return err
		}
		rep.Inserted, rep.InsertSecs = missing, time.Since(start).Seconds()
		if rep.Settle, err = settleMerges(ctx, ch, *settle); err != nil {
			return err
		}
	}
	if rep.ClicksInCH, err = linkClickRows(ctx, ch, *linkID); err != nil {
		return err
	}
	var humans uint64
	if err := ch.QueryRow(ctx, `SELECT count() FROM `+click.RawSource+` WHERE kind = 'link' AND target_id = ? AND class = 'human'`, uint64(*linkID)).Scan(&humans); err != nil {
		return fmt.Errorf("count human clicks: %w", err)
	}
	rep.HumanClicks = int64(humans)
	var viewHumans uint64
	if err := ch.QueryRow(ctx, `SELECT countIfMerge(humans) FROM click_totals WHERE kind = 'link' AND target_id = ?`, uint64(*linkID)).Scan(&viewHumans); err != nil {
		return fmt.Errorf("count human clicks in click_totals: %w", err)
	}
	rep.ViewHumans = int64(viewHumans)
	if rep.ViewHumans != rep.HumanClicks {
		return fmt.Errorf("click_totals holds %d human clicks for link %d, clicks %d: the materialized view did not fire for every insert", rep.ViewHumans, *linkID, rep.HumanClicks)
	}
	api := newAPIClient(*admin, *key, 1)
	h := newHist()
	path := "/api/url/" + strconv.FormatInt(*linkID, 10)
	timed := time.Now()
	for i := -3; i < *requests; i++ { // 3 unmeasured warm-up calls
		if i == 0 {
			timed = time.Now()
		}
		if i >= 50 && time.Since(timed) > *maxTime {
			rep.Requests = i
			break
		}
		var body struct {
			Data struct {
				Clicks json.Number `json:"clicks"`
			} `json:"data"`
		}
		t0 := time.Now()
		if err := api.call(ctx, http.MethodGet, path, nil, &body); err != nil {
			return err
		}
		if i >= 0 {
			h.RecordValue(max(time.Since(t0).Microseconds(), 1)) //nolint:errcheck // clamps at 60 s
		}
		rep.APIClicks, _ = body.Data.Clicks.Int64()
	}
	rep.Latency = summarize(h)
	rep.CountsAgree = rep.APIClicks == rep.HumanClicks
	if *listLinks > 0 {
		// A failed check is a result (a miss in latest.md), not a reason
		// to lose the latency numbers.
		if rep.List, err = checkListClicks(ctx, api, *listLinks, *linkID); err != nil {
			rep.List = &listCheck{Note: err.Error()}
		}
	}
	fmt.Fprintf(stdout, "== stats: GET %s with %d clicks in ClickHouse (%d human; click_totals agrees)\n", path, rep.ClicksInCH, rep.HumanClicks)
	if rep.Inserted > 0 {
		fmt.Fprintf(stdout, "  inserted     %d synthetic clicks in %.1f s; %s\n", rep.Inserted, rep.InsertSecs, rep.Settle.note("the insert"))
	}
	l := rep.Latency
	fmt.Fprintf(stdout, "  latency      p50 %s  p90 %s  p99 %s  p99.9 %s  max %s (%d sequential requests)\n", msf(l.P50), msf(l.P90), msf(l.P99), msf(l.P999), msf(l.Max), rep.Requests)
	fmt.Fprintf(stdout, "  data.clicks  %d (ClickHouse humans %d): agree=%v\n", rep.APIClicks, rep.HumanClicks, rep.CountsAgree)
	if c := rep.List; c != nil {
		fmt.Fprintf(stdout, "  list clicks  %s: ok=%v\n", c.summary(), c.OK)
	}
	if *jsonOut != "" {
		return writeJSON(*jsonOut, rep)
	}
	return nil
}

func linkClickRows(ctx context.Context, ch driver.Conn, linkID int64) (int64, error) {
	var n uint64
	if err := ch.QueryRow(ctx, `SELECT count() FROM `+click.RawSource+` WHERE kind = 'link' AND target_id = ?`, uint64(linkID)).Scan(&n); err != nil {
		return 0, fmt.Errorf("count link clicks: %w", err)
	}
	return int64(n), nil
}

// insertSyntheticClicks writes n clicks for one link with one INSERT …
// SELECT FROM numbers(n): the server generates the rows (about 1M rows/s
// on 18.16 including the materialized views), so 10M clicks take seconds
// instead of minutes of client-side batches. The mix is realistic enough
// for the aggregates: 2% bots, 1% previews, 200k distinct visitors, spread
// over the last 30 days, 8 countries, 4 browsers, 4 OSes, 5 referrers.
func insertSyntheticClicks(ctx context.Context, ch driver.Conn, linkID, owner, n int64, now time.Time) error {
	q := `INSERT INTO ` + click.Table + ` (click_id, ts, kind, target_id, link_id, qr_id, owner_id, class, visitor,
		country, browser, os, device, referrer_host, referrer_category, language)
	SELECT rand64(), toDateTime(?) - (number % 2592000), 1, ?, ?, 0, ?,
		multiIf(number % 50 = 0, 1, number % 100 = 1, 2, 0),
		cityHash64(number % 200000),
		['US','DE','GB','FR','BR','IN','ES','JP'][number % 8 + 1],
		['Chrome','Safari','Firefox','Edge'][number % 4 + 1],
		['Windows','iOS','Android','MacOS'][number % 4 + 1],
		['desktop','mobile','mobile','desktop'][number % 4 + 1],
		['','facebook.com','t.co','google.com','linkedin.com'][number % 5 + 1],
		[0, 2, 3, 4, 2][number % 5 + 1],
		['en','de','fr','es'][number % 4 + 1]
	FROM numbers(?)`
	// Chunks of 1M rows keep each statement well inside the driver's read
	// timeout (one 10M-row INSERT with the views outlasts it on 2 cores);
	// two statements at a time keep both cores of the server busy.
	const chunk = 1_000_000
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for done := int64(0); done < n; done += chunk {
		c := min(n-done, chunk)
		g.Go(func() error {
			if err := ch.Exec(gctx, q, now.Unix(), uint64(linkID), uint64(linkID), uint64(owner), uint64(c)); err != nil {
				return fmt.Errorf("insert synthetic clicks %d-%d of %d: %w", done, done+c, n, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return nil
}

// settleWait is how a wait for merges ended.
type settleWait struct {
	Waited  bool    `json:"waited"`  // false: --settle 0
	Settled bool    `json:"settled"` // false: merges still ran at the limit
	Secs    float64 `json:"seconds"`
}

// settleMerges waits for a quiet stretch of merges (waitMerges, mergesQuiet)
// at most limit; limit <= 0 waits for nothing.
func settleMerges(ctx context.Context, ch driver.Conn, limit time.Duration) (settleWait, error) {
	if limit <= 0 {
		return settleWait{}, nil
	}
	t := time.Now()
	settled, err := waitMerges(ctx, ch, mergesQuiet, limit)
	return settleWait{Waited: true, Settled: settled, Secs: time.Since(t).Seconds()}, err
}

// note says how the wait for merges that began since (the insert, …)
// ended. Merges are polled every 250 ms: one shorter than that can slip
// between two polls.
func (w settleWait) note(since string) string {
	switch {
	case !w.Waited:
		return "no wait for merges"
	case w.Settled:
		return fmt.Sprintf("no poll saw a merge from %.1f s after %s on, for %.0f s", max(0, w.Secs-mergesQuiet.Seconds()), since, mergesQuiet.Seconds())
	default:
		return fmt.Sprintf("merges still ran %.0f s after %s, when the wait ended", w.Secs, since)
	}
}

// mergesQuiet is how long no merge may run before the database counts as
// settled: a single look can fall between two merges of a wave (merges
// start as parts appear and as earlier merges end), and then the timing
// would run among the rest of the wave.
const mergesQuiet = 2 * time.Second

// waitMerges waits until no merge has run in the current database for
// quiet (polled every 250 ms; quiet 0: until one poll sees none), at most
// limit. It reports whether the database settled within limit.
func waitMerges(ctx context.Context, ch driver.Conn, quiet, limit time.Duration) (bool, error) {
	deadline := time.Now().Add(limit)
	var quietSince time.Time
	for {
		var n uint64
		if err := ch.QueryRow(ctx, `SELECT count() FROM system.merges WHERE database = currentDatabase()`).Scan(&n); err != nil {
			return false, fmt.Errorf("wait for merges: %w", err)
		}
		now := time.Now()
		switch {
		case n > 0:
			quietSince = time.Time{}
		case quietSince.IsZero():
			quietSince = now
		}
		if !quietSince.IsZero() && now.Sub(quietSince) >= quiet {
			return true, nil
		}
		if now.After(deadline) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
