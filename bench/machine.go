package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// machineCPU is the whole machine's CPU time from /proc/stat's "cpu" line,
// in clock ticks: busy (user, nice, system, irq, softirq, steal) and idle
// (idle, iowait). Guest time is already inside user and nice.
type machineCPU struct {
	Busy, Idle int64
}

// parseMachineStat reads the aggregate "cpu " line of /proc/stat.
func parseMachineStat(b []byte) (machineCPU, error) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte("cpu "))
	if !ok {
		return machineCPU{}, errors.New("/proc/stat: first line is not the cpu total")
	}
	f := strings.Fields(string(rest))
	if len(f) < 8 {
		return machineCPU{}, fmt.Errorf("/proc/stat: %d cpu fields, want >= 8", len(f))
	}
	var v [8]int64
	for i := range v {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return machineCPU{}, fmt.Errorf("/proc/stat field %d: %w", i, err)
		}
		v[i] = n
	}
	// user nice system idle iowait irq softirq steal
	return machineCPU{Busy: v[0] + v[1] + v[2] + v[5] + v[6] + v[7], Idle: v[3] + v[4]}, nil
}

func readMachineCPU() (machineCPU, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineCPU{}, fmt.Errorf("read /proc/stat: %w", err)
	}
	return parseMachineStat(b)
}

// machineUsage is what the whole machine spent during a run: it answers
// where the cores went when neither the server nor the load generator
// used them (ClickHouse, the kernel's network work, other processes).
type machineUsage struct {
	BusyCPUSeconds float64 `json:"busy_cpu_seconds"`
	IdleCPUSeconds float64 `json:"idle_cpu_seconds"`
	// CPUMicrosPerRequest is busy CPU time per answered request: what one
	// request costs the machine, server, load generator and all.
	CPUMicrosPerRequest float64 `json:"cpu_us_per_request"`
	// ClickHouse is the ClickHouse server's share (--clickhouse-pid; kurz's
	// runs only: nginx and the bare server write no clicks).
	ClickHouse *procUsage `json:"clickhouse,omitempty"`
}

func newMachineUsage(before, after machineCPU, requests int64) *machineUsage {
	m := &machineUsage{
		BusyCPUSeconds: float64(after.Busy-before.Busy) / clockTicks,
		IdleCPUSeconds: float64(after.Idle-before.Idle) / clockTicks,
	}
	if requests > 0 {
		m.CPUMicrosPerRequest = m.BusyCPUSeconds * 1e6 / float64(requests)
	}
	return m
}

// busyShare is the fraction of the machine's CPU time that was busy.
func (m *machineUsage) busyShare() float64 {
	if t := m.BusyCPUSeconds + m.IdleCPUSeconds; t > 0 {
		return m.BusyCPUSeconds / t
	}
	return 0
}
