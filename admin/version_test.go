package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestVersion: `admin --version` prints the build without reading the
// configuration (an invalid one does not stop it).
func TestVersion(t *testing.T) {
	t.Setenv("KURZ_BASE_URL", "not a url")
	code, out, errs := runCmd("--version")
	if code != 0 || !strings.HasPrefix(out, "admin ") || !strings.HasSuffix(out, " "+runtime.Version()+"\n") || errs != "" {
		t.Errorf("admin --version: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := runCmd("probe", "http://127.0.0.1:1/readyz"); code != 1 || !strings.Contains(errs, "probe") {
		t.Errorf("admin probe of a closed port: exit %d, stderr %q", code, errs)
	}
}
