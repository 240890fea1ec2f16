package pgstore_test

import (
	"context"
	"testing"

	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// BenchmarkSetLinkClicks measures one roll-up batch (5000 links, every
// counter grows) through the marked transaction that the change-notice
// trigger skips, against the same UPDATE without the mark, where the
// trigger function runs per row and returns early (migration 0023).
//
//	go test -run '^$' -bench SetLinkClicks ./shared/pgstore/  (needs KURZ_TEST_DATABASE_URL; make gobench sets it for ./edge/... only)
func BenchmarkSetLinkClicks(b *testing.B) {
	ctx := context.Background()
	pool, _ := pgtest.New(b)
	st := pgstore.New(pool)
	var uid int64
	if err := pool.QueryRow(ctx, `INSERT INTO users (email, username, password_hash, plan, api_key_hash)
		VALUES ('bench@example.com', 'bench', '', 'free', 'k') RETURNING id`).Scan(&uid); err != nil {
		b.Fatal(err)
	}
	var ids []int64
	rows, err := pool.Query(ctx, `INSERT INTO links (user_id, host, alias, custom, long_url)
		SELECT $1, '', 'b' || g, true, 'https://example.com/' || g FROM generate_series(1, $2) g RETURNING id`, uid, pgstore.CounterBatch)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
	}
	if rows.Err() != nil {
		b.Fatal(rows.Err())
	}
	counts := make([]int64, len(ids))
	for _, bc := range []struct {
		name string
		set  func() (int64, error)
	}{
		{"marked", func() (int64, error) { return st.SetLinkClicks(ctx, ids, counts, false) }},
		{"unmarked", func() (int64, error) {
			// The roll-up's UPDATE (pgstore's setClicksSQL) outside the
			// marked transaction: what every batch cost before 0023.
			tag, err := pool.Exec(ctx, `UPDATE links AS l SET clicks = v.n
				FROM unnest($1::bigint[], $2::bigint[]) AS v(id, n)
				WHERE l.id = v.id AND (l.clicks < v.n OR ($3 AND l.clicks <> v.n))`, ids, counts, false)
			return tag.RowsAffected(), err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				for i := range counts {
					counts[i]++
				}
				if n, err := bc.set(); err != nil || n != int64(len(ids)) {
					b.Fatalf("%d rows, %v", n, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ids)), "µs/row")
		})
	}
}
