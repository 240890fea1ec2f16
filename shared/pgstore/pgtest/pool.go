package pgtest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"kurz/shared/pgstore"
)

// pools remembers the pool behind each store made here, for Pool.
var pools sync.Map // *pgstore.Store → *pgxpool.Pool

// Wrap returns a store on pool that Pool knows.
func Wrap(pool *pgxpool.Pool) *pgstore.Store {
	st := pgstore.New(pool)
	pools.Store(st, pool)
	return st
}

// Pool returns the pool behind a store made by Store or Wrap: tests write
// fixtures and read rows back with raw SQL. The product reaches
// PostgreSQL only through pgstore's methods (pgstore.Store has no pool
// accessor). It panics for a store made elsewhere.
func Pool(st *pgstore.Store) *pgxpool.Pool {
	p, ok := pools.Load(st)
	if !ok {
		panic("pgtest.Pool: store not made by pgtest.Store or pgtest.Wrap")
	}
	return p.(*pgxpool.Pool)
}

// Open returns a store on the database at dsn (e.g. one reached through
// a test's proxy), closed when t ends; Pool knows it.
func Open(t testing.TB, dsn string) *pgstore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatalf("pgtest: open: %v", err)
	}
	t.Cleanup(pool.Close)
	st := Wrap(pool)
	t.Cleanup(func() { pools.Delete(st) })
	return st
}
