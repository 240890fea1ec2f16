package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// quiet returns a catalog over a counting source, without a listener (the
// set-up's bulk inserts would otherwise send it thousands of notices), and
// the store and a user to write with.
func quiet(t *testing.T) (*Catalog, *countingSource, *pgstore.Store, int64) {
	t.Helper()
	st, _ := pgtest.Store(t)
	var uid int64
	err := pgtest.Pool(st).QueryRow(context.Background(), `INSERT INTO users (email, username, plan, api_key_hash)
		VALUES ('q@example.com', 'quiet', 'free', 'k') RETURNING id`).Scan(&uid)
	if err != nil {
		t.Fatal(err)
	}
	src := &countingSource{Source: st, calls: map[string]int{}}
	c, err := New(src, Config{Log: slog.New(slog.DiscardHandler), MaxBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, src, st, uid
}

func campaign(t *testing.T, st *pgstore.Store, uid int64, slug string, public bool) int64 {
	t.Helper()
	var id int64
	if err := pgtest.Pool(st).QueryRow(context.Background(),
		`INSERT INTO campaigns (user_id, name, slug, public) VALUES ($1, $2, $2, $3) RETURNING id`, uid, slug, public).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// cachedCost is the cost the campaign cache charges for key's entry.
func cachedCost(t *testing.T, c *Catalog, key string) int64 {
	t.Helper()
	c.Wait()
	e, ok := c.campaigns.o.c.Get(key)
	if !ok || !e.found {
		t.Fatalf("%s not cached", key)
	}
	return campaignCost(e.v)
}

// A rotator of 5000 links holds their keys only, packed: a few bytes per
// link, not link rows; loading it fetches no link.
func TestRotatorHoldsKeysOnly(t *testing.T) {
	c, src, st, uid := quiet(t)
	const n = 5000
	id := campaign(t, st, uid, "many", false)
	// Every tenth link on a branded domain (the rotator keeps each host once).
	exec(t, st, `INSERT INTO links (user_id, host, alias, long_url, campaign_id, meta_title, description)
		SELECT $1, CASE WHEN i % 10 = 0 THEN 'go.example.com' ELSE '' END, 'm' || i, 'https://example.com/', $2,
		       repeat('t', 200), repeat('d', 500)
		  FROM generate_series(1, $3::int) i`, uid, id, n)
	rot, found, err := c.RotatorCampaign("MANY")
	if err != nil || !found {
		t.Fatalf("rotator: found %v, %v", found, err)
	}
	if rot.ID != id || rot.Len() != n {
		t.Fatalf("rotator of campaign %d with %d links, want %d with %d", rot.ID, rot.Len(), id, n)
	}
	for _, i := range []int{0, 8, 9, 10, n - 1} {
		host, alias := rot.Key(i)
		wantHost := ""
		if (i+1)%10 == 0 {
			wantHost = "go.example.com"
		}
		if host != wantHost || alias != fmt.Sprintf("m%d", i+1) {
			t.Fatalf("link %d: (%q, %q), want (%q, m%d)", i, host, alias, wantHost, i+1)
		}
	}
	if cost := cachedCost(t, c, "r:many"); cost > 16*n {
		t.Fatalf("rotator of %d links costs %d bytes, want at most %d (keys only)", n, cost, 16*n)
	}
	if q := src.count("EdgeLinkByAlias"); q != 0 {
		t.Fatalf("loading a rotator loaded %d links", q)
	}
	for range 3 {
		if _, _, err := c.RotatorCampaign("many"); err != nil {
			t.Fatal(err)
		}
	}
	if q := src.count("campaign MANY") + src.count("campaign many"); q != 1 {
		t.Fatalf("rotator loaded %d times, want once", q)
	}
}

// A rotator turns over the campaign's oldest link.MaxRotatorLinks links,
// whatever its size, so its entry always fits the campaign cache and is
// loaded once, not on every request (an entry the cache refuses would be).
func TestRotatorBounded(t *testing.T) {
	c, src, st, uid := quiet(t)
	const n = 4 * link.MaxRotatorLinks
	id := campaign(t, st, uid, "huge", false)
	exec(t, st, `INSERT INTO links (user_id, alias, long_url, campaign_id)
		SELECT $1, 'h' || lpad(i::text, 6, '0') || repeat('x', 50), 'https://example.com/', $2
		  FROM generate_series(1, $3::int) i`, uid, id, n)
	for range 3 {
		rot, found, err := c.RotatorCampaign("huge")
		if err != nil || !found {
			t.Fatalf("rotator: found %v, %v", found, err)
		}
		if rot.Len() != link.MaxRotatorLinks {
			t.Fatalf("rotator of %d links, want %d", rot.Len(), link.MaxRotatorLinks)
		}
		if _, a := rot.Key(rot.Len() - 1); !strings.HasPrefix(a, fmt.Sprintf("h%06d", link.MaxRotatorLinks)) {
			t.Fatalf("last link %s, want the %dth oldest", a, link.MaxRotatorLinks)
		}
		c.Wait()
	}
	if q := src.count("campaign huge"); q != 1 {
		t.Fatalf("rotator of a campaign of %d links loaded %d times, want once", n, q)
	}
	if cost := cachedCost(t, c, "r:huge"); cost > minCampaignBytes/4 {
		t.Fatalf("rotator costs %d bytes, more than a quarter of the smallest campaign cache", cost)
	}
}

// A list page holds the newest public links only: at most
// link.MaxCampaignListLinks, and fewer when their texts pass
// link.MaxCampaignListBytes; shown oldest first.
func TestCampaignListBounded(t *testing.T) {
	c, _, st, uid := quiet(t)
	for _, tc := range []struct {
		slug, title, desc string
		links             int
		wantFewer         bool // the byte bound applies before the count
	}{
		{"count", "", "", link.MaxCampaignListLinks*5/4 + 50, false},
		{"bytes", strings.Repeat("€", link.MaxMetaTitle), strings.Repeat("€", link.MaxDescription), 400, true},
	} {
		t.Run(tc.slug, func(t *testing.T) {
			id := campaign(t, st, uid, tc.slug, true)
			exec(t, st, `INSERT INTO links (user_id, alias, long_url, campaign_id, meta_title, description, status)
				SELECT $1, $2 || i, 'https://example.com/', $3, $4, $5, CASE WHEN i % 5 = 0 THEN 'private' ELSE 'public' END
				  FROM generate_series(1, $6::int) i`, uid, tc.slug, id, tc.title, tc.desc, tc.links)
			camp, found, err := c.UserCampaign("Quiet", tc.slug)
			if err != nil || !found {
				t.Fatalf("list: found %v, %v", found, err)
			}
			public := tc.links - tc.links/5
			got := len(camp.Links)
			if !camp.More || got > link.MaxCampaignListLinks || got == 0 || (got == link.MaxCampaignListLinks) == tc.wantFewer || got >= public {
				t.Fatalf("%d of %d public links listed, more %v", got, public, camp.More)
			}
			newest := tc.links
			for newest%5 == 0 {
				newest--
			}
			if a := camp.Links[got-1].Alias; a != fmt.Sprintf("%s%d", tc.slug, newest) {
				t.Fatalf("last listed %s, want the newest public link %s%d", a, tc.slug, newest)
			}
			for i, l := range camp.Links {
				if i > 0 && l.ID <= camp.Links[i-1].ID {
					t.Fatal("not oldest first")
				}
				var n int
				if _, err := fmt.Sscanf(strings.TrimPrefix(l.Alias, tc.slug), "%d", &n); err != nil || n%5 == 0 {
					t.Fatalf("private or unknown link %s listed", l.Alias)
				}
			}
			if cost := cachedCost(t, c, "u:quiet/"+tc.slug); cost > link.MaxCampaignListBytes+1024 {
				t.Fatalf("list costs %d bytes, bound %d", cost, link.MaxCampaignListBytes)
			}
		})
	}
}

func TestCanonicalRef(t *testing.T) {
	for _, tc := range []struct {
		ref string
		id  int64
		ok  bool
	}{
		{"5", 5, true},
		{"123456", 123456, true},
		{"05", 0, false},
		{"+5", 0, false},
		{"0", 0, false},
		{"99999999999999999999", 0, false},
		{"spring-sale", 0, true},
		{"-55", 0, true},
		{"a b", 0, false},
		{"", 0, false},
	} {
		id, ok := canonicalRef(tc.ref)
		if ok != tc.ok || (ok && id != tc.id) {
			t.Errorf("canonicalRef(%q) = %d, %v; want %d, %v", tc.ref, id, ok, tc.id, tc.ok)
		}
	}
}

// Spellings of one campaign id other than the API's own ("05", "+5") and
// refs no slug can have cost no load: anonymous visitors cannot make the
// edge query and cache one entry per spelling.
func TestUserCampaignRefSpellings(t *testing.T) {
	c, src, st, uid := quiet(t)
	id := campaign(t, st, uid, "spellings", true)
	ref := fmt.Sprint(id)
	for _, r := range []string{"0" + ref, "+" + ref, "00" + ref, "a b", "x%2F"} {
		if _, found, err := c.UserCampaign("quiet", r); found || err != nil {
			t.Errorf("ref %q: found %v, err %v", r, found, err)
		}
	}
	if _, found, err := c.RotatorCampaign("no/slug"); found || err != nil {
		t.Errorf("rotator of a bad slug: found %v, err %v", found, err)
	}
	if n := src.count("EdgeCampaignOfUser") + src.count("EdgeRotatorBySlug"); n != 0 {
		t.Errorf("%d loads for refs that name no campaign, want 0", n)
	}
	if _, found, err := c.UserCampaign("quiet", ref); !found || err != nil {
		t.Fatalf("canonical id: found %v, err %v", found, err)
	}
}

func (s *countingSource) EdgeCampaignOfUser(ctx context.Context, username, slug string, id int64) (*link.EdgeCampaign, error) {
	s.add("EdgeCampaignOfUser")
	return s.Source.EdgeCampaignOfUser(ctx, username, slug, id)
}
