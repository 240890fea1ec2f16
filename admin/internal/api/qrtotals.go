package api

import (
	"context"

	"kurz/admin/internal/stats"
	"kurz/shared/click"
	"kurz/shared/link"
)

// QRTotals reads the scans of a page of QR codes in one query, as
// GET /api/qr shows them. up is false, with no error, when ClickHouse
// cannot be read: the dashboard then shows "—", never zeros.
func (s *Server) QRTotals(ctx context.Context, qrs []link.QR) (totals map[int64]stats.Totals, up bool, err error) {
	ids := make([]int64, len(qrs))
	for i := range qrs {
		ids[i] = qrs[i].ID
	}
	totals, err = s.pageTotals(ctx, click.KindQR, ids, false)
	if statsDown(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return totals, true, nil
}
