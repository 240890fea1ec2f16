package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is USER_HZ, the unit of utime/stime in /proc/PID/stat. It is
// 100 on every Linux architecture Go supports (the kernel ABI fixes it;
// sysconf(_SC_CLK_TCK) would need cgo).
const clockTicks = 100

// procCPU is a process's CPU time so far.
type procCPU struct {
	UTime, STime int64 // clock ticks
}

func (c procCPU) seconds() float64 { return float64(c.UTime+c.STime) / clockTicks }

// parseStat reads utime and stime (fields 14 and 15) and the parent's pid
// from a /proc/PID/stat line (see parseStatTimes).
func parseStat(line []byte) (procCPU, int, error) {
	t, ppid, err := parseStatTimes(line)
	if err != nil {
		return procCPU{}, 0, err
	}
	return procCPU{UTime: t.UTime, STime: t.STime}, ppid, nil
}

// parseStatusKB returns the value in kB of a "Key:   N kB" line of
// /proc/PID/status (VmRSS, VmHWM).
func parseStatusKB(status []byte, key string) (int64, error) {
	for line := range bytes.SplitSeq(status, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte(key+":"))
		if !ok {
			continue
		}
		f := strings.Fields(string(rest))
		if len(f) == 0 {
			break
		}
		return strconv.ParseInt(f[0], 10, 64)
	}
	return 0, fmt.Errorf("status: no %s line", key)
}

// procTree is a set of processes measured together: a root and its direct
// children (nginx's master and its worker; the edge alone). The members are
// found once, when a sampler starts: scanning all of /proc every sample
// cost the load generator ~10% of its CPU, taken from the server measured.
type procTree struct {
	root    int
	members []int
}

func newProcTree(root int) procTree {
	t := procTree{root: root}
	t.members = t.findPIDs()
	return t
}

func (t procTree) pids() []int {
	if t.members != nil {
		return t.members
	}
	return t.findPIDs()
}

func (t procTree) findPIDs() []int {
	pids := []int{t.root}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return pids
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == t.root {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if _, ppid, err := parseStat(b); err == nil && ppid == t.root {
			pids = append(pids, pid)
		}
	}
	return pids
}

// cpu sums utime+stime over the tree.
func (t procTree) cpu() (procCPU, error) {
	var sum procCPU
	for _, pid := range t.pids() {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			if pid == t.root {
				return sum, fmt.Errorf("read stat of %d: %w", pid, err)
			}
			continue // a child that just exited
		}
		c, _, err := parseStat(b)
		if err != nil {
			return sum, fmt.Errorf("pid %d: %w", pid, err)
		}
		sum.UTime += c.UTime
		sum.STime += c.STime
	}
	return sum, nil
}

// memKB sums a status field over the tree.
func (t procTree) memKB(key string) int64 {
	var sum int64
	for _, pid := range t.pids() {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			continue
		}
		if v, err := parseStatusKB(b, key); err == nil {
			sum += v
		}
	}
	return sum
}

// procUsage is what a process tree used during a run.
type procUsage struct {
	PID        int     `json:"pid"`
	CPUSeconds float64 `json:"cpu_seconds"`
	// MaxRSSMB is the largest VmRSS sampled during the run (every 100 ms);
	// HWMMB is the kernel's peak (VmHWM) since the process started.
	MaxRSSMB float64 `json:"max_rss_mb"`
	HWMMB    float64 `json:"hwm_mb"`
}

// procSampler measures a process tree from start to stop.
type procSampler struct {
	tree   procTree
	before procCPU
	mu     sync.Mutex
	maxRSS int64
	cancel context.CancelFunc
	done   chan struct{}
}

func startSampler(pid int) (*procSampler, error) {
	return startTreeSampler(newProcTree(pid))
}

// startSelfSampler measures the load generator alone: the servers it
// starts (nginx, the bare fasthttp server) are its children, and the bare
// server's CPU used to be counted as the harness's.
func startSelfSampler() (*procSampler, error) {
	pid := os.Getpid()
	return startTreeSampler(procTree{root: pid, members: []int{pid}})
}

func startTreeSampler(tree procTree) (*procSampler, error) {
	s := &procSampler{tree: tree, done: make(chan struct{})}
	var err error
	if s.before, err = s.tree.cpu(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.sample(ctx)
	return s, nil
}

func (s *procSampler) sample(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		rss := s.tree.memKB("VmRSS")
		s.mu.Lock()
		s.maxRSS = max(s.maxRSS, rss)
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *procSampler) stop() (procUsage, error) {
	s.cancel()
	<-s.done
	after, err := s.tree.cpu()
	if err != nil {
		return procUsage{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return procUsage{
		PID:        s.tree.root,
		CPUSeconds: after.seconds() - s.before.seconds(),
		MaxRSSMB:   float64(s.maxRSS) / 1024,
		HWMMB:      float64(s.tree.memKB("VmHWM")) / 1024,
	}, nil
}

// readPIDFile reads a pid file (nginx, the edge started by bench.sh).
func readPIDFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read pid file: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("pid file %s: not a pid", path)
	}
	return pid, nil
}
