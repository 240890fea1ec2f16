package obs

import (
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"
)

// Histogram is a Prometheus histogram of durations with fixed buckets,
// made of atomics only: Observe takes no lock and allocates nothing, so it
// can sit on the edge's hot path. (VictoriaMetrics' Histogram and
// PrometheusHistogram both take a mutex per Update.) Bucket counts are
// kept per bucket and summed into cumulative ones when written.
type Histogram struct {
	bounds []int64 // upper bounds in nanoseconds, ascending
	le     []string
	counts []atomic.Uint64 // len(bounds)+1: the last one is +Inf
	sumNS  atomic.Int64
}

// LatencyBuckets are the default upper bounds: from 50 µs (a cache hit)
// to 10 s (a load bounded by its timeout).
var LatencyBuckets = []time.Duration{
	50 * time.Microsecond, 100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond, 10 * time.Millisecond,
	25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond,
	500 * time.Millisecond, time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
}

// NewHistogram returns a histogram over the given ascending bounds
// (LatencyBuckets when none are given).
func NewHistogram(bounds ...time.Duration) *Histogram {
	if len(bounds) == 0 {
		bounds = LatencyBuckets
	}
	h := &Histogram{bounds: make([]int64, len(bounds)), le: make([]string, len(bounds)),
		counts: make([]atomic.Uint64, len(bounds)+1)}
	for i, b := range bounds {
		h.bounds[i] = int64(b)
		h.le[i] = strconv.FormatFloat(b.Seconds(), 'g', -1, 64)
	}
	return h
}

// Observe counts one duration. A nil histogram counts nothing (a
// component built without one, as some tests do).
func (h *Histogram) Observe(d time.Duration) {
	if h == nil {
		return
	}
	ns := int64(d)
	i := 0
	for i < len(h.bounds) && ns > h.bounds[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sumNS.Add(max(ns, 0))
}

// Count is the number of observations so far.
func (h *Histogram) Count() uint64 {
	var n uint64
	for i := range h.counts {
		n += h.counts[i].Load()
	}
	return n
}

// WritePrometheus writes the histogram as name_bucket, name_sum and name_count in
// Prometheus text format. labels is "" or a label list without braces
// (`route="alias"`), already escaped.
func (h *Histogram) WritePrometheus(w io.Writer, name, labels string) {
	sep := ""
	if labels != "" {
		sep = ","
	}
	var cum uint64
	for i, le := range h.le {
		cum += h.counts[i].Load()
		fmt.Fprintf(w, "%s_bucket{%s%sle=%q} %d\n", name, labels, sep, le, cum)
	}
	cum += h.counts[len(h.le)].Load()
	fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", name, labels, sep, cum)
	sum := float64(h.sumNS.Load()) / float64(time.Second)
	if labels != "" {
		labels = "{" + labels + "}"
	}
	fmt.Fprintf(w, "%s_sum%s %s\n", name, labels, strconv.FormatFloat(sum, 'g', -1, 64))
	fmt.Fprintf(w, "%s_count%s %d\n", name, labels, cum)
}
