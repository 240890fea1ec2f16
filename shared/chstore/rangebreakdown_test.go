package chstore_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/link"
)

// TestReadRangeBreakdownDevicesAndCodes: a range's device classes and its
// every country code, of people only, only of the target and the range;
// the top-N lists beside them from the same read.
func TestReadRangeBreakdownDevicesAndCodes(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	var b click.Block
	n := uint64(0)
	add := func(target uint64, kind click.Kind, class click.Class, country, device string, at time.Time) {
		n++
		r := click.Row{ClickID: n, UnixNano: at.UnixNano(), Kind: kind, Class: class, Country: country, Device: device, LinkID: target, QRID: target}
		b.Add(&r)
	}
	// 14 people from 12 countries (more than a breakdown's top 10) on 5
	// device classes.
	countries := []string{"DE", "DE", "DE", "US", "US", "FR", "GB", "BR", "JP", "IN", "", "AT", "CH", "NZ"}
	devices := []string{"mobile", "desktop", "mobile", "tablet", "mobile", "desktop", "tv", "unknown", "mobile", "desktop", "mobile", "", "desktop", "mobile"}
	for i := range countries {
		add(7, click.KindLink, click.ClassHuman, countries[i], devices[i], day.Add(time.Duration(i)*time.Hour/2))
	}
	for _, c := range []click.Class{click.ClassBot, click.ClassPreview, click.ClassPrefetch} {
		add(7, click.KindLink, c, "DE", "bot", day.Add(23*time.Hour)) // not people
	}
	add(7, click.KindLink, click.ClassHuman, "DE", "mobile", day.Add(-time.Second)) // before the range
	add(7, click.KindLink, click.ClassHuman, "DE", "mobile", day.AddDate(0, 0, 1))  // after it
	add(8, click.KindLink, click.ClassHuman, "DE", "mobile", day)                   // another link
	add(7, click.KindQR, click.ClassHuman, "FR", "tablet", day)                     // a QR code's
	if err := chstore.InsertBlock(ctx, conn, &b); err != nil {
		t.Fatal(err)
	}
	got, err := chstore.ReadRangeBreakdown(ctx, conn, click.KindLink, 7, day, day.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	wantCodes := []chstore.Count{{"DE", 3}, {"US", 2}, {"", 1}, {"AT", 1}, {"BR", 1}, {"CH", 1}, {"FR", 1},
		{"GB", 1}, {"IN", 1}, {"JP", 1}, {"NZ", 1}}
	if !reflect.DeepEqual(got.CountryCodes, wantCodes) {
		t.Errorf("codes %v\nwant  %v", got.CountryCodes, wantCodes)
	}
	wantDevices := []chstore.Count{{"mobile", 6}, {"desktop", 4}, {"unknown", 2}, {"tablet", 1}, {"tv", 1}}
	if !reflect.DeepEqual(got.Devices, wantDevices) {
		t.Errorf("devices %v\nwant    %v", got.Devices, wantDevices)
	}
	wantTop := []chstore.Count{{"germany", 3}, {"united states", 2}, {"austria", 1}, {"brazil", 1}, {"france", 1},
		{"india", 1}, {"japan", 1}, {"new zealand", 1}, {"switzerland", 1}, {"united kingdom", 1}}
	if !reflect.DeepEqual(got.Countries, wantTop) {
		t.Errorf("top countries %v\nwant          %v", got.Countries, wantTop)
	}
	qr, err := chstore.ReadRangeBreakdown(ctx, conn, click.KindQR, 7, day, day.AddDate(0, 0, 1))
	if err != nil || !reflect.DeepEqual(qr.Devices, []chstore.Count{{"tablet", 1}}) || !reflect.DeepEqual(qr.CountryCodes, []chstore.Count{{"FR", 1}}) {
		t.Errorf("the QR code's: %+v, %v", qr, err)
	}
	if none, err := chstore.ReadRangeBreakdown(ctx, conn, click.KindLink, 9, day, day.AddDate(0, 0, 1)); err != nil || len(none.Devices)+len(none.CountryCodes)+len(none.Countries) != 0 {
		t.Errorf("unvisited: %+v, %v", none, err)
	}
	conn.Close()
	if _, err := chstore.ReadRangeBreakdown(ctx, conn, click.KindLink, 7, day, day.AddDate(0, 0, 1)); !errors.Is(err, link.ErrUnavailable) {
		t.Errorf("closed connection: %v", err)
	}
}

// TestReadCounts: all-time visits by class, of the target only, equal to
// the summary's.
func TestReadCounts(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	var b click.Block
	n := uint64(0)
	for _, c := range []struct {
		kind   click.Kind
		target uint64
		class  click.Class
		times  int
	}{
		{click.KindLink, 7, click.ClassHuman, 5}, {click.KindLink, 7, click.ClassBot, 3}, {click.KindLink, 7, click.ClassPreview, 2},
		{click.KindLink, 7, click.ClassPrefetch, 1}, {click.KindLink, 8, click.ClassHuman, 4}, {click.KindQR, 7, click.ClassHuman, 6},
	} {
		for range c.times {
			n++
			r := click.Row{ClickID: n, UnixNano: at.Add(time.Duration(n) * time.Hour * 30).UnixNano(), Kind: c.kind, Class: c.class, LinkID: c.target, QRID: c.target, Visitor: n}
			b.Add(&r)
		}
	}
	if err := chstore.InsertBlock(ctx, conn, &b); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind click.Kind
		id   int64
		want chstore.Counts
	}{
		{click.KindLink, 7, chstore.Counts{Clicks: 5, BotClicks: 3, PreviewClicks: 2, PrefetchClicks: 1}},
		{click.KindLink, 8, chstore.Counts{Clicks: 4}},
		{click.KindQR, 7, chstore.Counts{Clicks: 6}},
		{click.KindLink, 9, chstore.Counts{}},
	} {
		got, err := chstore.ReadCounts(ctx, conn, c.kind, c.id)
		if err != nil || got != c.want {
			t.Errorf("%v %d: %+v, %v; want %+v", c.kind, c.id, got, err, c.want)
		}
		sum, err := chstore.ReadSummary(ctx, conn, c.kind, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if s := (chstore.Counts{Clicks: sum.Clicks, BotClicks: sum.BotClicks, PreviewClicks: sum.PreviewClicks, PrefetchClicks: sum.PrefetchClicks}); s != got {
			t.Errorf("%v %d: counts %+v, the summary's %+v", c.kind, c.id, got, s)
		}
	}
	conn.Close()
	if _, err := chstore.ReadCounts(ctx, conn, click.KindLink, 7); !errors.Is(err, link.ErrUnavailable) {
		t.Errorf("closed connection: %v", err)
	}
}
