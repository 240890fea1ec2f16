package obs

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case ReadinessPath:
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("warming")) //nolint:errcheck // test server
		case LivenessPath:
			w.Write([]byte("ok")) //nolint:errcheck // test server
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	tests := []struct {
		url     string
		wantErr string // "" = success
	}{
		{srv.URL + LivenessPath, ""},
		{srv.URL + ReadinessPath, "503 Service Unavailable: warming"},
		{srv.URL + "/nope", "404"},
		{"http://127.0.0.1:1/", "probe:"},
		{"::", "probe ::"},
	}
	for _, tt := range tests {
		err := Probe(context.Background(), tt.url)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("Probe(%s) = %v", tt.url, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("Probe(%s) = %v, want an error with %q", tt.url, err, tt.wantErr)
		}
	}
}
