package catalog

import (
	"context"
	"testing"
	"time"

	"kurz/shared/link"
)

func (s *countingSource) EdgeQRByCode(ctx context.Context, code string) (*link.EdgeQR, error) {
	s.add("EdgeQRByCode")
	return s.Source.EdgeQRByCode(ctx, code)
}

// A scan's entry holds the code's target, never its logo: its cost is
// that of the URL, and loading it reads no render entry. A change notice
// of the code reaches the scan cache and every render cache.
func TestQRScanEntryExcludesLogo(t *testing.T) {
	c, src, st, uid := listening(t)
	renders, err := NewQRCodes(c, 16<<20, func(q *link.EdgeQR) *link.EdgeQR { return q },
		func(q *link.EdgeQR) int64 { return int64(len(q.Logo)) })
	if err != nil {
		t.Fatal(err)
	}
	logo := make([]byte, 300<<10)
	exec(t, st, `INSERT INTO qr_codes (user_id, code, type, data, content, target_url, logo)
		VALUES ($1, 'Scan1', 'link', '"https://example.com/a"', 'http://kurz.test/q/Scan1', 'https://example.com/a', $2)`, uid, logo)
	exec(t, st, `INSERT INTO qr_codes (user_id, code, type, data, content) VALUES ($1, 'Text1', 'text', '"hi"', 'hi')`, uid)
	time.Sleep(200 * time.Millisecond) // the set-up's own notices

	s, found, err := c.QRScan("Scan1")
	if err != nil || !found || s.Target != "https://example.com/a" || s.UserID != uid || s.ID == 0 {
		t.Fatalf("scan entry %+v, found %v, %v", s, found, err)
	}
	if cost := qrScanCost(s); cost > 256 {
		t.Fatalf("a scan entry costs %d bytes with a %d-byte logo", cost, len(logo))
	}
	if q := src.count("EdgeQRByCode"); q != 0 {
		t.Fatalf("a scan loaded the whole code %d times", q)
	}
	if s, found, err := c.QRScan("Text1"); err != nil || !found || s.Target != "" {
		t.Fatalf("text code: %+v, found %v, %v; want found without a target", s, found, err)
	}
	if _, found, err := c.QRScan("Later1"); err != nil || found {
		t.Fatalf("unknown code found %v, %v", found, err)
	}
	r, found, err := renders.Get("Scan1")
	if err != nil || !found || len(r.Logo) != len(logo) {
		t.Fatalf("render entry: found %v, %v", found, err)
	}
	c.Wait()

	exec(t, st, `UPDATE qr_codes SET target_url = 'https://example.com/b', logo = NULL WHERE code = 'Scan1'`)
	exec(t, st, `INSERT INTO qr_codes (user_id, code, type, data, content, target_url)
		VALUES ($1, 'Later1', 'link', '"https://example.com/l"', 'http://kurz.test/q/Later1', 'https://example.com/l')`, uid)
	within(t, time.Second, "scan entry reloaded", func() bool {
		s, _, _ := c.QRScan("Scan1")
		return s != nil && s.Target == "https://example.com/b"
	})
	within(t, time.Second, "render entry reloaded", func() bool {
		r, _, _ := renders.Get("Scan1")
		return r != nil && len(r.Logo) == 0
	})
	within(t, time.Second, "negative scan entry dropped", func() bool {
		s, found, _ := c.QRScan("Later1")
		return found && s.Target == "https://example.com/l"
	})
}
