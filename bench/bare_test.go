package main

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// The bare server redirects exactly the aliases of its file and stops with
// its context.
func TestBareServer(t *testing.T) {
	dir := t.TempDir()
	aliases := filepath.Join(dir, "aliases.tsv")
	if err := os.WriteFile(aliases, []byte("# owner_id=1\n-\tabc\tdirect\nb.test\txyz\ttargeted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- bareServerCmd(ctx, []string{"--addr", addr, "--aliases", aliases}, io.Discard) }()
	if err := waitListening(ctx, addr, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path     string
		status   int
		location string
	}{
		{"/abc", fasthttp.StatusFound, "https://example.com/"},
		{"/xyz", fasthttp.StatusFound, "https://example.com/"},
		{"/nope", fasthttp.StatusNotFound, ""},
	}
	for _, tt := range tests {
		var req fasthttp.Request
		var resp fasthttp.Response
		req.SetRequestURI("http://" + addr + tt.path)
		if err := fasthttp.Do(&req, &resp); err != nil { // Do does not follow redirects
			t.Fatalf("%s: %v", tt.path, err)
		}
		if resp.StatusCode() != tt.status {
			t.Errorf("%s: status %d, want %d", tt.path, resp.StatusCode(), tt.status)
		}
		if got := string(resp.Header.Peek("Location")); got != tt.location {
			t.Errorf("%s: Location %q, want %q", tt.path, got, tt.location)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("bare server did not stop with its context")
	}
}
