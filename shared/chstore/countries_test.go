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

func TestReadRangeCountries(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	var b click.Block
	n := uint64(0)
	add := func(target uint64, kind click.Kind, class click.Class, country string, at time.Time) {
		n++
		r := click.Row{ClickID: n, UnixNano: at.UnixNano(), Kind: kind, Class: class, Country: country, LinkID: target, QRID: target}
		b.Add(&r)
	}
	// 12 countries: more than a breakdown's top 10.
	for i, c := range []string{"DE", "DE", "DE", "US", "US", "FR", "GB", "BR", "JP", "IN", "", "AT", "CH", "NZ"} {
		add(7, click.KindLink, click.ClassHuman, c, day.Add(time.Duration(i)*time.Hour))
	}
	add(7, click.KindLink, click.ClassBot, "DE", day)                    // not a person
	add(7, click.KindLink, click.ClassHuman, "DE", day.Add(-time.Hour))  // before the range
	add(7, click.KindLink, click.ClassHuman, "DE", day.AddDate(0, 0, 1)) // after it
	add(8, click.KindLink, click.ClassHuman, "DE", day)                  // another link
	add(7, click.KindQR, click.ClassHuman, "DE", day)                    // a QR code's
	if err := chstore.InsertBlock(ctx, conn, &b); err != nil {
		t.Fatal(err)
	}
	got, err := chstore.ReadRangeCountries(ctx, conn, click.KindLink, 7, day, day.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := []chstore.Count{{"DE", 3}, {"US", 2}, {"", 1}, {"AT", 1}, {"BR", 1}, {"CH", 1}, {"FR", 1},
		{"GB", 1}, {"IN", 1}, {"JP", 1}, {"NZ", 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if got, err := chstore.ReadRangeCountries(ctx, conn, click.KindLink, 9, day, day.AddDate(0, 0, 1)); err != nil || len(got) != 0 {
		t.Errorf("unvisited: %v, %v", got, err)
	}
	conn.Close()
	if _, err := chstore.ReadRangeCountries(ctx, conn, click.KindLink, 7, day, day); !errors.Is(err, link.ErrUnavailable) {
		t.Errorf("closed connection: %v", err)
	}
}
