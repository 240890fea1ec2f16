package main

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseStatTimes(t *testing.T) {
	tests := []struct {
		name, line string
		want       statTimes
		ppid       int
		bad        bool
	}{
		{name: "edge, name with spaces and parens", line: "12345 (edge (main) x) S 1 12345 12345 0 -1 4194560 1062 0 0 0 4217 1311 0 0 20 0 9 0",
			want: statTimes{UTime: 4217, STime: 1311}, ppid: 1},
		{name: "postmaster with reaped backends", line: "100 (postgres) S 1 100 100 0 -1 4194560 1062 0 0 0 52 21 400 130 20 0 1 0",
			want: statTimes{UTime: 52, STime: 21, CUTime: 400, CSTime: 130}, ppid: 1},
		{name: "no cstime", line: "1 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3", bad: true},
		{name: "no paren", line: "1 x S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4", bad: true},
		{name: "not a number", line: "1 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 x 4", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ppid, err := parseStatTimes([]byte(tc.line))
			if tc.bad {
				if err == nil {
					t.Fatalf("got %+v, want an error", got)
				}
				return
			}
			if err != nil || got != tc.want || ppid != tc.ppid {
				t.Fatalf("got %+v ppid %d err %v, want %+v ppid %d", got, ppid, err, tc.want, tc.ppid)
			}
		})
	}
}

// fixtureRoles are the processes of testdata/proc: PostgreSQL's postmaster
// 100 (backends 101 and 102, which exits, 103, which starts, and 104, a
// child of 101), the edge 200, ClickHouse 300, the admin 400 and bench 500
// with its child nginx 501; 999 is someone else's process.
var fixtureRoles = []splitRole{
	{partServer, 200, true}, {partClickHouse, 300, true}, {partPostgres, 100, true}, {partAdmin, 400, true}, {partLoadGen, 500, false},
}

func fixtureSplit(t *testing.T, machineParts []string) *cpuSplit {
	t.Helper()
	before, err := takeSnapshot("testdata/proc/before", fixtureRoles)
	if err != nil {
		t.Fatal(err)
	}
	after, err := takeSnapshot("testdata/proc/after", fixtureRoles)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1000, 0)
	before.at, after.at = t0, t0.Add(12*time.Second)
	return newCPUSplit(before, after, t0.Add(10*time.Second), 200_000, machineParts)
}

// The split of the fixture's window: PostgreSQL's tree counts the backend
// that exited (through the postmaster's cutime), the one that started and
// the grandchild; bench's own time leaves out its child nginx and the
// children it reaped; the rest is the machine's busy time nobody named.
func TestCPUSplitFromProc(t *testing.T) {
	s := fixtureSplit(t, stackParts)
	want := map[string]float64{
		partServer: 6, partClickHouse: 3.5, partPostgres: 1.76, partAdmin: 0.04, partLoadGen: 5.5,
		partRest: 2.2, // busy 19 s - 16.8 s named (someone else's 1.5 s, nginx 0.3 s, the kernel 0.4 s)
	}
	if len(s.CPUSeconds) != len(want) {
		t.Fatalf("parts %v, want %v", s.CPUSeconds, want)
	}
	for p, w := range want {
		if got := s.CPUSeconds[p]; math.Abs(got-w) > 1e-9 {
			t.Errorf("%s: %.4f CPU-s, want %.4f", p, got, w)
		}
	}
	if s.BusyCPUSeconds != 19 || s.LoadSeconds != 10 || s.SettleSeconds != 2 || s.Redirects != 200_000 {
		t.Errorf("busy %v load %v settle %v redirects %d", s.BusyCPUSeconds, s.LoadSeconds, s.SettleSeconds, s.Redirects)
	}
	// µs per redirect: edge 30, ClickHouse 17.5, PostgreSQL 8.8, admin 0.2.
	if got := s.machineMicros(); math.Abs(got-56.5) > 1e-9 {
		t.Errorf("machine %.3f µs per redirect, want 56.5", got)
	}
	line := s.line()
	for _, w := range []string{"window 10.00 s load + 2.00 s settle", "(200000): server 30.0, ClickHouse 17.5, PostgreSQL 8.8, admin 0.2, load generator 27.5, rest 11.0",
		"machine (server+ClickHouse+PostgreSQL+admin) 56.5 µs"} {
		if !strings.Contains(line, w) {
			t.Errorf("line %q lacks %q", line, w)
		}
	}
	// A reference server's machine cost is its own CPU.
	if got := fixtureSplit(t, []string{partServer}).machineMicros(); got != 30 {
		t.Errorf("reference machine cost %.2f µs, want 30", got)
	}
}

// A measured process that is gone at the second reading fails the split
// instead of counting it as zero.
func TestSnapshotNeedsEveryRole(t *testing.T) {
	for _, r := range []splitRole{{partPostgres, 102, true}, {partLoadGen, 102, false}} {
		if _, err := takeSnapshot("testdata/proc/after", []splitRole{r}); err == nil || !strings.Contains(err.Error(), "102 is not running") {
			t.Errorf("role %+v: err %v, want process 102 is not running", r, err)
		}
	}
	if _, err := takeSnapshot("testdata/no-such-proc", nil); err == nil {
		t.Error("missing /proc: want an error")
	}
}

// This machine's /proc reads: bench's own process, alone and as a tree.
func TestSnapshotOfThisProcess(t *testing.T) {
	pid := os.Getpid()
	s, err := takeSnapshot("/proc", []splitRole{{partServer, pid, true}, {partLoadGen, pid, false}})
	if err != nil {
		t.Fatal(err)
	}
	if s.ticks[partServer] < s.ticks[partLoadGen] || s.machine.Busy <= 0 {
		t.Fatalf("snapshot %+v", s)
	}
}

func TestSplitRoles(t *testing.T) {
	o := &runOptions{chPID: 300, adminPID: 400}
	got := o.splitRoles(200)
	want := []splitRole{{partServer, 200, true}, {partClickHouse, 300, true}, {partAdmin, 400, true}, {partLoadGen, os.Getpid(), false}}
	if len(got) != len(want) {
		t.Fatalf("roles %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("role %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestMachineRatio(t *testing.T) {
	kurz := &runReport{Split: &cpuSplit{Redirects: 100_000, CPUSeconds: map[string]float64{partServer: 2, partClickHouse: 1, partPostgres: 0.5, partAdmin: 0.1, partLoadGen: 2},
		MachineParts: stackParts}}
	tests := []struct {
		name   string
		k, ng  *runReport
		ok     bool
		ngUS   float64
		wantRt float64
	}{
		{"nginx split", kurz, &runReport{Requests: 200_000, Split: &cpuSplit{Redirects: 200_000, CPUSeconds: map[string]float64{partServer: 2.4}, MachineParts: []string{partServer}}}, true, 12, 3},
		{"nginx from its server CPU (older JSON)", kurz, &runReport{Requests: 200_000, Server: &procUsage{CPUSeconds: 3.6}}, true, 18, 2},
		{"no nginx", kurz, nil, false, 0, 0},
		{"kurz without a split", &runReport{}, &runReport{Requests: 1, Server: &procUsage{CPUSeconds: 1}}, false, 0, 0},
		{"nginx without CPU", kurz, &runReport{Requests: 200_000}, false, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := machineRatio(tc.k, tc.ng)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if ok && (math.Abs(m.kurz-36) > 1e-9 || math.Abs(m.nginx-tc.ngUS) > 1e-9 || math.Abs(m.ratio-tc.wantRt) > 1e-9) {
				t.Fatalf("got %+v, want kurz 36 µs, nginx %v µs, ratio %v", m, tc.ngUS, tc.wantRt)
			}
		})
	}
}
