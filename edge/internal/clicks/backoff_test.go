package clicks

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// refusingConn is a real ClickHouse connection that, while refuse is set,
// sends click inserts through a second connection to the same database
// opened with readonly=1: ping and selects work, and the server itself
// refuses the inserts ("Cannot insert into table in readonly mode"), as a
// read-only server, one out of disk or one with too many parts does. It
// records when each click insert was attempted.
type refusingConn struct {
	driver.Conn // the writable connection
	ro          driver.Conn
	refuse      atomic.Bool

	mu       sync.Mutex
	attempts []time.Time
}

func (c *refusingConn) PrepareBatch(ctx context.Context, query string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	if query == click.InsertSQL {
		c.mu.Lock()
		c.attempts = append(c.attempts, time.Now())
		c.mu.Unlock()
	}
	if c.refuse.Load() {
		return c.ro.PrepareBatch(ctx, query, opts...)
	}
	return c.Conn.PrepareBatch(ctx, query, opts...)
}

func (c *refusingConn) insertAttempts() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.attempts...)
}

// newRefusingConn connects to a fresh test database twice, the second time
// read-only, and checks that the server does refuse inserts there.
func newRefusingConn(t *testing.T) *refusingConn {
	t.Helper()
	conn, dsn := chtest.New(t)
	ctx := context.Background()
	ro, err := chstore.Open(ctx, dsn+"?readonly=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	rows := rowsAt(1, 1)
	var blk click.Block
	if err := chstore.InsertRows(ctx, ro, &blk, rows, chstore.Chunking{}); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Fatalf("insert through the readonly connection: %v, want a readonly refusal", err)
	}
	if err := ro.Ping(ctx); err != nil {
		t.Fatalf("ping through the readonly connection: %v", err)
	}
	c := &refusingConn{Conn: conn, ro: ro}
	c.refuse.Store(true)
	return c
}

// logCounter counts the records at Warn and above; it passes everything on
// to next.
type logCounter struct {
	slog.Handler
	warns *atomic.Int64
}

func (h logCounter) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		h.warns.Add(1)
	}
	return h.Handler.Handle(ctx, r)
}

func (h logCounter) WithAttrs(as []slog.Attr) slog.Handler {
	return logCounter{h.Handler.WithAttrs(as), h.warns}
}

func (h logCounter) WithGroup(name string) slog.Handler {
	return logCounter{h.Handler.WithGroup(name), h.warns}
}

// TestReplayBacksOffWhileInsertsAreRefused: ClickHouse answers ping but
// refuses every insert. The replayer must not re-read and re-send the
// spool in a loop: its attempts thin out exponentially (each gap at least
// as long as the one before, a handful in 3 s), its complaints are
// throttled, and once the server takes inserts again everything spooled
// arrives exactly once.
func TestReplayBacksOffWhileInsertsAreRefused(t *testing.T) {
	conn := newRefusingConn(t)
	dir := t.TempDir()
	writeSegments(t, dir, false, rowsAt(1, 100), rowsAt(1001, 100))
	var warns atomic.Int64
	log := slog.New(logCounter{testLogger(t).Handler(), &warns})
	p := start(t, Config{Conn: conn, SpoolDir: dir, FlushInterval: 50 * time.Millisecond, Logger: log})
	pushN(t, p, 50) // live clicks while refused: spooled, not lost

	const window = 3 * time.Second
	time.Sleep(window)
	attempts := conn.insertAttempts()
	// Backoff from 100 ms, doubling: about 6 attempts in 3 s. Without it
	// the replayer retried as fast as ClickHouse answered: thousands.
	if len(attempts) < 3 || len(attempts) > 9 {
		t.Fatalf("%d insert attempts in %s, want 3..9 (exponential backoff)", len(attempts), window)
	}
	for i := 2; i < len(attempts); i++ {
		prev, gap := attempts[i-1].Sub(attempts[i-2]), attempts[i].Sub(attempts[i-1])
		if gap < prev*8/10 {
			t.Fatalf("attempt gaps shrink: %v then %v (all: %v)", prev, gap, gaps(attempts))
		}
	}
	if last := attempts[len(attempts)-1].Sub(attempts[len(attempts)-2]); last < 400*time.Millisecond {
		t.Fatalf("last gap %v: the backoff does not grow (gaps %v)", last, gaps(attempts))
	}
	if n := warns.Load(); n > 3 {
		t.Fatalf("%d warnings in %s of refused inserts, want at most 3 (throttled)", n, window)
	}
	st := p.Stats()
	if !st.ClickHouseDown || st.ReplayFailures < uint64(len(attempts)-1) || st.Inserted != 0 {
		t.Fatalf("stats while refused: %+v", st)
	}

	conn.refuse.Store(false)
	// The next attempt comes within the current backoff (below 5 s here).
	waitRows(t, conn, 250, 15*time.Second)
	// The replayer removes a segment before it marks ClickHouse up again:
	// wait for both, not for the first.
	waitFor(t, 5*time.Second, "an empty spool and ClickHouse up", func() bool {
		st := p.Stats()
		return st.SpoolSegments == 0 && !st.ClickHouseDown
	})
	if st := p.Stats(); st.ClickHouseDown || st.Dropped != 0 {
		t.Fatalf("stats after recovery: %+v", st)
	}
}

func gaps(ts []time.Time) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(ts); i++ {
		out = append(out, ts[i].Sub(ts[i-1]).Round(time.Millisecond))
	}
	return out
}
