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

// samplePrices is the file `make run` imports so that the price URL it
// prints answers.
const samplePrices = "../deploy/local/sample-prices.csv"

// TestSamplePricesImport runs `admin price import` on the committed sample
// file, as make run does: every row loads (exit 0, nothing rejected), and
// the symbol make run prints has a quote.
func TestSamplePricesImport(t *testing.T) {
	st, pgDSN := pgtest.Store(t)
	_, chDSN := chtest.New(t)
	cfg := &config.Config{DatabaseURL: pgDSN, ClickHouseURL: chDSN}
	var stdout, stderr bytes.Buffer
	code := priceCmd(context.Background(), cfg, []string{"import", samplePrices}, &stdout, &stderr)
	if code != 0 || stderr.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if !strings.HasSuffix(strings.TrimSpace(stdout.String()), " 0 rows rejected") {
		t.Errorf("stdout %q", stdout.String())
	}
	for sym, want := range map[string]string{"AAPL": "189.25", "MSFT": "415.100", "XETRA:SAP": "238.55"} {
		q, err := st.Quote(context.Background(), sym)
		if err != nil || q.Price != want {
			t.Errorf("quote %s = %+v, %v; want %s", sym, q, err, want)
		}
	}
}
