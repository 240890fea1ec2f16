package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// The dashboard scenario (issue 16): a marketer with many links and
// clicks opens the dashboard's pages. Each page is requested sequentially
// over a signed-in session on loopback and timed from the request's
// first byte to the response's last, so the time is the admin's work
// (PostgreSQL and ClickHouse reads, rendering) plus a loopback round
// trip.

// dashboardReport is the scenario's result.
type dashboardReport struct {
	Links  int64 `json:"links"`  // the owner's links
	Clicks int64 `json:"clicks"` // the owner's clicks in ClickHouse, all classes
	// Inserted is the clicks this run spread over the links.
	Inserted   int64   `json:"inserted"`
	InsertSecs float64 `json:"insert_seconds"`
	// Settle is the pages' wait for ClickHouse's merges (of this run's
	// insert or any before it).
	Settle   settleWait      `json:"settle"`
	Requests int             `json:"requests"` // timed requests per page
	Pages    []dashboardPage `json:"pages"`
	// Worst is the largest p95 of all pages.
	Worst float64 `json:"worst_p95_ms"`
}

// dashboardPage is one page's timing.
type dashboardPage struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Clicked pages are timed as if the owner's links were being visited:
	// before each request (untimed) one human click of the owner's top
	// link is inserted into ClickHouse, as an edge's flush would. The
	// admin keeps an owner's click ranking while the owner's total is
	// unchanged; these pages show what a ranked page costs when it is not.
	Clicked bool            `json:"clicked,omitempty"`
	Latency *latencySummary `json:"latency"`
	top     uint64          // the link Clicked pages click
}

// clickFeed inserts one click at a time for the Clicked pages.
type clickFeed struct {
	blk click.Block
	n   uint64
}

func (f *clickFeed) next(ctx context.Context, ch driver.Conn, owner int64, link uint64) error {
	f.n++
	now := time.Now().UnixNano()
	row := click.Row{ClickID: uint64(now), UnixNano: now, Kind: click.KindLink, Class: click.ClassHuman,
		LinkID: link, OwnerID: uint64(owner), Visitor: 1<<40 + f.n, Browser: "Other", OS: "Other", Device: "desktop", RefCategory: click.RefDirect}
	if err := chstore.InsertRows(ctx, ch, &f.blk, []click.Row{row}, chstore.DefaultChunking()); err != nil {
		return fmt.Errorf("insert a click: %w", err)
	}
	return nil
}

type dashboardConfig struct {
	admin, login, password string
	owner                  int64
	databaseURL, chDSN     string
	clicks                 int64
	requests               int
	settle                 time.Duration
}

func dashboardCmd(ctx context.Context, args []string, stdout io.Writer) error {
	var c dashboardConfig
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	fs.StringVar(&c.admin, "admin", "http://127.0.0.1:8081", "admin base URL (the dashboard is at /)")
	fs.StringVar(&c.login, "login", "", "the owner's username or email")
	fs.StringVar(&c.password, "password", "", "the owner's dashboard password")
	fs.Int64Var(&c.owner, "owner-id", 0, "the owner (users.id)")
	fs.StringVar(&c.databaseURL, "database-url", "", "PostgreSQL URL (to find the owner's links)")
	fs.StringVar(&c.chDSN, "clickhouse", "", "ClickHouse DSN")
	fs.Int64Var(&c.clicks, "clicks", 10_000_000, "the owner's clicks must reach this many (the missing ones are spread over the owner's links, most clicked first, over the last 90 days)")
	fs.IntVar(&c.requests, "requests", 40, "timed requests per page (sequential, after 2 unmeasured ones)")
	fs.DurationVar(&c.settle, "settle", 90*time.Second, "before timing, wait up to this long for ClickHouse's background merges (of this run's insert or an earlier one) to pause for 2 s (0 = time at once)")
	jsonOut := fs.String("json", "", "write the result as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.login == "" || c.password == "" || c.owner <= 0 || c.databaseURL == "" || c.chDSN == "" {
		return errors.New("--login, --password, --owner-id, --database-url and --clickhouse are required")
	}
	rep, err := runDashboard(ctx, &c, stdout)
	if err != nil {
		return err
	}
	if *jsonOut != "" {
		return writeJSON(*jsonOut, rep)
	}
	return nil
}

func runDashboard(ctx context.Context, c *dashboardConfig, stdout io.Writer) (*dashboardReport, error) {
	lo, hi, n, err := ownerLinkRange(ctx, c.databaseURL, c.owner)
	if err != nil {
		return nil, err
	}
	// A million-row INSERT … SELECT with the views can outlast the
	// default 30 s round trip on two busy cores.
	ch, err := chstore.Open(ctx, withDSNParam(c.chDSN, "read_timeout", "300s"))
	if err != nil {
		return nil, err
	}
	defer ch.Close()
	rep := &dashboardReport{Links: n, Requests: c.requests}
	if rep.Clicks, err = ownerClicks(ctx, ch, c.owner); err != nil {
		return nil, err
	}
	if missing := c.clicks - rep.Clicks; missing > 0 {
		t := time.Now()
		if err := spreadClicks(ctx, ch, c.owner, lo, hi, missing, time.Now()); err != nil {
			return nil, err
		}
		rep.Inserted, rep.InsertSecs = missing, time.Since(t).Seconds()
		if rep.Clicks, err = ownerClicks(ctx, ch, c.owner); err != nil {
			return nil, err
		}
	}
	// The pages are timed at rest: not among the merges of this run's
	// insert, nor of an earlier scenario's (make bench's stats scenario
	// inserts 10M clicks just before). On the scratch stack the merges of
	// a 10M-click insert ran during the insert, none after it: the wait
	// is a guard, and the report says how it ended.
	if rep.Settle, err = settleMerges(ctx, ch, c.settle); err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "== dashboard: owner %d, %d links, %d clicks (%d inserted in %.1f s); %s\n", c.owner, rep.Links, rep.Clicks,
		rep.Inserted, rep.InsertSecs, rep.Settle.note("the clicks were in place"))
	s, err := signIn(ctx, c.admin, c.login, c.password)
	if err != nil {
		return nil, err
	}
	pages, err := dashboardPages(ctx, s, ch, c.owner, lo)
	if err != nil {
		return nil, err
	}
	var clicked clickFeed
	for _, p := range pages {
		h := newHist()
		for i := -2; i < c.requests; i++ {
			if p.Clicked {
				if err := clicked.next(ctx, ch, c.owner, p.top); err != nil {
					return nil, fmt.Errorf("%s: %w", p.Name, err)
				}
			}
			t0 := time.Now()
			if _, err := s.get(ctx, p.Path); err != nil {
				return nil, fmt.Errorf("%s: %w", p.Name, err)
			}
			if i >= 0 {
				h.RecordValue(max(time.Since(t0).Microseconds(), 1)) //nolint:errcheck // clamps at 60 s
			}
		}
		p.Latency = summarize(h)
		rep.Worst = max(rep.Worst, p.Latency.P95)
		rep.Pages = append(rep.Pages, p)
		fmt.Fprintf(stdout, "  %-28s p50 %7.2f ms  p95 %7.2f ms  max %7.2f ms  %s\n", p.Name, p.Latency.P50, p.Latency.P95, p.Latency.Max, p.Path)
	}
	return rep, nil
}

// ownerLinkRange is the id range and number of the owner's links. The
// seed's links of one owner are one id range (one COPY).
func ownerLinkRange(ctx context.Context, dsn string, owner int64) (lo, hi, n int64, err error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("connect postgres: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = conn.QueryRow(ctx, `SELECT coalesce(min(id), 0), coalesce(max(id), 0), count(*) FROM links WHERE user_id = $1`, owner).Scan(&lo, &hi, &n)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("read links of user %d: %w", owner, err)
	}
	if n == 0 {
		return 0, 0, 0, fmt.Errorf("user %d has no links (run bench seed first)", owner)
	}
	return lo, hi, n, nil
}

func ownerClicks(ctx context.Context, ch driver.Conn, owner int64) (int64, error) {
	var n uint64
	if err := ch.QueryRow(ctx, `SELECT count() FROM `+click.RawSource+` WHERE kind = 'link' AND owner_id = ?`, uint64(owner)).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the owner's clicks: %w", err)
	}
	return int64(n), nil
}

// spreadClicks writes n clicks of owner over the link ids lo..hi with one
// INSERT … SELECT per million rows. Link lo+k-1 gets a share proportional
// to 1/k (exp of a uniform draw over [0, ln(span+1)) is distributed so):
// a Zipf(1) popularity, as real link populations have, so the most
// clicked link holds ~6% of them. The rows are spread over the last 90
// days, so the 30-day windows hold a third.
func spreadClicks(ctx context.Context, ch driver.Conn, owner, lo, hi, n int64, now time.Time) error {
	q := `INSERT INTO ` + click.Table + ` (click_id, ts, kind, target_id, link_id, qr_id, owner_id, class, visitor,
		country, browser, os, device, referrer_host, referrer_category, language)
	SELECT rand64(), toDateTime(?) - (intHash32(number + ?) % 7776000), 1, t, t, 0, ?,
		multiIf(number % 50 = 0, 1, number % 100 = 1, 2, 0),
		cityHash64(number % 3000000),
		['US','DE','GB','FR','BR','IN','ES','JP','IT','NL','CA','MX'][number % 12 + 1],
		['Chrome','Safari','Firefox','Edge','Opera'][number % 5 + 1],
		['Windows','iOS','Android','MacOS','Linux'][number % 5 + 1],
		['desktop','mobile','mobile','tablet'][number % 4 + 1],
		['','facebook.com','t.co','google.com','linkedin.com','news.ycombinator.com','reddit.com'][number % 7 + 1],
		[0, 2, 3, 4, 2, 1, 2][number % 7 + 1],
		['en','de','fr','es'][number % 4 + 1]
	FROM (SELECT number, toUInt64(? - 1 + floor(exp((rand(number) / 4294967296.0) * log(? + 1)))) AS t FROM numbers(?))`
	const chunk = 1_000_000
	span := hi - lo + 1
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for done := int64(0); done < n; done += chunk {
		c := min(n-done, chunk)
		g.Go(func() error {
			if err := ch.Exec(gctx, q, now.Unix(), uint64(done), uint64(owner), uint64(lo), uint64(span), uint64(c)); err != nil {
				return fmt.Errorf("insert clicks %d-%d of %d: %w", done, done+c, n, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// dashSession is a signed-in browser without the browser: a cookie jar.
type dashSession struct {
	base   string
	client *http.Client
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func signIn(ctx context.Context, base, login, password string) (*dashSession, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	s := &dashSession{base: strings.TrimSuffix(base, "/"), client: &http.Client{
		Jar: jar, Timeout: 30 * time.Second,
		// The sign-in answers 303 to the next page: its status says whether it worked.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	page, err := s.get(ctx, "/login")
	if err != nil {
		return nil, err
	}
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		return nil, errors.New("sign-in page: no CSRF token")
	}
	form := url.Values{"csrf": {m[1]}, "login": {login}, "password": {password}, "next": {"/links"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/login", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", s.base)
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("sign in as %q: status %d", login, resp.StatusCode)
	}
	return s, nil
}

// get fetches a page; anything but 200 is an error.
func (s *dashSession) get(ctx context.Context, path string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
	if err != nil {
		return "", err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: status %d", path, resp.StatusCode)
	}
	return string(b), nil
}

var olderLink = regexp.MustCompile(`href="(/links\?[^"]*after=[^"]+)"`)

// dashboardPages are the pages timed: what a marketer opens most, and
// the ones whose cost grows with the number of links or clicks.
func dashboardPages(ctx context.Context, s *dashSession, ch driver.Conn, owner, lo int64) ([]dashboardPage, error) {
	var top uint64
	err := ch.QueryRow(ctx, `SELECT target_id FROM `+click.RawSource+` WHERE kind = 'link' AND owner_id = ? AND target_id = ? LIMIT 1`, uint64(owner), uint64(lo)).Scan(&top)
	if err != nil {
		return nil, fmt.Errorf("the owner's most clicked link: %w", err)
	}
	first, err := s.get(ctx, "/links")
	if err != nil {
		return nil, err
	}
	m := olderLink.FindStringSubmatch(first)
	if m == nil {
		return nil, errors.New("the link table's first page has no link to older links")
	}
	older := strings.ReplaceAll(m[1], "&amp;", "&")
	stats := "/links/" + strconv.FormatUint(top, 10) + "/stats"
	median := "/links/" + strconv.FormatInt(lo+1000, 10) + "/stats"
	return []dashboardPage{
		{Name: "home", Path: "/"},
		{Name: "links, newest", Path: "/links"},
		{Name: "links, older page", Path: older},
		{Name: "links by clicks", Path: "/links?sort=clicks"},
		{Name: "links by clicks, page 40", Path: "/links?sort=clicks&page=40"},
		{Name: "search, ~10 matches", Path: "/links?q=products%2F4242"},
		{Name: "search, ~1% of links", Path: "/links?q=campaign%3Dc17"},
		{Name: "search by clicks", Path: "/links?q=campaign%3Dc17&sort=clicks"},
		{Name: "stats, top link, 30 days", Path: stats},
		{Name: "stats, top link, 7 days by hour", Path: stats + "?interval=hour&from=" + daysAgo(6)},
		{Name: "stats, top link, 90 days by week", Path: stats + "?interval=week&from=" + daysAgo(89)},
		{Name: "stats, 1000th link", Path: median},
		{Name: "QR codes", Path: "/qr"},
		{Name: "campaigns", Path: "/campaigns"},
		{Name: "links by clicks, while clicked", Path: "/links?sort=clicks", Clicked: true, top: top},
		{Name: "search by clicks, while clicked", Path: "/links?q=campaign%3Dc17&sort=clicks", Clicked: true, top: top},
	}, nil
}

// daysAgo is the UTC date n days before today, as the stats page reads it.
func daysAgo(n int) string { return time.Now().UTC().AddDate(0, 0, -n).Format(time.DateOnly) }

// withDSNParam sets a query parameter of a DSN unless it has one.
func withDSNParam(dsn, key, value string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Query().Has(key) {
		return dsn
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// dashboardTargets are issue 16's page-time target, every page's p95 within
// 50 ms for a user with the scenario's links and clicks: once for the
// pages timed while the owner's clicks stand still, and once for the
// ranked pages timed while clicked (when the report has them), so that
// each verdict says what it measured.
func dashboardTargets(dir string) []goal {
	var dr dashboardReport
	if readJSON(filepath.Join(dir, "dashboard.json"), &dr) != nil || len(dr.Pages) == 0 {
		return []goal{{Name: "Dashboard pages, p95 of the slowest page", Measured: "not measured", Goal: "<= 50 ms", Verdict: "**miss**"}}
	}
	var still, clicked []dashboardPage
	for _, p := range dr.Pages {
		if p.Clicked {
			clicked = append(clicked, p)
		} else {
			still = append(still, p)
		}
	}
	ts := []goal{pagesTarget(fmt.Sprintf("Dashboard pages (%d links, %d clicks of one user): p95 of the slowest page", dr.Links, dr.Clicks), still)}
	ts[0].Note = joinNote(ts[0].Note, "timed once "+dr.Settle.note("the clicks were in place"))
	if len(clicked) > 0 {
		ts = append(ts, pagesTarget("Dashboard ranked pages while clicked (a click of the owner's inserted before each request, so every request finds the owner's clicks changed): p95 of the slowest page", clicked))
	}
	return ts
}

// pagesTarget judges the slowest p95 of pages against 50 ms and names the
// pages over it.
func pagesTarget(name string, pages []dashboardPage) goal {
	var worst float64
	var slow []string
	for _, p := range pages {
		worst = max(worst, p.Latency.P95)
		if p.Latency.P95 > 50 {
			slow = append(slow, fmt.Sprintf("%s %.0f ms", p.Name, p.Latency.P95))
		}
	}
	t := limitTarget(name, worst, 50, "ms")
	if len(slow) > 0 {
		t.Note = joinNote(t.Note, fmt.Sprintf("%d of %d pages over: %s", len(slow), len(pages), strings.Join(slow, ", ")))
	}
	return t
}

// writeDashboardTable lists every timed page of the dashboard scenario.
func writeDashboardTable(b *strings.Builder, dir string) {
	var dr dashboardReport
	if readJSON(filepath.Join(dir, "dashboard.json"), &dr) != nil || len(dr.Pages) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Dashboard pages\n\n%d links and %d clicks of one user (%d spread over the links by this run, most clicked link first, over 90 days); %d sequential requests per page over a signed-in session on loopback, timed from request to the last byte of the page. The pages were timed at rest (%s).\n\n", dr.Links, dr.Clicks, dr.Inserted, dr.Requests, dr.Settle.note("the clicks were in place"))
	b.WriteString("| page | path | p50 | p95 | max |\n|---|---|---|---|---|\n")
	for _, p := range dr.Pages {
		fmt.Fprintf(b, "| %s | `%s` | %.1f ms | %.1f ms | %.1f ms |\n", p.Name, p.Path, p.Latency.P50, p.Latency.P95, p.Latency.Max)
	}
}
