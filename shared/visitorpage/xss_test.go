package visitorpage

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"
)

// loadPayloads reads testdata/xss_payloads.txt (one payload a line, '#'
// starts a comment line).
func loadPayloads(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/xss_payloads.txt")
	if err != nil {
		t.Fatalf("open payloads: %v", err)
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := s.Text(); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("read payloads: %v", err)
	}
	if len(out) < 10 {
		t.Fatalf("only %d payloads", len(out))
	}
	return out
}

// hostilePages puts x into every user-controlled field of every page, once
// as text and once as URL, so one payload exercises every context.
func hostilePages(x string) map[string]Data {
	const dest = "https://dest.test/"
	return map[string]Data{
		"notfound home":  &NotFoundPage{HomeURL: x},
		"gone home":      &GonePage{HomeURL: x},
		"landing host":   &LandingPage{Host: x},
		"password":       &PasswordPage{Title: x, Alias: x, Wrong: true},
		"password alias": &PasswordPage{Alias: x},
		"preview text":   &PreviewPage{Title: x, Description: x, Image: x, URL: x, Destination: dest},
		"preview dest":   &PreviewPage{Title: x, Destination: dest + "?q=" + x},
		"frame":          &FramePage{Title: x, Destination: dest + "#" + x},
		"overlay": &OverlayPage{Title: x, Destination: dest, Message: x, ButtonText: x, ButtonURL: x,
			Background: x, Color: x, Position: x},
		"overlay button": &OverlayPage{Destination: dest, ButtonText: x, ButtonURL: dest + "?" + x},
		"splash":         &SplashPage{Destination: dest, Counter: 3, Title: x, Message: x, Image: x, Link: x},
		"splash dest":    &SplashPage{Destination: dest + "?u=" + x},
		"pixel tags": &PixelPage{Destination: dest, Pixels: []Pixel{
			{"tagmanagerpixel", x}, {"analyticspixel", x}, {"socialnetworkpixel", x}, {"searchadspixel", x},
			{"professionalnetworkpixel", x}, {"microblogpixel", x}, {"retargetingpixel", x}, {"questionsitepixel", x},
			{"imageboard", x}, {"searchengine", x}, {"messagingapp", x}, {"forumsite", x}, {"shortvideo", x}, {x, "id"},
		}},
		"pixel dest": &PixelPage{Destination: dest + "?" + x, Pixels: []Pixel{{"socialnetworkpixel", "1"}}},
		"campaign": &CampaignPage{Name: x, Owner: x, Links: []CampaignLink{
			{Title: x, Alias: x, ShortURL: x, Description: x},
			{Alias: x, ShortURL: "https://kurz.test/" + x, Description: x},
		}},
		"stats": &StatsPage{Title: x, Alias: x, ShortURL: x, Destination: x,
			Countries: []StatsCount{{x, 1}}, Referrers: []StatsCount{{x, 2}}, Browsers: []StatsCount{{x, 3}}, OS: []StatsCount{{x, 4}}},
		"stats urls": &StatsPage{Alias: x, ShortURL: "https://kurz.test/" + x, Destination: "https://dest.test/?q=" + x},
	}
}

// Raw fragments that would change the document's structure if they came
// through unescaped. A payload is "dangerous raw" when it has any of them.
var structural = []string{"<", ">", `"`, "'"}

func TestXSSPayloadsAreNeutralised(t *testing.T) {
	p := newPages(t)
	for _, x := range loadPayloads(t) {
		for name, d := range hostilePages(x) {
			t.Run(name+"/"+x, func(t *testing.T) {
				var sb strings.Builder
				if err := p.Render(&sb, d); err != nil {
					// A hostile destination may be refused, with nothing written.
					if !errors.Is(err, ErrUnsafeURL) || sb.Len() != 0 {
						t.Fatalf("Render: %v (%d bytes written)", err, sb.Len())
					}
					return
				}
				out := sb.String()
				csp := header(p.Headers(d), "Content-Security-Policy")
				checkStructure(t, out, csp)
				body := scriptRe.ReplaceAllString(out, "")
				for _, s := range structural {
					if strings.Contains(x, s) && strings.Contains(body, x) {
						t.Errorf("payload %q appears unescaped", x)
						break
					}
				}
				if n := strings.Count(out, "<script"); n > 1 {
					t.Errorf("%d script elements, want at most 1", n)
				}
				for _, m := range styleRe.FindAllStringSubmatch(out, -1) {
					if strings.Contains(m[2], "evil.example") || strings.Contains(m[2], x) {
						t.Errorf("user data reached a style element: %q", m[2])
					}
				}
				if strings.Contains(out, "ZgotmplZ") {
					t.Errorf("html/template had to filter a value: a URL was not validated before rendering")
				}
			})
		}
	}
}

func TestOverlayColoursNeverInjectCSS(t *testing.T) {
	p := newPages(t)
	for _, c := range []string{"red;background:url(https://evil.example/x)", "#fff;x", "#12345678", "}</style><script>", "#ABCDEF}"} {
		d := &OverlayPage{Destination: "https://dest.test/", Message: "m", Background: c, Color: c}
		out := render(t, p, d)
		want := "<style>.ov{background:#1F2328;color:#FFFFFF}.ov-btn{background:#FFFFFF;color:#1F2328}</style>"
		if !strings.Contains(out, want) {
			t.Errorf("colour %q: default colour block missing", c)
		}
		if strings.Count(out, "<style>") != 2 {
			t.Errorf("colour %q: %d style elements, want 2", c, strings.Count(out, "<style>"))
		}
	}
}
