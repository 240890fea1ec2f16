package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The CPU split answers issue 15's question: what does the whole machine
// pay per counted redirect, and which process pays it? Two readings of
// /proc, one before the load and one after the clicks it caused have
// settled in ClickHouse, give each named process tree's CPU time and the
// machine's busy time (/proc/stat); "rest" is the busy time nobody named
// used (the kernel's softirq work not charged to a process, other
// processes on the machine).

// Parts of the split, in the order reports show them.
const (
	partServer     = "server" // the target: the edge, nginx or the bare server
	partClickHouse = "clickhouse"
	partPostgres   = "postgres"
	partAdmin      = "admin"
	partLoadGen    = "load_generator"
	partRest       = "rest"
)

var partOrder = []string{partServer, partClickHouse, partPostgres, partAdmin, partLoadGen, partRest}

// stackParts are what kurz's machine cost sums: everything a deployment
// runs to redirect and count (the load generator and "rest" are not kurz).
var stackParts = []string{partServer, partClickHouse, partPostgres, partAdmin}

// statTimes is a process's own CPU time and that of the children it has
// waited for (fields 14-17 of /proc/PID/stat), in clock ticks.
type statTimes struct {
	UTime, STime, CUTime, CSTime int64
}

// parseStatTimes reads fields 4 (ppid) and 14-17 of a /proc/PID/stat line.
// The command name (field 2) is in parentheses and may itself hold spaces
// and parentheses, so fields are counted after the last ')'.
func parseStatTimes(line []byte) (statTimes, int, error) {
	i := bytes.LastIndexByte(line, ')')
	if i < 0 {
		return statTimes{}, 0, errors.New("stat: no ')' after the command name")
	}
	f := strings.Fields(string(line[i+1:]))
	// f[0] is field 3 (state): ppid f[1], utime f[11], stime f[12], cutime f[13], cstime f[14].
	if len(f) < 15 {
		return statTimes{}, 0, fmt.Errorf("stat: %d fields after the command name, want >= 15", len(f))
	}
	var v [4]int64
	for j := range v {
		n, err := strconv.ParseInt(f[11+j], 10, 64)
		if err != nil {
			return statTimes{}, 0, fmt.Errorf("stat field %d: %w", 14+j, err)
		}
		v[j] = n
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return statTimes{}, 0, fmt.Errorf("stat ppid: %w", err)
	}
	return statTimes{UTime: v[0], STime: v[1], CUTime: v[2], CSTime: v[3]}, ppid, nil
}

// procTable is one scan of a /proc directory: every process's parent and
// CPU times.
type procTable struct {
	procs    map[int]procEntry
	children map[int][]int
}

type procEntry struct {
	ppid  int
	times statTimes
}

// readProcTable scans root (/proc; tests pass a fixture directory). A
// process that exits during the scan is skipped.
func readProcTable(root string) (*procTable, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", root, err)
	}
	t := &procTable{procs: map[int]procEntry{}, children: map[int][]int{}}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, e.Name(), "stat"))
		if err != nil {
			continue // exited
		}
		st, ppid, err := parseStatTimes(b)
		if err != nil {
			return nil, fmt.Errorf("pid %d: %w", pid, err)
		}
		t.procs[pid] = procEntry{ppid: ppid, times: st}
		t.children[ppid] = append(t.children[ppid], pid)
	}
	return t, nil
}

// treeTicks is the CPU time of root and all its descendants, each with the
// children it has reaped. The reaped part matters for PostgreSQL: a
// backend that exits moves its CPU time into the postmaster's cutime, and
// without it the tree's sum would fall when a connection closes.
func (t *procTable) treeTicks(root int) (int64, error) {
	if _, ok := t.procs[root]; !ok {
		return 0, fmt.Errorf("process %d is not running", root)
	}
	var sum int64
	queue := []int{root}
	seen := map[int]bool{}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		s := t.procs[pid].times
		sum += s.UTime + s.STime + s.CUTime + s.CSTime
		queue = append(queue, t.children[pid]...)
	}
	return sum, nil
}

// ownTicks is one process's own CPU time, without the children it reaped:
// the load generator's own share (wrk, nginx and the bare server are its
// children and are measured apart).
func (t *procTable) ownTicks(pid int) (int64, error) {
	p, ok := t.procs[pid]
	if !ok {
		return 0, fmt.Errorf("process %d is not running", pid)
	}
	return p.times.UTime + p.times.STime, nil
}

// splitRole names a part of the split and the process that is measured
// for it: its whole tree, or (tree false) itself alone.
type splitRole struct {
	part string
	pid  int
	tree bool
}

// stackSnapshot is one reading of the machine and of every role.
type stackSnapshot struct {
	at      time.Time
	machine machineCPU
	ticks   map[string]int64
}

// takeSnapshot reads root/stat (the machine) and the roles' processes.
func takeSnapshot(root string, roles []splitRole) (stackSnapshot, error) {
	s := stackSnapshot{at: time.Now(), ticks: map[string]int64{}}
	b, err := os.ReadFile(filepath.Join(root, "stat"))
	if err != nil {
		return s, fmt.Errorf("read %s/stat: %w", root, err)
	}
	if s.machine, err = parseMachineStat(b); err != nil {
		return s, err
	}
	t, err := readProcTable(root)
	if err != nil {
		return s, err
	}
	for _, r := range roles {
		var n int64
		if r.tree {
			n, err = t.treeTicks(r.pid)
		} else {
			n, err = t.ownTicks(r.pid)
		}
		if err != nil {
			return s, fmt.Errorf("cpu split, %s: %w", r.part, err)
		}
		s.ticks[r.part] = n
	}
	return s, nil
}

// cpuSplit is where the machine's CPU went during one run's window: from
// the load's start until the clicks it caused settled in ClickHouse (plus
// --settle-tail), or the load's end for runs without the zero-loss check.
type cpuSplit struct {
	LoadSeconds float64 `json:"load_seconds"`
	// SettleSeconds is the window after the load: the zero-loss check's
	// wait for the count, and the tail.
	SettleSeconds float64 `json:"settle_seconds"`
	// Redirects is the denominator: for kurz the answers that recorded a
	// click (2xx/3xx for a link kind that counts, any visitor class), for a
	// reference server every answered request.
	Redirects      int64              `json:"redirects"`
	BusyCPUSeconds float64            `json:"machine_busy_cpu_seconds"`
	CPUSeconds     map[string]float64 `json:"cpu_seconds"`
	// MachineParts are the parts whose sum is the target's machine cost:
	// server, clickhouse, postgres, admin for kurz; server alone for nginx.
	MachineParts []string `json:"machine_parts"`
	// ClickHouseParts is ClickHouse's part work in the window, by table
	// (kurz runs with --clickhouse on a server that keeps system.part_log).
	ClickHouseParts []partWork `json:"clickhouse_parts,omitempty"`
}

// newCPUSplit is the difference of two snapshots; loadEnd splits the
// window into load and settle time.
func newCPUSplit(before, after stackSnapshot, loadEnd time.Time, redirects int64, machineParts []string) *cpuSplit {
	s := &cpuSplit{
		LoadSeconds:    loadEnd.Sub(before.at).Seconds(),
		SettleSeconds:  max(after.at.Sub(loadEnd).Seconds(), 0),
		Redirects:      redirects,
		BusyCPUSeconds: float64(after.machine.Busy-before.machine.Busy) / clockTicks,
		CPUSeconds:     map[string]float64{},
	}
	rest := s.BusyCPUSeconds
	for part, n := range after.ticks {
		v := float64(n-before.ticks[part]) / clockTicks
		s.CPUSeconds[part] = v
		rest -= v
	}
	s.CPUSeconds[partRest] = rest
	for _, p := range machineParts {
		if _, ok := s.CPUSeconds[p]; ok {
			s.MachineParts = append(s.MachineParts, p)
		}
	}
	return s
}

// micros is a part's CPU time per redirect in µs; false when the part was
// not measured.
func (s *cpuSplit) micros(part string) (float64, bool) {
	v, ok := s.CPUSeconds[part]
	if !ok || s.Redirects <= 0 {
		return 0, false
	}
	return v * 1e6 / float64(s.Redirects), true
}

// machineMicros is the target's machine cost per redirect (the sum of
// MachineParts).
func (s *cpuSplit) machineMicros() float64 {
	var sum float64
	for _, p := range s.MachineParts {
		v, _ := s.micros(p)
		sum += v
	}
	return sum
}

// partLabel is a part's name in reports.
func partLabel(p string) string {
	switch p {
	case partClickHouse:
		return "ClickHouse"
	case partPostgres:
		return "PostgreSQL"
	case partLoadGen:
		return "load generator"
	}
	return p
}

// line is the split in one line of `bench run`'s output.
func (s *cpuSplit) line() string {
	labels := make([]string, len(s.MachineParts))
	for i, p := range s.MachineParts {
		labels[i] = partLabel(p)
	}
	return fmt.Sprintf("window %.2f s load + %.2f s settle; µs per counted redirect (%d): %s; machine (%s) %.1f µs",
		s.LoadSeconds, s.SettleSeconds, s.Redirects, s.partsList(partOrder), strings.Join(labels, "+"), s.machineMicros())
}

// partsList is "server 22.1, ClickHouse 10.5, …" in µs per redirect for
// the given parts (those measured).
func (s *cpuSplit) partsList(parts []string) string {
	var out []string
	for _, p := range parts {
		if v, ok := s.micros(p); ok {
			out = append(out, fmt.Sprintf("%s %.1f", partLabel(p), v))
		}
	}
	return strings.Join(out, ", ")
}

// machineCost is kurz's machine CPU per counted redirect against a
// reference server's CPU per request, measured in the same run.
type machineCost struct {
	kurz, nginx, ratio float64
}

// machineRatio compares kurz's run k with the reference run ng: kurz's
// machine cost (its split's MachineParts) over ng's server CPU per request.
func machineRatio(k, ng *runReport) (machineCost, bool) {
	if k == nil || ng == nil || k.Split == nil || k.Split.Redirects <= 0 {
		return machineCost{}, false
	}
	n, ok := serverMicros(ng)
	if !ok || n <= 0 {
		return machineCost{}, false
	}
	m := machineCost{kurz: k.Split.machineMicros(), nginx: n}
	m.ratio = m.kurz / n
	return m, true
}

// serverMicros is a run's server CPU per request in µs: from its split,
// or from the server's CPU during the load in JSON without one.
func serverMicros(r *runReport) (float64, bool) {
	if r.Split != nil {
		if v, ok := r.Split.micros(partServer); ok {
			return v, true
		}
	}
	if r.Server != nil && r.Requests > 0 {
		return r.Server.CPUSeconds * 1e6 / float64(r.Requests), true
	}
	return 0, false
}
