package chtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is a throwaway ClickHouse server, started with
// deploy/local/stack.sh, for tests that stop and restart ClickHouse. Its
// data lives under t.TempDir() and survives Stop/Start.
type Server struct {
	dir    string
	script string
	port   int
	pid    int // the clickhouse-server process, 0 when stopped
}

// StartServer starts a ClickHouse server on a free loopback port and stops
// it when t ends.
func StartServer(t testing.TB) *Server {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("chtest: %v", err)
	}
	port, err := freePortRun(3) // native, http (+1), interserver (+2)
	if err != nil {
		t.Fatalf("chtest: %v", err)
	}
	s := &Server{dir: t.TempDir(), script: filepath.Join(root, "deploy", "local", "stack.sh"), port: port}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Logf("chtest: %v", err)
		}
	})
	s.Start(t)
	return s
}

// DSN returns the DSN of the server's default database.
func (s *Server) DSN() string {
	return fmt.Sprintf("clickhouse://127.0.0.1:%d/default", s.port)
}

// Start (re)starts the server and waits until it answers.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	if err := s.run("ch-up", s.dir, strconv.Itoa(s.port)); err != nil {
		t.Fatalf("chtest: %v", err)
	}
	pid, err := s.findPID()
	if err != nil {
		t.Fatalf("chtest: %v", err)
	}
	s.pid = pid
}

// Stop stops the server gracefully (stack.sh ch-down: SIGTERM, SIGKILL
// after 15 s) and checks that the process is gone.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if err := s.stop(); err != nil {
		t.Fatalf("chtest: %v", err)
	}
}

func (s *Server) stop() error {
	if err := s.run("ch-down", s.dir); err != nil {
		return err
	}
	if s.pid != 0 && alive(s.pid) {
		return fmt.Errorf("clickhouse-server %d still runs after ch-down", s.pid)
	}
	s.pid = 0
	return nil
}

// alive reports whether pid runs and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// findPID finds this server's clickhouse-server process by its config
// file, which lives in the server's own temporary directory.
func (s *Server) findPID() (int, error) {
	want := []byte("--config-file=" + filepath.Join(s.dir, "ch", "config.xml"))
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(cmd, []byte{0})
		if len(args) > 1 && bytes.HasSuffix(args[0], []byte("clickhouse-server")) && bytes.Equal(args[1], want) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("clickhouse-server process for %s not found", s.dir)
}

// run runs stack.sh with its output in a file rather than a pipe, so that
// nothing the script leaves running can hold the test's output open.
func (s *Server) run(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := os.CreateTemp(s.dir, "stack-*.log")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd := exec.CommandContext(ctx, s.script, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		log, _ := os.ReadFile(out.Name())
		return fmt.Errorf("stack.sh %s: %w: %s", strings.Join(args, " "), err, log)
	}
	return nil
}

// repoRoot walks up from the working directory (a package directory under
// `go test`) to the directory holding kurz's go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module kurz\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (go.mod of module kurz) not found above the working directory")
		}
		dir = parent
	}
}

// freePortRun finds n consecutive free loopback ports and returns the first.
func freePortRun(n int) (int, error) {
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		base := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if base+n > 65535 {
			continue
		}
		ok := true
		for i := 1; i < n && ok; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			return base, nil
		}
	}
	return 0, errors.New("no free run of loopback ports found")
}
