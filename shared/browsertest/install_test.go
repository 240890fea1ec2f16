package browsertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeApt is an apt-get that logs its calls to log and "installs" a
// package by creating target, once the lists were updated when
// needUpdate is set; fail makes every call fail.
func fakeApt(t *testing.T, target string, needUpdate, fail bool) (a apt, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo "$DEBIAN_FRONTEND $*" >> ` + log + `
` + map[bool]string{true: "echo 'E: broken' >&2; exit 100\n", false: ""}[fail] + `
case "$*" in
*" update "*) touch ` + dir + `/updated ;;
*" install "*)
	if [ -n "` + map[bool]string{true: "1", false: ""}[needUpdate] + `" ] && [ ! -f ` + dir + `/updated ]; then
		echo "E: Unable to locate package chromium" >&2; exit 100
	fi
	touch ` + target + ` ;;
esac
`
	bin := filepath.Join(dir, "apt-get")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return apt{bin: bin, root: true, lock: filepath.Join(dir, "lock")}, log
}

func calls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

const (
	wantInstall = "noninteractive -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends chromium"
	wantUpdate  = "noninteractive -o DPkg::Lock::Timeout=300 update -qq"
)

// A missing Chromium is installed with apt-get, non-interactively; stale
// package lists are updated first; a present one installs nothing; a
// failed install is an error naming apt-get's complaint.
func TestInstallChromium(t *testing.T) {
	t.Run("installed", func(t *testing.T) {
		target := filepath.Join(t.TempDir(), "chromium")
		a, log := fakeApt(t, target, false, false)
		if err := a.ensure(target, "chromium"); err != nil {
			t.Fatal(err)
		}
		if got := calls(t, log); len(got) != 1 || got[0] != wantInstall {
			t.Errorf("apt-get calls %q", got)
		}
		if err := a.ensure(target, "chromium"); err != nil || len(calls(t, log)) != 1 {
			t.Errorf("a present Chromium: %v, calls %q", err, calls(t, log))
		}
	})
	t.Run("lists updated first", func(t *testing.T) {
		target := filepath.Join(t.TempDir(), "chromium")
		a, log := fakeApt(t, target, true, false)
		if err := a.ensure(target, "chromium"); err != nil {
			t.Fatal(err)
		}
		if got := calls(t, log); strings.Join(got, "|") != wantInstall+"|"+wantUpdate+"|"+wantInstall {
			t.Errorf("apt-get calls %q", got)
		}
	})
	t.Run("apt fails", func(t *testing.T) {
		target := filepath.Join(t.TempDir(), "chromium")
		a, _ := fakeApt(t, target, false, true)
		err := a.ensure(target, "chromium")
		if err == nil || !strings.Contains(err.Error(), "E: broken") {
			t.Fatalf("err = %v", err)
		}
		if _, err := start(target, a); err == nil || !strings.Contains(err.Error(), "apt-get install chromium") {
			t.Fatalf("start: %v", err)
		}
	})
	t.Run("installed but missing", func(t *testing.T) {
		target := filepath.Join(t.TempDir(), "chromium")
		a, _ := fakeApt(t, filepath.Join(t.TempDir(), "elsewhere"), false, false)
		if err := a.ensure(target, "chromium"); err == nil || !strings.Contains(err.Error(), "is missing") {
			t.Fatalf("err = %v", err)
		}
	})
}
