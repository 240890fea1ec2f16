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
	return s.writeStatsCSV(w, r, "kurz-"+strconv.FormatInt(l.ID, 10), l.ID, s.linkReads())
}

// writeStatsCSV writes the CSV of subject id's range, named prefix and
// the range.
func (s *Server) writeStatsCSV(w http.ResponseWriter, r *http.Request, prefix string, id int64, reads statsReads) error {
	q, err := parseStatsQuery(r.URL.Query(), time.Now())
	if err != nil {
		return err
	}
	rg, up, err := reads.rng(r.Context(), id, q.from, q.to, q.iv)
	if err != nil {
		return err
	}
	if !up {
		return errUnavailable
	}
	name := prefix + "-" + q.from.Format(time.DateOnly) + "-" + q.to.Format(time.DateOnly) + "-" + string(q.iv) + ".csv"
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
