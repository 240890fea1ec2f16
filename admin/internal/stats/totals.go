package stats

import (
	"context"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// Totals is a list row's numbers (chstore.Totals).
type Totals = chstore.Totals

// Ranked is an owner's clicked targets, most clicked first (chstore.Ranked).
type Ranked = chstore.Ranked

// Totals returns the all-time clicks (and, with uniques, unique clicks) of
// each id, from the tables Summary reads: a list row and the target's own
// response agree. ids nobody visited have zero Totals. At most
// chstore.MaxTotalsIDs ids (a list page).
//
// Unique clicks are read in two steps: the clicks with the keys of the
// sketch rows (no sketch merged), then the sketches of only those ids
// whose key differs from the one their kept count was read under
// (uniquecache.go): one query when nothing changed, and a busy page's
// merges (most of its numbers' time) only for the targets that changed.
func (s *Service) Totals(ctx context.Context, kind click.Kind, ids []int64, uniques bool) (map[int64]Totals, error) {
	if !uniques {
		return chstore.ReadTotals(ctx, s.conn, kind, ids, false)
	}
	clicks, err := chstore.ReadClicksKeyed(ctx, s.conn, kind, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]Totals, len(clicks))
	var stale []int64
	for id, c := range clicks {
		t := c.Totals
		if c.Key != "" {
			var kept bool
			if t.UniqueClicks, kept = s.uniques.get(kind, id, c.Key); !kept {
				stale = append(stale, id)
			}
		}
		out[id] = t
	}
	if len(stale) == 0 {
		return out, nil
	}
	fresh, err := chstore.ReadUniquesKeyed(ctx, s.conn, kind, stale)
	if err != nil {
		return nil, err
	}
	for id, u := range fresh {
		s.uniques.put(kind, id, u)
		out[id] = u.Totals // one read's clicks and unique clicks
	}
	return out, nil
}

// Ranking returns owner's clicked targets of kind, most clicked first: the
// order of a list sorted by clicks, the first limit of them (<= 0: all).
// On one ClickHouse server it is kept with its rows part by part and
// brought up to date from the parts that changed (partrank.go); on a
// cluster, or for an owner with too many targets for that, it is read
// again only when the owner's human total changed since the last read, or
// a minute passed, and while an owner's clicks keep coming it is read at
// once, without the total first (rankcache.go).
func (s *Service) Ranking(ctx context.Context, kind click.Kind, owner int64, limit int) (Ranked, error) {
	if s.byParts(ctx) {
		r, kept, err := s.parts.ranking(ctx, s.conn, kind, owner)
		if err != nil {
			return Ranked{}, err
		}
		if kept {
			n := len(r.IDs)
			if limit > 0 {
				n = min(n, limit)
			}
			return Ranked{IDs: r.IDs[:n:n], Clicks: r.Clicks[:n:n]}, nil
		}
	}
	if !s.ranks.moving(kind, owner, time.Now()) {
		total, err := chstore.ReadOwnerHumans(ctx, s.conn, kind, owner)
		if err != nil {
			return Ranked{}, err
		}
		if r, ok := s.ranks.get(kind, owner, total, limit, time.Now()); ok {
			return r, nil
		}
	}
	// Kept at the total its own read summed: any click it missed makes a
	// later total differ from that, so it never matches a ranking that
	// misses a click.
	r, total, err := chstore.ReadRanking(ctx, s.conn, kind, owner, limit)
	if err != nil {
		return Ranked{}, err
	}
	s.ranks.put(kind, owner, total, limit, r, time.Now())
	return r, nil
}

// Values of Service.partsOn.
const (
	partsUnknown int32 = iota
	partsOn
	partsOff
)

// byParts reports whether rankings are kept part by part: on a single
// server, whose part names identify rows (chstore.OwnerTableDistributed).
// Until that is known (ClickHouse down) rankings are read the other way.
func (s *Service) byParts(ctx context.Context) bool {
	switch s.partsOn.Load() {
	case partsOn:
		return true
	case partsOff:
		return false
	}
	dist, err := chstore.OwnerTableDistributed(ctx, s.conn)
	if err != nil {
		return false
	}
	if dist {
		s.partsOn.Store(partsOff)
		return false
	}
	s.partsOn.Store(partsOn)
	return true
}

// RankingHint returns the ids at positions from..to of owner's ranking as
// last read, whatever clicks came since: what the next ranking most likely
// holds there. nil when no ranking of the owner is kept.
func (s *Service) RankingHint(kind click.Kind, owner int64, from, to int) []int64 {
	if ids := s.parts.last(kind, owner, from, to); ids != nil {
		return ids
	}
	return s.ranks.last(kind, owner, from, to, time.Now())
}
