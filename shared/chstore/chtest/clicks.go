package chtest

import (
	"math/rand/v2"
	"time"

	"kurz/shared/click"
)

// Clicks returns n clicks, the same for the same arguments: owners 1-3
// (owner = 1 + link % 3) on links 1-40, every tenth a scan of QR code
// 1-5, a quarter of them bots, previews or prefetches, 300 visitors,
// captured over the 40 days before now (so that some fall outside the
// dashboard's 30-day window). The cluster tests insert them on a cluster
// and on one server and compare what the stats read.
func Clicks(now time.Time, n int) []click.Row {
	r := rand.New(rand.NewPCG(1, 2))
	countries := []string{"DE", "US", "FR", "", "JP"}
	browsers := []string{"Chrome", "Firefox", "Safari", "Other"}
	refs := []string{"", "google.com", "t.co", "news.example"}
	rows := make([]click.Row, n)
	for i := range rows {
		link := uint64(1 + r.IntN(40))
		row := click.Row{
			ClickID: uint64(i + 1), UnixNano: now.Add(-time.Duration(r.Int64N(int64(40 * 24 * time.Hour)))).UnixNano(),
			Kind: click.KindLink, Class: click.Class(r.IntN(4) / 3 * (1 + r.IntN(3))), LinkID: link, OwnerID: 1 + link%3,
			Visitor: uint64(r.IntN(300)), Country: countries[r.IntN(len(countries))], Browser: browsers[r.IntN(len(browsers))],
			OS: "Linux", Device: "desktop", RefHost: refs[r.IntN(len(refs))], RefCategory: click.RefCategory(r.IntN(5)), Language: "en",
		}
		if i%10 == 0 {
			row.Kind, row.QRID = click.KindQR, uint64(1+r.IntN(5))
		}
		rows[i] = row
	}
	return rows
}
