package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// rankFixture makes 60 links of alice, every third one titled "match",
// deletes six of them and ranks 40 (the deleted ones and two of bob's
// among them), most clicked first, ties newer id first, as ClickHouse
// does. want is the whole click order a search (all or "match") must page
// through: ranked links that exist, then the unclicked ones newest first.
func rankFixture(t *testing.T) (st *pgstore.Store, alice int64, rank pgstore.ClickRanking, want map[string][]int64) {
	t.Helper()
	st, _ = pgtest.Store(t)
	ctx := context.Background()
	alice, bob := newLinkUser(t, st, "alice"), newLinkUser(t, st, "bob")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []int64
	title := map[int64]string{}
	for i := range 60 {
		l := &link.Link{UserID: alice, Alias: fmt.Sprintf("r%d", i), LongURL: "https://example.com/", Type: "direct", Status: "private"}
		if i%3 == 0 {
			l.MetaTitle = "match"
		}
		if err := st.CreateLink(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
		// Creation order is not id order: the date order is the
		// unclicked links' order, ids break the ranking's ties.
		at := base.Add(time.Duration((i*7)%60) * time.Second)
		if _, err := pgtest.Pool(st).Exec(ctx, `UPDATE links SET created_at = $2 WHERE id = $1`, l.ID, at); err != nil {
			t.Fatal(err)
		}
		ids, title[l.ID] = append(ids, l.ID), l.MetaTitle
	}
	var foreign []int64
	for i := range 2 {
		l := &link.Link{UserID: bob, Alias: fmt.Sprintf("b%d", i), LongURL: "https://example.com/", Type: "direct", Status: "private", MetaTitle: "match"}
		if err := st.CreateLink(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
		foreign = append(foreign, l.ID)
	}
	deleted := map[int64]bool{}
	for _, i := range []int{2, 3, 17, 30, 31, 45} {
		if err := st.DeleteLink(ctx, alice, ids[i]); err != nil {
			t.Fatal(err)
		}
		deleted[ids[i]] = true
	}
	// Links 0..37 and bob's are clicked: clicks fall in steps of three so
	// that ties span slices of the ranking.
	type entry struct{ id, n int64 }
	var ranked []entry
	for i := range 38 {
		ranked = append(ranked, entry{ids[i], int64(40 - i/3)})
	}
	ranked = append(ranked, entry{foreign[0], 39}, entry{foreign[1], 1})
	slices.SortFunc(ranked, func(a, b entry) int {
		if a.n != b.n {
			return int(b.n - a.n)
		}
		return int(b.id - a.id)
	})
	clicked := map[int64]bool{}
	for _, e := range ranked {
		rank.IDs, rank.Clicks = append(rank.IDs, e.id), append(rank.Clicks, e.n)
		clicked[e.id] = true
	}
	rank.Complete = true
	var unclicked []link.Link
	all, err := st.SearchLinks(ctx, pgstore.LinkQuery{UserID: alice, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all.Links { // newest first
		if !clicked[l.ID] {
			unclicked = append(unclicked, l)
		}
	}
	want = map[string][]int64{}
	for _, search := range []string{"", "match"} {
		keep := func(id int64) bool {
			return !deleted[id] && !slices.Contains(foreign, id) && (search == "" || title[id] == search)
		}
		for _, e := range ranked {
			if keep(e.id) {
				want[search] = append(want[search], e.id)
			}
		}
		for _, l := range unclicked {
			if keep(l.ID) {
				want[search] = append(want[search], l.ID)
			}
		}
	}
	return st, alice, rank, want
}

// prefix is the first n entries of rank, extended on demand from the
// whole ranking, counting the reads.
func prefix(rank pgstore.ClickRanking, n int, reads *int) *pgstore.ClickRanking {
	*reads++
	if n >= len(rank.IDs) {
		r := rank
		return &r
	}
	return &pgstore.ClickRanking{IDs: rank.IDs[:n], Clicks: rank.Clicks[:n],
		Extend: func(_ context.Context, m int) (*pgstore.ClickRanking, error) { return prefix(rank, m, reads), nil }}
}

// TestRankedPages pages the click order of rankFixture at every offset the
// dashboard and the API use, with the whole ranking and with short
// prefixes that must be extended, with and without a search, across the
// border between clicked and unclicked links.
func TestRankedPages(t *testing.T) {
	st, alice, rank, want := rankFixture(t)
	ctx := context.Background()
	if n := len(want[""]); n != 54 {
		t.Fatalf("fixture: %d links in the click order, want 54", n)
	}
	for _, search := range []string{"", "match"} {
		order := want[search]
		for _, pre := range []int{0, 1, 5} { // 0: the whole ranking at once
			for _, limit := range []int{1, 7, 25} {
				for offset := 0; offset <= len(order)+limit; offset += limit {
					reads := 0
					r := &rank
					if pre > 0 {
						r = prefix(rank, pre, &reads)
					}
					name := fmt.Sprintf("search %q prefix %d limit %d offset %d", search, pre, limit, offset)
					p, err := st.SearchLinks(ctx, pgstore.LinkQuery{UserID: alice, Search: search, Rank: r, Limit: limit, Offset: offset})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					end := min(offset+limit, len(order))
					exp := order[min(offset, end):end]
					var got []int64
					for _, l := range p.Links {
						got = append(got, l.ID)
					}
					if !slices.Equal(got, exp) || p.Older != (offset+limit < len(order)) || p.Newer != (offset > 0) || p.Total != len(order) {
						t.Errorf("%s: %v older=%v newer=%v total=%d, want %v older=%v total=%d", name, got, p.Older, p.Newer, p.Total,
							exp, offset+limit < len(order), len(order))
					}
					if search == "" {
						list, total, err := st.ListLinks(ctx, alice, r, limit, offset)
						if err != nil || total != len(order) || !slices.Equal(ids(list), exp) {
							t.Errorf("ListLinks %s: %v (total %d, %v), want %v", name, ids(list), total, err, exp)
						}
					}
				}
			}
		}
	}
}

// TestRankedPageReadsLittle: the first page of a long ranking looks at its
// start only; it does not extend a prefix that already fills the page.
func TestRankedPageReadsLittle(t *testing.T) {
	st, alice, rank, want := rankFixture(t)
	reads := 0
	r := prefix(rank, 10, &reads)
	p, err := st.SearchLinks(context.Background(), pgstore.LinkQuery{UserID: alice, Rank: r, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if reads != 1 || !slices.Equal(ids(p.Links), want[""][:3]) {
		t.Errorf("first page: %v after %d ranking reads, want %v after 1", ids(p.Links), reads, want[""][:3])
	}
	failing := &pgstore.ClickRanking{IDs: rank.IDs[:1], Clicks: rank.Clicks[:1],
		Extend: func(context.Context, int) (*pgstore.ClickRanking, error) { return nil, fmt.Errorf("clickhouse down") }}
	if _, err := st.SearchLinks(context.Background(), pgstore.LinkQuery{UserID: alice, Rank: failing, Limit: 25}); err == nil || !strings.Contains(err.Error(), "clickhouse down") {
		t.Errorf("a failed extension: %v, want its error", err)
	}
}

func ids(links []link.Link) []int64 {
	var out []int64
	for _, l := range links {
		out = append(out, l.ID)
	}
	return out
}

// A ranking read again after clicks moved a link ahead of where the walk
// had got to: the link is still listed, once.
func TestRankedPageReadsMovedLinks(t *testing.T) {
	st, alice, rank, want := rankFixture(t)
	order := want[""]
	moved := order[10]
	later := []int64{rank.IDs[0]}
	for _, id := range rank.IDs[1:] {
		if id == moved {
			continue
		}
		if len(later) == 1 {
			later = append(later, moved)
		}
		later = append(later, id)
	}
	r := &pgstore.ClickRanking{IDs: rank.IDs[:3], Clicks: rank.Clicks[:3],
		Extend: func(context.Context, int) (*pgstore.ClickRanking, error) {
			return &pgstore.ClickRanking{IDs: later, Clicks: rank.Clicks, Complete: true}, nil
		}}
	p, err := st.SearchLinks(context.Background(), pgstore.LinkQuery{UserID: alice, Rank: r, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	got := ids(p.Links)
	n := 0
	for _, id := range got {
		if id == moved {
			n++
		}
	}
	if n != 1 || len(got) != len(order) {
		t.Errorf("link %d listed %d times in %d links (want once in %d): %v", moved, n, len(got), len(order), got)
	}
}

// queryLog counts the statements a pool runs, by their first and last
// words.
type queryLog struct {
	mu  sync.Mutex
	sql []string
}

func (q *queryLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	q.mu.Lock()
	q.sql = append(q.sql, d.SQL)
	q.mu.Unlock()
	return ctx
}

func (q *queryLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (q *queryLog) reset() {
	q.mu.Lock()
	q.sql = nil
	q.mu.Unlock()
}

func (q *queryLog) count(prefix, suffix string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, s := range q.sql {
		if strings.HasPrefix(s, prefix) && strings.HasSuffix(s, suffix) {
			n++
		}
	}
	return n
}

// A search whose matches are sparse in the ranking reads its matching ids
// once instead of checking ever larger slices of the ranking, and pages
// the same click order: 2,000 links, the first 1,800 ranked (newest id
// first; the first slice and the next do not reach the end), the rest
// unclicked; 15 matches, none in the first slice of the ranking (one at
// rank 281, within a 300-link prefix, twelve further down, two unclicked);
// with the whole ranking and with that prefix, which must be extended. A
// dense search and one without keys walk the slices.
func TestRankedSearchSparse(t *testing.T) {
	_, dsn := pgtest.Store(t)
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	log := &queryLog{}
	cfg.ConnConfig.Tracer = log
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st := pgtest.Wrap(pool)
	alice := newLinkUser(t, st, "alice")
	if _, err := pool.Exec(ctx, `INSERT INTO links (user_id, alias, long_url, meta_title, created_at)
		SELECT $1::bigint, 's' || i, 'https://example.com/p' || i,
		       CASE WHEN i % 100 = 50 AND (i < 1200 OR i > 1800) OR i = 1519 THEN 'needle ' || i ELSE '' END,
		       timestamptz '2026-01-01' + i * interval '1 second'
		FROM generate_series(1, 2000) AS i`, alice); err != nil {
		t.Fatal(err)
	}
	var all []int64 // id order = creation order
	rows, err := pool.Query(ctx, `SELECT id, meta_title <> '' FROM links WHERE user_id = $1 ORDER BY id`, alice)
	if err != nil {
		t.Fatal(err)
	}
	needle := map[int64]bool{}
	for rows.Next() {
		var (
			id int64
			m  bool
		)
		if err := rows.Scan(&id, &m); err != nil {
			t.Fatal(err)
		}
		all, needle[id] = append(all, id), m
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var rank pgstore.ClickRanking
	for i, id := range slices.Backward(all[:1800]) {
		rank.IDs, rank.Clicks = append(rank.IDs, id), append(rank.Clicks, int64(1000+i))
	}
	rank.Complete = true
	var want []int64
	for _, id := range rank.IDs {
		if needle[id] {
			want = append(want, id)
		}
	}
	for _, id := range slices.Backward(all[1800:]) {
		if needle[id] {
			want = append(want, id)
		}
	}
	if len(want) != 15 {
		t.Fatalf("fixture: %d matches", len(want))
	}
	for _, whole := range []bool{true, false} {
		for off := 0; off < len(want); off += 3 {
			r, reads := &rank, 0
			if !whole {
				r = prefix(rank, 300, &reads)
			}
			log.reset()
			p, err := st.SearchLinks(ctx, pgstore.LinkQuery{UserID: alice, Search: "needle", Rank: r, Offset: off, Limit: 3, NoTotal: true})
			if err != nil {
				t.Fatal(err)
			}
			end := min(off+3, len(want))
			if got := ids(p.Links); !slices.Equal(got, want[off:end]) || p.Older != (end < len(want)) {
				t.Errorf("whole ranking %v, offset %d: %v (more %v), want %v", whole, off, got, p.Older, want[off:end])
			}
			if m, c := log.count(matchRead, "LIMIT $5"), log.count(sliceRead, ""); m != 1 || c != 1 {
				t.Errorf("whole ranking %v, offset %d: %d reads of the matches and %d slices checked, want 1 and 1", whole, off, m, c)
			}
		}
	}
	// A ranking that the next slice ends: reading the matches would save
	// no query, so the slices finish it.
	short := &pgstore.ClickRanking{IDs: rank.IDs[:300], Clicks: rank.Clicks[:300], Complete: true}
	log.reset()
	if _, err := st.SearchLinks(ctx, pgstore.LinkQuery{UserID: alice, Search: "needle", Rank: short, Limit: 3, NoTotal: true}); err != nil {
		t.Fatal(err)
	}
	if m, c := log.count(matchRead, "LIMIT $5"), log.count(sliceRead, ""); m != 0 || c != 2 {
		t.Errorf("a short ranking: %d reads of the matches and %d slices, want 0 and 2", m, c)
	}
	// Dense (every link's URL) and keyless searches check slices only.
	for _, search := range []string{"example.com", "p1"} {
		log.reset()
		p, err := st.SearchLinks(ctx, pgstore.LinkQuery{UserID: alice, Search: search, Rank: &rank, Limit: 3, NoTotal: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Links) != 3 || log.count(matchRead, "LIMIT $5") != 0 || log.count(sliceRead, "") == 0 {
			t.Errorf("search %q: %d links, %d reads of the matches, %d slices", search, len(p.Links),
				log.count(matchRead, "LIMIT $5"), log.count(sliceRead, ""))
		}
	}
	// Matches read beside the ranking (PrefetchMatches): the walk checks
	// the ranked ids in memory, one read in all.
	for off := 0; off < len(want); off += 3 {
		log.reset()
		q := pgstore.LinkQuery{UserID: alice, Search: "needle", Rank: &rank, Offset: off, Limit: 3, NoTotal: true}
		q.Matches = st.PrefetchMatches(ctx, q)
		p, err := st.SearchLinks(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		end := min(off+3, len(want))
		if got := ids(p.Links); !slices.Equal(got, want[off:end]) || p.Older != (end < len(want)) {
			t.Errorf("prefetched, offset %d: %v (more %v), want %v", off, got, p.Older, want[off:end])
		}
		q.Matches.Stop()
		if m, c := log.count(matchRead, "LIMIT $5"), log.count(sliceRead, ""); m != 1 || c != 0 {
			t.Errorf("prefetched, offset %d: %d reads of the matches and %d slices, want 1 and 0", off, m, c)
		}
	}
	// Every link matches (2,000, under the prefetch's bound), and a keyless
	// search, which reads no matches: the same pages as without.
	for _, search := range []string{"example.com", "p1"} {
		q := pgstore.LinkQuery{UserID: alice, Search: search, Rank: &rank, Offset: 3, Limit: 3, NoTotal: true}
		plain, err := st.SearchLinks(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		q.Matches = st.PrefetchMatches(ctx, q)
		got, err := st.SearchLinks(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got.Links), ids(plain.Links)) || got.Older != plain.Older {
			t.Errorf("search %q prefetched: %v, without: %v", search, ids(got.Links), ids(plain.Links))
		}
		q.Matches.Stop()
	}
	// Matches read for another search are not used.
	other := st.PrefetchMatches(ctx, pgstore.LinkQuery{UserID: alice, Search: "needle"})
	q := pgstore.LinkQuery{UserID: alice, Search: "example.com", Rank: &rank, Offset: 3, Limit: 3, NoTotal: true}
	plain, err := st.SearchLinks(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	q.Matches = other
	if got, err := st.SearchLinks(ctx, q); err != nil || !slices.Equal(ids(got.Links), ids(plain.Links)) {
		t.Errorf("another search's matches: %v (%v), want %v", ids(got.Links), err, ids(plain.Links))
	}
	other.Stop()
	// More matches than the read takes: no set, the slices go on.
	for most, want := range map[int]int{14: 0, 15: 15} {
		m, err := st.MatchingIDs(ctx, alice, "needle", most)
		if err != nil || len(m) != want || (want == 0) != (m == nil) {
			t.Errorf("at most %d matches: %d (%v), want %d", most, len(m), err, want)
		}
	}
}

const (
	matchRead = "SELECT l.id FROM links l WHERE l.user_id"
	sliceRead = "SELECT l.id FROM links l WHERE l.id = ANY"
)
