package browsertest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/chromedp/chromedp"
)

// ScreenshotDirEnv overrides where screenshots are written.
const ScreenshotDirEnv = "KURZ_SCREENSHOT_DIR"

// Screenshot writes a full-page PNG of the tab to
// <dir>/<TestName>-<step>.png and returns its path. dir is
// $KURZ_SCREENSHOT_DIR, or .run/test/screenshots under the module root.
func (tab *Tab) Screenshot(step string) string {
	tab.t.Helper()
	png := run(tab, "screenshot "+step, chromedp.FullScreenshot(100))
	dir, err := screenshotDir()
	if err != nil {
		tab.t.Fatalf("screenshot %s: %v", step, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tab.t.Fatalf("screenshot %s: %v", step, err)
	}
	path := filepath.Join(dir, fileName(tab.t.Name())+"-"+fileName(step)+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tab.t.Fatalf("screenshot %s: %v", step, err)
	}
	tab.t.Logf("screenshot %s", path)
	return path
}

func screenshotDir() (string, error) {
	if d := os.Getenv(ScreenshotDirEnv); d != "" {
		return d, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".run", "test", "screenshots"), nil
}

// moduleRoot walks up from the working directory (a test runs in its
// package's directory) to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; set " + ScreenshotDirEnv)
		}
		dir = parent
	}
}

// fileName makes a test or step name safe as a file name: subtests'
// slashes and anything unusual become '_'.
func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}
