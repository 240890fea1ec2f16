package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copyResults copies testdata/results into a temp dir, so that a test can
// change one scenario's file.
func copyResults(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ents, err := os.ReadDir("testdata/results")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("testdata/results", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// editRuns rewrites one scenario file of dir with edit applied.
func editRuns(t *testing.T, dir, name string, edit func(*runFile)) {
	t.Helper()
	var f runFile
	if err := readJSON(filepath.Join(dir, name), &f); err != nil {
		t.Fatal(err)
	}
	edit(&f)
	if err := writeJSON(filepath.Join(dir, name), &f); err != nil {
		t.Fatal(err)
	}
}

func latestOf(t *testing.T, dir string) string {
	t.Helper()
	md, err := buildLatest(dir, "", "", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// The zero-loss check must be exact in every scenario and in every run of
// the repeated open loop: a run that was not checked, or counted one click
// too few, is a miss for its scenario.
func TestLatestZeroLossEveryScenario(t *testing.T) {
	tests := []struct {
		name, file, row string
		edit            func(*runFile)
		measured, note  string
		verdict         string
	}{
		{"second open-loop run checked too", "open-2.json", "Zero lost clicks: open loop", nil,
			"expected 477192, counted 477192, diff +0 over 2 runs", "", "pass"},
		{"second open-loop run not checked", "open-2.json", "Zero lost clicks: open loop", func(f *runFile) { f.Runs[0].Clicks = nil },
			"run 2 of 2 not checked", "run without --clickhouse", "**miss**"},
		{"a lost click in the mix", "mix.json", "Zero lost clicks: mix", func(f *runFile) {
			f.Runs[0].Clicks = &clickCheck{Expected: 452000, Counted: 451999, Diff: -1}
		}, "expected 452000, counted 451999, diff -1", "run 1: expected 452000, counted 451999", "**miss**"},
		{"uniform not run", "uniform.json", "Zero lost clicks: uniform", nil, "not measured", "", "**miss**"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyResults(t)
			switch {
			case tc.file == "open-2.json":
				b, err := os.ReadFile(filepath.Join(dir, "open.json"))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, tc.file), b, 0o644); err != nil {
					t.Fatal(err)
				}
			case tc.edit == nil:
				if err := os.Remove(filepath.Join(dir, tc.file)); err != nil {
					t.Fatal(err)
				}
			}
			if tc.edit != nil {
				editRuns(t, dir, tc.file, tc.edit)
			}
			r := rowNamed(t, latestOf(t, dir), tc.row)
			if r[1] != tc.measured || r[4] != tc.verdict || !strings.Contains(r[5], tc.note) {
				t.Errorf("row %q: want measured %q, verdict %s, note with %q", r, tc.measured, tc.verdict, tc.note)
			}
		})
	}
}

// A machine cost that leaves out part of the stack (a run without
// --postgres-pid) would look cheaper than it is: it cannot pass.
func TestLatestMachineTargetNeedsTheWholeStack(t *testing.T) {
	dir := copyResults(t)
	editRuns(t, dir, "uniform.json", func(f *runFile) {
		delete(f.Runs[0].Split.CPUSeconds, partPostgres)
		f.Runs[0].Split.MachineParts = []string{partServer, partClickHouse, partAdmin}
	})
	md := latestOf(t, dir)
	r := rowNamed(t, md, "Uniform, 10000 hot links: machine CPU")
	if r[4] != "**miss**" || !strings.Contains(r[5], "not measured: PostgreSQL") || r[3] != "1.31×" {
		t.Errorf("row %q: want a 1.31× miss naming PostgreSQL", r)
	}
	if !strings.Contains(md, "| uniform | kurz 127.0.0.1:58080 | 600000 | 10.0 + 1.2 s | 6.7 | 3.3 | - | 0.2 |") {
		t.Errorf("split table does not show PostgreSQL as not measured:\n%s", md)
	}
	// Without nginx in the file there is no ratio at all.
	editRuns(t, dir, "closed.json", func(f *runFile) { f.Runs = f.Runs[:1] })
	if r := rowNamed(t, latestOf(t, dir), "Direct (Zipf): machine CPU"); r[4] != "**miss**" || r[3] != "" {
		t.Errorf("without nginx: row %q, want a miss without a ratio", r)
	}
}

func TestAtMostRatio(t *testing.T) {
	tests := []struct {
		ratio                    float64
		ratioCell, verdict, note string
	}{
		{1.5, "1.50×", "pass", ""},
		{2, "2.00×", "pass", ""},
		{2.0004, "2.001×", "**miss**", "over by less than 1%"},
		{3.2, "3.20×", "**miss**", "over by 60%"},
	}
	for _, tc := range tests {
		g := atMostRatio("x", tc.ratio, 2, "m")
		if g.Ratio != tc.ratioCell || g.Verdict != tc.verdict || g.Note != tc.note || g.Goal != "<= 2.00×" {
			t.Errorf("ratio %v: got %q %q %q %q, want %q %q %q", tc.ratio, g.Ratio, g.Verdict, g.Note, g.Goal, tc.ratioCell, tc.verdict, tc.note)
		}
	}
}

// The split table has a row for every run with a split, µs per counted
// redirect by process, and judges each kurz run against its own nginx.
func TestLatestSplitTable(t *testing.T) {
	md := latestOf(t, "testdata/results")
	_, table, ok := strings.Cut(md, "## Machine CPU per counted redirect, by process\n\n")
	if !ok {
		t.Fatalf("no split section in:\n%s", md)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	if !strings.Contains(table, "plus --settle-tail") || !strings.Contains(table, "postmaster's cutime") {
		t.Error("the split section does not define its window and its PostgreSQL tree")
	}
	for _, want := range []string{
		"| direct | kurz 127.0.0.1:58080 | 495559 | 10.0 + 1.8 s | 13.1 | 6.1 | 5.0 | 0.3 | 11.7 | 0.5 | **24.5** | 3.15× | **miss** |",
		"| direct (nginx) | nginx return 302 127.0.0.1:46603 | 1023564 | 10.0 + 0.0 s | 7.8 | 0.3 | 0.0 | 0.0 | 8.4 | 0.4 | **7.8** | reference |  |",
		"| direct (bare fasthttp) | fasthttp map+302 127.0.0.1:42733 | 1135067 | 10.0 + 0.0 s | 7.8 |",
		"| uniform | kurz 127.0.0.1:58080 | 600000 | 10.0 + 1.2 s | 6.7 | 3.3 | 2.5 | 0.2 | 10.0 | 4.0 | **12.7** | 1.63× | pass |",
		"| targeted | kurz 127.0.0.1:58080 | 554324 |",
		"| open-50 | kurz 127.0.0.1:58080 | 247755 | 10.0 + 1.1 s |",
		"| mix | kurz 127.0.0.1:58080 | 470000 |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("split table lacks %q:\n%s", want, table)
		}
	}
	if n := strings.Count(table, "\n| "); n != 11 { // header + 10 runs
		t.Errorf("%d table lines, want 11:\n%s", n, table)
	}
}

func TestLatestListCheck(t *testing.T) {
	tests := []struct {
		name     string
		list     *listCheck
		measured string
		verdict  string
		note     string
	}{
		{"agree", &listCheck{Compared: 100, HasLink: true, OK: true}, "100 links compared, 0 differ", "pass", ""},
		{"one differs", &listCheck{Compared: 100, MismatchCount: 1, HasLink: true, Mismatches: []clickMismatch{{ID: 7, List: 10, Single: 12}}},
			"100 links compared, 1 differ", "**miss**", "link 7: list 10 vs single 12"},
		{"failed", &listCheck{Note: "GET /api/urls?order=click&limit=100: status 503"}, "0 links compared, 0 differ", "**miss**", "status 503"},
		{"not run", nil, "not measured", "**miss**", "without --list-links"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyResults(t)
			var sr statsReport
			if err := readJSON(filepath.Join(dir, "stats.json"), &sr); err != nil {
				t.Fatal(err)
			}
			sr.List = tc.list
			if err := writeJSON(filepath.Join(dir, "stats.json"), &sr); err != nil {
				t.Fatal(err)
			}
			r := rowNamed(t, latestOf(t, dir), "List clicks == single-link clicks")
			if r[1] != tc.measured || r[4] != tc.verdict || !strings.Contains(r[5], tc.note) {
				t.Errorf("row %q: want %q, %s, note with %q", r, tc.measured, tc.verdict, tc.note)
			}
		})
	}
}

// Every scenario run against nginx gets its three ratios side by side.
func TestLatestRatioTable(t *testing.T) {
	md := latestOf(t, "testdata/results")
	_, table, ok := strings.Cut(md, "## Ratios to nginx, per scenario (same run)\n\n")
	if !ok {
		t.Fatalf("no ratio section in:\n%s", md)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	want := []string{
		"| direct | closed | 0.48× | 0.62× | 3.15× (24.5 vs 7.8 µs) |",
		"| uniform | closed | 0.59× | 0.63× | 1.63× (12.7 vs 7.8 µs) |",
		"| targeted | closed | 0.52× | 0.59× | 2.35× (17.9 vs 7.6 µs) |",
		"| open-50 | open | 1.00× | 1.00× | 3.86× (32.7 vs 8.5 µs) |",
	}
	lines := strings.Split(table, "\n")[2:] // the mix has no nginx: no row
	if len(lines) != len(want) {
		t.Fatalf("rows %q, want %q", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, lines[i], want[i])
		}
	}
}

// make bench repeats each closed-loop pair: the targets judge the median
// round (the lower of the middle two for an even count), say which round
// they show, list every round, and check every round's clicks. One lucky
// (or unlucky) pair must not decide a verdict.
func TestLatestClosedRoundsJudgeTheMedian(t *testing.T) {
	// A round is closed.json (3.15× machine, 0.62× per CPU-second, 0.48×
	// throughput, from testdata) with its kurz CPU scaled and its ratios set.
	type round struct {
		cpuScale, perCPU, thr float64
		lost                  int64
	}
	tests := []struct {
		name   string
		rounds []round // rounds 2, 3, ...
		rows   []struct{ row, ratio, verdict, measured, note string }
	}{
		{"three rounds, the median in the middle", []round{{0.6, 0.80, 0.90, 0}, {0.5, 0.78, 0.50, 0}},
			[]struct{ row, ratio, verdict, measured, note string }{
				{"Direct (Zipf): machine CPU", "1.89× (median of 3 rounds)", "pass", "round 2 of 3: kurz 14.7 µs", "per round: 3.15×, 1.89×, 1.58×"},
				{"Direct cache hits, 64 conns: req per server-CPU-second", "0.78× (median of 3 rounds)", "pass", "", "per round: 0.62×, 0.80×, 0.78×"},
				{"Direct cache hits, 64 conns: throughput", "0.50× (median of 3 rounds)", "**miss**", "", "per round: 0.48×, 0.90×, 0.50×; round 3 (the median): whole machine"},
				{"Zero lost clicks: direct", "", "pass", "over 3 runs", ""},
			}},
		{"two rounds: the mean of both, the lower shown", []round{{0.6, 0.80, 0.90, 0}},
			[]struct{ row, ratio, verdict, measured, note string }{
				{"Direct (Zipf): machine CPU", "2.52× (median of 2 rounds)", "**miss**", "round 2 of 2: kurz 14.7 µs", "per round: 3.15×, 1.89×"},
				{"Direct cache hits, 64 conns: throughput", "0.69× (median of 2 rounds)", "**miss**", "", "round 1 (the median): whole machine"},
			}},
		{"a click lost in a later round", []round{{0.6, 0.80, 0.90, 1}, {0.5, 0.78, 0.50, 0}},
			[]struct{ row, ratio, verdict, measured, note string }{
				{"Zero lost clicks: direct", "", "**miss**", "diff -1 over 3 runs", "run 2: expected"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyResults(t)
			b, err := os.ReadFile(filepath.Join(dir, "closed.json"))
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range tc.rounds {
				name := fmt.Sprintf("closed-%d.json", i+2)
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
				editRuns(t, dir, name, func(f *runFile) {
					for p, v := range f.Runs[0].Split.CPUSeconds {
						f.Runs[0].Split.CPUSeconds[p] = v * r.cpuScale
					}
					f.Ratios["per_cpu_second_kurz_over_nginx"] = r.perCPU
					f.Ratios["throughput_kurz_over_nginx"] = r.thr
					f.Runs[0].Clicks.Counted -= r.lost
					f.Runs[0].Clicks.OK = r.lost == 0
				})
			}
			md := latestOf(t, dir)
			for _, w := range tc.rows {
				r := rowNamed(t, md, w.row)
				if (w.ratio != "" && r[3] != w.ratio) || r[4] != w.verdict || !strings.Contains(r[1], w.measured) || !strings.Contains(r[5], w.note) {
					t.Errorf("row %q: want ratio %q, verdict %s, measured with %q, note with %q", r, w.ratio, w.verdict, w.measured, w.note)
				}
			}
			// Every round has its own, named rows in the split table.
			for i := range len(tc.rounds) + 1 {
				row := fmt.Sprintf("| direct, round %d | kurz 127.0.0.1:58080 | 495559 |", i+1)
				if !strings.Contains(md, row) {
					t.Errorf("split table lacks %q", row)
				}
			}
		})
	}
}
