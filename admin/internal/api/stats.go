package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kurz/admin/internal/stats"
	"kurz/shared/click"
	"kurz/shared/link"
)

// Chart extension (not in the spec): per-day or per-hour human clicks and
// distinct visitors of one link, plus the breakdowns for the range.

func (s *Server) statsRoutes() {
	s.handle(s.api, "/api/url/{id}/stats", Methods{http.MethodGet: s.linkStats})
}

func (s *Server) linkStats(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return NotFound("link")
	}
	from, to, iv, err := parseStatsRange(r, s.now())
	if err != nil {
		return err
	}
	// Ownership first: another user's link is the same 404 as none.
	if _, err := s.store.LinkByID(r.Context(), u.ID, id); err != nil {
		if errors.Is(err, link.ErrNotFound) {
			return NotFound("link")
		}
		return err
	}
	rg := &stats.Range{From: from, To: to, Interval: iv}
	if s.stats != nil {
		if rg, err = s.stats.Range(r.Context(), click.KindLink, id, from, to, iv); err != nil {
			return err
		}
	} else {
		rg.Series = zeroSeries(from, to, iv)
	}
	series := make([]map[string]any, 0, len(rg.Series))
	for _, b := range rg.Series {
		series = append(series, map[string]any{
			"date":         stats.FormatBucket(b.Start, iv),
			"clicks":       b.Clicks,
			"uniqueClicks": b.UniqueClicks,
		})
	}
	return OK(w, map[string]any{"data": map[string]any{
		"interval":     string(iv),
		"from":         from.Format(time.DateOnly),
		"to":           to.Format(time.DateOnly),
		"clicks":       rg.Clicks,
		"uniqueClicks": rg.UniqueClicks,
		"series":       series,
		"topCountries": intCounts(rg.Countries),
		"topReferrers": intCounts(rg.Referrers),
		"topBrowsers":  intCounts(rg.Browsers),
		"topOs":        intCounts(rg.OS),
		"socialCount":  socialCount(rg.Categories, linkSocialKeys),
	}})
}

// parseStatsRange reads from, to (YYYY-MM-DD, UTC days, both inclusive) and
// interval. Defaults: to = today (UTC), from = the 30th day back to to,
// interval day.
func parseStatsRange(r *http.Request, now time.Time) (from, to time.Time, iv stats.Interval, err error) {
	q := r.URL.Query()
	iv = stats.Day
	switch v := strings.ToLower(q.Get("interval")); v {
	case "", "day":
	case "hour":
		iv = stats.Hour
	default:
		return from, to, iv, BadRequest("interval", "must be day or hour")
	}
	y, m, d := now.UTC().Date()
	to = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if v := q.Get("to"); v != "" {
		if to, err = stats.ParseDate(v); err != nil {
			return from, to, iv, BadRequest("to", "must be a date YYYY-MM-DD")
		}
	}
	from = to.AddDate(0, 0, -(stats.DefaultDays - 1))
	if v := q.Get("from"); v != "" {
		if from, err = stats.ParseDate(v); err != nil {
			return from, to, iv, BadRequest("from", "must be a date YYYY-MM-DD")
		}
	}
	if from.After(to) {
		return from, to, iv, BadRequest("from", "must not be after to")
	}
	if err := stats.CheckRange(from, to, iv); err != nil {
		limit := stats.MaxDays
		if iv == stats.Hour {
			limit = stats.MaxHourDays
		}
		return from, to, iv, BadRequest("to", "the range may span at most "+strconv.Itoa(limit)+" days with interval "+string(iv))
	}
	return from, to, iv, nil
}

func zeroSeries(from, to time.Time, iv stats.Interval) []stats.Bucket {
	step := 24 * time.Hour
	if iv == stats.Hour {
		step = time.Hour
	}
	var out []stats.Bucket
	for t := from; !t.After(to.Add(24*time.Hour - step)); t = t.Add(step) {
		out = append(out, stats.Bucket{Start: t})
	}
	return out
}
