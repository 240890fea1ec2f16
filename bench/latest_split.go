package main

import (
	"fmt"
	"math"
	"strings"
)

// The parts of latest.md that issue 15 added: the machine's CPU per
// counted redirect against nginx's, the open-loop tail as a ratio to
// nginx's at the same rate, the zero-loss check of every scenario, and the
// per-process CPU split table.

// machineLimit is issue 15's target: the whole stack's CPU per counted
// redirect at most twice nginx's server CPU per request.
const machineLimit = 2.0

// splitWindow explains the window of the CPU split in latest.md.
const splitWindow = "Each kurz run's window starts with the load and ends when the zero-loss check has seen every click of the run in ClickHouse " +
	"(the owner's human count reached baseline + expected, polled every 250 ms; or stayed unchanged for --quiet), plus --settle-tail (1 s), then until ClickHouse runs no merge (polled every 250 ms): " +
	"the edge's last flush, ClickHouse's inserts and the admin's work on the run's clicks happen after the load stops and are counted, " +
	"and so are the check's own count queries and ClickHouse's merges of the run's parts that start by then " +
	"(a merge the selector starts later falls into the next run's wait for a settled baseline, which no window covers). " +
	"nginx and the bare server write no clicks: their window is the load alone. " +
	"Per process: the edge, nginx (master + worker), the bare server, ClickHouse, PostgreSQL (the postmaster and all its children, " +
	"with the CPU of backends that exited, from the postmaster's cutime) and the admin are process trees read from /proc/PID/stat; " +
	"the load generator is `bench` itself; rest = the machine's busy time (/proc/stat: user, nice, system, irq, softirq, steal) minus all of them " +
	"(the kernel's network work not charged to a process, other processes). " +
	"The denominator is the run's counted redirects: 2xx/3xx answers for links whose kind records a click, any visitor class " +
	"(each became one ClickHouse row); nginx's is its requests. machine = edge + ClickHouse + PostgreSQL + admin for kurz, the server alone for nginx."

// referenceRun is the nginx run of a scenario file that matches kurz's
// run k (same mode), if any.
func referenceRun(f *runFile) *runReport {
	k := f.Runs[0]
	for _, r := range f.Runs[1:] {
		if strings.HasPrefix(r.Target, "nginx") && r.Mode == k.Mode && r.Rate == k.Rate {
			return r
		}
	}
	return nil
}

// atMostRatio is a goal "ratio <= limit×".
func atMostRatio(name string, ratio, limit float64, measured string) goal {
	t := goal{Name: name, Measured: measured, Goal: fmt.Sprintf("<= %.2f×", limit), Ratio: fmt.Sprintf("%.2f×", ratio), Verdict: verdict(ratio <= limit)}
	if ratio > limit {
		t.Note = fmt.Sprintf("over by %.0f%%", (ratio-limit)/limit*100)
		if (ratio-limit)/limit < 0.01 {
			// A ratio just over the limit must not print as the limit: round up.
			t.Ratio, t.Note = fmt.Sprintf("%.3f×", math.Ceil(ratio*1000)/1000), "over by less than 1%"
		}
	}
	return t
}

// missingStack names the parts of kurz's stack a split did not measure:
// a machine cost without them would look cheaper than it is.
func missingStack(s *cpuSplit) []string {
	var miss []string
	for _, p := range stackParts {
		if _, ok := s.CPUSeconds[p]; !ok {
			miss = append(miss, partLabel(p))
		}
	}
	return miss
}

// machineTarget is issue 15's first target for one closed-loop scenario:
// the median over its rounds of the machine ratio, each round's kurz run
// against the nginx run right after it.
func machineTarget(label string, fs []*runFile) goal {
	name := label + ": machine CPU per counted redirect (edge+ClickHouse+PostgreSQL+admin) vs nginx's server CPU per request"
	if len(fs) == 0 {
		return goal{Name: name, Measured: "not measured", Goal: fmt.Sprintf("<= %.2f×", machineLimit), Verdict: "**miss**"}
	}
	var costs []machineCost
	var splits []*cpuSplit
	var rounds []int
	for i, f := range fs {
		if m, ok := machineRatio(f.Runs[0], referenceRun(f)); ok {
			costs, splits, rounds = append(costs, m), append(splits, f.Runs[0].Split), append(rounds, i+1)
		}
	}
	if len(costs) == 0 {
		return goal{Name: name, Measured: "no CPU split of kurz and nginx in this run", Goal: fmt.Sprintf("<= %.2f×", machineLimit), Verdict: "**miss**",
			Note: "bench run needs --pid and --compare-nginx"}
	}
	ratios := make([]float64, len(costs))
	for i, m := range costs {
		ratios[i] = m.ratio
	}
	// The round shown in full is the median one (the lower of the middle
	// two for an even count); the verdict is on the median ratio.
	mi := medianIndex(ratios)
	m, s := costs[mi], splits[mi]
	t := atMostRatio(name, median(ratios), machineLimit, fmt.Sprintf("kurz %.1f µs (%s) vs nginx %.1f µs", m.kurz, s.partsList(s.MachineParts), m.nginx))
	if len(costs) > 1 {
		t.Ratio += fmt.Sprintf(" (median of %d rounds)", len(costs))
		t.Measured = fmt.Sprintf("round %d of %d: ", rounds[mi], len(fs)) + t.Measured
		t.Note = joinNote(t.Note, "per round: "+ratioList(ratios))
	}
	t.Note = joinNote(t.Note, fmt.Sprintf("%d counted redirects; window %.1f s load + %.1f s until the clicks settled", s.Redirects, s.LoadSeconds, s.SettleSeconds))
	for _, s := range splits {
		if miss := missingStack(s); len(miss) > 0 {
			t.Verdict = "**miss**"
			t.Note = joinNote(t.Note, "not measured: "+strings.Join(miss, ", ")+" (pass their pids), so the cost is incomplete")
			break
		}
	}
	return t
}

// openTargets are the open loop's p99 and p99.9 against nginx's at the
// same rate, right after each kurz run: the median of the per-run ratios.
func openTargets(opens []*runFile) []goal {
	if len(opens) == 0 {
		return []goal{{Name: "Open loop at 50% of max vs nginx at the same rate", Measured: "not measured", Verdict: "**miss**"}}
	}
	o := opens[0].Runs[0]
	return []goal{
		openRatioTarget(fmt.Sprintf("Open loop at %s req/s (50%% of max): p99 vs nginx's at the same rate", human(o.Rate)), opens, 2, func(l *latencySummary) float64 { return l.P99 }),
		openRatioTarget("Open loop at 50% of max: p99.9 vs nginx's at the same rate", opens, 3, func(l *latencySummary) float64 { return l.P999 }),
	}
}

func openRatioTarget(name string, opens []*runFile, limit float64, pct func(*latencySummary) float64) goal {
	var ratios, kurz, nginx []float64
	for _, f := range opens {
		k, ng := f.Runs[0], referenceRun(f)
		if k.Latency == nil || ng == nil || ng.Latency == nil || pct(ng.Latency) <= 0 {
			continue
		}
		ratios = append(ratios, pct(k.Latency)/pct(ng.Latency))
		kurz = append(kurz, pct(k.Latency))
		nginx = append(nginx, pct(ng.Latency))
	}
	if len(ratios) == 0 {
		return goal{Name: name, Measured: "no nginx run at the same rate", Goal: fmt.Sprintf("<= %.2f×", limit), Verdict: "**miss**", Note: "bench run --rate … needs --compare-nginx"}
	}
	t := atMostRatio(name, median(ratios), limit, fmt.Sprintf("kurz %s vs nginx %s", msList(kurz), msList(nginx)))
	if len(ratios) > 1 {
		t.Ratio += fmt.Sprintf(" (median of %d runs)", len(ratios))
		t.Note = joinNote(t.Note, "per run: "+ratioList(ratios))
	}
	return t
}

func ratioList(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%.2f×", v)
	}
	return strings.Join(parts, ", ")
}

// firstRuns are the kurz runs (the first of each file) of fs.
func firstRuns(fs ...*runFile) []*runReport {
	var runs []*runReport
	for _, f := range fs {
		if f != nil {
			runs = append(runs, f.Runs[0])
		}
	}
	return runs
}

// zeroLossTarget is the exact zero-loss check of every kurz run of one
// scenario: each run's count must equal its expected clicks.
func zeroLossTarget(scenario string, runs []*runReport) goal {
	t := goal{Name: "Zero lost clicks: " + scenario, Goal: "diff 0 in every run", Verdict: "**miss**"}
	if len(runs) == 0 {
		t.Measured = "not measured"
		return t
	}
	var expected, counted int64
	ok := true
	for i, r := range runs {
		c := r.Clicks
		if c == nil {
			t.Measured = fmt.Sprintf("run %d of %d not checked", i+1, len(runs))
			t.Note = "run without --clickhouse"
			return t
		}
		expected += c.Expected
		counted += c.Counted
		ok = ok && c.OK
		if !c.OK || c.Note != "" {
			t.Note = joinNote(t.Note, fmt.Sprintf("run %d: expected %d, counted %d%s", i+1, c.Expected, c.Counted, noteSuffix(c.Note)))
		}
	}
	t.Measured = fmt.Sprintf("expected %d, counted %d, diff %+d", expected, counted, counted-expected)
	if len(runs) > 1 {
		t.Measured += fmt.Sprintf(" over %d runs", len(runs))
	}
	t.Verdict = verdict(ok)
	return t
}

// writeSplitTable writes the per-process CPU split of every run of files
// that has one, in µs per counted redirect.
func writeSplitTable(b *strings.Builder, files []*runFile) {
	b.WriteString("\n## Machine CPU per counted redirect, by process\n\n")
	b.WriteString(splitWindow + "\n\n")
	b.WriteString("µs of CPU per counted redirect (per request for nginx and the bare server).\n\n")
	b.WriteString("| scenario | target | counted redirects | window: load + settle | server (edge / nginx / bare) | ClickHouse | PostgreSQL | admin | load generator | rest | machine | vs nginx | verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	rows := 0
	for _, f := range files {
		ng := referenceRun(f)
		for i, r := range f.Runs {
			if r.Split == nil {
				continue
			}
			rows++
			fmt.Fprintln(b, splitRow(r, ng, i == 0))
		}
	}
	if rows == 0 {
		b.WriteString("| not measured (runs without --pid) | | | | | | | | | | | | |\n")
	}
}

// splitRow is one run's line of the split table; kurz says whether r is
// the scenario's kurz run (judged against ng).
func splitRow(r, ng *runReport, kurz bool) string {
	s := r.Split
	cells := []string{r.Name, r.Target, fmt.Sprintf("%d", s.Redirects), fmt.Sprintf("%.1f + %.1f s", s.LoadSeconds, s.SettleSeconds)}
	for _, p := range partOrder {
		if v, ok := s.micros(p); ok {
			cells = append(cells, fmt.Sprintf("%.1f", v))
		} else {
			cells = append(cells, "-")
		}
	}
	cells = append(cells, fmt.Sprintf("**%.1f**", s.machineMicros()))
	ratio, judged := "-", ""
	switch {
	case r == ng:
		ratio = "reference"
	case kurz:
		if m, ok := machineRatio(r, ng); ok {
			ratio = fmt.Sprintf("%.2f×", m.ratio)
			judged = verdict(m.ratio <= machineLimit && len(missingStack(s)) == 0)
		}
	default:
		if m, ok := machineRatio(r, ng); ok {
			ratio = fmt.Sprintf("%.2f×", m.ratio)
		}
	}
	cells = append(cells, ratio, judged)
	return "| " + strings.Join(cells, " | ") + " |"
}

// writeRatioTable lists, per scenario run against nginx, the three ratios
// issue 15 asks for side by side: throughput, requests per server-CPU-
// second and machine CPU per counted redirect.
func writeRatioTable(b *strings.Builder, files []*runFile) {
	b.WriteString("\n## Ratios to nginx, per scenario (same run)\n\n")
	b.WriteString("| scenario | mode | throughput kurz/nginx | req per server-CPU-second kurz/nginx | machine CPU per counted redirect kurz/nginx |\n|---|---|---|---|---|\n")
	rows := 0
	for _, f := range files {
		k, ng := f.Runs[0], referenceRun(f)
		if ng == nil {
			continue
		}
		rows++
		cells := []string{k.Name, k.Mode, "-", "-", "-"}
		if ng.Throughput > 0 {
			cells[2] = fmt.Sprintf("%.2f×", k.Throughput/ng.Throughput)
		}
		if ng.ReqPerCPUSec > 0 && k.ReqPerCPUSec > 0 {
			cells[3] = fmt.Sprintf("%.2f×", k.ReqPerCPUSec/ng.ReqPerCPUSec)
		}
		if m, ok := machineRatio(k, ng); ok {
			cells[4] = fmt.Sprintf("%.2f× (%.1f vs %.1f µs)", m.ratio, m.kurz, m.nginx)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	if rows == 0 {
		b.WriteString("| not measured (runs without --compare-nginx) | | | | |\n")
	}
}
