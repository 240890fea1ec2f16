package pgstore_test

import (
	"context"
	"errors"
	"testing"

	"kurz/shared/link"
	"kurz/shared/pgstore/pgtest"
)

// Characters PostgreSQL cannot keep come back as link.ErrUnstorable (the
// API's 400), not as an unknown error (a 500), if validation ever misses
// them.
func TestUnstorableInput(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	uid := newLinkUser(t, st, "alice")
	tests := []struct{ name, host string }{
		{"NUL in text", "go\x00.example.com"},
		{"invalid UTF-8", "go\xff.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := st.CreateDomain(ctx, link.Domain{UserID: uid, Host: tt.host, Domain: "https://" + tt.host})
			if !errors.Is(err, link.ErrUnstorable) {
				t.Fatalf("err %v, want ErrUnstorable", err)
			}
		})
	}
}
