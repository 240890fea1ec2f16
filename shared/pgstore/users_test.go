package pgstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
)

// A rotation swaps the key only while it is still the presented one.
func TestRotateAPIKeyCompareAndSwap(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	_, h0 := secret.NewAPIKey()
	u, err := st.CreateUser(ctx, pgstore.NewUser{Email: "a@example.com", Username: "a", Plan: "free", APIKeyHash: h0})
	if err != nil {
		t.Fatal(err)
	}
	_, h1 := secret.NewAPIKey()
	_, h2 := secret.NewAPIKey()
	if err := st.RotateAPIKey(ctx, u.ID, h0, h1); err != nil {
		t.Fatal(err)
	}
	if err := st.RotateAPIKey(ctx, u.ID, h0, h2); !errors.Is(err, pgstore.ErrKeyRotated) {
		t.Fatalf("stale rotation: %v, want ErrKeyRotated", err)
	}
	if got, err := st.UserByKeyHash(ctx, h1); err != nil || got.ID != u.ID {
		t.Fatalf("winner's key: %v %v", got, err)
	}
	for _, h := range [][]byte{h0, h2} {
		if _, err := st.UserByKeyHash(ctx, h); !errors.Is(err, link.ErrNotFound) {
			t.Fatalf("a losing key works: %v", err)
		}
	}
}

// OwnHostNames answers only the user's own domains, by name whatever the
// stored port.
func TestOwnHostNames(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	var ids []int64
	for _, name := range []string{"a", "b"} {
		_, h := secret.NewAPIKey()
		u, err := st.CreateUser(ctx, pgstore.NewUser{Email: name + "@example.com", Username: name, Plan: "free", APIKeyHash: h})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, u.ID)
	}
	for _, d := range []link.Domain{
		{UserID: ids[0], Host: "go.a.example", Domain: "https://go.a.example"},
		{UserID: ids[0], Host: "alt.a.example:8443", Domain: "https://alt.a.example:8443"},
		{UserID: ids[1], Host: "go.b.example", Domain: "https://go.b.example"},
	} {
		if _, err := st.CreateDomain(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.OwnHostNames(ctx, ids[0], []string{"go.a.example", "alt.a.example", "go.b.example", "x.example"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !slices.Contains(got, "go.a.example") || !slices.Contains(got, "alt.a.example") {
		t.Fatalf("own names %q", got)
	}
}
