package api

import (
	"context"
	"time"

	"kurz/admin/internal/stats"
	"kurz/shared/click"
)

// The dashboard's statistics reads: the same service and tables as
// GET /api/url/:id (counts, freshness) and GET /api/url/:id/stats (the
// range). Ownership is the caller's check, as in the handlers. up is
// false, with no error, when ClickHouse cannot be read: the page then
// says so instead of showing zeros.

// LinkRange is the series, totals and breakdowns of link id over the UTC
// days from..to (see stats.Service.Range).
func (s *Server) LinkRange(ctx context.Context, id int64, from, to time.Time, iv stats.Interval) (rg *stats.Range, up bool, err error) {
	return s.rangeOf(ctx, click.KindLink, id, from, to, iv)
}

// QRRange is LinkRange of QR code id's scans.
func (s *Server) QRRange(ctx context.Context, id int64, from, to time.Time, iv stats.Interval) (rg *stats.Range, up bool, err error) {
	return s.rangeOf(ctx, click.KindQR, id, from, to, iv)
}

func (s *Server) rangeOf(ctx context.Context, kind click.Kind, id int64, from, to time.Time, iv stats.Interval) (rg *stats.Range, up bool, err error) {
	if s.stats == nil {
		return &stats.Range{From: from, To: to, Interval: iv}, true, nil
	}
	rg, err = s.stats.Range(ctx, kind, id, from, to, iv)
	return rg, err == nil, downOK(err)
}

// Freshness says up to when the numbers read after it are complete; read
// it before them (stats.Service.RecentFreshness).
func (s *Server) Freshness(ctx context.Context) (fresh stats.Freshness, up bool, err error) {
	if s.stats == nil {
		return stats.Freshness{IngestedUntil: s.now()}, true, nil
	}
	fresh, err = s.stats.RecentFreshness(ctx)
	return fresh, err == nil, downOK(err)
}

// LinkCounts is link id's all-time visits by class (what the page shows
// of all time beside the range).
func (s *Server) LinkCounts(ctx context.Context, id int64) (c stats.Counts, up bool, err error) {
	return s.countsOf(ctx, click.KindLink, id)
}

// QRCounts is LinkCounts of QR code id's scans.
func (s *Server) QRCounts(ctx context.Context, id int64) (c stats.Counts, up bool, err error) {
	return s.countsOf(ctx, click.KindQR, id)
}

func (s *Server) countsOf(ctx context.Context, kind click.Kind, id int64) (c stats.Counts, up bool, err error) {
	if s.stats == nil {
		return c, true, nil
	}
	c, err = s.stats.Counts(ctx, kind, id)
	return c, err == nil, downOK(err)
}

// OwnerWindows is owner's link clicks today, over 7 and over 30 days.
func (s *Server) OwnerWindows(ctx context.Context, owner int64) (w stats.OwnerWindows, up bool, err error) {
	if s.stats == nil {
		return w, true, nil
	}
	w, err = s.stats.OwnerWindows(ctx, click.KindLink, owner, s.now())
	return w, err == nil, downOK(err)
}

// LinkSocialCount is the socialCount of a link's categories (spec 2.9).
func LinkSocialCount(categories map[string]uint64) uint64 {
	return socialSum(categories, linkSocialKeys)
}

// QRSocialCount is the socialCount of a QR code's categories (spec 2.11:
// its own keys, photo sharing in place of search engines).
func QRSocialCount(categories map[string]uint64) uint64 {
	return socialSum(categories, qrSocialKeys)
}

func socialSum(categories map[string]uint64, keys []string) uint64 {
	var n uint64
	for _, v := range socialCount(categories, keys) {
		n += v
	}
	return n
}

// downOK drops an unavailable-store error (the caller reports up=false).
func downOK(err error) error {
	if statsDown(err) {
		return nil
	}
	return err
}
