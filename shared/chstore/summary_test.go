package chstore_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/link"
)

// The summary's numbers are tested with the admin's stats service, which
// serves them (admin/internal/stats/summary_test.go); these are the
// contracts the edge's public stats page relies on as well.

func TestReadSummaryNeverVisited(t *testing.T) {
	conn, _ := chtest.New(t)
	s, err := chstore.ReadSummary(context.Background(), conn, click.KindLink, 12345)
	if err != nil {
		t.Fatal(err)
	}
	if s.Clicks != 0 || s.UniqueClicks != 0 || len(s.Countries)+len(s.Referrers)+len(s.Browsers)+len(s.OS) != 0 {
		t.Fatalf("summary of a link nobody visited: %+v", s)
	}
	if _, err := chstore.ReadSummary(context.Background(), conn, click.Kind(99), 1); err == nil {
		t.Fatal("unknown kind accepted")
	}
}

// A ClickHouse that cannot be reached is link.ErrUnavailable (a 503 for
// the API and the stats page), within the caller's deadline.
func TestReadSummaryUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	opts, err := chstore.Options("clickhouse://" + addr + "/default?dial_timeout=500ms")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err = chstore.ReadSummary(ctx, conn, click.KindLink, 1)
	if !errors.Is(err, link.ErrUnavailable) {
		t.Fatalf("err = %v, want link.ErrUnavailable", err)
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Fatalf("took %v", d)
	}
}
