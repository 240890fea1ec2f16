package dashboard

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"kurz/admin/internal/stats"
	"kurz/shared/link"
	"kurz/shared/pgstore"
)

// The link table. Numbers come from ClickHouse through the API server's
// own reads (LinkTotals, LinkRanking: what GET /api/urls shows); while
// ClickHouse cannot be read the table shows "—" and says why, never 0.

const (
	linksPerPage = 25
	maxSearchLen = 200
	maxListPage  = 1_000_000
)

// linkRow is one row of the table.
type linkRow struct {
	ID          int64
	Alias       string
	Short       string
	ShortText   string // Short without its scheme, as people write it
	Destination string
	Title       string
	Clicks      *uint64 // nil: unavailable
	Unique      *uint64
	Created     time.Time
	// QR is the link's QR image on the edge ("" for an expired link,
	// which the edge answers 410).
	QR string
}

// linksData is the link table page's.
type linksData struct {
	Rows      []linkRow
	Search    string
	Sort      string // "date" or "clicks"
	Filter    linkFilter
	Query     []queryField // the table's search, order and filters, for the bulk form
	Total     int
	StatsDown bool
	// SortedByDate: clicks were asked for but cannot be ranked now.
	SortedByDate bool
	NewerURL     string
	OlderURL     string
}

// linkQuery is the table's query string, checked.
type linkQuery struct {
	search        string
	byClicks      bool
	campaign      int64 // 0: any
	channel       int64 // 0: any
	after, before *pgstore.LinkCursor
	page          int
}

// filteredRankNeed is the least of the ranking a filtered list by clicks
// reads first. Such a walk skips the ranked links the filter drops (a
// search matching 1% of them finds its first page ~2,600 deep), and each
// extension of the ranking is another read of the owner's whole sum:
// 15 ms for the top 1,000 of 100k links and then 18 ms for 4,000, where
// 4,000 at once took 18 ms (18.16, clickhouse-client --time, five runs).
const filteredRankNeed = 2000

// filtered reports whether the query selects some of the links only.
func (q *linkQuery) filtered() bool {
	return q.search != "" || q.campaign != 0 || q.channel != 0
}

// rankNeed is how far into the click ranking the page may reach.
func (q *linkQuery) rankNeed() int {
	need := q.page*linksPerPage + 1
	if q.filtered() {
		need = max(need, filteredRankNeed)
	}
	return need
}

func (s *Server) linksPage(w http.ResponseWriter, r *http.Request, c *call) error {
	q, err := parseLinkQuery(r.URL.Query())
	if err != nil {
		return err
	}
	d := linksData{Search: q.search, Sort: "date", Query: q.fields()}
	if d.Filter, err = s.linkFilter(r.Context(), c.user, q); err != nil {
		return err
	}
	pq := pgstore.LinkQuery{UserID: c.user.ID, Search: q.search, CampaignID: q.campaign, ChannelID: q.channel,
		Limit: linksPerPage, After: q.after, Before: q.before, NoTotal: true}
	if q.byClicks && q.search != "" {
		// The search's matches, read while ClickHouse ranks, for the walk
		// of the ranking (pgstore.Matches). The count does not wait for
		// them: for a dense search they are not all read, and a count
		// started after that read made its page 15-20 ms slower.
		pq.Matches = s.store.PrefetchMatches(r.Context(), pq)
		defer pq.Matches.Stop()
	}
	// The count (one kept row unfiltered; 10-25 ms for a filter over 100k
	// links) needs neither the ranking nor the page, so it runs beside the
	// whole chain of reads that does: ranking, page, numbers. Each
	// goroutine writes its own fields of d.
	g, ctx := errgroup.WithContext(r.Context())
	g.Go(func() (err error) {
		d.Total, err = s.store.CountMatching(ctx, pq)
		return err
	})
	g.Go(func() error { return s.linkRows(ctx, &d, q, pq) })
	if err := g.Wait(); err != nil {
		return err
	}
	allowImages(w.Header(), c.nonce, qrOrigins(d.Rows))
	s.render(w, r, c, http.StatusOK, "links", "Links", d)
	return nil
}

// linkRows reads the page of links q selects, in date order or by clicks,
// with their numbers, into d: everything of the table but its count.
func (s *Server) linkRows(ctx context.Context, d *linksData, q linkQuery, pq pgstore.LinkQuery) error {
	var ahead *totalsAhead
	if q.byClicks {
		d.Sort = "clicks"
		if !q.filtered() {
			// Unfiltered, the page is the ranking's slice but for links
			// deleted since (totalsahead.go); a filter's walk skips an
			// unknown number of ranked links.
			from := (q.page - 1) * linksPerPage
			ahead = s.readAhead(ctx, s.api.LinkRankingHint(pq.UserID, from, from+linksPerPage))
			defer ahead.stop()
		}
		rank, up, err := s.api.LinkRanking(ctx, pq.UserID, q.rankNeed())
		if err != nil {
			return err
		}
		if up {
			pq.Rank, pq.Offset, pq.After, pq.Before = rank, (q.page-1)*linksPerPage, nil, nil
		} else {
			d.StatsDown, d.SortedByDate = true, true
		}
	}
	page, err := s.store.SearchLinks(ctx, pq)
	if err != nil {
		return err
	}
	if err := s.fillRanked(ctx, d, page.Links, ahead, pq.Rank); err != nil {
		return err
	}
	d.NewerURL, d.OlderURL = pageURLs(q, pq.Rank != nil, page)
	return nil
}

// fillRanked is fillRows for a page that may have some of its numbers read
// ahead: it reads only the others.
func (s *Server) fillRanked(ctx context.Context, d *linksData, links []link.Link, ahead *totalsAhead, rank *pgstore.ClickRanking) error {
	totals, missing, ok := ahead.cover(links, rankedClicks(links, rank))
	if !ok || d.StatsDown {
		return s.fillRows(ctx, d, links, true)
	}
	s.aheadUsed.Add(1)
	if len(missing) > 0 {
		more, up, err := s.api.LinkTotalsOf(ctx, missing, true)
		if err != nil {
			return err
		}
		if up {
			maps.Copy(totals, more)
		} else {
			d.StatsDown, totals = true, nil
		}
	}
	d.Rows = append(d.Rows, s.rowsOf(links, totals, true)...)
	return nil
}

// rankedClicks is the clicks rank counted of each of links it names.
func rankedClicks(links []link.Link, rank *pgstore.ClickRanking) map[int64]int64 {
	out := make(map[int64]int64, len(links))
	if rank == nil {
		return out
	}
	for i := range links {
		out[links[i].ID] = 0
	}
	for i, id := range rank.IDs {
		if _, ok := out[id]; ok {
			out[id] = rank.Clicks[i]
		}
	}
	return out
}

// fillRows turns a page of links into rows with their numbers: clicks,
// and unique clicks when uniques (a list that shows them: merging a busy
// link's distinct-visitor state costs far more than its counter).
func (s *Server) fillRows(ctx context.Context, d *linksData, links []link.Link, uniques bool) error {
	var totals map[int64]stats.Totals
	if !d.StatsDown && len(links) > 0 {
		t, up, err := s.api.LinkTotals(ctx, links, uniques)
		if err != nil {
			return err
		}
		d.StatsDown = !up
		if up {
			totals = t
		}
	}
	d.Rows = append(d.Rows, s.rowsOf(links, totals, uniques)...)
	return nil
}

// rowsOf is links' rows with their totals; totals nil: the numbers are
// unavailable (a link missing from a non-nil totals has none yet).
func (s *Server) rowsOf(links []link.Link, totals map[int64]stats.Totals, uniques bool) []linkRow {
	rows := make([]linkRow, 0, len(links))
	for i := range links {
		l := &links[i]
		row := s.rowOf(l)
		if totals != nil {
			t := totals[l.ID]
			row.Clicks = &t.Clicks
			if uniques {
				row.Unique = &t.UniqueClicks
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// rowOf is a link's row, without numbers.
func (s *Server) rowOf(l *link.Link) linkRow {
	short := l.ShortURL(s.cfg.BaseURL)
	text := strings.TrimPrefix(strings.TrimPrefix(short, "https://"), "http://")
	row := linkRow{ID: l.ID, Alias: l.Alias, Short: short, ShortText: text, Destination: l.LongURL,
		Title: l.MetaTitle, Created: l.CreatedAt}
	if l.ExpiresAt == nil || l.ExpiresAt.After(time.Now()) {
		row.QR = short + "/qr/" + strconv.Itoa(qrThumbSize) + ".svg"
	}
	return row
}

// errBadQuery is a table address that cannot be read (a hand-edited URL).
func errBadQuery(what string) error {
	return &pageError{status: http.StatusBadRequest, title: "Bad address", text: what}
}

func parseLinkQuery(v url.Values) (linkQuery, error) {
	q := linkQuery{search: strings.TrimSpace(v.Get("q")), page: 1}
	if utf8.RuneCountInString(q.search) > maxSearchLen {
		return q, errBadQuery("The search text is longer than " + strconv.Itoa(maxSearchLen) + " characters.")
	}
	switch v.Get("sort") {
	case "", "date":
	case "clicks":
		q.byClicks = true
	default:
		return q, errBadQuery("The table can be sorted by date or by clicks only.")
	}
	var err error
	if q.campaign, err = parseFilterID(v.Get("campaign"), "campaign"); err != nil {
		return q, err
	}
	if q.channel, err = parseFilterID(v.Get("channel"), "channel"); err != nil {
		return q, err
	}
	if q.after, err = parseCursor(v.Get("after")); err != nil {
		return q, err
	}
	if q.before, err = parseCursor(v.Get("before")); err != nil {
		return q, err
	}
	if p := v.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > maxListPage {
			return q, errBadQuery("The page number is not valid.")
		}
		q.page = n
	}
	return q, nil
}

// A cursor in a URL is "<created, Unix microseconds>-<id>".
func formatCursor(l link.Link) string {
	return strconv.FormatInt(l.CreatedAt.UnixMicro(), 10) + "-" + strconv.FormatInt(l.ID, 10)
}

func parseCursor(s string) (*pgstore.LinkCursor, error) {
	if s == "" {
		return nil, nil
	}
	us, id, ok := strings.Cut(s, "-")
	micros, err1 := strconv.ParseInt(us, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || micros < 0 || n <= 0 {
		return nil, errBadQuery("The page position in this address is not valid.")
	}
	return &pgstore.LinkCursor{CreatedAt: time.UnixMicro(micros).UTC(), ID: n}, nil
}

// pageURLs are the table's "newer" and "older" links ("" = none): keyset
// cursors in date order, page numbers in click order.
func pageURLs(q linkQuery, ranked bool, p pgstore.LinkPage) (newer, older string) {
	base := q.filterValues()
	at := func(key, value string) string {
		v := url.Values{}
		for k, vs := range base {
			v[k] = vs
		}
		if key != "" {
			v.Set(key, value)
		}
		if len(v) == 0 {
			return "/links"
		}
		return "/links?" + v.Encode()
	}
	switch {
	case ranked:
		if p.Newer {
			newer = at("page", strconv.Itoa(q.page-1))
			if q.page == 2 {
				newer = at("", "")
			}
		}
		if p.Older {
			older = at("page", strconv.Itoa(q.page+1))
		}
	case len(p.Links) > 0:
		if p.Newer {
			newer = at("before", formatCursor(p.Links[0]))
		}
		if p.Older {
			older = at("after", formatCursor(p.Links[len(p.Links)-1]))
		}
	case q.after != nil || q.before != nil:
		newer = at("", "") // past the end (links deleted since): back to the start
	}
	return newer, older
}
