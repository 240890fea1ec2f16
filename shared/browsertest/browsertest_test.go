package browsertest

import (
	"bytes"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTab: a real page is opened, read, followed through a redirect and
// photographed into KURZ_SCREENSHOT_DIR.
func TestTab(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>T</title><h1 id="h" data-x="42">Hello <b>browser</b></h1>` +
			`<p style="display:none" id="hidden">no</p>`))
	})
	mux.Handle("/moved", http.RedirectHandler("/page?from=moved", http.StatusFound))
	mux.HandleFunc("/missing", http.NotFound)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	dir := t.TempDir()
	t.Setenv(ScreenshotDirEnv, dir)

	tab := NewTab(t)
	if st := tab.Open(ts.URL + "/moved"); st != 200 {
		t.Fatalf("status %d", st)
	}
	if u := tab.URL(); u != ts.URL+"/page?from=moved" {
		t.Fatalf("URL after the redirect %q", u)
	}
	if got := tab.Text("#h"); got != "Hello browser" {
		t.Fatalf("text %q", got)
	}
	if got := tab.Attr("#h", "data-x"); got != "42" {
		t.Fatalf("attribute %q", got)
	}
	if got := Eval[bool](tab, `getComputedStyle(document.getElementById("hidden")).display === "none"`); !got {
		t.Fatal("hidden element is shown")
	}
	path := tab.Screenshot("page")
	if filepath.Dir(path) != dir || filepath.Base(path) != "TestTab-page.png" {
		t.Fatalf("screenshot at %s", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot is no PNG: %v", err)
	}
	if w := img.Bounds().Dx(); w != 1024 {
		t.Fatalf("screenshot %d px wide, want the window's 1024", w)
	}
	if st := tab.Open(ts.URL + "/missing"); st != 404 {
		t.Fatalf("status %d, want 404", st)
	}
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"TestX":             "TestX",
		"TestX/sub_test#01": "TestX_sub_test_01",
		"../etc/passwd":     ".._etc_passwd",
		"a b":               "a_b",
	} {
		if got := fileName(in); got != want {
			t.Errorf("fileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// A missing Chromium is an error that says how to install it (NewTab
// turns it into a failure, never a skip).
func TestMissingChromium(t *testing.T) {
	for name, a := range map[string]apt{
		"no apt-get": {},
		"not root":   {bin: "/usr/bin/apt-get", lock: filepath.Join(t.TempDir(), "lock")},
	} {
		_, err := start(filepath.Join(t.TempDir(), "chromium"), a)
		if err == nil || !strings.Contains(err.Error(), "apt-get install chromium") {
			t.Fatalf("%s: err = %v", name, err)
		}
	}
}
