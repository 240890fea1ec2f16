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
		g := dashboardTarget(dir)
		if g.Verdict != tt.verdict || !strings.Contains(g.Note, tt.note) {
			t.Errorf("%s: verdict %q note %q, want %q with %q", tt.name, g.Verdict, g.Note, tt.verdict, tt.note)
		}
		var b strings.Builder
		writeDashboardTable(&b, dir)
		for _, p := range tt.pages {
			if !strings.Contains(b.String(), "| "+p.Name+" |") {
				t.Errorf("%s: page %s missing from the table:\n%s", tt.name, p.Name, b.String())
			}
		}
	}
	if g := dashboardTarget(t.TempDir()); g.Verdict != "**miss**" || g.Measured != "not measured" {
		t.Errorf("no result: %+v", g)
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
