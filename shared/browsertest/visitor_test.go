package browsertest

import (
	"html"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The tab sends the User-Agent and headers set, on every request,
// redirects included, until changed.
func TestVisitor(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<p id="ua">` + html.EscapeString(r.UserAgent()) + `</p><p id="cc">` + html.EscapeString(r.Header.Get("CF-IPCountry")) + `</p>`))
	})
	mux.Handle("/go", http.RedirectHandler("/echo", http.StatusFound))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	tab := NewTab(t)
	tab.SetUserAgent("TestAgent/1.0 (iPhone)")
	tab.SetHeaders(map[string]string{"CF-IPCountry": "DE"})
	tab.Open(ts.URL + "/go")
	if ua, cc := tab.Text("#ua"), tab.Text("#cc"); ua != "TestAgent/1.0 (iPhone)" || cc != "DE" {
		t.Fatalf("sent User-Agent %q, country %q", ua, cc)
	}
	tab.SetUserAgent("OtherAgent/2.0")
	tab.SetHeaders(nil)
	tab.Open(ts.URL + "/echo")
	if ua := tab.Text("#ua"); ua != "OtherAgent/2.0" || tab.Attr("#cc", "id") != "cc" || Eval[string](tab, `document.getElementById("cc").textContent`) != "" {
		t.Fatalf("after the change: User-Agent %q", ua)
	}
}
