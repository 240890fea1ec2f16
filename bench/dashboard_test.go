package main

import (
	"strings"
	"testing"
)

func TestDashboardTarget(t *testing.T) {
	tests := []struct {
		name    string
		pages   []dashboardPage
		verdict string
		note    string
	}{
		{"all fast", []dashboardPage{
			{Name: "home", Latency: &latencySummary{P95: 12}},
			{Name: "links", Latency: &latencySummary{P95: 49.9}},
		}, "pass", ""},
		{"one slow", []dashboardPage{
			{Name: "home", Latency: &latencySummary{P95: 12}},
			{Name: "stats", Latency: &latencySummary{P95: 80}},
		}, "**miss**", "1 of 2 pages over: stats 80 ms"},
		{"fast at rest, slow while clicked", []dashboardPage{
			{Name: "home", Latency: &latencySummary{P95: 12}},
			{Name: "links by clicks, while clicked", Clicked: true, Latency: &latencySummary{P95: 120}},
		}, "pass", ""},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		rep := dashboardReport{Links: 100000, Clicks: 10000000, Requests: 40, Pages: tt.pages}
		for _, p := range tt.pages {
			rep.Worst = max(rep.Worst, p.Latency.P95)
		}
		if err := writeJSON(dir+"/dashboard.json", &rep); err != nil {
			t.Fatal(err)
		}
		gs := dashboardTargets(dir)
		if g := gs[0]; g.Verdict != tt.verdict || !strings.Contains(g.Note, tt.note) {
			t.Errorf("%s: verdict %q note %q, want %q with %q", tt.name, g.Verdict, g.Note, tt.verdict, tt.note)
		}
		clicked := 0
		for _, p := range tt.pages {
			if p.Clicked {
				clicked++
			}
		}
		if clicked > 0 && (len(gs) != 2 || gs[1].Verdict != "**miss**" || !strings.Contains(gs[1].Note, "1 of 1 pages over: links by clicks, while clicked 120 ms")) {
			t.Errorf("%s: the while-clicked target: %+v", tt.name, gs)
		}
		if clicked == 0 && len(gs) != 1 {
			t.Errorf("%s: %d targets without clicked pages", tt.name, len(gs))
		}
		var b strings.Builder
		writeDashboardTable(&b, dir)
		for _, p := range tt.pages {
			if !strings.Contains(b.String(), "| "+p.Name+" |") {
				t.Errorf("%s: page %s missing from the table:\n%s", tt.name, p.Name, b.String())
			}
		}
	}
	if gs := dashboardTargets(t.TempDir()); len(gs) != 1 || gs[0].Verdict != "**miss**" || gs[0].Measured != "not measured" {
		t.Errorf("no result: %+v", gs)
	}
}

func TestWithDSNParam(t *testing.T) {
	for in, want := range map[string]string{
		"clickhouse://127.0.0.1:9000/default":                 "clickhouse://127.0.0.1:9000/default?read_timeout=300s",
		"clickhouse://127.0.0.1:9000/default?read_timeout=5s": "clickhouse://127.0.0.1:9000/default?read_timeout=5s",
		"clickhouse://127.0.0.1:9000/default?dial_timeout=1s": "clickhouse://127.0.0.1:9000/default?dial_timeout=1s&read_timeout=300s",
	} {
		if got := withDSNParam(in, "read_timeout", "300s"); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
