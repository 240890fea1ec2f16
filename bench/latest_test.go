package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// targetRows returns the rows of latest.md's targets table, split into
// cells (name, measured, goal, ratio, verdict, note).
func targetRows(t *testing.T, md string) [][]string {
	t.Helper()
	_, table, ok := strings.Cut(md, "## Targets (issues 7, 15 and 16)\n\n")
	if !ok {
		t.Fatalf("no targets section in:\n%s", md)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var rows [][]string
	for i, line := range strings.Split(table, "\n") {
		if i < 2 { // header and separator
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 6 {
			t.Fatalf("row %q has %d cells", line, len(cells))
		}
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows = append(rows, cells)
	}
	return rows
}

// rowNamed is the targets row whose name starts with prefix.
func rowNamed(t *testing.T, md, prefix string) []string {
	t.Helper()
	for _, r := range targetRows(t, md) {
		if strings.HasPrefix(r[0], prefix) {
			return r
		}
	}
	t.Fatalf("no target row %q in:\n%s", prefix, md)
	return nil
}

// The report of a full `make bench` run (testdata/results holds the JSON
// files of one) lists every target of issues 7, 15 and 16 with a measured
// value and the verdict its numbers give.
func TestLatestHoldsEveryTarget(t *testing.T) {
	md, err := buildLatest("testdata/results", "", "2 cores", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, ratio, verdict string }{
		{"Direct (Zipf): machine CPU per counted redirect", "3.15×", "**miss**"}, // 24.5 µs vs 7.8 µs
		{"Uniform, 10000 hot links: machine CPU per counted redirect", "1.63×", "pass"},
		{"Direct cache hits, 64 conns: req per server-CPU-second vs nginx", "0.62×", "**miss**"},
		{"Direct cache hits, 64 conns: throughput vs nginx", "0.48×", "**miss**"},
		{"Uniform hot links (10000 links, uniform), 64 conns: req per server-CPU-second", "0.81×", "pass"},
		{"Uniform hot links (10000 links, uniform), 64 conns: throughput", "0.72×", "pass"},
		{"Targeted links (geo+device+language)", "0.59×", "**miss**"},
		{"Open loop at 24.8k req/s (50% of max): p99 vs nginx's at the same rate", "6.12×", "**miss**"}, // 9.80 vs 1.60 ms
		{"Open loop at 50% of max: p99.9 vs nginx's at the same rate", "2.74×", "pass"},                 // 34.24 vs 12.50 ms
		{"Zero lost clicks: direct", "", "pass"},
		{"Zero lost clicks: targeted", "", "pass"},
		{"Zero lost clicks: uniform", "", "pass"},
		{"Zero lost clicks: open loop", "", "pass"},
		{"Zero lost clicks: mix", "", "pass"},
		{"Stats GET /api/url/:id, 10000000 clicks", "0.79 of limit", "pass"},
		{"List clicks == single-link clicks", "", "pass"},
		{"Harness: bench vs wrk -t1 on nginx", "0.78×", "pass"},
		{"Edge RSS with 1000000 links cached", "0.97 of limit", "pass"},
		{"Start to ready with a warm-up of 100000 links", "0.41 of limit", "pass"},
		{"Click ingest, one pipeline", "1.46×", "pass"},
		{"Dashboard pages (100000 links, 10000000 clicks of one user): p95 of the slowest page", "1.49 of limit", "**miss**"}, // 74.5 ms
	}
	rows := targetRows(t, md)
	if len(rows) != len(want) {
		t.Fatalf("%d target rows, want %d:\n%s", len(rows), len(want), md)
	}
	for i, w := range want {
		r := rows[i]
		if !strings.HasPrefix(r[0], w.name) || r[3] != w.ratio || r[4] != w.verdict || r[1] == "" || strings.Contains(r[1], "not measured") {
			t.Errorf("row %d = %q, want %q with a measured value, ratio %q and verdict %s", i, r, w.name, w.ratio, w.verdict)
		}
	}
	if !strings.Contains(rows[2][5], "bare fasthttp (map lookup + 302) 0.99× nginx, kurz 0.63× bare fasthttp") {
		t.Errorf("direct row lacks the bare fasthttp reference: %q", rows[2][5])
	}
	for _, w := range []string{"kurz 24.5 µs (server 13.1, ClickHouse 6.1, PostgreSQL 5.0, admin 0.3) vs nginx 7.8 µs"} {
		if !strings.Contains(rows[0][1], w) {
			t.Errorf("machine row %q lacks %q", rows[0], w)
		}
	}
	if !strings.Contains(rows[0][5], "window 10.0 s load + 1.8 s until the clicks settled") {
		t.Errorf("machine row does not say its window: %q", rows[0][5])
	}
	if !strings.Contains(md, "## Profiles") {
		t.Error("targets were missed but the report has no profiles section")
	}
}

// Scenarios that did not run are reported as misses, never left out.
func TestLatestReportsMissingScenarios(t *testing.T) {
	md, err := buildLatest(t.TempDir(), "", "", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	rows := targetRows(t, md)
	// machine CPU (direct, uniform), direct, uniform, targeted, open loop,
	// zero loss (5 scenarios), stats, list clicks, harness, RSS, start,
	// ingest, dashboard
	if len(rows) != 18 {
		t.Fatalf("%d rows, want 18:\n%s", len(rows), md)
	}
	for _, r := range rows {
		if r[4] != "**miss**" || !strings.Contains(r[1], "not measured") {
			t.Errorf("row %q: want a miss, not measured", r)
		}
	}
}

// A fast stats answer with the wrong count is a miss.
func TestLatestStatsMustAgree(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("testdata/results/stats.json")
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Replace(string(b), `"counts_agree": true`, `"counts_agree": false`, 1)
	if wrong == string(b) {
		t.Fatal("fixture has no counts_agree: true")
	}
	if err := os.WriteFile(filepath.Join(dir, "stats.json"), []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	md, err := buildLatest(dir, "", "", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range targetRows(t, md) {
		if !strings.HasPrefix(r[0], "Stats GET") {
			continue
		}
		found = true
		if r[4] != "**miss**" || !strings.Contains(r[5], "count is wrong") {
			t.Errorf("stats row %q: want a miss for a wrong count", r)
		}
	}
	if !found {
		t.Fatalf("no stats row in:\n%s", md)
	}
}

func TestRatioTargetNearTheGoal(t *testing.T) {
	tests := []struct {
		ratio                    float64
		ratioCell, verdict, note string
	}{
		{0.78, "0.78×", "pass", ""},
		{0.70, "0.70×", "pass", ""},
		{0.6995, "0.699×", "**miss**", "missed by less than 1%"},
		{0.62, "0.62×", "**miss**", "missed by 11%"},
		{0, "-", "**miss**", ""},
	}
	for _, tt := range tests {
		g := ratioTarget("x", tt.ratio, 0.70, "m")
		if g.Ratio != tt.ratioCell || g.Verdict != tt.verdict || g.Note != tt.note {
			t.Errorf("ratio %v: got %q %q %q, want %q %q %q", tt.ratio, g.Ratio, g.Verdict, g.Note, tt.ratioCell, tt.verdict, tt.note)
		}
	}
}

// The open-loop rows hold kurz's percentiles against nginx's at the same
// rate in the same run: a run without nginx has no ratio and misses.
func TestLatestOpenLoopNeedsNginxAtTheSameRate(t *testing.T) {
	dir := t.TempDir()
	var open runFile
	if err := readJSON("testdata/results/open.json", &open); err != nil {
		t.Fatal(err)
	}
	ng := *open.Runs[1]
	ng.Latency = &latencySummary{P50: 0.1, P99: 1.48, P999: 6.24}
	open.Runs[1] = &ng
	if err := writeJSON(filepath.Join(dir, "open.json"), &open); err != nil {
		t.Fatal(err)
	}
	md, err := buildLatest(dir, "", "", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for prefix, want := range map[string][]string{
		"Open loop at 24.8k req/s (50% of max): p99": {"kurz 9.80 ms vs nginx 1.48 ms", "6.62×", "**miss**"},
		"Open loop at 50% of max: p99.9":             {"kurz 34.24 ms vs nginx 6.24 ms", "5.49×", "**miss**"},
	} {
		r := rowNamed(t, md, prefix)
		if r[1] != want[0] || r[3] != want[1] || r[4] != want[2] {
			t.Errorf("%s: row %q, want %q", prefix, r, want)
		}
	}
	open.Runs = open.Runs[:1] // kurz alone
	if err := writeJSON(filepath.Join(dir, "open.json"), &open); err != nil {
		t.Fatal(err)
	}
	if md, err = buildLatest(dir, "", "", time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if r := rowNamed(t, md, "Open loop at 24.8k req/s (50% of max): p99"); r[1] != "no nginx run at the same rate" || r[4] != "**miss**" {
		t.Errorf("without nginx: row %q, want a miss", r)
	}
}

// The throughput row explains the ratio by what one request costs the
// whole machine in each run (testdata: kurz 15.2 busy CPU-s for 495,559
// requests, nginx 16.9 for 1,023,564).
func TestLatestThroughputNoteHasMachineBudget(t *testing.T) {
	md, err := buildLatest("testdata/results", "", "", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	note := rowNamed(t, md, "Direct cache hits, 64 conns: throughput")[5]
	for _, want := range []string{
		"kurz 30.7 µs (server 12.5, load generator 11.6, ClickHouse 4.8, rest 1.8)",
		"nginx 16.5 µs (server 7.8, load generator 8.4, rest 0.3)",
		"machine busy 95% vs 84%",
		"cap kurz at 0.54× nginx's throughput",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("throughput note %q lacks %q", note, want)
		}
	}
	// Without machine numbers (older JSON) the note is the plain verdict.
	var closed runFile
	if err := readJSON("testdata/results/closed.json", &closed); err != nil {
		t.Fatal(err)
	}
	for _, r := range closed.Runs {
		r.Machine = nil
	}
	dir := t.TempDir()
	if err := writeJSON(filepath.Join(dir, "closed.json"), &closed); err != nil {
		t.Fatal(err)
	}
	md, err = buildLatest(dir, "", "", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if note := rowNamed(t, md, "Direct cache hits, 64 conns: throughput")[5]; note != "missed by 31%" {
		t.Errorf("note without machine numbers = %q", note)
	}
}

// Repeated open-loop runs (open.json, open-2.json, open-3.json) are judged
// by the median of their ratios to nginx at the same rate, and every run's
// values are printed.
func TestLatestOpenLoopMedianOfRuns(t *testing.T) {
	dir := t.TempDir()
	var base runFile
	if err := readJSON("testdata/results/open.json", &base); err != nil {
		t.Fatal(err)
	}
	for i, lat := range []struct{ p99, p999, ngP99 float64 }{{12.5, 30, 0.9}, {1.5, 4.5, 1.0}, {1.9, 9, 1.1}} {
		f := base
		k := *base.Runs[0]
		k.Latency = &latencySummary{P99: lat.p99, P999: lat.p999}
		ng := *base.Runs[1]
		ng.Latency = &latencySummary{P99: lat.ngP99, P999: 2}
		f.Runs = []*runReport{&k, &ng}
		name := "open.json"
		if i > 0 {
			name = fmt.Sprintf("open-%d.json", i+1)
		}
		if err := writeJSON(filepath.Join(dir, name), &f); err != nil {
			t.Fatal(err)
		}
	}
	md, err := buildLatest(dir, "", "", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	p99 := rowNamed(t, md, "Open loop at 24.8k req/s (50% of max): p99")
	p999 := rowNamed(t, md, "Open loop at 50% of max: p99.9")
	// p99 ratios 13.89, 1.50, 1.73: median 1.73 passes 2×; p99.9 ratios
	// 15, 2.25, 4.5: median 4.5 misses 3×.
	for _, c := range []struct {
		row                      []string
		measured, ratio, verdict string
		note                     []string
	}{
		{p99, "kurz 12.50, 1.50, 1.90 ms vs nginx 0.90, 1.00, 1.10 ms", "1.73× (median of 3 runs)", "pass", []string{"per run: 13.89×, 1.50×, 1.73×"}},
		{p999, "kurz 30.00, 4.50, 9.00 ms vs nginx 2.00, 2.00, 2.00 ms", "4.50× (median of 3 runs)", "**miss**", []string{"over by 50%", "per run: 15.00×, 2.25×, 4.50×"}},
	} {
		if c.row[1] != c.measured || c.row[3] != c.ratio || c.row[4] != c.verdict {
			t.Errorf("row %q: want measured %q, ratio %q, verdict %s", c.row, c.measured, c.ratio, c.verdict)
		}
		for _, n := range c.note {
			if !strings.Contains(c.row[5], n) {
				t.Errorf("row %q: note lacks %q", c.row, n)
			}
		}
	}
	if n := strings.Count(md, "| open-50, round "); n != 9 { // ratio, split and runs tables
		t.Errorf("report lists %d open-loop kurz rows, want 3 runs in each of three tables", n)
	}
}

// `make bench` must not rewrite the tracked bench/results/latest.md: by
// default the report goes under .run/ (git-ignored), and bench.sh uses the
// same directory. Only `make bench-record` writes bench/results/.
func TestReportDefaultOutputIsUntracked(t *testing.T) {
	if strings.HasPrefix(defaultReportOut, "bench/results") || !strings.HasPrefix(defaultReportOut, ".run/") {
		t.Fatalf("default report %q: want a path under .run/", defaultReportOut)
	}
	ignore, err := os.ReadFile("../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ignore), "\n"), "/.run/") {
		t.Fatalf(".gitignore does not ignore /.run/:\n%s", ignore)
	}
	script, err := os.ReadFile("../deploy/local/bench.sh")
	if err != nil {
		t.Fatal(err)
	}
	if want := "${BENCH_RESULTS_DIR:-$root/" + defaultResultsDir + "}"; !strings.Contains(string(script), want) {
		t.Errorf("bench.sh does not default its results to %s", want)
	}

	scenarios, err := filepath.Abs("testdata/results")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	t.Chdir(work)
	var stdout strings.Builder
	if err := reportCmd(context.Background(), []string{"--dir", scenarios}, &stdout); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(work, defaultReportOut)); err != nil {
		t.Errorf("no report at the default path: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "bench", "results")); err == nil {
		t.Error("report wrote under bench/results")
	}
	if stdout.String() != "wrote "+defaultReportOut+"\n" {
		t.Errorf("stdout %q", stdout.String())
	}
}
