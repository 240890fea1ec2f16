package dashboard

import (
	"context"
	"net/http"

	"golang.org/x/sync/errgroup"

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

// homePage reads its parts side by side: the windows, the newest links,
// the most clicked ones and the count of the user's links are
// independent reads, so the page waits for the slowest instead of their
// sum.
func (s *Server) homePage(w http.ResponseWriter, r *http.Request, c *call) error {
	var (
		d                 homeData
		upW, downR, downT bool
		recent            []linkRow
		top               []linkRow
	)
	g, ctx := errgroup.WithContext(r.Context())
	g.Go(func() (err error) {
		d.Windows, upW, err = s.api.OwnerWindows(ctx, c.user.ID)
		return err
	})
	g.Go(func() (err error) {
		d.Total, err = s.store.CountLinks(ctx, c.user.ID)
		return err
	})
	g.Go(func() error {
		page, err := s.store.SearchLinks(ctx, pgstore.LinkQuery{UserID: c.user.ID, Limit: homeListLen, NoTotal: true})
		if err != nil {
			return err
		}
		lr := linksData{}
		err = s.fillRows(ctx, &lr, page.Links, false)
		recent, downR = lr.Rows, lr.StatsDown
		return err
	})
	g.Go(func() (err error) {
		top, downT, err = s.topLinks(ctx, c)
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	d.StatsDown = !upW || downR || downT
	if d.StatsDown {
		// One read down: the page shows no number at all rather than some.
		for i := range recent {
			recent[i].Clicks, recent[i].Unique = nil, nil
		}
	}
	d.Recent = recent
	if !d.StatsDown {
		d.Top = top
	}
	s.render(w, r, c, http.StatusOK, "home", "Home", d)
	return nil
}

// topLinks are the user's most clicked links (all time), the first rows
// of the link table sorted by clicks; links nobody clicked are left out.
// down reports that ClickHouse could not be read.
func (s *Server) topLinks(ctx context.Context, c *call) (rows []linkRow, down bool, err error) {
	rank, up, err := s.api.LinkRanking(ctx, c.user.ID, homeListLen+1)
	if err != nil || !up || len(rank.IDs) == 0 {
		return nil, !up, err
	}
	page, err := s.store.SearchLinks(ctx, pgstore.LinkQuery{UserID: c.user.ID, Limit: homeListLen, Rank: rank, NoTotal: true})
	if err != nil {
		return nil, false, err
	}
	lr := linksData{}
	if err := s.fillRows(ctx, &lr, page.Links, false); err != nil {
		return nil, false, err
	}
	for _, row := range lr.Rows {
		if row.Clicks != nil && *row.Clicks > 0 {
			rows = append(rows, row)
		}
	}
	return rows, lr.StatsDown, nil
}
