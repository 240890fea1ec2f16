package catalog

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"

	"kurz/shared/link"
)

// campaigns caches campaigns with their links under the keys visitors
// use (rotator slug; owner and slug or id), and remembers which keys hold
// which campaign: a link's change notice names its campaign (old and new),
// and only that campaign's entries are dropped.
type campaigns struct {
	o   *objects[*link.EdgeCampaign]
	src Source

	mu   sync.Mutex
	keys map[int64][]string // cache keys of each cached campaign
	n    int                // keys in keys
}

// maxCampaignKeys bounds the key index. Keys of evicted entries stay in
// it until their campaign changes; past the bound the index starts over
// and every cached campaign is dropped with it.
const maxCampaignKeys = 1 << 16

func campaignCost(c *link.EdgeCampaign) int64 { return int64(128 * (len(c.Links) + 1)) }

func newCampaigns(src Source, cfg Config) (*campaigns, error) {
	o, err := newObjects("campaign", cfg.CampaignBytes, cfg, campaignCost)
	if err != nil {
		return nil, err
	}
	cs := &campaigns{o: o, src: src, keys: map[int64][]string{}}
	o.versionKey = func(c *link.EdgeCampaign) uint64 { return uint64(c.ID) }
	o.storing = cs.index
	return cs, nil
}

func (cs *campaigns) close() { cs.o.close() }
func (cs *campaigns) wait()  { cs.o.wait() }

// index records that key holds campaign c.
func (cs *campaigns) index(key string, c *link.EdgeCampaign) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if slices.Contains(cs.keys[c.ID], key) {
		return
	}
	if cs.n >= maxCampaignKeys {
		cs.keys, cs.n = map[int64][]string{}, 0
		cs.o.clear()
	}
	cs.keys[c.ID] = append(cs.keys[c.ID], key)
	cs.n++
}

// invalidate drops campaign id's entries; a load of it running now does
// not store what it read.
func (cs *campaigns) invalidate(id int64) {
	cs.o.vers.invalidate(uint64(id))
	cs.mu.Lock()
	keys := cs.keys[id]
	delete(cs.keys, id)
	cs.n -= len(keys)
	cs.mu.Unlock()
	for _, k := range keys {
		cs.o.del(k)
	}
}

// clear drops every campaign.
func (cs *campaigns) clear() {
	cs.mu.Lock()
	cs.keys, cs.n = map[int64][]string{}, 0
	cs.mu.Unlock()
	cs.o.clear()
}

// RotatorCampaign returns the campaign whose rotator slug is slug
// (case-insensitive) with its links; found is false when there is none,
// err wraps ErrUnavailable when the database did not answer.
func (c *Catalog) RotatorCampaign(slug string) (camp *link.EdgeCampaign, found bool, err error) {
	return c.campaigns.o.get("r:"+strings.ToLower(slug), func(ctx context.Context) (*link.EdgeCampaign, error) {
		return c.src.EdgeCampaignBySlug(ctx, slug)
	})
}

// UserCampaign returns the campaign ref of user (both case-insensitive):
// ref is the rotator slug, or the id of a campaign without one.
func (c *Catalog) UserCampaign(user, ref string) (camp *link.EdgeCampaign, found bool, err error) {
	id, _ := strconv.ParseInt(ref, 10, 64)
	key := "u:" + strings.ToLower(user) + "/" + strings.ToLower(ref)
	return c.campaigns.o.get(key, func(ctx context.Context) (*link.EdgeCampaign, error) {
		camp, err := c.src.EdgeCampaignOfUser(ctx, user, ref, id)
		if err != nil && id > 0 && errors.Is(err, link.ErrNotFound) {
			// A numeric slug is possible too.
			camp, err = c.src.EdgeCampaignOfUser(ctx, user, ref, 0)
		}
		return camp, err
	})
}
