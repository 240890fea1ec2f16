package clicks

import (
	"context"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

var testUAs = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",
}

var testRefs = []string{"", "https://www.google.com/", "https://t.co/abc", "https://l.facebook.com/l.php"}

// testHit returns the i-th synthetic hit: link i%7+1, varied UA, referrer
// and client IP, captured now.
func testHit(i int) click.Hit {
	h := click.Hit{UnixNano: time.Now().UnixNano(), LinkID: int64(i%7 + 1), OwnerID: 1, Kind: click.KindLink, Class: click.ClassHuman}
	h.IP = netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}).As16()
	h.SetUA([]byte(testUAs[i%len(testUAs)]))
	h.SetReferer([]byte(testRefs[i%len(testRefs)]))
	h.SetLang([]byte("de-DE,de;q=0.9"))
	return h
}

func testEnricher(t testing.TB) *click.Enricher {
	t.Helper()
	e, err := click.NewEnricher(click.EnricherConfig{Secret: []byte("test-secret")})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// testLogger logs through t, so a failing test shows the pipeline's log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// start creates a pipeline whose Close is checked at the end of the test
// (Close is idempotent, so tests may close it earlier).
func start(t testing.TB, cfg Config) *Pipeline {
	t.Helper()
	if cfg.Enricher == nil {
		cfg.Enricher = testEnricher(t)
	}
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		closedByTest := p.closed.Load() // the test checked Close's result itself
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil && !closedByTest {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// deadConn is a connection to a port where nothing listens: every call
// fails at once, like a stopped ClickHouse.
func deadConn(t testing.TB) driver.Conn {
	t.Helper()
	conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{"127.0.0.1:1"}, DialTimeout: time.Second, ReadTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// counts returns count() and uniqExact(click_id) of the clicks table.
func counts(t testing.TB, conn driver.Conn) (rows, unique uint64) {
	t.Helper()
	if err := conn.QueryRow(context.Background(), "SELECT count(), uniqExact(click_id) FROM "+click.Table).Scan(&rows, &unique); err != nil {
		t.Fatal(err)
	}
	return rows, unique
}

// waitRows waits until the clicks table holds want rows and fails if it
// holds more, or fewer after timeout.
func waitRows(t testing.TB, conn driver.Conn, want uint64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		rows, unique := counts(t, conn)
		if rows > want || unique != rows {
			t.Fatalf("clicks holds %d rows (%d distinct click ids), want %d exactly once", rows, unique, want)
		}
		if rows == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("clicks holds %d rows after %s, want %d", rows, timeout, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// segmentFiles lists the sealed or open segment files in dir.
func segmentFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"+segSuffix))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// spooledRows counts the rows the segment files in dir hold.
func spooledRows(t testing.TB, dir string) int {
	t.Helper()
	n := 0
	for _, path := range segmentFiles(t, dir) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseSegment(data, nil, func(off int, reason string) { t.Errorf("%s at %d: %s", path, off, reason) })
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		n += len(c.rows)
	}
	return n
}

func pushN(t testing.TB, p *Pipeline, n int) {
	t.Helper()
	pushRange(t, p, 0, n)
}

func pushRange(t testing.TB, p *Pipeline, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		h := testHit(i)
		if !p.TryPush(&h) {
			t.Fatalf("push %d refused: %+v", i, p.Stats())
		}
	}
}

// pushPaced pushes n hits in chunks, waiting for the queue to drain below
// half before each chunk, as a producer limited by HTTP would: a tight loop
// of more hits than queue and overflow buffer hold can outrun the spooler
// on a busy machine, and refusing then is the pipeline working as designed.
func pushPaced(t testing.TB, p *Pipeline, n, queueSize int) {
	t.Helper()
	chunk := queueSize / 4
	for from := 0; from < n; from += chunk {
		waitFor(t, 20*time.Second, "the queue to drain below half", func() bool {
			st := p.Stats()
			return st.Queued+st.Overflowing < queueSize/2
		})
		pushRange(t, p, from, min(from+chunk, n))
	}
}
