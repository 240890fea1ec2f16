package obs

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

func TestBuiltin(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != ReadinessPath {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	tests := []struct {
		args     []string
		handled  bool
		code     int
		stdout   string // prefix
		stderr   string // substring
		stdoutTo string // suffix
	}{
		{args: []string{"--version"}, handled: true, stdout: "kurzd ", stdoutTo: runtime.Version() + "\n"},
		{args: []string{"-version"}, handled: true, stdout: "kurzd ", stdoutTo: runtime.Version() + "\n"},
		{args: []string{"probe", srv.URL + ReadinessPath}, handled: true},
		{args: []string{"probe", srv.URL + LivenessPath}, handled: true, code: 1, stderr: "kurzd: probe"},
		{args: []string{"probe"}, handled: true, code: 2, stderr: "usage: kurzd probe URL"},
		{args: []string{"probe", "a", "b"}, handled: true, code: 2, stderr: "usage"},
		{args: []string{"serve"}},
		{args: []string{"--version", "x"}},
		{args: nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code, handled := Builtin("kurzd", tt.args, &out, &errb)
			if handled != tt.handled || code != tt.code {
				t.Fatalf("Builtin = %d, %v; want %d, %v (stderr %q)", code, handled, tt.code, tt.handled, errb.String())
			}
			if !strings.HasPrefix(out.String(), tt.stdout) || !strings.HasSuffix(out.String(), tt.stdoutTo) ||
				!strings.Contains(errb.String(), tt.stderr) || tt.stderr == "" && errb.Len() > 0 {
				t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
			}
		})
	}
}
