package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// lookOrInstall finds bin on PATH or at one of paths; when it is missing
// and we are root, it installs the Debian package pkg with apt first. A
// fresh machine has neither nginx nor wrk, and `make bench` must work there.
func lookOrInstall(ctx context.Context, bin, pkg string, paths ...string) (string, error) {
	if p, ok := look(bin, paths); ok {
		return p, nil
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("%s is not installed: apt-get install %s (needs root), or pass its path", bin, pkg)
	}
	for _, args := range [][]string{{"update", "-qq"}, {"install", "-y", "-qq", "--no-install-recommends", pkg}} {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("apt-get %v: %w: %s", args, err, out)
		}
	}
	if p, ok := look(bin, paths); ok {
		return p, nil
	}
	return "", errors.New(pkg + " installed but no " + bin + " binary found")
}

func look(bin string, paths []string) (string, bool) {
	for _, p := range append([]string{bin}, paths...) {
		if path, err := exec.LookPath(p); err == nil {
			return path, true
		}
	}
	return "", false
}
