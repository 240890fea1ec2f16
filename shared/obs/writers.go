package obs

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// Scrape-time series: values a component already keeps (atomics, pool
// statistics) are read once per scrape by a writer registered with
// metrics.Set.RegisterMetricsWriter, instead of being copied into
// counters on every event.

// Counter writes one counter sample.
func Counter(w io.Writer, name string, v uint64) { fmt.Fprintf(w, "%s %d\n", name, v) }

// Gauge writes one gauge sample.
func Gauge(w io.Writer, name string, v float64) {
	fmt.Fprintf(w, "%s %s\n", name, strconv.FormatFloat(v, 'g', -1, 64))
}

// Seconds writes a duration gauge in seconds.
func Seconds(w io.Writer, name string, d time.Duration) { Gauge(w, name, d.Seconds()) }

// Bool writes a 0/1 gauge.
func Bool(w io.Writer, name string, v bool) {
	n := 0.0
	if v {
		n = 1
	}
	Gauge(w, name, n)
}

// PoolStats is a snapshot of a PostgreSQL connection pool
// (shared/pgstore.Store.PoolStats).
type PoolStats struct {
	MaxConns, TotalConns, IdleConns, AcquiredConns, ConstructingConns int32
	AcquireCount, EmptyAcquireCount, CanceledAcquireCount             int64
	NewConns, MaxLifetimeDestroys, MaxIdleDestroys                    int64
	AcquireDuration                                                   time.Duration
}

// WritePool writes a pool snapshot as prefix_* series (prefix e.g.
// "kurz_edge_pg_pool").
func WritePool(w io.Writer, prefix string, s PoolStats) {
	Gauge(w, prefix+"_max_conns", float64(s.MaxConns))
	Gauge(w, prefix+"_conns", float64(s.TotalConns))
	Gauge(w, prefix+"_idle_conns", float64(s.IdleConns))
	Gauge(w, prefix+"_acquired_conns", float64(s.AcquiredConns))
	Gauge(w, prefix+"_constructing_conns", float64(s.ConstructingConns))
	Counter(w, prefix+"_acquires_total", uint64(s.AcquireCount))
	Counter(w, prefix+"_empty_acquires_total", uint64(s.EmptyAcquireCount))
	Counter(w, prefix+"_canceled_acquires_total", uint64(s.CanceledAcquireCount))
	Counter(w, prefix+"_new_conns_total", uint64(s.NewConns))
	Counter(w, prefix+"_max_lifetime_destroys_total", uint64(s.MaxLifetimeDestroys))
	Counter(w, prefix+"_max_idle_destroys_total", uint64(s.MaxIdleDestroys))
	Gauge(w, prefix+"_acquire_seconds_total", s.AcquireDuration.Seconds())
}
