package pgstore_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// checkLinkCounts compares every user's kept number of links (migration
// 0052) and CountLinks with a count of the links themselves.
func checkLinkCounts(t *testing.T, st *pgstore.Store, step string) {
	t.Helper()
	ctx := context.Background()
	rows, err := pgtest.Pool(st).Query(ctx, `
		SELECT u.id, coalesce(c.links, 0), (SELECT count(*) FROM links l WHERE l.user_id = u.id)
		FROM users u LEFT JOIN user_link_counts c ON c.user_id = u.id ORDER BY u.id`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ user, kept, counted int64 }
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.user, &r.kept, &r.counted); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatalf("%s: no users", step)
	}
	for _, r := range all {
		n, err := st.CountLinks(ctx, r.user)
		if err != nil {
			t.Fatal(err)
		}
		if r.kept != r.counted || int64(n) != r.counted {
			t.Errorf("%s: user %d keeps %d links, CountLinks %d, has %d", step, r.user, r.kept, n, r.counted)
		}
	}
}

// Every way links come and go keeps each user's count exact: the store's
// create and delete, multi-row INSERTs and DELETEs, a link moved to another
// owner, updates that keep the owner, concurrent creates for one user,
// refused writes, opposite moves at once, a deleted user (the cascade) and
// TRUNCATE; and CountLinks reads the kept count.
func TestUserLinkCounts(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	db := pgtest.Pool(st)
	alice, bob := newLinkUser(t, st, "alice"), newLinkUser(t, st, "bob")
	newUser := newLinkUser(t, st, "carol")
	var ids []int64
	for i := range 5 {
		l := &link.Link{UserID: alice, Alias: fmt.Sprintf("a%d", i), LongURL: "https://example.com/", Type: "direct", Status: "private"}
		if err := st.CreateLink(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	checkLinkCounts(t, st, "created through the store")
	steps := []struct{ name, sql string }{
		{"multi-row insert", `INSERT INTO links (user_id, alias, long_url)
			SELECT CASE WHEN i % 3 = 0 THEN $1::bigint ELSE $2::bigint END, 'm' || i, 'https://example.com/' FROM generate_series(1, 300) AS i`},
		{"update keeping owners", `UPDATE links SET meta_title = 'x' WHERE user_id IN ($1::bigint, $2::bigint)`},
		{"links moved to another owner", `UPDATE links SET user_id = $2::bigint WHERE user_id = $1::bigint AND alias LIKE 'm%'`},
		{"multi-row delete", `DELETE FROM links WHERE user_id = $2::bigint AND alias LIKE 'm1%' AND $1::bigint > 0`},
	}
	for _, s := range steps {
		if _, err := db.Exec(ctx, s.sql, alice, bob); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		checkLinkCounts(t, st, s.name)
	}
	if err := st.DeleteLinks(ctx, alice, ids[:3]); err != nil {
		t.Fatal(err)
	}
	checkLinkCounts(t, st, "deleted through the store")

	// Eight writers create links for one user at once.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				l := &link.Link{UserID: newUser, Alias: fmt.Sprintf("c%d-%d", w, i), LongURL: "https://example.com/", Type: "direct", Status: "private"}
				if err := st.CreateLink(ctx, l, nil); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkLinkCounts(t, st, "concurrent creates")
	if n, _ := st.CountLinks(ctx, newUser); n != 200 {
		t.Errorf("carol has %d links, want 200", n)
	}

	// A create that loses its alias and a delete that is refused (another
	// user's id among the ids) write nothing and count nothing.
	if err := st.CreateLink(ctx, &link.Link{UserID: alice, Alias: "a4", LongURL: "https://example.com/", Type: "direct", Status: "private"}, nil); err == nil {
		t.Fatal("a taken alias was created again")
	}
	var bobs int64
	if err := db.QueryRow(ctx, `SELECT id FROM links WHERE user_id = $1 LIMIT 1`, bob).Scan(&bobs); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteLinks(ctx, alice, []int64{ids[3], bobs}); err == nil {
		t.Fatal("a delete with another user's link went through")
	}
	checkLinkCounts(t, st, "refused writes")

	// Two writers move links between the same two users in opposite
	// directions, each statement changing both counts: locked in id order,
	// they take turns instead of deadlocking.
	if _, err := db.Exec(ctx, `INSERT INTO links (user_id, alias, long_url)
		SELECT CASE WHEN i % 2 = 0 THEN $1::bigint ELSE $2::bigint END, 'w' || (i % 2) || '-' || i, 'https://example.com/'
		FROM generate_series(1, 40) AS i`, alice, bob); err != nil {
		t.Fatal(err)
	}
	moves := make(chan error, 2)
	for w, pair := range [][2]int64{{alice, bob}, {bob, alice}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prefix := fmt.Sprintf("w%d-%%", w)
			for i := range 200 {
				from, to := pair[0], pair[1]
				if i%2 == 1 {
					from, to = to, from
				}
				if _, err := db.Exec(ctx, `UPDATE links SET user_id = $2 WHERE user_id = $1 AND alias LIKE $3`, from, to, prefix); err != nil {
					moves <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(moves)
	for err := range moves {
		t.Fatalf("moving links: %v", err)
	}
	checkLinkCounts(t, st, "opposite moves")

	// CountLinks reads the kept row; a filtered count counts the links.
	if _, err := db.Exec(ctx, `UPDATE user_link_counts SET links = 12345 WHERE user_id = $1`, alice); err != nil {
		t.Fatal(err)
	}
	if n, err := st.CountLinks(ctx, alice); err != nil || n != 12345 {
		t.Errorf("CountLinks read %d, %v, not the kept 12345", n, err)
	}
	if n, err := st.CountMatching(ctx, pgstore.LinkQuery{UserID: alice, Search: "a4"}); err != nil || n != 1 {
		t.Errorf("a search's count is %d, %v, want 1", n, err)
	}
	// A decrement never makes a row: with alice's row gone, deleting one
	// of her links leaves her without one (a negative insert would not).
	if _, err := db.Exec(ctx, `DELETE FROM user_link_counts WHERE user_id = $1`, alice); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `DELETE FROM links WHERE id = $1`, ids[4]); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM user_link_counts WHERE user_id = $1`, alice).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("a delete made %d count rows for a user without one (%v)", rows, err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO user_link_counts SELECT $1::bigint, count(*) FROM links WHERE user_id = $1`, alice); err != nil {
		t.Fatal(err)
	}
	checkLinkCounts(t, st, "recounted")

	if _, err := db.Exec(ctx, `DELETE FROM users WHERE id = $1`, bob); err != nil {
		t.Fatal(err)
	}
	checkLinkCounts(t, st, "user deleted")
	var left int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM user_link_counts WHERE user_id = $1`, bob).Scan(&left); err != nil || left != 0 {
		t.Errorf("deleted user's count row: %d left, %v", left, err)
	}
	if _, err := db.Exec(ctx, `TRUNCATE links CASCADE`); err != nil {
		t.Fatal(err)
	}
	checkLinkCounts(t, st, "truncated")
	if err := db.QueryRow(ctx, `SELECT count(*) FROM user_link_counts WHERE links <> 0`).Scan(&left); err != nil || left != 0 {
		t.Errorf("after TRUNCATE: %d users still count links (%v)", left, err)
	}
}

// The migration counts the links that exist before it: a database migrated
// up to 0051 gets links, then 0052.
func TestUserLinkCountsBackfill(t *testing.T) {
	dsn := pgtest.Empty(t)
	ctx := context.Background()
	st := pgtest.Open(t, dsn)
	before := fstest.MapFS{}
	all := pgMigrations(t)
	entries, err := fs.ReadDir(all, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Compare(e.Name(), "0052") < 0 {
			body, err := fs.ReadFile(all, e.Name())
			if err != nil {
				t.Fatal(err)
			}
			before[e.Name()] = &fstest.MapFile{Data: body}
		}
	}
	if _, err := st.Migrate(ctx, before, nil); err != nil {
		t.Fatal(err)
	}
	alice, bob := newLinkUser(t, st, "alice"), newLinkUser(t, st, "bob")
	newLinkUser(t, st, "carol")
	if _, err := pgtest.Pool(st).Exec(ctx, `INSERT INTO links (user_id, alias, long_url)
		SELECT CASE WHEN i % 4 = 0 THEN $1::bigint ELSE $2::bigint END, 'b' || i, 'https://example.com/' FROM generate_series(1, 100) AS i`, alice, bob); err != nil {
		t.Fatal(err)
	}
	applied, err := st.Migrate(ctx, all, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) == 0 || !strings.HasPrefix(applied[0], "0052") {
		t.Fatalf("applied %v, want 0052 first", applied)
	}
	checkLinkCounts(t, st, "after the backfill")
	if n, _ := st.CountLinks(ctx, bob); n != 75 {
		t.Errorf("bob has %d links, want 75", n)
	}
}
