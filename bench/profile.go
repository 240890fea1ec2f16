package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// profiler fetches a CPU profile from the target's net/http/pprof listener
// (the edge's KURZ_PPROF_ADDR) while a run drives it, so that a missed
// target comes with what the server spent its CPU on. Sampling at 100 Hz
// costs the target about 1% of its CPU.
type profiler struct {
	url  string // .../debug/pprof/profile?seconds=N
	out  string
	secs int
}

// profiler is nil (no profile) unless --profile-url is set.
func (o *runOptions) profiler() *profiler {
	if o.profileURL == "" {
		return nil
	}
	secs := o.profileSecs
	if d := int(o.load.Duration / time.Second); d > 0 {
		secs = min(secs, d)
	}
	secs = max(secs, 1)
	base := strings.TrimSuffix(o.profileURL, "/")
	return &profiler{url: base + "/debug/pprof/profile?seconds=" + strconv.Itoa(secs), out: o.profileOut, secs: secs}
}

// start begins the profile; the channel yields its outcome when it ends.
// A nil profiler yields nil at once.
func (p *profiler) start(ctx context.Context) <-chan error {
	done := make(chan error, 1)
	if p == nil {
		done <- nil
		return done
	}
	go func() { done <- p.fetch(ctx) }()
	return done
}

func (p *profiler) fetch(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(p.secs+15)*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return fmt.Errorf("profile request: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("fetch profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("fetch profile: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	f, err := os.Create(p.out)
	if err != nil {
		return fmt.Errorf("create profile file: %w", err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("write profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write profile: %w", err)
	}
	return nil
}
