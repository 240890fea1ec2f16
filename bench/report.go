package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// latencySummary is a histogram's percentiles, in milliseconds.
type latencySummary struct {
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p99_9_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
}

func summarize(h *hdrhistogram.Histogram) *latencySummary {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return &latencySummary{
		P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)), P95: ms(h.ValueAtQuantile(95)),
		P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9)),
		Max: ms(h.Max()), Mean: h.Mean() / 1000,
	}
}

// clickCheck is the zero-loss check of one run.
type clickCheck struct {
	Expected int64  `json:"expected"` // 2xx/3xx answers to human visits of counting links
	Counted  int64  `json:"counted"`  // new human clicks of the owner in ClickHouse
	Diff     int64  `json:"diff"`     // counted - expected; 0 passes
	OK       bool   `json:"ok"`
	Note     string `json:"note,omitempty"`
}

// runReport is one load run, as printed and as written to JSON.
type runReport struct {
	Name           string           `json:"name"`
	Target         string           `json:"target"`
	Mode           string           `json:"mode"`            // closed | open | sequential
	Pick           string           `json:"pick,omitempty"`  // zipf | uniform | sequential: how aliases were drawn
	Links          int              `json:"links,omitempty"` // aliases drawn from
	Conns          int              `json:"connections"`
	Rate           float64          `json:"rate,omitempty"`
	Seconds        float64          `json:"seconds"`
	Requests       int64            `json:"requests"`
	Throughput     float64          `json:"throughput"`
	Latency        *latencySummary  `json:"latency"`
	Service        *latencySummary  `json:"service_time,omitempty"`
	SchedLag       *latencySummary  `json:"scheduler_lag,omitempty"`
	HarnessLag     *latencySummary  `json:"harness_lag,omitempty"`
	Status         map[int]int64    `json:"status"`
	Errors         map[string]int64 `json:"errors"`
	ByKind         map[string]int64 `json:"by_kind,omitempty"`
	ExpectedClicks int64            `json:"expected_clicks"`
	ClickRows      int64            `json:"click_rows,omitempty"`
	NonHuman       int64            `json:"non_human"`
	Server         *procUsage       `json:"server,omitempty"`
	ReqPerCPUSec   float64          `json:"req_per_server_cpu_second,omitempty"`
	Client         *procUsage       `json:"client,omitempty"`
	Machine        *machineUsage    `json:"machine,omitempty"`
	Clicks         *clickCheck      `json:"clicks,omitempty"`
	// Split is the per-process CPU split of the run's window (cpusplit.go).
	Split *cpuSplit `json:"cpu_split,omitempty"`
}

func newRunReport(name, target string, cfg *loadConfig, res *loadResult) *runReport {
	secs := res.End.Sub(res.Start).Seconds()
	mode, pick := "closed", "zipf"
	switch {
	case cfg.Sequential:
		mode, pick = "sequential", "sequential"
	case cfg.Rate > 0:
		mode = "open"
	}
	if cfg.Uniform {
		pick = "uniform"
	}
	r := &runReport{
		Name: name, Target: target, Mode: mode, Pick: pick, Links: len(cfg.Entries), Conns: cfg.Conns, Rate: cfg.Rate,
		Seconds: secs, Requests: res.Completed, Latency: summarize(res.Latency),
		Service: summarize(res.Service), SchedLag: summarize(res.Lag), HarnessLag: summarize(res.HarnessLag),
		Status: res.Status, Errors: res.Errors, ByKind: map[string]int64{},
		ExpectedClicks: res.ExpectedClicks, ClickRows: res.ClickRows, NonHuman: res.NonHuman,
	}
	if secs > 0 {
		r.Throughput = float64(res.Completed) / secs
	}
	for k, n := range res.ByKind {
		if n > 0 {
			r.ByKind[Kind(k).String()] = n
		}
	}
	return r
}

func (r *runReport) setServer(u procUsage) {
	r.Server = &u
	if u.CPUSeconds > 0 {
		r.ReqPerCPUSec = float64(r.Requests) / u.CPUSeconds
	}
}

// writeTable prints r for humans.
func (r *runReport) writeTable(w io.Writer) {
	fmt.Fprintf(w, "== %s: %s, %s loop, %d connections", r.Name, r.Target, r.Mode, r.Conns)
	if r.Rate > 0 {
		fmt.Fprintf(w, ", target rate %s/s", human(r.Rate))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  requests     %d in %.2f s = %s req/s\n", r.Requests, r.Seconds, human(r.Throughput))
	if r.Pick == "uniform" && r.Links > 0 {
		fmt.Fprintf(w, "  links        %d, uniformly hot: %.1f requests per link per second\n", r.Links, r.Throughput/float64(r.Links))
	}
	if l := r.Latency; l != nil {
		label := "latency"
		if r.Mode == "open" {
			label = "latency*"
		}
		fmt.Fprintf(w, "  %-12s p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", label, msf(l.P50), msf(l.P90), msf(l.P99), msf(l.P999), msf(l.Max))
	}
	if l := r.Service; l != nil {
		fmt.Fprintf(w, "  %-12s p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", "service", msf(l.P50), msf(l.P90), msf(l.P99), msf(l.P999), msf(l.Max))
	}
	if l := r.SchedLag; l != nil {
		fmt.Fprintf(w, "  %-12s p99 %s  max %s   (* measured from the intended send time)\n", "sched. lag", msf(l.P99), msf(l.Max))
	}
	if l := r.HarnessLag; l != nil {
		fmt.Fprintf(w, "  %-12s p99 %s  max %s   (the part of sched. lag the load generator caused; the rest waited for a busy connection)\n", "harness lag", msf(l.P99), msf(l.Max))
	}
	fmt.Fprintf(w, "  status       %s\n", formatCounts(r.Status))
	if len(r.Errors) > 0 {
		fmt.Fprintf(w, "  errors       %s\n", formatErrs(r.Errors))
	}
	if s := r.Server; s != nil {
		fmt.Fprintf(w, "  server       pid %d: %.2f CPU-s = %s req per CPU-second; RSS max %.1f MB (peak since start %.1f MB)\n",
			s.PID, s.CPUSeconds, human(r.ReqPerCPUSec), s.MaxRSSMB, s.HWMMB)
	}
	if c := r.Client; c != nil {
		fmt.Fprintf(w, "  bench itself %.2f CPU-s\n", c.CPUSeconds)
	}
	if m := r.Machine; m != nil {
		fmt.Fprintf(w, "  machine      %.2f CPU-s busy (%.0f%%) = %.1f µs of machine CPU per request", m.BusyCPUSeconds, 100*m.busyShare(), m.CPUMicrosPerRequest)
		if c := m.ClickHouse; c != nil {
			fmt.Fprintf(w, "; ClickHouse %.2f CPU-s", c.CPUSeconds)
		}
		fmt.Fprintln(w)
	}
	if s := r.Split; s != nil {
		fmt.Fprintf(w, "  cpu split    %s\n", s.line())
	}
	if c := r.Clicks; c != nil {
		verdict := "OK"
		if !c.OK {
			verdict = "MISMATCH"
		}
		fmt.Fprintf(w, "  clicks       expected %d, in ClickHouse %d, difference %+d: %s%s\n", c.Expected, c.Counted, c.Diff, verdict, noteSuffix(c.Note))
	}
}

func noteSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func msf(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.3fms", v)
	case v < 100:
		return fmt.Sprintf("%.2fms", v)
	}
	return fmt.Sprintf("%.0fms", v)
}

// human formats a rate: 1234 -> "1.23k", 215000 -> "215k".
func human(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}

func formatCounts(m map[int]int64) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d: %d", k, m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func formatErrs(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// runFile is the JSON a run or sweep writes (--json).
type runFile struct {
	Runs   []*runReport       `json:"runs"`
	Ratios map[string]float64 `json:"ratios,omitempty"`
	Wrk    *wrkResult         `json:"wrk,omitempty"`
	// LoadAvg is /proc/loadavg (1, 5, 15 min) when the run ended.
	LoadAvg string `json:"load_average,omitempty"`
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}
