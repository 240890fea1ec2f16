package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"kurz/shared/secret"
)

// seedPG is the bulk path: one transaction, domains and pixels with plain
// INSERTs, the links with COPY (about 50x faster than the API for 1M
// links), then the link-pixel pairs with one INSERT … SELECT. It writes
// the same rows the admin API would (stored host, alias, targeting JSON,
// argon2id password hash); the links' NOTIFY trigger fires per row, so a
// running edge stays consistent, unless --no-notify turns it off for the
// transaction (for a population no edge has seen yet).
func seedPG(ctx context.Context, c *seedConfig, entries []entry) error {
	conn, err := pgx.Connect(ctx, c.databaseURL)
	if err != nil {
		return fmt.Errorf("connect postgres: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
	domainIDs, err := ensureDomains(ctx, tx, c.userID, c.hosts)
	if err != nil {
		return err
	}
	pixelIDs, err := ensurePixels(ctx, tx, c.userID)
	if err != nil {
		return err
	}
	hash, err := secret.HashPassword(benchPassword)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	if c.noNotify {
		if err := setNotify(ctx, tx, false); err != nil {
			return err
		}
	}
	rows := linkRows(c.userID, entries, domainIDs, hash, time.Now())
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"links"}, []string{
		"user_id", "domain_id", "host", "alias", "custom", "long_url", "password_hash", "expires_at",
		"geo_targets", "device_targets", "lang_targets",
	}, pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("copy links: %w", err)
	}
	if int(n) != len(entries) {
		return fmt.Errorf("copy links: %d of %d rows", n, len(entries))
	}
	if err := linkPixels(ctx, tx, c.userID, entries, pixelIDs); err != nil {
		return err
	}
	if c.noNotify {
		// A committed DISABLE would silence every later change for good.
		if err := setNotify(ctx, tx, true); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit seed: %w", err)
	}
	return nil
}

// setNotify enables or disables the change-notice triggers of the tables
// the seed fills, inside tx. The links' per-row trigger (plpgsql building
// a JSON notice) is a third of a bulk COPY's time: 900k links took 48 s
// with it and 34 s without. link_pixels notifies once per statement
// (migration 0030). ALTER TABLE takes an exclusive lock on the table
// until the commit.
func setNotify(ctx context.Context, tx pgx.Tx, on bool) error {
	verb := "DISABLE"
	if on {
		verb = "ENABLE"
	}
	for _, tr := range [][2]string{{"links", "links_notify"}, {"link_pixels", "link_pixels_notify_insert"}} {
		stmt := "ALTER TABLE " + tr[0] + " " + verb + " TRIGGER " + tr[1]
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("--no-notify: %s: %w", stmt, err)
		}
	}
	return nil
}

func linkRows(userID int64, entries []entry, domainIDs map[string]int64, hash string, now time.Time) [][]any {
	rows := make([][]any, len(entries))
	expired := now.Add(-24 * time.Hour)
	for i, e := range entries {
		s := specFor(i, e.Kind)
		var domainID *int64
		if e.Host != "" {
			id := domainIDs[e.Host]
			domainID = &id
		}
		pw := ""
		if s.Password != "" {
			pw = hash
		}
		var exp *time.Time
		if s.Expired {
			exp = &expired
		}
		rows[i] = []any{userID, domainID, e.Host, e.Alias, true, s.LongURL, pw, exp,
			mustJSON(s.Geo), mustJSON(s.Device), mustJSON(s.Language)}
	}
	return rows
}

func ensureDomains(ctx context.Context, tx pgx.Tx, userID int64, hosts []string) (map[string]int64, error) {
	ids := make(map[string]int64, len(hosts))
	for _, h := range hosts {
		var id int64
		err := tx.QueryRow(ctx, `INSERT INTO domains (user_id, host, domain) VALUES ($1, $2, $3)
			ON CONFLICT (host) DO UPDATE SET host = EXCLUDED.host RETURNING id`, userID, h, "https://"+h).Scan(&id)
		if err != nil {
			return nil, fmt.Errorf("insert domain %s: %w", h, err)
		}
		ids[h] = id
	}
	return ids, nil
}

func ensurePixels(ctx context.Context, tx pgx.Tx, userID int64) ([]int64, error) {
	var ids []int64
	for _, p := range [][2]string{{"analyticspixel", "G-BENCH12345"}, {"socialnetworkpixel", "123456789012345"}} {
		var id int64
		err := tx.QueryRow(ctx, `INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, $2, $3, $4) RETURNING id`,
			userID, p[0], "bench "+p[0], p[1]).Scan(&id)
		if err != nil {
			return nil, fmt.Errorf("insert pixel: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func linkPixels(ctx context.Context, tx pgx.Tx, userID int64, entries []entry, pixelIDs []int64) error {
	var hosts, aliases []string
	for _, e := range entries {
		if e.Kind == KindPixel {
			hosts = append(hosts, e.Host)
			aliases = append(aliases, e.Alias)
		}
	}
	if len(aliases) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO link_pixels (link_id, pixel_id)
		SELECT l.id, p.id FROM unnest($2::text[], $3::text[]) AS x(host, alias)
		JOIN links l ON l.host = x.host AND l.alias = x.alias AND l.user_id = $1
		CROSS JOIN unnest($4::bigint[]) AS p(id)`, userID, hosts, aliases, pixelIDs)
	if err != nil {
		return fmt.Errorf("insert link pixels: %w", err)
	}
	return nil
}
