package api

import (
	"context"
	"time"

	"kurz/admin/internal/stats"
	"kurz/shared/click"
)

// The dashboard's statistics reads: the same service and tables as
// GET /api/url/:id (summary, freshness) and GET /api/url/:id/stats (the
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

// LinkCountries is link id's human clicks per country code over the UTC
// days from..to, every country: the dashboard's world map.
func (s *Server) LinkCountries(ctx context.Context, id int64, from, to time.Time) (cs []stats.Count, up bool, err error) {
	return s.countriesOf(ctx, click.KindLink, id, from, to)
}

// QRCountries is LinkCountries of QR code id's scans.
func (s *Server) QRCountries(ctx context.Context, id int64, from, to time.Time) (cs []stats.Count, up bool, err error) {
	return s.countriesOf(ctx, click.KindQR, id, from, to)
}

func (s *Server) countriesOf(ctx context.Context, kind click.Kind, id int64, from, to time.Time) (cs []stats.Count, up bool, err error) {
	if s.stats == nil {
		return nil, true, nil
	}
	cs, err = s.stats.Countries(ctx, kind, id, from, to)
	return cs, err == nil, downOK(err)
}

// LinkVisits is link id's people by device class and its bots, previews
// and prefetches over the UTC days from..to.
func (s *Server) LinkVisits(ctx context.Context, id int64, from, to time.Time) (v stats.RangeVisits, up bool, err error) {
	return s.visitsOf(ctx, click.KindLink, id, from, to)
}

// QRVisits is LinkVisits of QR code id's scans.
func (s *Server) QRVisits(ctx context.Context, id int64, from, to time.Time) (v stats.RangeVisits, up bool, err error) {
	return s.visitsOf(ctx, click.KindQR, id, from, to)
}

func (s *Server) visitsOf(ctx context.Context, kind click.Kind, id int64, from, to time.Time) (v stats.RangeVisits, up bool, err error) {
	if s.stats == nil {
		return v, true, nil
	}
	v, err = s.stats.Visits(ctx, kind, id, from, to)
	return v, err == nil, downOK(err)
}

// LinkSummary is link id's all-time numbers, with the bot, preview and
// prefetch counts, and the freshness of the numbers.
func (s *Server) LinkSummary(ctx context.Context, id int64) (sum *stats.Summary, fresh stats.Freshness, up bool, err error) {
	return s.summaryOf(ctx, click.KindLink, id)
}

// QRSummary is QR code id's all-time scans as GET /api/qr/:id reads them
// (its "data"), with the freshness of the numbers.
func (s *Server) QRSummary(ctx context.Context, id int64) (sum *stats.Summary, fresh stats.Freshness, up bool, err error) {
	return s.summaryOf(ctx, click.KindQR, id)
}

func (s *Server) summaryOf(ctx context.Context, kind click.Kind, id int64) (sum *stats.Summary, fresh stats.Freshness, up bool, err error) {
	if s.stats == nil {
		return &stats.Summary{}, stats.Freshness{IngestedUntil: s.now()}, true, nil
	}
	if sum, err = s.stats.Summary(ctx, kind, id); err == nil {
		fresh, err = s.stats.Freshness(ctx)
	}
	return sum, fresh, err == nil, downOK(err)
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
