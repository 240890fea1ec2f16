package dashboard

import (
	"net/http"

	"kurz/admin/internal/stats"
	"kurz/shared/pgstore"
)

// The home page of a signed-in user: clicks today, over 7 and over 30
// days across all their links, the most clicked links and the newest. The
// numbers come from ClickHouse through the API server; while it cannot be
// read the page says so and shows "—".

const homeListLen = 5

type homeData struct {
	StatsDown bool
	Windows   stats.OwnerWindows
	Top       []linkRow
	Recent    []linkRow
	Total     int // the user's links
}

func (s *Server) homePage(w http.ResponseWriter, r *http.Request, c *call) error {
	var d homeData
	win, up, err := s.api.OwnerWindows(r.Context(), c.user.ID)
	if err != nil {
		return err
	}
	d.Windows, d.StatsDown = win, !up
	recent, err := s.store.SearchLinks(r.Context(), pgstore.LinkQuery{UserID: c.user.ID, Limit: homeListLen})
	if err != nil {
		return err
	}
	d.Total = recent.Total
	lr := linksData{StatsDown: d.StatsDown}
	if err := s.fillRows(r, &lr, recent.Links); err != nil {
		return err
	}
	d.Recent, d.StatsDown = lr.Rows, lr.StatsDown
	if !d.StatsDown && d.Total > 0 {
		if d.Top, err = s.topLinks(r, c); err != nil {
			return err
		}
	}
	s.render(w, r, c, http.StatusOK, "home", "Home", d)
	return nil
}

// topLinks are the user's most clicked links (all time), the first rows
// of the link table sorted by clicks; links nobody clicked are left out.
func (s *Server) topLinks(r *http.Request, c *call) ([]linkRow, error) {
	rank, up, err := s.api.LinkRanking(r.Context(), c.user.ID, homeListLen+1)
	if err != nil || !up || len(rank.IDs) == 0 {
		return nil, err
	}
	page, err := s.store.SearchLinks(r.Context(), pgstore.LinkQuery{UserID: c.user.ID, Limit: homeListLen, Rank: rank})
	if err != nil {
		return nil, err
	}
	lr := linksData{}
	if err := s.fillRows(r, &lr, page.Links); err != nil {
		return nil, err
	}
	var out []linkRow
	for _, row := range lr.Rows {
		if row.Clicks != nil && *row.Clicks > 0 {
			out = append(out, row)
		}
	}
	return out, nil
}
