package proctest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"testing"
	"time"
)

// NoRedirect is an HTTP client for requests to the edge: it returns a
// redirect instead of following it.
var NoRedirect = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       5 * time.Second,
}

// APIKey runs cmd, an `admin user create …` command, and returns the API
// key of the account it printed.
func APIKey(t testing.TB, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("admin user create: %v", err)
	}
	var u struct {
		Key string `json:"api_key"`
	}
	if err := json.Unmarshal(out, &u); err != nil || u.Key == "" {
		t.Fatalf("admin user create printed %q: %v", out, err)
	}
	return u.Key
}

// Call sends a request to the admin API at base with key and returns the
// status, the decoded body (nil when it is not a JSON object) and the raw
// body.
func Call(t testing.TB, base, key, method, path string, body any) (int, map[string]any, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	json.Unmarshal(raw, &out) //nolint:errcheck // callers check the status; a 429 body is not needed
	return res.StatusCode, out, raw
}

// CallOK is Call for a request that must answer 200 with a JSON object.
func CallOK(t testing.TB, base, key, method, path string, body any) map[string]any {
	t.Helper()
	st, out, raw := Call(t, base, key, method, path, body)
	if st != http.StatusOK || out == nil {
		t.Fatalf("%s %s: %d %s", method, path, st, raw)
	}
	return out
}
