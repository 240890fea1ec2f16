package obs

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"
)

func TestServeMetrics(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	t.Run("empty address is off", func(t *testing.T) {
		ms, err := ServeMetrics("", metrics.NewSet(), log)
		if err != nil || ms != nil {
			t.Fatalf("got %v, %v; want nil, nil", ms, err)
		}
		if ms.Addr() != "" || ms.Shutdown(t.Context()) != nil {
			t.Fatal("a nil server must be a no-op")
		}
	})
	t.Run("serves the set and the runtime", func(t *testing.T) {
		set := metrics.NewSet()
		set.NewCounter(`kurz_test_total{a="b"}`).Add(3)
		ms, err := ServeMetrics("127.0.0.1:0", set, log)
		if err != nil {
			t.Fatal(err)
		}
		defer ms.Shutdown(t.Context()) //nolint:errcheck
		for path, want := range map[string]int{"/metrics": 200, "/": 404, "/debug/pprof/": 404} {
			resp, err := http.Get("http://" + ms.Addr() + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Fatalf("%s: %d, want %d", path, resp.StatusCode, want)
			}
			if want == 200 && (!strings.Contains(string(body), "kurz_test_total{a=\"b\"} 3\n") || !strings.Contains(string(body), "go_goroutines")) {
				t.Fatalf("%s:\n%s", path, body)
			}
		}
		if err := ms.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := http.Get("http://" + ms.Addr() + "/metrics"); err == nil {
			t.Fatal("still serving after Shutdown")
		}
	})
	t.Run("address in use fails", func(t *testing.T) {
		ms, err := ServeMetrics("127.0.0.1:0", metrics.NewSet(), log)
		if err != nil {
			t.Fatal(err)
		}
		defer ms.Shutdown(t.Context()) //nolint:errcheck
		if _, err := ServeMetrics(ms.Addr(), metrics.NewSet(), log); err == nil {
			t.Fatal("second listener on the same address started")
		}
	})
}
