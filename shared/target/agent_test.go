package target

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"kurz/shared/click"
)

type uaCase struct {
	line   int
	device string
	class  string // human, bot, preview (social), scanner (preview, not social)
	ua     string
}

// loadUAs reads testdata/useragents.tsv.
func loadUAs(t *testing.T) []uaCase {
	t.Helper()
	f, err := os.Open("testdata/useragents.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []uaCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("useragents.tsv:%d: want device<TAB>class<TAB>ua", n)
		}
		cases = append(cases, uaCase{line: n, device: parts[0], class: parts[1], ua: parts[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("only %d user agents loaded", len(cases))
	}
	return cases
}

func wantClass(t *testing.T, c uaCase) click.Class {
	t.Helper()
	switch c.class {
	case "human":
		return click.ClassHuman
	case "bot":
		return click.ClassBot
	case "preview", "scanner":
		return click.ClassPreview
	}
	t.Fatalf("useragents.tsv:%d: unknown class %q", c.line, c.class)
	return 0
}

func TestDeviceOfTestdata(t *testing.T) {
	for _, c := range loadUAs(t) {
		if got := DeviceOf([]byte(c.ua)).String(); got != c.device {
			t.Errorf("useragents.tsv:%d: DeviceOf = %s, want %s\n\t%s", c.line, got, c.device, c.ua)
		}
	}
}

func TestClassOfTestdata(t *testing.T) {
	for _, c := range loadUAs(t) {
		want := wantClass(t, c)
		if got := ClassOf([]byte(c.ua), []byte("GET"), nil); got != want {
			t.Errorf("useragents.tsv:%d: ClassOf = %s, want %s\n\t%s", c.line, got, want, c.ua)
		}
		if got, want := IsSocialPreview([]byte(c.ua)), c.class == "preview"; got != want {
			t.Errorf("useragents.tsv:%d: IsSocialPreview = %v, want %v\n\t%s", c.line, got, want, c.ua)
		}
		a := Inspect([]byte(c.ua), []byte("GET"), nil)
		if a.Device.String() != c.device || a.Class != want || a.SocialPreview != (c.class == "preview") {
			t.Errorf("useragents.tsv:%d: Inspect = %+v; want %s, %s", c.line, a, c.device, want)
		}
	}
}

func TestClassOfMethodAndPurpose(t *testing.T) {
	const (
		browser = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
		slack   = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
		office  = "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.5137; Pro)"
		curl    = "curl/8.4.0"
	)
	tests := []struct {
		ua, method, purpose string
		want                click.Class
	}{
		{browser, "GET", "", click.ClassHuman},
		{browser, "POST", "", click.ClassHuman},
		{browser, "HEAD", "", click.ClassPrefetch},
		{browser, "head", "", click.ClassPrefetch},
		{browser, "HEADER", "", click.ClassHuman},
		{browser, "GET", "prefetch", click.ClassPrefetch},
		{browser, "GET", "prefetch;prerender", click.ClassPrefetch},
		{browser, "GET", "Prefetch", click.ClassPrefetch},
		{browser, "GET", "preview", click.ClassPrefetch}, // Safari X-Purpose: preview
		{browser, "GET", "prerender", click.ClassPrefetch},
		{browser, "GET", "document", click.ClassHuman},
		{slack, "HEAD", "", click.ClassPreview},
		{slack, "GET", "prefetch", click.ClassPreview},
		{office, "HEAD", "", click.ClassPreview},
		{curl, "HEAD", "", click.ClassBot},
		{"", "HEAD", "", click.ClassBot},
	}
	for _, tt := range tests {
		if got := ClassOf([]byte(tt.ua), []byte(tt.method), []byte(tt.purpose)); got != tt.want {
			t.Errorf("ClassOf(%q, %s, %q) = %s, want %s", tt.ua, tt.method, tt.purpose, got, tt.want)
		}
	}
}

func TestClassOfCase(t *testing.T) {
	for _, ua := range []string{"GOOGLEBOT/2.1", "googlebot/2.1", "GoOgLeBoT"} {
		if got := ClassOf([]byte(ua), nil, nil); got != click.ClassBot {
			t.Errorf("ClassOf(%q) = %s, want bot", ua, got)
		}
	}
	for _, ua := range []string{"WHATSAPP/2.23", "whatsapp/2.23"} {
		if !IsSocialPreview([]byte(ua)) {
			t.Errorf("IsSocialPreview(%q) = false", ua)
		}
	}
}

// A bot token past maxScan bytes is not seen; a long UA is still scanned
// up to the cap and non-ASCII bytes do not disturb matching.
func TestScanBounds(t *testing.T) {
	pad := strings.Repeat("x", maxScan)
	if got := ClassOf([]byte(pad+"Googlebot"), nil, nil); got != click.ClassHuman {
		t.Errorf("token after %d bytes: got %s, want human", maxScan, got)
	}
	if got := ClassOf([]byte(pad[:maxScan-9]+"Googlebot"), nil, nil); got != click.ClassBot {
		t.Errorf("token ending at byte %d: got %s, want bot", maxScan, got)
	}
	if got := DeviceOf([]byte("Mozilla/5.0 (ünïcödé; iPhone\xff\xfe)")); got != DeviceIPhone {
		t.Errorf("non-ASCII UA: got %s, want iphone", got)
	}
}

// Every dictionary token must be found on its own and inside a realistic
// agent: guards the automaton's construction (failure links, classes).
func TestEveryTokenMatches(t *testing.T) {
	for i, tok := range uaTokens {
		for _, s := range []string{tok.s, "Mozilla/5.0 (X; " + strings.ToUpper(tok.s) + ") x", "aa" + tok.s + "zz"} {
			found := uaIndex.ac.scan([]byte(s))
			if !found.has(i) {
				t.Errorf("token %q not found in %q", tok.s, s)
			}
		}
	}
	// The shadow hides "bot" only where it is the tail of "cubot".
	if uaIndex.ac.scan([]byte("CUBOT X30")).intersects(uaIndex.bot) {
		t.Error(`"cubot" counted as a bot`)
	}
	if !uaIndex.ac.scan([]byte("CUBOT X30 examplebot")).intersects(uaIndex.bot) {
		t.Error(`"bot" after "cubot" not counted`)
	}
}
