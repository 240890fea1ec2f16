package pgtest

import (
	"context"
	"testing"

	"kurz/shared/pgstore"
)

// Invite loads the stored state of the invite whose code hashes to hash;
// a missing invite fails the test. The product never reads an invite
// back (registration takes a use in one UPDATE), so this lives here.
func Invite(t testing.TB, st *pgstore.Store, hash []byte) *pgstore.Invite {
	t.Helper()
	var inv pgstore.Invite
	err := Pool(st).QueryRow(context.Background(),
		`SELECT id, uses_left, used, expires_at, created_at FROM invites WHERE code_hash = $1`, hash).
		Scan(&inv.ID, &inv.UsesLeft, &inv.Used, &inv.ExpiresAt, &inv.CreatedAt)
	if err != nil {
		t.Fatalf("pgtest: invite by hash: %v", err)
	}
	if inv.ExpiresAt != nil {
		e := inv.ExpiresAt.UTC()
		inv.ExpiresAt = &e
	}
	inv.CreatedAt = inv.CreatedAt.UTC()
	return &inv
}
