package chstore_test

import (
	"context"
	"strings"
	"testing"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
)

// TestViewChainingProbe: the probe finds the chain this server runs (the
// test servers are 18.16: views on the view; later releases: views on
// its target) and leaves no table behind.
func TestViewChainingProbe(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	chain, err := chstore.CheckViewChaining(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	var version string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	want := "target"
	if strings.HasPrefix(version, "18.") {
		want = "view"
	}
	if chain != want {
		t.Errorf("ClickHouse %s ran the chain through the %s, want the %s", version, chain, want)
	}
	var probes uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name LIKE 'kurz_chain_probe_%'").Scan(&probes); err != nil || probes != 0 {
		t.Fatalf("probe tables left behind: %d (%v)", probes, err)
	}
}

func TestJudgeChaining(t *testing.T) {
	for _, c := range []struct {
		chains []string
		sum    uint64
		want   string
	}{
		{[]string{"view"}, 1, "view"},
		{[]string{"target"}, 1, "target"},
		{nil, 0, ""},                        // neither ran: clicks never counted
		{[]string{"view", "target"}, 2, ""}, // both: counted twice
		{[]string{"view"}, 2, ""},           // one view, the row twice
	} {
		got, err := chstore.JudgeChaining(c.chains, c.sum)
		if got != c.want || (err == nil) != (c.want != "") {
			t.Errorf("judgeChaining(%v, %d) = %q, %v; want %q", c.chains, c.sum, got, err, c.want)
		}
	}
}
