package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"kurz/shared/pgstore/pgtest"
)

// The key streams give every link, campaign and QR code, copied out of
// the driver's buffer by the caller.
func TestEdgeAllKeys(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	db := pgtest.Pool(st)
	uid := newLinkUser(t, st, "Keys")
	for _, q := range []string{
		`INSERT INTO domains (user_id, host, domain) VALUES ($1, 'go.test', 'https://go.test')`,
		`INSERT INTO links (user_id, alias, long_url) VALUES ($1, 'a', 'https://example.com/')`,
		`INSERT INTO links (user_id, host, alias, long_url) VALUES ($1, 'go.test', 'b', 'https://example.com/')`,
		`INSERT INTO campaigns (user_id, name, slug) VALUES ($1, 'with', 'Spring')`,
		`INSERT INTO campaigns (user_id, name) VALUES ($1, 'without')`,
		`INSERT INTO qr_codes (user_id, code, type, data, content) VALUES ($1, 'q1', 'text', '"x"', 'x')`,
	} {
		if _, err := db.Exec(ctx, q, uid); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var links, camps, codes []string
	if err := st.EdgeAllLinkKeys(ctx, func(host, alias []byte) { links = append(links, string(host)+"/"+string(alias)) }); err != nil {
		t.Fatal(err)
	}
	if err := st.EdgeAllCampaignKeys(ctx, func(id int64, slug, username []byte) {
		camps = append(camps, fmt.Sprintf("%t %s %s", id > 0, slug, username))
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.EdgeAllQRCodes(ctx, func(code []byte) { codes = append(codes, string(code)) }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(links)
	slices.Sort(camps)
	if want := []string{"/a", "go.test/b"}; !slices.Equal(links, want) {
		t.Fatalf("links %q, want %q", links, want)
	}
	if want := []string{"true  Keys", "true Spring Keys"}; !slices.Equal(camps, want) {
		t.Fatalf("campaigns %q, want %q", camps, want)
	}
	if want := []string{"q1"}; !slices.Equal(codes, want) {
		t.Fatalf("qr codes %q, want %q", codes, want)
	}
}
