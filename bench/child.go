package main

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"syscall"
	"time"
)

// Helpers for the servers a run starts beside the edge (nginx, the bare
// fasthttp server): a port, readiness, and a clean stop.

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitListening(ctx context.Context, addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stopChild ends cmd, started in its own process group: sig first (a clean
// exit), then SIGKILL to the whole group after 5 s.
func stopChild(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	cmd.Process.Signal(sig) //nolint:errcheck // may have exited
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }() //nolint:errcheck // exit status is irrelevant
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // best effort
		<-done
	}
}
