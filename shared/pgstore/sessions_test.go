package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
)

// newAccount creates an account with a password hash and returns it.
func newAccount(t *testing.T, st *pgstore.Store, name, pwHash string) *link.User {
	t.Helper()
	_, h := secret.NewAPIKey()
	u, err := st.CreateUser(context.Background(), pgstore.NewUser{
		Email: name + "@example.com", Username: name, Plan: "free", APIKeyHash: h, PasswordHash: pwHash,
	})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func sessionHash(s string) []byte { return secret.HashAPIKey(s) }

// A session is found by its hash while it lives, slides forward within its
// absolute lifetime, and is gone after sign-out or expiry.
func TestSessionLifecycle(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	u := newAccount(t, st, "ann", "h")
	id := sessionHash("session-1")
	exp, err := st.CreateSession(ctx, id, u.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(exp); d < 59*time.Minute || d > 61*time.Minute {
		t.Fatalf("expires in %v, want about an hour", d)
	}
	got, err := st.SessionByHash(ctx, id)
	if err != nil || got.User.ID != u.ID || got.User.Email != "ann@example.com" || !got.ExpiresAt.Equal(exp) {
		t.Fatalf("session %+v, %v", got, err)
	}
	if _, err := st.SessionByHash(ctx, sessionHash("session-2")); !errors.Is(err, link.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	// Extending slides to now+idle, capped by created+max.
	if exp2, err := st.ExtendSession(ctx, id, 2*time.Hour, 90*time.Minute); err != nil || time.Until(exp2) > 91*time.Minute || time.Until(exp2) < 88*time.Minute {
		t.Fatalf("extend capped by max age: %v %v", exp2, err)
	}
	// Expired: not found, not extendable, pruned.
	if _, err := pgtest.Pool(st).Exec(ctx, `UPDATE sessions SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SessionByHash(ctx, id); !errors.Is(err, link.ErrNotFound) {
		t.Fatalf("expired session: %v", err)
	}
	if _, err := st.ExtendSession(ctx, id, time.Hour, time.Hour); !errors.Is(err, link.ErrNotFound) {
		t.Fatalf("extend expired: %v", err)
	}
	if n, err := st.PruneSessions(ctx); err != nil || n != 1 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	// Sign-out deletes.
	id3 := sessionHash("session-3")
	if _, err := st.CreateSession(ctx, id3, u.ID, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteSession(ctx, id3); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SessionByHash(ctx, id3); !errors.Is(err, link.ErrNotFound) {
		t.Fatalf("deleted session: %v", err)
	}
}

// A password change, through UpdateAccount, ends every session of that
// account and no other; an email change ends none.
func TestPasswordChangeRevokesSessions(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	ann, bob := newAccount(t, st, "ann", "h"), newAccount(t, st, "bob", "h")
	for i, uid := range []int64{ann.ID, ann.ID, bob.ID} {
		if _, err := st.CreateSession(ctx, sessionHash(string(rune('a'+i))), uid, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	email := "ann2@example.com"
	if err := st.UpdateAccount(ctx, ann.ID, &email, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SessionByHash(ctx, sessionHash("a")); err != nil {
		t.Fatalf("an email change ended a session: %v", err)
	}
	pw := "new-hash"
	if err := st.UpdateAccount(ctx, ann.ID, nil, &pw); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a", "b"} {
		if _, err := st.SessionByHash(ctx, sessionHash(s)); !errors.Is(err, link.ErrNotFound) {
			t.Errorf("session %s survived the password change: %v", s, err)
		}
	}
	if _, err := st.SessionByHash(ctx, sessionHash("c")); err != nil {
		t.Errorf("another account's session ended: %v", err)
	}
	if h, err := st.PasswordHash(ctx, ann.ID); err != nil || h != pw {
		t.Errorf("password hash %q, %v", h, err)
	}
}

// LoginUser finds an account by email or username, ignoring case, with
// its password hash.
func TestLoginUser(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	u := newAccount(t, st, "Ann", "the-hash")
	for _, login := range []string{"Ann", "ann", "ANN@example.com", "ann@EXAMPLE.com"} {
		got, hash, err := st.LoginUser(ctx, login)
		if err != nil || got.ID != u.ID || hash != "the-hash" {
			t.Errorf("%q: %v %q %v", login, got, hash, err)
		}
	}
	for _, login := range []string{"bob", "ann@example.org", "", "%"} {
		if _, _, err := st.LoginUser(ctx, login); !errors.Is(err, link.ErrNotFound) {
			t.Errorf("%q: %v, want not found", login, err)
		}
	}
}

// A reset token works once, within its lifetime, and spending it sets the
// password and ends the account's sessions and other tokens.
func TestPasswordReset(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	u := newAccount(t, st, "ann", "old")
	tok, other := sessionHash("token-1"), sessionHash("token-2")
	if _, _, err := st.CreatePasswordReset(ctx, "nobody@example.com", tok, time.Hour); !errors.Is(err, link.ErrNotFound) {
		t.Fatalf("unknown email: %v", err)
	}
	got, exp, err := st.CreatePasswordReset(ctx, "ANN@example.com", tok, time.Hour)
	if err != nil || got.ID != u.ID || time.Until(exp) < 59*time.Minute {
		t.Fatalf("create: %v %v %v", got, exp, err)
	}
	if _, _, err := st.CreatePasswordReset(ctx, "ann@example.com", other, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateSession(ctx, sessionHash("s"), u.ID, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got, err := st.PasswordResetUser(ctx, tok); err != nil || got.ID != u.ID {
		t.Fatalf("token lookup: %v %v", got, err)
	}
	if got, err := st.ResetPassword(ctx, tok, "new"); err != nil || got.ID != u.ID {
		t.Fatalf("reset: %v %v", got, err)
	}
	if h, _ := st.PasswordHash(ctx, u.ID); h != "new" {
		t.Fatalf("hash %q", h)
	}
	for name, h := range map[string][]byte{"spent token": tok, "other token": other} {
		if _, err := st.PasswordResetUser(ctx, h); !errors.Is(err, link.ErrNotFound) {
			t.Errorf("%s still valid: %v", name, err)
		}
		if _, err := st.ResetPassword(ctx, h, "again"); !errors.Is(err, link.ErrNotFound) {
			t.Errorf("%s spent twice: %v", name, err)
		}
	}
	if _, err := st.SessionByHash(ctx, sessionHash("s")); !errors.Is(err, link.ErrNotFound) {
		t.Errorf("session survived the reset: %v", err)
	}
	// An expired token is refused.
	exp3 := sessionHash("token-3")
	if _, _, err := st.CreatePasswordReset(ctx, "ann@example.com", exp3, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := pgtest.Pool(st).Exec(ctx, `UPDATE password_resets SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ResetPassword(ctx, exp3, "late"); !errors.Is(err, link.ErrNotFound) {
		t.Errorf("expired token: %v", err)
	}
	if h, _ := st.PasswordHash(ctx, u.ID); h != "new" {
		t.Errorf("an expired token changed the hash to %q", h)
	}
}

// A refund takes back one count of the current window, never below zero.
func TestRefundRequest(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	awayFromWindowEdge()
	for range 3 {
		if _, _, err := st.CountRequest(ctx, "b", time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	_, reset, err := st.CountRequest(ctx, "b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for range 6 {
		if err := st.RefundRequest(ctx, "b", reset, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := st.RequestCount(ctx, "b", time.Minute); err != nil || n != 0 {
		t.Fatalf("count after refunds %d, %v", n, err)
	}
	if n, _, _ := st.CountRequest(ctx, "b", time.Minute); n != 1 {
		t.Fatalf("next count %d, want 1", n)
	}
	if n, err := st.RequestCount(ctx, "nothing", time.Minute); err != nil || n != 0 {
		t.Fatalf("unknown bucket %d, %v", n, err)
	}
}
