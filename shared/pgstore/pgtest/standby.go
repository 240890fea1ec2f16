package pgtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Standby is a streaming replica of the test server (KURZ_TEST_DATABASE_URL),
// made by pg_basebackup -R and run by pg_ctl on a free port for one test:
// tests of reads from a replica, with its lag under their control
// (Pause, Resume).
type Standby struct {
	t       testing.TB
	primary string // the test server's admin DSN
	port    int
	dir     string
}

// standbyStartTimeout bounds the base backup, the start and the wait for
// streaming together.
const standbyStartTimeout = 90 * time.Second

// NewStandby starts a standby of the test server, streaming, and stops it
// and removes its data directory when t ends. It fails t when the standby
// cannot start. Run it after creating the databases the test reads (New):
// later ones reach the standby too, by replication.
func NewStandby(t testing.TB) *Standby {
	t.Helper()
	primary := os.Getenv(EnvURL)
	if primary == "" {
		t.Fatalf("%s is not set: run the tests with `make test`, which starts PostgreSQL", EnvURL)
	}
	u, err := url.Parse(primary)
	if err != nil {
		t.Fatalf("pgtest: %s: %v", EnvURL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), standbyStartTimeout)
	defer cancel()
	s := &Standby{t: t, primary: primary, port: freePort(t)}
	// /var/tmp: user postgres must reach the directory, and t.TempDir's
	// parents are private to the test's user.
	if s.dir, err = os.MkdirTemp("/var/tmp", "kurz-standby-"); err != nil {
		t.Fatalf("pgtest: standby dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(s.dir) }) // registered first: runs after the stop
	uid, gid := postgresIDs(t)
	if err := os.Chown(s.dir, uid, gid); err != nil {
		t.Fatalf("pgtest: standby dir: %v", err)
	}
	limits, err := standbySettings(ctx, primary)
	if err != nil {
		t.Fatalf("pgtest: standby: %v", err)
	}
	s.run(ctx, "pg_basebackup", "-h", u.Hostname(), "-p", u.Port(), "-U", "postgres",
		"-D", s.dir, "-R", "-X", "stream", "--checkpoint=fast")
	// log_statement=all: Statements tells which reads reached the standby.
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c hot_standby=on -c fsync=off -c log_statement=all %s",
		s.port, s.dir, limits)
	s.run(ctx, "pg_ctl", "-D", s.dir, "-l", filepath.Join(s.dir, "server.log"), "-w", "-t", "60", "-o", opts, "start")
	t.Cleanup(s.stop)
	s.waitStreaming(ctx)
	return s
}

// standbySettings reads the primary's settings a standby must match or
// exceed (it refuses to start otherwise), as postgres options.
func standbySettings(ctx context.Context, primary string) (string, error) {
	conn, err := pgx.Connect(ctx, primary)
	if err != nil {
		return "", fmt.Errorf("connect to primary: %w", err)
	}
	defer conn.Close(ctx)
	var opts []string
	for _, name := range []string{"max_connections", "max_worker_processes", "max_wal_senders",
		"max_prepared_transactions", "max_locks_per_transaction"} {
		var v string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			return "", fmt.Errorf("read %s: %w", name, err)
		}
		opts = append(opts, "-c "+name+"="+v)
	}
	return strings.Join(opts, " "), nil
}

// URL returns the standby's DSN for the database of dsn (a DSN New gave).
func (s *Standby) URL(dsn string) string {
	s.t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		s.t.Fatalf("pgtest: %v", err)
	}
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	return u.String()
}

// Pause stops the standby's replay: what the primary commits from now on
// is not readable on the standby until Resume.
func (s *Standby) Pause() { s.exec("SELECT pg_wal_replay_pause()") }

// Resume restarts the replay.
func (s *Standby) Resume() { s.exec("SELECT pg_wal_replay_resume()") }

// exec runs one statement on the standby's postgres database.
func (s *Standby) exec(sql string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL(s.primary))
	if err != nil {
		s.t.Fatalf("pgtest: connect to standby: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		s.t.Fatalf("pgtest: standby: %s: %v", sql, err)
	}
}

// waitStreaming waits until the standby's WAL receiver streams.
func (s *Standby) waitStreaming(ctx context.Context) {
	s.t.Helper()
	var status string
	for {
		conn, err := pgx.Connect(ctx, s.URL(s.primary))
		if err == nil {
			err = conn.QueryRow(ctx, "SELECT coalesce((SELECT status FROM pg_stat_wal_receiver), '')").Scan(&status)
			conn.Close(ctx)
		}
		if err == nil && status == "streaming" {
			return
		}
		select {
		case <-ctx.Done():
			s.t.Fatalf("pgtest: standby not streaming (status %q, %v); log:\n%s", status, err, s.log())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop stops the standby at once (its data is thrown away).
func (s *Standby) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := s.command(ctx, "pg_ctl", "-D", s.dir, "-m", "immediate", "-w", "stop")
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Errorf("pgtest: stop standby: %v\n%s", err, out)
	}
}

// Statements returns the standby's log, which holds every statement it
// ran with its parameters: a test sees which reads reached it.
func (s *Standby) Statements() string { return s.log() }

func (s *Standby) log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	return string(b)
}

// run runs a PostgreSQL program as user postgres, failing t on error.
func (s *Standby) run(ctx context.Context, prog string, args ...string) {
	s.t.Helper()
	if out, err := s.command(ctx, prog, args...).CombinedOutput(); err != nil {
		s.t.Fatalf("pgtest: %s: %v\n%s\n%s", prog, err, out, s.log())
	}
}

// command is prog of PG_BIN (default Debian's PostgreSQL 15), run as user
// postgres when the test runs as root: the server refuses to run as root.
func (s *Standby) command(ctx context.Context, prog string, args ...string) *exec.Cmd {
	bin := os.Getenv("PG_BIN")
	if bin == "" {
		bin = "/usr/lib/postgresql/15/bin"
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, prog), args...)
	cmd.Dir = s.dir
	if os.Geteuid() == 0 {
		uid, gid := postgresIDs(s.t)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	return cmd
}

// postgresIDs returns the user and group ids the server runs as: user
// postgres when the test runs as root, else the test's own.
func postgresIDs(t testing.TB) (uid, gid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		return os.Geteuid(), os.Getegid()
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("pgtest: standby: user postgres: %v", err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		t.Fatalf("pgtest: standby: user postgres ids %s:%s", u.Uid, u.Gid)
	}
	return uid, gid
}

// freePort returns a TCP port free on 127.0.0.1 just now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
