package visitorpage

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func TestRenderPages(t *testing.T) {
	p := newPages(t)
	tests := []struct {
		name    string
		data    Data
		status  int
		want    []string // substrings of the page
		notWant []string
	}{
		{"not found", &NotFoundPage{HomeURL: "https://kurz.test/"}, http.StatusNotFound,
			[]string{"<title>Link not found</title>", `<a href="https://kurz.test/">`, `name="robots" content="noindex"`}, nil},
		{"not found without home", &NotFoundPage{}, http.StatusNotFound,
			[]string{"Link not found"}, []string{"<a "}},
		{"gone", &GonePage{}, http.StatusGone, []string{"This link has expired"}, nil},
		{"unavailable", &UnavailablePage{RetryAfter: 5}, http.StatusServiceUnavailable,
			[]string{"Temporarily unavailable", "retry"}, nil},
		{"landing", &LandingPage{Host: "go.brand.test"}, http.StatusOK,
			[]string{"<h1>go.brand.test</h1>", "serves short links"}, nil},
		{"password form", &PasswordPage{Title: "Quarterly report", Alias: "q3"}, http.StatusOK,
			[]string{"Quarterly report", `<form method="post" autocomplete="off">`, `type="password" name="password"`, `autocomplete="off"`},
			[]string{"action=", `role="alert"`, ">q3<"}},
		{"password alias label", &PasswordPage{Alias: "q3"}, http.StatusOK, []string{`<p class="muted">q3</p>`}, nil},
		{"password wrong", &PasswordPage{Alias: "q3", Wrong: true}, http.StatusForbidden,
			[]string{`<p class="err" role="alert">Wrong password.`}, nil},
		{"password throttled", &PasswordPage{Alias: "q3", Wrong: true, RetryAfter: 42}, http.StatusTooManyRequests,
			[]string{"Too many attempts. Please wait 42 seconds"}, []string{"Wrong password"}},
		{"password checks busy", &PasswordPage{Alias: "q3", Busy: true, RetryAfter: 3}, http.StatusServiceUnavailable,
			[]string{"Too many password checks right now. Please wait 3 seconds"}, []string{"Too many attempts", "Wrong password"}},
		{"preview with image", &PreviewPage{Title: "Shoes", Description: "Best shoes", Image: "https://img.test/s.png", URL: "https://kurz.test/abc", Destination: "https://shop.test/shoes"},
			http.StatusOK, []string{
				"<title>Shoes</title>", `<meta property="og:title" content="Shoes">`, `<meta property="og:description" content="Best shoes">`,
				`<meta property="og:image" content="https://img.test/s.png">`, `<meta property="og:url" content="https://kurz.test/abc">`,
				`<meta name="twitter:card" content="summary_large_image">`, `<meta name="twitter:title" content="Shoes">`,
				`<meta name="twitter:description" content="Best shoes">`, `<meta name="twitter:image" content="https://img.test/s.png">`,
				`<a href="https://shop.test/shoes"`,
			}, []string{"<script", "http-equiv"}},
		{"preview without image", &PreviewPage{Destination: "https://shop.test/shoes"}, http.StatusOK,
			[]string{`<meta name="twitter:card" content="summary">`, "<title>shop.test</title>"},
			[]string{"og:image", "twitter:image", "og:description", "og:url"}},
		{"preview drops unsafe image", &PreviewPage{Title: "x", Image: "javascript:alert(1)", Destination: "https://shop.test/"}, http.StatusOK,
			[]string{`content="summary"`}, []string{"og:image", "javascript"}},
		{"frame", &FramePage{Title: "Docs", Destination: "https://docs.test/a?b=1"}, http.StatusOK, []string{
			`<iframe class="dest" src="https://docs.test/a?b=1"`,
			`sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation"`,
			`<a href="https://docs.test/a?b=1" target="_top" rel="noopener">Open the page directly</a>`, "<title>Docs</title>",
			`<body class="framed" data-url="https://docs.test/a?b=1">`, "<script>" + frameJS + "</script>",
		}, nil},
		{"overlay", &OverlayPage{Destination: "https://docs.test/", Message: "Sign up!", ButtonText: "Join", ButtonURL: "https://brand.test/join", Background: "#112233", Color: "#ffeedd", Position: "top-right"},
			http.StatusOK, []string{
				`<iframe class="dest" src="https://docs.test/"`, `<aside class="ov p-tr"`, "<p>Sign up!</p>",
				`<a class="ov-btn" href="https://brand.test/join" target="_blank" rel="noopener">Join</a>`,
				"<style>.ov{background:#112233;color:#ffeedd}.ov-btn{background:#ffeedd;color:#112233}</style>",
				`<label for="ov-x" class="ov-close"`, "Open the page directly",
				`<body class="framed" data-url="https://docs.test/">`, "<script>" + frameJS + "</script>",
			}, nil},
		{"overlay defaults", &OverlayPage{Destination: "https://docs.test/", Message: "Hi", ButtonURL: "https://brand.test/", Background: "red", Color: "#12345", Position: "middle"},
			http.StatusOK, []string{`class="ov p-bl"`, ".ov{background:#1F2328;color:#FFFFFF}", ">Learn more</a>"}, nil},
		{"overlay without button", &OverlayPage{Destination: "https://docs.test/", Message: "Hi", ButtonText: "Join", ButtonURL: "ftp://x.test/"},
			http.StatusOK, nil, []string{"ov-btn\" href", ">Join<", "ftp:"}},
		{"splash custom", &SplashPage{Destination: "https://dest.test/x", Counter: 7, Title: "Hello", Message: "Our sale", Image: "https://img.test/a.png", Link: "https://brand.test/sale"},
			http.StatusOK, []string{
				`<meta http-equiv="refresh" content="7;url=https://dest.test/x">`, `data-url="https://dest.test/x" data-delay="7"`,
				"<h1>Hello</h1>", "<p>Our sale</p>", `<img class="splash-img" src="https://img.test/a.png"`,
				`<a class="btn" href="https://brand.test/sale"`, `<span id="count">7</span>`, `<a href="https://dest.test/x">Skip</a>`,
				"<script>" + splashJS + "</script>",
			}, nil},
		{"splash default", &SplashPage{Destination: "https://dest.test/x", Counter: 5}, http.StatusOK,
			[]string{"<h1>Redirecting</h1>", "You are being taken to dest.test.", `content="5;url=https://dest.test/x"`}, []string{"<img", `class="btn"`}},
		{"splash counter clamped", &SplashPage{Destination: "https://dest.test/", Counter: 600}, http.StatusOK,
			[]string{`content="60;url=`}, nil},
		{"splash negative counter", &SplashPage{Destination: "https://dest.test/", Counter: -3}, http.StatusOK,
			[]string{`content="0;url=`}, nil},
		{"pixel", &PixelPage{Destination: "https://dest.test/p", Pixels: []Pixel{
			{"socialnetworkpixel", "1234567890"}, {"tagmanagerpixel", "GTM-AB12"}, {"analyticspixel", "G-XYZ"},
			{"socialnetworkpixel", "1234567890"}, {"unknownpixel", "zzz"}, {"shortvideo", ""},
		}}, http.StatusOK, []string{
			`<meta http-equiv="refresh" content="1;url=https://dest.test/p">`, `<body data-url="https://dest.test/p">`,
			`<i hidden data-px="fb" data-id="1234567890"></i>`, `<i hidden data-px="gtm" data-id="GTM-AB12"></i>`, `<i hidden data-px="ga" data-id="G-XYZ"></i>`,
			`<noscript><p><a href="https://dest.test/p">Continue to the destination</a></p>`,
			`<img src="https://www.facebook.com/tr?id=1234567890&amp;ev=PageView&amp;noscript=1"`,
			`<iframe src="https://www.googletagmanager.com/ns.html?id=GTM-AB12"`,
			"<script>" + pixelJS + "</script>",
		}, []string{"zzz", `data-px="tt"`}},
		{"campaign", &CampaignPage{Name: "Spring", Owner: "alice", Links: []CampaignLink{
			{Title: "Shoes", Alias: "shoes", ShortURL: "https://kurz.test/shoes", Description: "All shoes"},
			{Alias: "hats", ShortURL: "https://kurz.test/hats"},
			{Title: "Bad", ShortURL: "javascript:alert(1)"},
		}}, http.StatusOK, []string{
			"<h1>Spring</h1>", "A campaign by alice", `<a href="https://kurz.test/shoes">Shoes</a>`, "<p>All shoes</p>",
			`<a href="https://kurz.test/hats">hats</a>`,
		}, []string{"Bad", "javascript"}},
		{"campaign empty", &CampaignPage{Name: "Empty"}, http.StatusOK, []string{"no public links yet"}, []string{"<ul", "newest"}},
		{"campaign more", &CampaignPage{Name: "Big", More: true, Links: []CampaignLink{{Alias: "a", ShortURL: "https://kurz.test/a"}}},
			http.StatusOK, []string{"Showing the newest 1 links of this campaign.", `<a href="https://kurz.test/a">a</a>`}, nil},
		{"stats", &StatsPage{Title: "Spring <sale>", Alias: "spring", ShortURL: "https://kurz.test/spring", Destination: "https://shop.test/spring?a=1&b=2",
			Clicks: 1234567, UniqueClicks: 8, CacheSeconds: 30,
			Countries: []StatsCount{{"germany", 6}, {"united states", 2}}, Referrers: []StatsCount{{"direct", 5}},
			Browsers: []StatsCount{{"Chrome", 4}}}, http.StatusOK, []string{
			"<title>Statistics: Spring &lt;sale&gt;</title>", "<h1>Spring &lt;sale&gt;</h1>",
			`<a href="https://kurz.test/spring" rel="nofollow">https://kurz.test/spring</a>`,
			`<a href="https://shop.test/spring?a=1&amp;b=2" rel="nofollow noopener noreferrer">https://shop.test/spring?a=1&amp;b=2</a>`,
			`<dd id="clicks">1` + "\u202f" + `234` + "\u202f" + `567</dd>`, `<dd id="unique">8</dd>`,
			`<table class="top cc">`, `<tr><th scope="row">germany</th><td>6</td><td>0.0%</td></tr>`,
			`<tr><th scope="row">direct</th><td>5</td>`, "<h2>Top operating systems</h2>\n<p class=\"muted\">No clicks yet.</p>",
			"Updated every 30 seconds.", `name="robots" content="noindex"`,
		}, []string{"<script", "<form"}},
		{"stats alias title, destination hidden", &StatsPage{Alias: "abc", ShortURL: "https://kurz.test/abc", Clicks: 4,
			Countries: []StatsCount{{"unknown", 1}}}, http.StatusOK,
			[]string{"<h1>abc</h1>", `<td>25.0%</td>`}, []string{"Destination:"}},
		{"stats unsafe urls dropped", &StatsPage{Alias: "abc", ShortURL: "javascript:alert(1)", Destination: "data:text/html,x"}, http.StatusOK,
			nil, []string{"javascript", "data:", "Destination:"}},
		{"stats unavailable", &StatsUnavailablePage{RetryAfter: 30}, http.StatusServiceUnavailable,
			[]string{"<h1>Statistics temporarily unavailable</h1>"}, []string{"<a "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := render(t, p, tt.data)
			if got := tt.data.Status(); got != tt.status {
				t.Errorf("Status() = %d, want %d", got, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("page lacks %q\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("page contains %q\n%s", w, out)
				}
			}
			if !strings.HasPrefix(out, "<!doctype html>") || !strings.Contains(out, `<meta name="viewport"`) {
				t.Errorf("page is not a mobile-ready HTML document")
			}
			checkStructure(t, out, header(p.Headers(tt.data), "Content-Security-Policy"))
		})
	}
}

func TestRenderRejectsUnsafeDestination(t *testing.T) {
	p := newPages(t)
	for _, dest := range []string{"", "javascript:alert(1)", "data:text/html,x", "//evil.test/", "/relative", "https://", "ftp://x.test/", "https://a.test/\r\nSet-Cookie: x", "https://a.test/ b", "mailto:a@b.test"} {
		for _, d := range []Data{
			&PreviewPage{Destination: dest}, &FramePage{Destination: dest}, &OverlayPage{Destination: dest},
			&SplashPage{Destination: dest}, &PixelPage{Destination: dest},
		} {
			var buf bytes.Buffer
			err := p.Render(&buf, d)
			if !errors.Is(err, ErrUnsafeURL) {
				t.Errorf("Render(%T{Destination: %q}) = %v, want ErrUnsafeURL", d, dest, err)
			}
			if buf.Len() != 0 {
				t.Errorf("Render(%T{Destination: %q}) wrote %d bytes on error", d, dest, buf.Len())
			}
		}
	}
}

func TestRenderNilData(t *testing.T) {
	p := newPages(t)
	if err := p.Render(&bytes.Buffer{}, nil); err == nil {
		t.Fatal("Render(nil) succeeded")
	}
}

func TestSafeURL(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"https://example.com/a?b=c#d", true},
		{"HTTP://EXAMPLE.COM", true},
		{"http://[::1]:8080/x", true},
		{"https://例え.jp/パス", true},
		{"javascript:alert(1)", false},
		{"JAVASCRIPT:alert(1)", false},
		{" https://example.com", false},
		{"https://exa\tmple.com", false},
		{"https:example.com", false},
		{"//example.com", false},
		{"vbscript:x", false},
		{"https://example.com/" + strings.Repeat("a", maxURLLen), false},
	}
	for _, tt := range tests {
		if got := safeURL(tt.in) != ""; got != tt.want {
			t.Errorf("safeURL(%q) ok = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestHexColor(t *testing.T) {
	tests := []struct{ in, want string }{
		{"#A1b2C3", "#A1b2C3"},
		{"#fff", "def"},
		{"red", "def"},
		{"#12345g", "def"},
		{"#123456;x", "def"},
		{"red;background:url(https://evil.example/x)", "def"},
		{"", "def"},
	}
	for _, tt := range tests {
		if got := hexColor(tt.in, "def"); got != tt.want {
			t.Errorf("hexColor(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
