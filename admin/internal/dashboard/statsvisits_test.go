package dashboard

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"testing"
	"time"

	"kurz/shared/click"
)

var (
	deviceRowRE = regexp.MustCompile(`<td class="name">([^<]*)</td><td class="num">(\d+)</td>`)
	autoRowRE   = regexp.MustCompile(`<th scope="row">([^<]*)</th><td class="num range">([^<]*)</td><td class="num all">([^<]*)</td>`)
)

// TestStatsDevicesAndRange: the devices of the range's people, and bots,
// previews and prefetches of the selected range beside their all-time
// numbers, against clicks inserted inside and outside the range.
func TestStatsDevicesAndRange(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	l := e.link(ann, map[string]string{"url": "https://example.com/devices"})
	day := func(d, h int) int64 { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC).UnixNano() }
	var rows []click.Row
	add := func(class click.Class, device string, at int64) {
		rows = append(rows, click.Row{ClickID: uint64(len(rows) + 1), UnixNano: at, Kind: click.KindLink, Class: class,
			Visitor: uint64(len(rows)), LinkID: uint64(l.ID), OwnerID: uint64(ann.ID), Device: device})
	}
	// In the range 2026-03-04..2026-03-06.
	for _, d := range []string{"mobile", "desktop", "mobile", "tablet", "mobile", "<b>odd</b>", "unknown"} {
		add(click.ClassHuman, d, day(5, 10))
	}
	add(click.ClassBot, "bot", day(4, 0))
	add(click.ClassBot, "desktop", day(6, 23))
	add(click.ClassPreview, "unknown", day(5, 12))
	// Outside it: before, after, and another link's.
	add(click.ClassHuman, "desktop", day(3, 23))
	add(click.ClassHuman, "tv", day(7, 0))
	add(click.ClassBot, "bot", day(3, 12))
	add(click.ClassPrefetch, "desktop", day(7, 1))
	add(click.ClassPreview, "mobile", day(1, 1))
	other := click.Row{ClickID: 999, UnixNano: day(5, 10), Kind: click.KindLink, Class: click.ClassBot, LinkID: uint64(l.ID + 1), OwnerID: uint64(ann.ID), Device: "mobile"}
	insertClicks(t, e, append(rows, other))
	c := e.client()
	c.signIn("ann")

	p := c.get(fmt.Sprintf("/links/%d/stats?from=2026-03-04&to=2026-03-06", l.ID))
	if p.status != http.StatusOK {
		t.Fatalf("status %d", p.status)
	}
	i := regexp.MustCompile(`<table class="data counts" id="devices">`).FindStringIndex(p.body)
	if i == nil {
		t.Fatal("no devices table")
	}
	section := p.body[i[0]:]
	section = section[:regexp.MustCompile(`</table>`).FindStringIndex(section)[1]]
	var devices []string
	for _, m := range deviceRowRE.FindAllStringSubmatch(section, -1) {
		devices = append(devices, m[1]+"="+m[2])
	}
	if want := []string{"Mobile=3", "&lt;b&gt;odd&lt;/b&gt;=1", "Desktop=1", "Tablet=1", "Unknown=1"}; !slices.Equal(devices, want) {
		t.Errorf("devices %v, want %v", devices, want)
	}
	var auto []string
	for _, m := range autoRowRE.FindAllStringSubmatch(p.body, -1) {
		auto = append(auto, m[1]+"="+m[2]+"/"+m[3])
	}
	want := []string{"Bots and crawlers=2/3", "Link previews (chat apps, social sites)=1/2", "Browser prefetches=0/1", "People, for comparison=7/9"}
	if !slices.Equal(auto, want) {
		t.Errorf("not people (range/all time) %v, want %v", auto, want)
	}

	// A range with nothing: no devices, zeros in the range column.
	p = c.get(fmt.Sprintf("/links/%d/stats?from=2026-02-01&to=2026-02-02", l.ID))
	if regexp.MustCompile(`id="devices"`).MatchString(p.body) || !regexp.MustCompile(`<h2 id="devices-h">Devices</h2>\s*<p class="empty-note">None in this range.</p>`).MatchString(p.body) {
		t.Error("empty range: the devices section does not say none")
	}
	if m := autoRowRE.FindStringSubmatch(p.body); m == nil || m[2] != "0" || m[3] != "3" {
		t.Errorf("empty range: bots %v", m)
	}
}
