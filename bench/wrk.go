package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// wrkResult is wrk's own summary of a run.
type wrkResult struct {
	Threads    int     `json:"threads"`
	Conns      int     `json:"connections"`
	Seconds    int     `json:"seconds"`
	Throughput float64 `json:"throughput"`
	P99MS      float64 `json:"p99_ms,omitempty"`
	// CPUSeconds is wrk's own user+system time (rusage): the harness
	// comparison per client-CPU-second does not depend on who got the cores.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	ReqPerCPU  float64 `json:"req_per_cpu_second,omitempty"`
}

var (
	wrkRate = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)`)
	wrkP99  = regexp.MustCompile(`(?m)^\s+99%\s+([0-9.]+)(us|ms|s)\b`)
)

// parseWrk reads Requests/sec and the 99% line (--latency) of wrk's output.
func parseWrk(out string) (float64, float64, error) {
	m := wrkRate.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("wrk output has no Requests/sec line: %.300s", out)
	}
	rate, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, 0, fmt.Errorf("wrk rate %q: %w", m[1], err)
	}
	var p99 float64
	if m := wrkP99.FindStringSubmatch(out); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		p99 = v * map[string]float64{"us": 0.001, "ms": 1, "s": 1000}[m[2]]
	}
	return rate, p99, nil
}

// runWrk runs wrk (installed with apt when missing) -t threads -c conns -d secs --latency against url.
func runWrk(ctx context.Context, bin, url string, threads, conns int, d time.Duration) (*wrkResult, error) {
	bin, err := lookOrInstall(ctx, bin, "wrk")
	if err != nil {
		return nil, err
	}
	secs := max(int(d.Round(time.Second)/time.Second), 1)
	cmd := exec.CommandContext(ctx, bin, "-t"+strconv.Itoa(threads), "-c"+strconv.Itoa(conns), "-d"+strconv.Itoa(secs)+"s", "--latency", url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("wrk: %w: %s", err, strings.TrimSpace(string(out)))
	}
	rate, p99, err := parseWrk(string(out))
	if err != nil {
		return nil, err
	}
	r := &wrkResult{Threads: threads, Conns: conns, Seconds: secs, Throughput: rate, P99MS: p99}
	if ps := cmd.ProcessState; ps != nil {
		r.CPUSeconds = (ps.UserTime() + ps.SystemTime()).Seconds()
		if r.CPUSeconds > 0 {
			r.ReqPerCPU = rate * float64(secs) / r.CPUSeconds
		}
	}
	return r, nil
}
