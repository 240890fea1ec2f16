package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Installing Debian's Chromium when it is missing, as
// deploy/local/stack.sh install does for the servers: `make test` on a
// fresh machine then runs the browser tests instead of failing on a
// missing binary. When it cannot be installed (no apt-get, not root, no
// package) the browser tests fail saying so; they are never skipped.

// installTimeout bounds an install: apt may wait for another process's
// dpkg lock (the servers' install, another test binary's).
const installTimeout = 10 * time.Minute

// apt installs packages with apt-get.
type apt struct {
	bin  string // apt-get
	root bool   // installing needs root
	// lock is a file the installs of every test binary take in turn: they
	// start side by side under `go test ./...`, and only one should run
	// apt while the others wait and then find Chromium installed.
	lock string
}

// systemApt is this machine's apt-get ("" bin when there is none).
func systemApt() apt {
	bin, _ := exec.LookPath("apt-get")
	return apt{bin: bin, root: os.Geteuid() == 0, lock: filepath.Join(os.TempDir(), "kurz-browsertest-apt.lock")}
}

// ensure installs package pkg unless path exists, and checks that it
// does afterwards.
func (a apt) ensure(path, pkg string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := a.install(path, pkg); err != nil {
		return fmt.Errorf("install %s: %w", pkg, err)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("apt-get installed %s, yet %s is missing: %w", pkg, path, err)
	}
	return nil
}

// install runs apt-get install under the lock; when the package lists
// are missing or stale (a fresh container) it updates them and tries
// once more.
func (a apt) install(path, pkg string) error {
	switch {
	case a.bin == "":
		return errors.New("apt-get is not available here")
	case !a.root:
		return errors.New("installing needs root")
	}
	unlock, err := lockFile(a.lock)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(path); err == nil {
		return nil // another test binary installed it while this one waited
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	install := []string{"-o", "DPkg::Lock::Timeout=300", "install", "-y", "-qq", "--no-install-recommends", pkg}
	if err := a.run(ctx, install...); err == nil {
		return nil
	}
	if err := a.run(ctx, "-o", "DPkg::Lock::Timeout=300", "update", "-qq"); err != nil {
		return err
	}
	return a.run(ctx, install...)
}

// run runs apt-get with args, non-interactively.
func (a apt) run(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, a.bin, args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("apt-get %s: %w: %s", strings.Join(args, " "), err, lastLines(out, 5))
	}
	return nil
}

// lockFile takes an exclusive lock on path, waiting for its holder.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("install lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("install lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil // closing releases the lock
}

// lastLines is the end of a command's output, for an error message.
func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " / ")
}
