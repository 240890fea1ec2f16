package dashboard

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"kurz/shared/browsertest"
	"kurz/shared/click"
)

// TestStatsScreenshots photographs the home page and the statistics page
// (with data, empty, by hour, ClickHouse down) at 1440 and 360 px, and
// checks in the browser that markup in clicked values stays text.
func TestStatsScreenshots(t *testing.T) {
	e := newEnv(t)
	maria := e.user("maria")
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signIn(tab, "maria")
	tab.Open(e.base + "/")
	shoot(t, tab, "30-home-empty")

	l := e.link(maria, map[string]string{"url": "https://shop.example.com/collections/spring-sale-2026?utm_source=newsletter",
		"custom": "spring-sale", "metatitle": "Spring sale 2026"})
	quiet := e.link(maria, map[string]string{"url": "https://example.com/quiet", "custom": "quiet"})
	e.link(maria, map[string]string{"url": "https://example.com/pricing", "custom": "pricing", "metatitle": "Pricing"})
	insertHits(t, e, maria, l, monthOfHits())
	insertHits(t, e, maria, quiet, []hit{{click.ClassHuman, 1, "FR", "Firefox", "", click.RefDirect, time.Time{}}})

	tab.Open(e.base + "/")
	shoot(t, tab, "31-home")
	if got := tab.Text("#kpi-month"); got == "0" || got == "—" {
		t.Errorf("home: 30 days = %q", got)
	}

	stats := fmt.Sprintf("%s/links/%d/stats", e.base, l.ID)
	tab.Open(e.base + "/links")
	tab.ClickNavigate(fmt.Sprintf("tr[data-id='%d'] a[href$='/stats']", l.ID))
	if u := tab.URL(); u != stats {
		t.Errorf("the table's Stats link leads to %s", u)
	}
	shoot(t, tab, "32-stats")
	if got := browsertest.Eval[string](tab, "document.title"); strings.Contains(got, "pwned") {
		t.Errorf("markup from a click ran: title %q", got)
	}
	if got := tab.Text("#referrers"); !strings.Contains(got, `<img src=x onerror="document.title='pwned'">.example`) {
		t.Errorf("referrer markup not shown as text: %q", got)
	}
	if n := browsertest.Eval[int](tab, `document.querySelectorAll("main img, main script, main b").length`); n != 0 {
		t.Errorf("%d elements made from click values", n)
	}
	if got := tab.Text("#kpi-clicks"); got == "0" {
		t.Errorf("stats: clicks %q", got)
	}

	day := time.Now().UTC().Format(time.DateOnly)
	tab.Open(stats + "?interval=hour&from=" + time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly) + "&to=" + day)
	shoot(t, tab, "33-stats-by-hour")
	tab.Open(stats + "?interval=week&from=" + time.Now().UTC().AddDate(0, 0, -90).Format(time.DateOnly) + "&to=" + day)
	shoot(t, tab, "34-stats-by-week")

	empty := e.link(maria, map[string]string{"url": "https://example.com/new-and-unvisited", "custom": "unvisited"})
	tab.Open(fmt.Sprintf("%s/links/%d/stats", e.base, empty.ID))
	shoot(t, tab, "35-stats-empty")
	if got := tab.Text("#no-clicks"); got == "" {
		t.Error("empty stats: no empty note")
	}

	e.statsDown()
	if st := tab.Open(stats); st != http.StatusOK {
		t.Errorf("stats down: status %d", st)
	}
	shoot(t, tab, "36-stats-unavailable")
	tab.Open(e.base + "/")
	shoot(t, tab, "37-home-unavailable")
}

// monthOfHits is a month of made-up traffic: more on recent days, from
// several countries, referrers and browsers, plus bots and previews.
func monthOfHits() []hit {
	countries := []string{"DE", "DE", "DE", "US", "US", "FR", "GB", "BR", "JP", "IN", "", "AT", "CH"}
	browsers := []string{"Chrome", "Chrome", "Safari", "Firefox", "Edge", "Samsung Internet"}
	refs := []struct {
		host string
		cat  click.RefCategory
	}{{"", click.RefDirect}, {"facebook.com", click.RefSocialNetwork}, {"t.co", click.RefMicroblog},
		{"www.google.com", click.RefSearchEngine}, {"news.ycombinator.com", click.RefOther},
		{xssRef, click.RefOther}, {"mail.example.com", click.RefEmail}}
	now := time.Now().UTC()
	var hits []hit
	for d := 29; d >= 0; d-- {
		n := 3 + (29-d)*(29-d)/25 + (d*7)%5
		for i := range n {
			at := now.AddDate(0, 0, -d).Add(-time.Duration((i*37)%(12*60)) * time.Minute)
			k := d*31 + i
			r := refs[k%len(refs)]
			hits = append(hits, hit{click.ClassHuman, uint64(k % 40), countries[k%len(countries)],
				browsers[k%len(browsers)], r.host, r.cat, at})
		}
		if d%3 == 0 {
			hits = append(hits, hit{click.ClassBot, 900, "US", "Other", "", click.RefDirect, now.AddDate(0, 0, -d)},
				hit{click.ClassPreview, 901, "US", "Other", "", click.RefDirect, now.AddDate(0, 0, -d)})
		}
	}
	return hits
}
