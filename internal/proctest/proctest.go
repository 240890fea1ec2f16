// Package proctest runs kurz's own binaries in tests that treat them as
// black boxes (end-to-end and multi-process tests): built once from this
// tree per test binary, started with their output kept for a failure,
// stopped with SIGTERM when the test ends.
package proctest

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Main builds the commands (kurz/<name>) into a temporary directory, sets
// *dir to it, runs the tests and removes it; TestMain passes its result to
// os.Exit. A build that fails fails the whole test binary.
func Main(m *testing.M, dir *string, names ...string) int {
	d, err := os.MkdirTemp("", "kurz-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(d)
	for _, name := range names {
		if err := Build(filepath.Join(d, name), name); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	*dir = d
	return m.Run()
}

// Build compiles kurz/<name> to out.
func Build(out, name string) error {
	b, err := exec.Command("go", "build", "-o", out, "kurz/"+name).CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build kurz/%s: %w\n%s", name, err, b)
	}
	return nil
}

// Proc is a started process of a test.
type Proc struct {
	Name string
	Log  *bytes.Buffer // stdout and stderr
	cmd  *exec.Cmd
	done chan struct{} // closed when it has exited
	err  error         // its exit, once done
}

// Start starts cmd and stops it when the test ends (Stop). Its output is
// logged when the test failed.
func Start(t testing.TB, name string, cmd *exec.Cmd) *Proc {
	t.Helper()
	p := &Proc{Name: name, Log: &bytes.Buffer{}, cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.Log, p.Log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		if _, err := p.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", name, p.Log.String())
		}
	})
	return p
}

// Stop sends SIGTERM (unless it has exited) and waits at most 15 s for the
// exit, which it returns; past that it kills the process and says so.
func (p *Proc) Stop() (exit error, err error) {
	p.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have exited
	select {
	case <-p.done:
		return p.err, nil
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill() //nolint:errcheck
		<-p.done
		return p.err, fmt.Errorf("%s did not stop on SIGTERM within 15 s", p.Name)
	}
}

// WaitReady polls base's /readyz until it answers 200, at most 15 s.
func WaitReady(t testing.TB, base string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s not ready after 15 s", base)
}
