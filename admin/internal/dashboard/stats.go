package dashboard

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"kurz/admin/internal/api"
	"kurz/admin/internal/stats"
	"kurz/shared/target"
)

// The statistics page of one link (/links/{id}/stats) and its CSV export.
// Every number comes from the API server's stats reads (LinkRange,
// LinkCounts: what GET /api/url/:id/stats and GET /api/url/:id answer);
// while ClickHouse cannot be read the page says so and shows no number.

// statsQuery is the page's range, checked.
type statsQuery struct {
	from, to time.Time
	iv       stats.Interval
}

// values is the query string of q (for links to the CSV and back).
func (q statsQuery) values() url.Values {
	return url.Values{"from": {q.from.Format(time.DateOnly)}, "to": {q.to.Format(time.DateOnly)}, "interval": {string(q.iv)}}
}

// parseStatsQuery reads from, to (YYYY-MM-DD, UTC days, both inclusive)
// and interval (hour, day, week). Defaults: the last 30 days by day, as the
// API's chart extension.
func parseStatsQuery(v url.Values, now time.Time) (statsQuery, error) {
	y, m, d := now.UTC().Date()
	q := statsQuery{to: time.Date(y, m, d, 0, 0, 0, 0, time.UTC), iv: stats.Day}
	switch v.Get("interval") {
	case "", "day":
	case "hour":
		q.iv = stats.Hour
	case "week":
		q.iv = stats.Week
	default:
		return q, errBadQuery("The interval must be hour, day or week.")
	}
	var err error
	if s := v.Get("to"); s != "" {
		if q.to, err = stats.ParseDate(s); err != nil {
			return q, errBadQuery("The end date must be a date (YYYY-MM-DD).")
		}
	}
	q.from = q.to.AddDate(0, 0, -(stats.DefaultDays - 1))
	if s := v.Get("from"); s != "" {
		if q.from, err = stats.ParseDate(s); err != nil {
			return q, errBadQuery("The start date must be a date (YYYY-MM-DD).")
		}
	}
	if err := stats.CheckRange(q.from, q.to, q.iv); err != nil {
		if q.from.After(q.to) {
			return q, errBadQuery("The start date is after the end date.")
		}
		limit := stats.MaxDays
		if q.iv == stats.Hour {
			limit = stats.MaxHourDays
		}
		return q, errBadQuery("By " + string(q.iv) + ", the range may span at most " + strconv.Itoa(limit) + " days.")
	}
	return q, nil
}

// countRow is one line of a breakdown: its share of the largest value
// draws its bar.
type countRow struct {
	Name string
	Code string // ISO 3166 alpha-2 of a country, "" otherwise
	N    uint64
	Pct  float64 // of the largest N of its list, 0..100
}

// countList is one breakdown table: its element id, its first column's
// heading and its rows.
type countList struct {
	ID, What string
	Counted  string // the number column's heading: "Clicks", "Scans"
	Rows     []countRow
}

// statsSubject is what a statistics page counts the visits of: a link
// (clicks) or a QR code (scans).
type statsSubject struct {
	Path      string // "/links/7": the page is Path+"/stats", the CSV Path+"/stats.csv"
	Name      string // the headline: the short URL's text, the code's name
	Address   string // the short URL to open, "" for none
	Target    string // where a visit goes, what a scan gives
	EditURL   string
	EditLabel string
	Counted   string // "Clicks", "Scans"
	Title     string // the page's title; "Statistics of " and Name when empty
}

// Noun is what the page counts, in the text: "clicks", "scans".
func (s statsSubject) Noun() string { return strings.ToLower(s.Counted) }

// One is one of them: "click", "scan".
func (s statsSubject) One() string { return strings.TrimSuffix(s.Noun(), "s") }

// statsReads are the API server's reads of one kind of subject.
type statsReads struct {
	rng    func(ctx context.Context, id int64, from, to time.Time, iv stats.Interval) (*stats.Range, bool, error)
	counts func(ctx context.Context, id int64) (stats.Counts, bool, error)
	social func(categories map[string]uint64) uint64
}

// linkReads are what GET /api/url/:id and its chart extension read.
func (s *Server) linkReads() statsReads {
	return statsReads{s.api.LinkRange, s.api.LinkCounts, api.LinkSocialCount}
}

// qrReads are the same reads of a QR code's scans (GET /api/qr/:id).
func (s *Server) qrReads() statsReads {
	return statsReads{s.api.QRRange, s.api.QRCounts, api.QRSocialCount}
}

// statsData is the statistics page's.
type statsData struct {
	Subject  statsSubject
	From, To string
	Interval string
	Up       bool // false: ClickHouse cannot be read now
	// NotCounted: the subject's visits never reach the service (a QR code
	// holding its content itself); no numbers are read.
	NotCounted string
	Range      *stats.Range
	AllTime    stats.Counts
	Fresh      string // "HH:MM:SS UTC" (with the date when not today)
	Lagging    bool   // some edge reports clicks not yet counted
	Chart      chart  // wide
	Narrow     chart  // for phones
	Social     uint64
	Map        worldMap
	CSVURL     string

	Countries, Referrers, Browsers, OS, Devices, Sources countList
}

func (s *Server) statsPage(w http.ResponseWriter, r *http.Request, c *call) error {
	l, err := s.ownLink(r, c)
	if err != nil {
		return err
	}
	row := s.rowOf(l)
	subject := statsSubject{Path: "/links/" + strconv.FormatInt(l.ID, 10), Name: row.ShortText, Address: row.Short,
		Target: l.LongURL, EditLabel: "Edit link", Counted: "Clicks"}
	return s.showStats(w, r, c, subject, l.ID, s.linkReads())
}

// showStats renders the statistics page of subject id over the query's
// range.
func (s *Server) showStats(w http.ResponseWriter, r *http.Request, c *call, subject statsSubject, id int64, reads statsReads) error {
	q, err := parseStatsQuery(r.URL.Query(), time.Now())
	if err != nil {
		return err
	}
	if subject.EditURL == "" {
		subject.EditURL = subject.Path + "/edit"
	}
	d := statsData{Subject: subject, From: q.from.Format(time.DateOnly), To: q.to.Format(time.DateOnly),
		Interval: string(q.iv), CSVURL: subject.Path + "/stats.csv?" + q.values().Encode()}
	if err := s.readStats(r, id, q, &d, reads); err != nil {
		return err
	}
	if subject.Title == "" {
		subject.Title = "Statistics of " + subject.Name
	}
	s.render(w, r, c, http.StatusOK, "stats", subject.Title, d)
	return nil
}

// readStats fills d's numbers; d.Up stays false when ClickHouse is down.
// The freshness first (it must not claim clicks the numbers missed;
// stats.Service.RecentFreshness, usually kept), then two reads side by
// side: the range (series, breakdowns with devices and every country, the
// visits that were not people) and the all-time counts. The page shows no
// all-time distinct visitors or breakdowns, so it reads none.
func (s *Server) readStats(r *http.Request, id int64, q statsQuery, d *statsData, reads statsReads) error {
	var (
		rg       *stats.Range
		all      stats.Counts
		upR, upA bool
	)
	fresh, upF, err := s.api.Freshness(r.Context())
	if err != nil || !upF {
		return err
	}
	g, ctx := errgroup.WithContext(r.Context())
	g.Go(func() (err error) {
		rg, upR, err = reads.rng(ctx, id, q.from, q.to, q.iv)
		return err
	})
	g.Go(func() (err error) {
		all, upA, err = reads.counts(ctx, id)
		return err
	})
	if err := g.Wait(); err != nil || !upR || !upA {
		return err
	}
	d.Up, d.Range, d.AllTime = true, rg, all
	d.Fresh = freshness(fresh.IngestedUntil, time.Now())
	d.Lagging = fresh.LagMs > 0
	d.Chart = buildChart(rg.Series, q.iv, wideChart, "chart-wide")
	d.Narrow = buildChart(rg.Series, q.iv, narrowChart, "chart-narrow")
	d.Chart.Noun, d.Narrow.Noun = d.Subject.Noun(), d.Subject.Noun()
	d.Social = reads.social(rg.Categories)
	d.Map = buildWorldMap(rg.CountryCodes, d.Subject.One(), d.Subject.Noun())
	d.Countries = countList{"countries", "Country", d.Subject.Counted, countRows(rg.Countries, true)}
	d.Referrers = countList{"referrers", "Referrer", d.Subject.Counted, countRows(rg.Referrers, false)}
	d.Browsers = countList{"browsers", "Browser", d.Subject.Counted, countRows(rg.Browsers, false)}
	d.OS = countList{"os", "Operating system", d.Subject.Counted, countRows(rg.OS, false)}
	d.Devices = countList{"devices", "Device", d.Subject.Counted, deviceRows(rg.Devices)}
	d.Sources = countList{"sources", "Source", d.Subject.Counted, categoryRows(rg.Categories)}
	return nil
}

// freshness renders "counted up to" as a UTC clock time, with the date when
// it is not today's.
func freshness(t, now time.Time) string {
	t = t.UTC()
	if t.Format(time.DateOnly) == now.UTC().Format(time.DateOnly) {
		return t.Format("15:04:05") + " UTC"
	}
	return t.Format("2006-01-02 15:04:05") + " UTC"
}

func countRows(cs []stats.Count, countries bool) []countRow {
	var top uint64
	for _, c := range cs {
		top = max(top, c.N)
	}
	out := make([]countRow, 0, len(cs))
	for _, c := range cs {
		row := countRow{Name: c.Name, N: c.N}
		if top > 0 {
			row.Pct = float64(c.N) * 100 / float64(top)
		}
		if countries {
			row.Name = titleCase(c.Name)
			if code, ok := target.CountryCode(c.Name); ok {
				row.Code = code
			}
		}
		out = append(out, row)
	}
	return out
}

// sourceNames are the referrer categories in the order shown.
var sourceNames = []struct{ key, name string }{
	{"direct", "Direct (no referrer)"}, {"socialnetwork", "Social networks"}, {"microblog", "Microblogs"},
	{"searchengine", "Search engines"}, {"photosharing", "Photo sharing"}, {"messaging", "Messaging"},
	{"email", "Email"}, {"other", "Other websites"},
}

func categoryRows(cats map[string]uint64) []countRow {
	var cs []stats.Count
	for _, s := range sourceNames {
		if n := cats[s.key]; n > 0 {
			cs = append(cs, stats.Count{Name: s.name, N: n})
		}
	}
	return countRows(cs, false)
}

// deviceNames are the stored device classes (shared/click) as shown.
var deviceNames = map[string]string{
	"desktop": "Desktop", "mobile": "Mobile", "tablet": "Tablet", "tv": "TV",
	"bot": "Bot", "unknown": "Unknown", "": "Unknown",
}

// deviceRows names the device classes, merging the two spellings of
// unknown; an unexpected class is shown as stored (escaped as any value).
func deviceRows(cs []stats.Count) []countRow {
	merged := make([]stats.Count, 0, len(cs))
	for _, c := range cs {
		name, ok := deviceNames[c.Name]
		if !ok {
			name = c.Name
		}
		if i := slices.IndexFunc(merged, func(m stats.Count) bool { return m.Name == name }); i >= 0 {
			merged[i].N += c.N
			continue
		}
		merged = append(merged, stats.Count{Name: name, N: c.N})
	}
	slices.SortStableFunc(merged, func(a, b stats.Count) int { return cmp.Compare(b.N, a.N) })
	return countRows(merged, false)
}

// titleCase capitalises each word of a lower-case country name.
func titleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if w == "and" || w == "of" || w == "the" && i > 0 {
			continue
		}
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}
