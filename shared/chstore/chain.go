package chstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// checkViewChaining proves on scratch tables that a chain of materialized
// views shaped like click_events' (migration 0011) counts a row exactly
// once on this server: a view feeding a Null table, with one second-level
// view selecting FROM that view (ClickHouse 18.16 runs this one) and one
// FROM its target table (19.x and later run that one). If a release ran
// both or neither, every click would be counted twice or not at all, so
// Migrate fails instead.
//
// It returns which chain ran: "view" (18.16) or "target" (later releases).
func checkViewChaining(ctx context.Context, conn driver.Conn) (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("view chaining probe: %w", err)
	}
	// A name of its own per run: concurrent migrators must not share it.
	p := "kurz_chain_probe_" + hex.EncodeToString(b[:]) + "_"
	names := []string{p + "via_view", p + "via_target", p + "first", p + "dst", p + "mid", p + "src"}
	defer func() {
		// A fresh context: the probe's tables go even when ctx has ended.
		for _, n := range names {
			_ = conn.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+n)
		}
	}()
	// Each second-level view writes the name of its chain into dst.
	stmts := []string{
		"CREATE TABLE " + p + "src (x UInt8) ENGINE = Null",
		"CREATE TABLE " + p + "mid (x UInt8, n UInt64) ENGINE = Null",
		"CREATE TABLE " + p + "dst (n UInt64, chain String) ENGINE = Memory",
		"CREATE MATERIALIZED VIEW " + p + "via_target TO " + p + "dst AS SELECT n, 'target' AS chain FROM " + p + "mid",
		"CREATE MATERIALIZED VIEW " + p + "first TO " + p + "mid AS SELECT x, count() AS n FROM " + p + "src GROUP BY x",
		"CREATE MATERIALIZED VIEW " + p + "via_view TO " + p + "dst AS SELECT n, 'view' AS chain FROM " + p + "first",
		"INSERT INTO " + p + "src (x) SELECT 1",
	}
	for _, s := range stmts {
		if err := conn.Exec(ctx, s); err != nil {
			return "", fmt.Errorf("view chaining probe: %w", err)
		}
	}
	var chains []string
	var sum uint64
	if err := conn.QueryRow(ctx, "SELECT groupArray(chain), sum(n) FROM "+p+"dst").Scan(&chains, &sum); err != nil {
		return "", fmt.Errorf("view chaining probe: %w", err)
	}
	return judgeChaining(chains, sum)
}

// judgeChaining accepts exactly one chain that passed on the one row.
func judgeChaining(chains []string, sum uint64) (string, error) {
	if len(chains) != 1 || sum != 1 {
		return "", fmt.Errorf("this ClickHouse server ran %d of the two chained views of click_events (0011) for one row (%v): kurz would count clicks %d times", len(chains), chains, len(chains))
	}
	return chains[0], nil
}
