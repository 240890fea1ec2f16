package dashboard

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"time"

	"kurz/admin/internal/stats"
)

// statsCSV answers /links/{id}/stats.csv: the series of the range the page
// shows (same query string), one line per bucket. Every cell is a date or
// a number, so no cell can start a spreadsheet formula. While ClickHouse
// cannot be read it is the 503 page, never a file of zeros.
func (s *Server) statsCSV(w http.ResponseWriter, r *http.Request, c *call) error {
	l, err := s.ownLink(r, c)
	if err != nil {
		return err
	}
	q, err := parseStatsQuery(r.URL.Query(), time.Now())
	if err != nil {
		return err
	}
	rg, up, err := s.api.LinkRange(r.Context(), l.ID, q.from, q.to, q.iv)
	if err != nil {
		return err
	}
	if !up {
		return errUnavailable
	}
	name := "kurz-" + strconv.FormatInt(l.ID, 10) + "-" + q.from.Format(time.DateOnly) + "-" + q.to.Format(time.DateOnly) + "-" + string(q.iv) + ".csv"
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	cw := csv.NewWriter(w)
	cw.Write([]string{string(q.iv), "clicks", "unique_clicks"}) //nolint:errcheck // checked by Flush/Error
	for _, b := range rg.Series {
		cw.Write([]string{stats.FormatBucket(b.Start, q.iv), strconv.FormatUint(b.Clicks, 10), //nolint:errcheck
			strconv.FormatUint(b.UniqueClicks, 10)})
	}
	cw.Flush()
	return nil // a write error is the client gone; the status is sent
}
