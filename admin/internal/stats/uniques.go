package stats

import (
	"context"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// UniqueClicks returns the UniqueClicks of Summary for each id (distinct
// visitors among human visits, all time), in one query; ids nobody
// visited map to 0. At most chstore.MaxUniqueIDs ids (a list page). The
// query lives in shared/chstore (ReadUniqueClicks), next to the
// Summary's.
func (s *Service) UniqueClicks(ctx context.Context, kind click.Kind, ids []int64) (map[int64]uint64, error) {
	return chstore.ReadUniqueClicks(ctx, s.conn, kind, ids)
}
