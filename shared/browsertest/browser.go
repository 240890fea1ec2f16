package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is Debian's Chromium (package chromium); the first browser
// test installs it with apt-get when it is missing (install.go), as
// deploy/local/stack.sh install does.
const ChromiumPath = "/usr/bin/chromium"

// Timeout bounds every browser step (start, navigation, wait, read), so a
// hang fails the test quickly instead of at go test's global timeout.
const Timeout = 20 * time.Second

// dataDirPrefix names the profile directories; the pid after it lets a
// later run remove the directories of binaries that are gone.
const dataDirPrefix = "kurz-browsertest-"

var shared struct {
	once sync.Once
	ctx  context.Context // the browser's root context; never canceled
	err  error
}

// browser returns the context of the binary's browser, starting it on
// first use.
func browser() (context.Context, error) {
	shared.once.Do(func() { shared.ctx, shared.err = start(ChromiumPath, systemApt()) })
	return shared.ctx, shared.err
}

// start launches the browser at path, installing Debian's chromium
// package with installer first when path is missing.
func start(path string, installer apt) (context.Context, error) {
	if err := installer.ensure(path, "chromium"); err != nil {
		return nil, fmt.Errorf("browser tests need Chromium at %s: install it with `apt-get install chromium` "+
			"(deploy/local/stack.sh install does): %w", path, err)
	}
	removeStaleDataDirs()
	dir, err := os.MkdirTemp("", dataDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("browser profile directory: %w", err)
	}
	// The background-networking flags keep Chromium from calling home
	// (component updates, sync, QUIC probes): the test machine's network
	// is closed and those calls only add noise and delay.
	alloc, _ := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.WindowSize(1024, 768),
		chromedp.UserDataDir(dir),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	// The first Do binds the browser's life to the context it gets, so it
	// gets one without a deadline and the wait is bounded beside it.
	if err := bounded(func() error { return chromedp.Do(ctx) }); err != nil {
		cancel()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	return ctx, nil
}

// removeStaleDataDirs removes the profile directories of test binaries
// that have exited: the browser dies with its binary, but nothing runs
// after the last test to remove the directory.
func removeStaleDataDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dataDirPrefix+"*"))
	for _, d := range dirs {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), dataDirPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(d)
		}
	}
}

// bounded runs f, giving up after Timeout. For the first Do on a chromedp
// context, which must not get a context with a deadline: a timed-out f
// is left running, and the test fails anyway.
func bounded(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(Timeout):
		return fmt.Errorf("no answer in %v", Timeout)
	}
}
