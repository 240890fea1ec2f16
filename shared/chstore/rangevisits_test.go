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

// ReadRangeVisits: people's device classes and the range's bots, previews
// and prefetches, only of the target and the range.
func TestReadRangeVisits(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	var b click.Block
	n := uint64(0)
	add := func(target uint64, kind click.Kind, class click.Class, device string, at time.Time) {
		n++
		r := click.Row{ClickID: n, UnixNano: at.UnixNano(), Kind: kind, Class: class, Device: device, LinkID: target, QRID: target}
		b.Add(&r)
	}
	for i, d := range []string{"mobile", "desktop", "mobile", "tablet", "mobile", "desktop", "tv", "unknown"} {
		add(7, click.KindLink, click.ClassHuman, d, day.Add(time.Duration(i)*time.Hour))
	}
	for i, c := range []click.Class{click.ClassBot, click.ClassBot, click.ClassPreview, click.ClassBot, click.ClassPrefetch} {
		add(7, click.KindLink, c, "desktop", day.Add(time.Duration(i)*time.Minute+23*time.Hour))
	}
	add(7, click.KindLink, click.ClassHuman, "mobile", day.Add(-time.Second)) // before the range
	add(7, click.KindLink, click.ClassBot, "bot", day.AddDate(0, 0, 1))       // after it
	add(8, click.KindLink, click.ClassHuman, "mobile", day)                   // another link
	add(7, click.KindQR, click.ClassPreview, "mobile", day)                   // a QR code's
	if err := chstore.InsertBlock(ctx, conn, &b); err != nil {
		t.Fatal(err)
	}
	got, err := chstore.ReadRangeVisits(ctx, conn, click.KindLink, 7, day, day.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := chstore.RangeVisits{
		Devices: []chstore.Count{{"mobile", 3}, {"desktop", 2}, {"tablet", 1}, {"tv", 1}, {"unknown", 1}},
		Bots:    3, Previews: 1, Prefetches: 1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got, err := chstore.ReadRangeVisits(ctx, conn, click.KindQR, 7, day, day.AddDate(0, 0, 1)); err != nil ||
		!reflect.DeepEqual(got, chstore.RangeVisits{Previews: 1}) {
		t.Errorf("the QR code's: %+v, %v", got, err)
	}
	if got, err := chstore.ReadRangeVisits(ctx, conn, click.KindLink, 9, day, day.AddDate(0, 0, 1)); err != nil ||
		!reflect.DeepEqual(got, chstore.RangeVisits{}) {
		t.Errorf("unvisited: %+v, %v", got, err)
	}
	conn.Close()
	if _, err := chstore.ReadRangeVisits(ctx, conn, click.KindLink, 7, day, day); !errors.Is(err, link.ErrUnavailable) {
		t.Errorf("closed connection: %v", err)
	}
}
