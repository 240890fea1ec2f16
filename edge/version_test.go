package main

import (
	"debug/buildinfo"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestVersion runs the built binary: it prints what the toolchain
// embedded in it (the module version; the VCS revision when built in a
// git checkout with -buildvcs, which this machine's GOFLAGS turn off).
func TestVersion(t *testing.T) {
	out, err := exec.Command(edgeBin, "--version").Output()
	if err != nil {
		t.Fatalf("edge --version: %v", err)
	}
	line := string(out)
	if !strings.HasPrefix(line, "edge ") || !strings.HasSuffix(line, " "+runtime.Version()+"\n") || strings.Count(line, "\n") != 1 {
		t.Errorf("edge --version = %q", line)
	}
	info, err := buildinfo.ReadFile(edgeBin)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"edge " + info.Main.Version + " "}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			want = append(want, " revision "+s.Value)
		}
	}
	for _, w := range want {
		if !strings.Contains(line, w) {
			t.Errorf("edge --version = %q, want %q in it", line, w)
		}
	}
}

// TestProbeCommand checks the container health check's exit codes
// without a server: a refused connection is a failure.
func TestProbeCommand(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"probe", "http://127.0.0.1:1/readyz"}, 1},
		{[]string{"probe"}, 2},
	}
	for _, tt := range tests {
		err := exec.Command(edgeBin, tt.args...).Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.code {
			t.Errorf("edge %q: exit %d, want %d", tt.args, code, tt.code)
		}
	}
}
