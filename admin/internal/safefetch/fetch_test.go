package safefetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// allowLoopback permits the httptest server and keeps the real policy for
// everything else, so a redirect away from loopback is still judged.
func allowLoopback(a netip.Addr) bool {
	return a == netip.MustParseAddr("127.0.0.1") || IsAllowed(a)
}

// server starts an httptest server that counts its requests.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func assertErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
	for _, other := range []error{ErrBadURL, ErrAddrNotAllowed, ErrTooLarge, ErrFetchFailed} {
		if other != want && errors.Is(err, other) {
			t.Errorf("error %v also matches %v", err, other)
		}
	}
}

var png1x1 = []byte("\x89PNG\r\n\x1a\n fake image bytes")

func TestFetchRefusesLoopbackByDefault(t *testing.T) {
	srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(png1x1) })
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	for _, u := range []string{
		srv.URL,
		fmt.Sprintf("http://localhost:%d/", port),          // a name resolving to loopback
		fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port), // IPv4-mapped spelling
		fmt.Sprintf("http://127.1:%d/", port),              // short spelling
		fmt.Sprintf("http://2130706433:%d/", port),         // decimal spelling
	} {
		t.Run(u, func(t *testing.T) {
			body, _, err := Fetch(context.Background(), u, Options{})
			if body != nil {
				t.Errorf("got a body")
			}
			if strings.Contains(u, "127.1:") || strings.Contains(u, "2130706433") {
				// Go's resolver may not parse these spellings at all; either
				// way the server must not be reached.
				if err == nil {
					t.Fatal("fetch succeeded")
				}
				return
			}
			assertErr(t, err, ErrAddrNotAllowed)
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server got %d requests", n)
	}
}

// TestFetchRefusesAtDial uses addresses where a real connection attempt would
// hang or fail differently (no route, nothing listening): getting
// ErrAddrNotAllowed within the default 5 s timeout proves the refusal came
// from the dial check, before any packet.
func TestFetchRefusesAtDial(t *testing.T) {
	for _, u := range []string{
		"http://[::1]/",
		"http://169.254.169.254/latest/meta-data/",
		"http://10.0.0.1/",
		"https://10.0.0.1/logo.png",
		"http://0.0.0.0/",
		"http://100.64.0.1/",
		"http://[fd00::1]/",
		"http://[fe80::1%25lo]/",
		"http://[::ffff:169.254.169.254]/",
		"http://192.168.1.1:8080/",
	} {
		t.Run(u, func(t *testing.T) {
			_, _, err := Fetch(context.Background(), u, Options{})
			assertErr(t, err, ErrAddrNotAllowed)
		})
	}
}

func TestFetchAllowOverride(t *testing.T) {
	srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") == "" {
			t.Error("no User-Agent sent")
		}
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(png1x1)
	})
	body, ct, err := Fetch(context.Background(), srv.URL+"/logo.png", Options{AllowAddr: allowLoopback})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if !bytes.Equal(body, png1x1) || ct != "image/png" {
		t.Errorf("got %q, %q", body, ct)
	}
	if hits.Load() != 1 {
		t.Errorf("hits = %d", hits.Load())
	}
}

func TestFetchSizeCap(t *testing.T) {
	const limit = 1000
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    error
	}{
		{"exactly the cap", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(make([]byte, limit)) }, nil},
		{"one byte over, with length", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(make([]byte, limit+1)) }, ErrTooLarge},
		{"declared length over", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "5000000")
			_, _ = w.Write(make([]byte, 10))
		}, ErrTooLarge},
		{"chunked endless stream", func(w http.ResponseWriter, r *http.Request) {
			chunk := make([]byte, 512)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}, ErrTooLarge},
		{"gzip bomb", func(w http.ResponseWriter, r *http.Request) {
			var z bytes.Buffer
			gz := gzip.NewWriter(&z)
			_, _ = gz.Write(make([]byte, 10<<20))
			_ = gz.Close()
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(z.Bytes())
		}, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := server(t, tt.handler)
			body, _, err := Fetch(context.Background(), srv.URL, Options{AllowAddr: allowLoopback, MaxBytes: limit})
			if tt.want == nil {
				if err != nil || len(body) != limit {
					t.Fatalf("got %d bytes, %v", len(body), err)
				}
				return
			}
			assertErr(t, err, tt.want)
		})
	}
}

func TestFetchDefaultSizeCap(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(make([]byte, DefaultMaxBytes+1)) })
	_, _, err := Fetch(context.Background(), srv.URL, Options{AllowAddr: allowLoopback})
	assertErr(t, err, ErrTooLarge)
}

func TestFetchRedirects(t *testing.T) {
	// /r/N redirects to /r/N-1; /r/0 serves the image.
	var srv *httptest.Server
	srv, _ = server(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/r/0":
			_, _ = w.Write(png1x1)
		case strings.HasPrefix(r.URL.Path, "/r/"):
			var n int
			_, _ = fmt.Sscanf(r.URL.Path, "/r/%d", &n)
			http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
		case r.URL.Path == "/to":
			http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusMovedPermanently)
		}
	})
	opt := Options{AllowAddr: allowLoopback}
	tests := []struct {
		name, path string
		opt        Options
		want       error
	}{
		{"three redirects", "/r/3", opt, nil},
		{"four redirects", "/r/4", opt, ErrFetchFailed},
		{"redirects disabled", "/r/1", Options{AllowAddr: allowLoopback, MaxRedirects: -1}, ErrFetchFailed},
		{"to metadata", "/to?u=" + url.QueryEscape("http://169.254.169.254/latest/meta-data/"), opt, ErrAddrNotAllowed},
		{"to private", "/to?u=" + url.QueryEscape("http://10.0.0.1/x.png"), opt, ErrAddrNotAllowed},
		{"to ipv6 loopback", "/to?u=" + url.QueryEscape("http://[::1]/"), opt, ErrAddrNotAllowed},
		{"to file", "/to?u=" + url.QueryEscape("file:///etc/passwd"), opt, ErrBadURL},
		{"to ftp", "/to?u=" + url.QueryEscape("ftp://example.com/x"), opt, ErrBadURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _, err := Fetch(context.Background(), srv.URL+tt.path, tt.opt)
			if tt.want == nil {
				if err != nil || !bytes.Equal(body, png1x1) {
					t.Fatalf("got %q, %v", body, err)
				}
				return
			}
			assertErr(t, err, tt.want)
		})
	}
}

func TestFetchTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"slow headers", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}},
		{"slow body", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("\x89PNG"))
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := server(t, tt.handler)
			start := time.Now()
			_, _, err := Fetch(context.Background(), srv.URL, Options{AllowAddr: allowLoopback, Timeout: 200 * time.Millisecond})
			assertErr(t, err, ErrFetchFailed)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v does not report the deadline", err)
			}
			// The server never answers: only the timeout can have ended it.
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("returned after %v with a 200ms timeout", d)
			}
		})
	}
}

func TestFetchCallerContext(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Fetch(ctx, srv.URL, Options{AllowAddr: allowLoopback})
	assertErr(t, err, ErrFetchFailed)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not report the cancellation", err)
	}
}

func TestFetchBadURL(t *testing.T) {
	for _, u := range []string{
		"", "ftp://example.com/logo.png", "file:///etc/passwd", "gopher://example.com/", "javascript:alert(1)",
		"data:image/png;base64,AAAA", "//example.com/logo.png", "/logo.png", "http://", "http:///x", "https:example.com",
		"http://exa mple.com/", " http://example.com/", "http://example.com/\nx", "http://example.com/" + strings.Repeat("a", 2048),
		"http://%zz/",
	} {
		t.Run(u, func(t *testing.T) {
			_, _, err := Fetch(context.Background(), u, Options{AllowAddr: func(netip.Addr) bool { return true }})
			assertErr(t, err, ErrBadURL)
		})
	}
}

func TestFetchStatus(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	_, _, err := Fetch(context.Background(), srv.URL, Options{AllowAddr: allowLoopback})
	assertErr(t, err, ErrFetchFailed)
	if !strings.Contains(err.Error(), "404") {
		t.Errorf("error %q does not name the status", err)
	}
}
