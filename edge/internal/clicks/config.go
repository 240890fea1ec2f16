package clicks

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// Config configures a Pipeline.
type Config struct {
	Conn     driver.Conn     // required; see chstore.Open
	Enricher *click.Enricher // required
	SpoolDir string          // required; one per process (KURZ_SPOOL_DIR)

	SpoolMaxBytes int64 // cap of the disk spool; default 1 GiB (KURZ_SPOOL_MAX_BYTES)
	// QuarantineMaxAge is how long unreadable segments, set aside as .bad
	// files, are kept for inspection; default DefaultQuarantineMaxAge.
	QuarantineMaxAge time.Duration
	// FlushInterval is the longest a click waits in a batch; default 5 s
	// (KURZ_CLICK_FLUSH_INTERVAL). ClickHouse's CPU per click follows the
	// inserts, not the rows: every insert runs the materialized views and
	// writes a part per table, merged again later. One insert every 5 s
	// instead of every second cut ClickHouse's CPU per click from 15–17
	// to 8–11 µs (10k uniformly hot links) and from 11.5–12.5 to 9.1–10.4
	// µs (100k links, Zipf) at 45k clicks/s (edge/PERFORMANCE.md, issue
	// 15, seventh session); the price is stats up to ~5 s older.
	FlushInterval time.Duration
	// BatchSize is the most rows per insert; default 200000 (5 s at 40k
	// clicks/s). The worker holds two batches at most, the one being
	// filled and the one being sent: ~30 MB each at this size.
	BatchSize int
	// QueueSize is the number of hits buffered in memory; default 16384
	// (~11 MB, a Hit is ~690 bytes). The worker drains it every couple of
	// milliseconds, also while a batch is being sent, so it only has to
	// cover a burst, or a full batch waiting for the one before it: 16384
	// hits are 0.4 s at 40k req/s, and what does not fit goes through the
	// overflow buffer to the disk spool, not lost. 65536 hits cost 45 MB,
	// 8% of the edge's RSS with 1M links cached.
	QueueSize    int
	OverflowSize int // hits buffered on their way to the spool when the queue is full; default 8192
	// Workers is the number of enrich+insert goroutine pairs; default 1.
	// Each worker sends one INSERT per FlushInterval (more often when
	// BatchSize fills first), and ClickHouse's cost
	// per click falls with fewer, larger inserts: every insert block runs
	// the materialized views, which write one aggregate row per distinct
	// key in the block, and makes parts to merge. With 10,000 uniformly hot
	// links one 30k-row insert a second writes ~40% fewer aggregate rows
	// than two 15k-row ones (edge/PERFORMANCE.md, issue 15).
	Workers       int
	InsertTimeout time.Duration // bound on one insert; default 20 s (a 200k-row insert takes 1–2 s here)
	// ChunkRows and ChunkPause split each insert into data blocks of
	// ChunkRows rows with a ChunkPause sleep between them (default
	// chstore.DefaultChunking), so that encoding a batch never holds the
	// edge's CPU for more than about a millisecond at a time.
	ChunkRows  int
	ChunkPause time.Duration
	Logger     *slog.Logger // default slog.Default()
	// WriterID names this process in ingest_heartbeats; default host/pid/random.
	WriterID string
}

func (c *Config) withDefaults() (Config, error) {
	cfg := *c
	switch {
	case cfg.Conn == nil:
		return cfg, errors.New("clicks: Config.Conn is required")
	case cfg.Enricher == nil:
		return cfg, errors.New("clicks: Config.Enricher is required")
	case cfg.SpoolDir == "":
		return cfg, errors.New("clicks: Config.SpoolDir is required")
	}
	if cfg.SpoolMaxBytes <= 0 {
		cfg.SpoolMaxBytes = 1 << 30
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = 5 * time.Second
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 200_000
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 16384
	}
	if cfg.OverflowSize <= 0 {
		cfg.OverflowSize = 8192
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.InsertTimeout <= 0 {
		cfg.InsertTimeout = 20 * time.Second
	}
	if cfg.ChunkRows <= 0 {
		cfg.ChunkRows = chstore.DefaultChunking().Rows
	}
	if cfg.ChunkPause <= 0 {
		cfg.ChunkPause = chstore.DefaultChunking().Pause
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.WriterID == "" {
		cfg.WriterID = defaultWriterID()
	}
	return cfg, nil
}

func defaultWriterID() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b) //nolint:errcheck // never fails on Linux
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}
