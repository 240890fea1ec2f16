package pgstore_test

import (
	"bufio"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// The search keys of migration 0051 must never hide a match: for every
// substring of every text of testdata/search_texts.txt, in its own case, in
// upper and in lower case, and in each of the three searched columns, a text
// the ILIKE matches must hold every key of the search. And a search sent to
// the index must have keys at all (an empty key array would make the GIN
// scan read every user's links).
func TestSearchKeysCoverEveryMatch(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	keyedAll := 0
	for _, text := range searchTexts(t) {
		var searches, patterns []string
		runes := []rune(text)
		for i := range runes {
			for j := i + 1; j <= len(runes) && j-i <= 16; j++ {
				s := string(runes[i:j])
				for _, v := range []string{s, strings.ToUpper(s), strings.ToLower(s)} {
					searches = append(searches, v)
					patterns = append(patterns, pgstore.LikePattern(v))
				}
			}
		}
		// Per search: does the text match it in each column, do the keys
		// of that column hold the search's keys, how many keys it has.
		rows, err := pgtest.Pool(st).Query(ctx, `
			SELECT s.n,
			       $1 ILIKE s.p,
			       kurz_search_keys(7, $1, '', '') @> q.k,
			       kurz_search_keys(7, '', $1, '') @> q.k,
			       kurz_search_keys(7, '', '', $1) @> q.k,
			       cardinality(q.k)
			FROM unnest($2::text[]) WITH ORDINALITY AS s(p, n),
			     LATERAL (SELECT kurz_search_query_keys(7, s.p) AS k) AS q
			ORDER BY s.n`, text, patterns)
		if err != nil {
			t.Fatal(err)
		}
		checked, keyed, matched := 0, 0, 0
		for rows.Next() {
			var (
				n                    int
				match, inA, inU, inT bool
				keys                 int
			)
			if err := rows.Scan(&n, &match, &inA, &inU, &inT, &keys); err != nil {
				t.Fatal(err)
			}
			search := searches[n-1]
			if match {
				matched++
			} else if (n-1)%3 == 0 {
				// The substring in its own case: the ILIKE must match it,
				// or the check above proves nothing.
				t.Errorf("%q does not match its own substring %q", text, search)
			}
			if match && !(inA && inU && inT) {
				t.Errorf("%q contains %q, but its keys do not hold the search's (alias %v, URL %v, title %v)", text, search, inA, inU, inT)
			}
			keyedSearch, err := st.SearchKeyed(ctx, search)
			if err != nil {
				t.Fatal(err)
			}
			if keyedSearch {
				keyed++
				if keys == 0 {
					t.Errorf("search %q goes to the index without a key", search)
				}
			}
			checked++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if checked != len(searches) || matched < len(searches)/3 {
			t.Fatalf("%q: %d of %d searches checked, %d matched", text, checked, len(searches), matched)
		}
		keyedAll += keyed
	}
	if keyedAll == 0 {
		t.Fatal("no search went to the index")
	}
	// Letters of other scripts make keys too (they are letters in the test
	// server's C.UTF-8 locale); punctuation and short searches do not.
	for search, want := range map[string]bool{"日本語": true, "привет": true, "größe": true, "ab": false, "a.b": false, "é-ü": false} {
		if got, err := st.SearchKeyed(ctx, search); err != nil || got != want {
			t.Errorf("search %q keyed: %v %v, want %v", search, got, err, want)
		}
	}
}

// Every trigram of three letters of a script, as a text of its own and as
// its search: pg_trgm keeps the 3-byte hash of a multibyte trigram and shows
// it as raw characters when they are printable, blanks included, so a
// sample of texts can miss the one hash in ~1,400 that a filter on blanks
// treats differently on the two sides. Cyrillic (33 letters), Latin-1 and
// Greek letters and a slice of CJK ideographs: every combination.
func TestSearchKeysEveryTrigramOfAScript(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	for _, r := range []struct {
		name     string
		from, to int
	}{
		{"Cyrillic", 0x0430, 0x0451},
		{"Latin-1", 0x00DF, 0x00FF},
		{"Greek", 0x03AC, 0x03CE},
		{"CJK", 0x4E00, 0x4E20},
	} {
		var missed, total int
		var sample []string
		rows, err := pgtest.Pool(st).Query(ctx, `
			SELECT w, NOT kurz_search_keys(7, w, '', '') @> kurz_search_query_keys(7, '%' || w || '%')
			FROM (SELECT chr(a) || chr(b) || chr(c) AS w
			      FROM generate_series($1::int, $2::int) a, generate_series($1::int, $2::int) b,
			           generate_series($1::int, $2::int) c) AS s`, r.from, r.to)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var (
				w    string
				miss bool
			)
			if err := rows.Scan(&w, &miss); err != nil {
				t.Fatal(err)
			}
			total++
			if miss {
				missed++
				if len(sample) < 5 {
					sample = append(sample, w)
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		n := r.to - r.from + 1
		if total != n*n*n || missed > 0 {
			t.Errorf("%s: %d of %d trigrams whose keys miss their own search, e.g. %q", r.name, missed, total, sample)
		}
	}
}

func searchTexts(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/search_texts.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Keys of owners whose ids share the residue mod 32749 are the same; the
// owner filter keeps each search to its user's links, in both orders.
func TestSearchLinksOwnersSharingKeys(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	alice := newLinkUser(t, st, "alice")
	if _, err := pgtest.Pool(st).Exec(ctx, `SELECT setval('users_id_seq', $1)`, alice+32749-1); err != nil {
		t.Fatal(err)
	}
	bob := newLinkUser(t, st, "bob")
	if bob != alice+32749 {
		t.Fatalf("bob is %d, want %d", bob, alice+32749)
	}
	for _, l := range []link.Link{
		{UserID: alice, Alias: "a1", LongURL: "https://shop.example/spring-sale", MetaTitle: "Größe"},
		{UserID: bob, Alias: "b1", LongURL: "https://shop.example/spring-sale", MetaTitle: "Größe"},
		{UserID: bob, Alias: "b2", LongURL: "https://shop.example/winter"},
	} {
		l.Type, l.Status = "direct", "private"
		if err := st.CreateLink(ctx, &l, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		user   int64
		search string
		want   []string
	}{
		{alice, "spring-sale", []string{"a1"}},
		{alice, "SHOP.example", []string{"a1"}},
		{alice, "GRÖSSE", nil}, // ILIKE compares letters, not spellings
		{alice, "größe", []string{"a1"}},
		{alice, "winter", nil},
		{bob, "winter", []string{"b2"}},
		{bob, "shop", []string{"b2", "b1"}},
	} {
		p, err := st.SearchLinks(ctx, pgstore.LinkQuery{UserID: c.user, Search: c.search, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if got := aliases(p); !slices.Equal(got, c.want) || p.Total != len(c.want) {
			t.Errorf("user %d, search %q: %v (total %d), want %v", c.user, c.search, got, p.Total, c.want)
		}
		rank := &pgstore.ClickRanking{IDs: []int64{}, Clicks: []int64{}}
		p, err = st.SearchLinks(ctx, pgstore.LinkQuery{UserID: c.user, Search: c.search, Limit: 10, Rank: rank})
		if err != nil {
			t.Fatal(err)
		}
		if got := aliases(p); !slices.Equal(got, c.want) {
			t.Errorf("user %d, search %q by clicks: %v, want %v", c.user, c.search, got, c.want)
		}
	}
}

// A search with keys of a user with many links is answered through the
// keys' index (for a user with few, the planner rightly reads their links
// by owner); the old trigram indexes, which read every user's posting
// lists, are gone.
func TestSearchUsesOwnerKeys(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	alice := newLinkUser(t, st, "alice")
	if _, err := pgtest.Pool(st).Exec(ctx, `INSERT INTO links (user_id, alias, long_url)
		SELECT $1, 'k' || i, 'https://shop.example/p/' || i || '?utm_campaign=c' || (i % 100)
		FROM generate_series(1, 5000) AS i`, alice); err != nil {
		t.Fatal(err)
	}
	if _, err := pgtest.Pool(st).Exec(ctx, `ANALYZE links`); err != nil {
		t.Fatal(err)
	}
	tx, err := pgtest.Pool(st).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	for search, want := range map[string]bool{"campaign=c17": true, "日本語": true, "ab": false, "a.b.c": false} {
		sql, args, err := st.SearchCountSQL(ctx, alice, search)
		if err != nil {
			t.Fatal(err)
		}
		plan := explain(t, tx, sql, args...)
		if got := strings.Contains(plan, "links_search_keys_idx"); got != want {
			t.Errorf("search %q: plan uses links_search_keys_idx: %v, want %v\n%s", search, got, want, plan)
		}
	}
	var trgm int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE tablename = 'links' AND indexname LIKE '%trgm%'`).Scan(&trgm); err != nil {
		t.Fatal(err)
	}
	if trgm != 0 {
		t.Errorf("%d trigram indexes left on links", trgm)
	}
}

// explain is the plan PostgreSQL makes for sql in tx, one line per node.
func explain(t *testing.T, tx pgx.Tx, sql string, args ...any) string {
	t.Helper()
	rows, err := tx.Query(context.Background(), `EXPLAIN `+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
