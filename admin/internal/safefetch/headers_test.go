package safefetch

import (
	"context"
	"net/http"
	"testing"
)

func TestHeadersHeadThenGet(t *testing.T) {
	tests := []struct {
		name       string
		headStatus int // 0: HEAD answers like GET
		wantStatus int
		wantHits   int64
	}{
		{"head answers", 0, http.StatusOK, 1},
		{"head refused", http.StatusMethodNotAllowed, http.StatusOK, 2},
		{"head forbidden", http.StatusForbidden, http.StatusOK, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodHead && tt.headStatus != 0 {
					w.WriteHeader(tt.headStatus)
					return
				}
				w.Header().Set("X-Frame-Options", "DENY")
				_, _ = w.Write(make([]byte, 1<<20))
			})
			status, h, err := Headers(context.Background(), srv.URL, Options{AllowAddr: allowLoopback})
			if err != nil {
				t.Fatal(err)
			}
			if status != tt.wantStatus || h.Get("X-Frame-Options") != "DENY" || hits.Load() != tt.wantHits {
				t.Errorf("status %d, XFO %q, %d requests", status, h.Get("X-Frame-Options"), hits.Load())
			}
		})
	}
}

func TestHeadersErrorStatusAndPolicy(t *testing.T) {
	srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) })
	status, _, err := Headers(context.Background(), srv.URL, Options{AllowAddr: allowLoopback})
	if err != nil || status != http.StatusNotFound || hits.Load() != 2 {
		t.Errorf("status %d, %v, %d requests; want 404 after HEAD and GET", status, err, hits.Load())
	}
	// The default policy refuses loopback before any request.
	before := hits.Load()
	_, _, err = Headers(context.Background(), srv.URL, Options{})
	assertErr(t, err, ErrAddrNotAllowed)
	if hits.Load() != before {
		t.Error("refused address was reached")
	}
	_, _, err = Headers(context.Background(), "ftp://example.com/", Options{})
	assertErr(t, err, ErrBadURL)
}
