package chtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
		if err := s.run("ch-down", s.dir); err != nil {
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
	if err := s.run("ch-up", s.dir, fmt.Sprint(s.port)); err != nil {
		t.Fatalf("chtest: %v", err)
	}
}

// Stop stops the server gracefully (SIGTERM, then SIGKILL after 15 s).
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if err := s.run("ch-down", s.dir); err != nil {
		t.Fatalf("chtest: %v", err)
	}
}

func (s *Server) run(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, s.script, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("stack.sh %s: %w: %s", strings.Join(args, " "), err, out)
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
