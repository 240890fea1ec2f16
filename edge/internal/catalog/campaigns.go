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

// campaigns caches campaigns under the keys visitors use: a rotator by
// slug ("r:" key), a list page by owner and slug or id ("u:" key). It
// remembers which keys hold which campaign: a link's change notice names
// its campaign (old and new), and only that campaign's entries are
// dropped.
//
// Both kinds of entry are bounded whatever the campaign's size: a rotator
// holds only its links' keys (link.MaxRotatorLinks of them at most), a list
// page only the newest public links (link.MaxCampaignListLinks,
// link.MaxCampaignListBytes), so every entry fits the cache. An entry the
// cache refused would be loaded again on every request.
type campaigns struct {
	o *objects[*campaignEntry]

	mu   sync.Mutex
	keys map[int64][]string // cache keys of each cached campaign
	n    int                // keys in keys
}

// campaignEntry is one cached campaign: a rotator or a list page.
type campaignEntry struct {
	id   int64
	rot  *link.EdgeRotator
	list *link.EdgeCampaign
}

// maxCampaignKeys bounds the key index. Keys of evicted entries stay in
// it until their campaign changes; past the bound the index starts over
// and every cached campaign is dropped with it.
const maxCampaignKeys = 1 << 16

// minCampaignBytes is the smallest campaign cache: four of the largest
// entries (a rotator of MaxRotatorLinks 64-character aliases, ~700 KB).
const minCampaignBytes = 4 << 20

func campaignCost(e *campaignEntry) int64 {
	if e.rot != nil {
		return e.rot.Cost()
	}
	n := int64(128 + len(e.list.Name) + len(e.list.Slug) + len(e.list.Username))
	for i := range e.list.Links {
		n += e.list.Links[i].Cost()
	}
	return n
}

func newCampaigns(rd *reads, cfg Config) (*campaigns, error) {
	o, err := newObjects("campaign", max(cfg.CampaignBytes, minCampaignBytes), cfg, rd, campaignCost)
	if err != nil {
		return nil, err
	}
	cs := &campaigns{o: o, keys: map[int64][]string{}}
	o.versionKey = func(e *campaignEntry) uint64 { return uint64(e.id) }
	o.storing = cs.index
	return cs, nil
}

func (cs *campaigns) close() { cs.o.close() }
func (cs *campaigns) wait()  { cs.o.wait() }

// index records that key holds campaign c.
func (cs *campaigns) index(key string, c *campaignEntry) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if slices.Contains(cs.keys[c.id], key) {
		return
	}
	if cs.n >= maxCampaignKeys {
		cs.keys, cs.n = map[int64][]string{}, 0
		cs.o.clear()
	}
	cs.keys[c.id] = append(cs.keys[c.id], key)
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

// RotatorCampaign returns the rotator of the campaign whose slug is slug
// (case-insensitive): the keys of the links it turns over; found is false
// when there is none, err wraps ErrUnavailable when the database did not
// answer.
func (c *Catalog) RotatorCampaign(slug string) (rot *link.EdgeRotator, found bool, err error) {
	if !link.IsAliasSyntax(slug) {
		return nil, false, nil // no slug looks like this: nothing to load or cache
	}
	e, found, err := c.campaigns.o.get(rotatorKey(slug), func(ctx context.Context, src Source) (*campaignEntry, error) {
		r, err := src.EdgeRotatorBySlug(ctx, slug)
		if err != nil {
			return nil, err
		}
		return &campaignEntry{id: r.ID, rot: r}, nil
	})
	if !found || err != nil {
		return nil, found, err
	}
	return e.rot, true, nil
}

// UserCampaign returns the list page of campaign ref of user (both
// case-insensitive): ref is the rotator slug, or the id of a campaign
// without one. The page holds the newest public links only (link.EdgeCampaign).
func (c *Catalog) UserCampaign(user, ref string) (camp *link.EdgeCampaign, found bool, err error) {
	id, ok := canonicalRef(ref)
	if !ok || !link.IsAliasSyntax(user) {
		// Each spelling of one campaign would be its own key and load
		// ("5", "05", "+5"): only the canonical one can exist.
		return nil, false, nil
	}
	key := listKey(user, ref)
	e, found, err := c.campaigns.o.get(key, func(ctx context.Context, src Source) (*campaignEntry, error) {
		camp, err := src.EdgeCampaignOfUser(ctx, user, ref, id)
		if err != nil && id > 0 && errors.Is(err, link.ErrNotFound) {
			// A numeric slug is possible too.
			camp, err = src.EdgeCampaignOfUser(ctx, user, ref, 0)
		}
		if err != nil {
			return nil, err
		}
		return &campaignEntry{id: camp.ID, list: camp}, nil
	})
	if !found || err != nil {
		return nil, found, err
	}
	return e.list, true, nil
}

// canonicalRef reads a list-page ref: a campaign id written as the API
// writes it (no sign, no leading zero), or something with slug syntax
// (id 0). ok is false for anything else, which names no campaign.
func canonicalRef(ref string) (id int64, ok bool) {
	if !link.IsAliasSyntax(ref) {
		return 0, false
	}
	for i := 0; i < len(ref); i++ {
		if ref[i] < '0' || ref[i] > '9' {
			return 0, true // a slug ("-55" too: slugs are never only digits)
		}
	}
	n, err := strconv.ParseInt(ref, 10, 64)
	return n, err == nil && n > 0 && strconv.FormatInt(n, 10) == ref
}

// rotatorKey and listKey are the campaign cache's keys; the existence set
// of campaigns (existence.go) holds the same keys.
func rotatorKey(slug string) string { return "r:" + strings.ToLower(slug) }
func listKey(username, ref string) string {
	return "u:" + strings.ToLower(username) + "/" + strings.ToLower(ref)
}
