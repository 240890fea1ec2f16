package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"kurz/shared/chstore/chtest"
	"kurz/shared/config"
	"kurz/shared/pgstore/pgtest"
)

// TestPriceImport runs `admin price import` in-process against real
// databases: exit codes, the stderr report of bad rows, and what landed.
func TestPriceImport(t *testing.T) {
	st, pgDSN := pgtest.Store(t)
	ch, chDSN := chtest.New(t)
	cfg := &config.Config{DatabaseURL: pgDSN, ClickHouseURL: chDSN}
	ctx := context.Background()
	steps := []struct {
		args     []string
		code     int
		stdout   string
		stderr   []string // lines, in order
		wantSyms map[string]string
	}{
		{[]string{"import", "testdata/prices_good.csv"}, 0, "3 ticks loaded (2 quotes updated), 0 rows rejected", nil,
			map[string]string{"AAPL": "189.25", "MSFT": "415.100"}},
		// Idempotent: the same file again changes no quote.
		{[]string{"import", "testdata/prices_good.csv"}, 0, "3 ticks loaded (0 quotes updated), 0 rows rejected", nil,
			map[string]string{"AAPL": "189.25"}},
		{[]string{"import", "testdata/prices_bad.csv"}, 1, "1 ticks loaded (1 quotes updated), 2 rows rejected", []string{
			"testdata/prices_bad.csv:3: price: must be a decimal number greater than 0",
			"testdata/prices_bad.csv:4: timestamp: must be an RFC 3339 time",
		}, map[string]string{"AAPL": "190.00"}},
		// JSON lines detected by content; the older MSFT tick loads as
		// history but does not move the quote back.
		{[]string{"import", "testdata/prices_bad.ticks"}, 1, "2 ticks loaded (1 quotes updated), 1 rows rejected", []string{
			"testdata/prices_bad.ticks:3: currency: required",
		}, map[string]string{"MSFT": "416"}},
		{[]string{"import", "testdata/missing.csv"}, 1, "", []string{"price import: open testdata/missing.csv: no such file"}, nil},
		{[]string{"import"}, 2, "", []string{"usage: admin price import FILE"}, nil},
		{[]string{"export", "x"}, 2, "", []string{"usage: admin price import FILE"}, nil},
	}
	for _, s := range steps {
		var stdout, stderr bytes.Buffer
		code := priceCmd(ctx, cfg, s.args, &stdout, &stderr)
		name := strings.Join(s.args, " ")
		if code != s.code {
			t.Errorf("%s: exit %d, want %d; stderr %s", name, code, s.code, stderr.String())
		}
		if strings.TrimSpace(stdout.String()) != s.stdout {
			t.Errorf("%s: stdout %q, want %q", name, stdout.String(), s.stdout)
		}
		lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
		if len(s.stderr) == 0 && stderr.Len() > 0 || len(s.stderr) > 0 && len(lines) != len(s.stderr) {
			t.Errorf("%s: stderr %q, want %d lines", name, stderr.String(), len(s.stderr))
		} else {
			for i, want := range s.stderr {
				if !strings.HasPrefix(lines[i], want) {
					t.Errorf("%s: stderr line %d = %q, want prefix %q", name, i+1, lines[i], want)
				}
			}
		}
		for sym, price := range s.wantSyms {
			q, err := st.Quote(ctx, sym)
			if err != nil || q.Price != price {
				t.Errorf("%s: quote %s = %+v, %v; want %s", name, sym, q, err, price)
			}
		}
	}
	var n uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM price_ticks WHERE source = 'import'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3+3+1+2 {
		t.Errorf("price_ticks holds %d imported ticks, want 9", n)
	}
}
