package chstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/link"
)

func TestReadOwnerWindows(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	at := func(days int, hour int) int64 {
		return time.Date(2026, 3, 15-days, hour, 0, 0, 0, time.UTC).UnixNano()
	}
	var b click.Block
	n := uint64(0)
	add := func(owner, visitor uint64, kind click.Kind, class click.Class, ns int64) {
		n++
		r := click.Row{ClickID: n, UnixNano: ns, Kind: kind, Class: class,
			Visitor: visitor, OwnerID: owner, LinkID: 10, QRID: 10}
		b.Add(&r)
	}
	add(1, 1, click.KindLink, click.ClassHuman, at(0, 1))  // today
	add(1, 1, click.KindLink, click.ClassHuman, at(0, 11)) // today, same visitor
	add(1, 2, click.KindLink, click.ClassHuman, at(6, 0))  // 7th day back: in the week
	add(1, 3, click.KindLink, click.ClassHuman, at(7, 23)) // 8th day back: month only
	add(1, 4, click.KindLink, click.ClassHuman, at(29, 0)) // 30th day back: in the month
	add(1, 5, click.KindLink, click.ClassHuman, at(30, 23))
	add(1, 6, click.KindLink, click.ClassBot, at(0, 2))
	add(1, 7, click.KindQR, click.ClassHuman, at(0, 2))
	add(2, 8, click.KindLink, click.ClassHuman, at(0, 2))
	if err := chstore.InsertBlock(ctx, conn, &b); err != nil {
		t.Fatal(err)
	}
	got, err := chstore.ReadOwnerWindows(ctx, conn, click.KindLink, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	want := chstore.OwnerWindows{Today: 2, Week: 3, Month: 5, TodayUnique: 1, WeekUnique: 2, MonthUnique: 4}
	if got != want {
		t.Errorf("owner 1: %+v, want %+v", got, want)
	}
	if got, err := chstore.ReadOwnerWindows(ctx, conn, click.KindLink, 3, now); err != nil || got != (chstore.OwnerWindows{}) {
		t.Errorf("owner without clicks: %+v, %v", got, err)
	}
	if _, err := chstore.ReadOwnerWindows(ctx, conn, click.Kind(99), 1, now); err == nil {
		t.Error("unknown kind accepted")
	}
	conn.Close()
	if _, err := chstore.ReadOwnerWindows(ctx, conn, click.KindLink, 1, now); !errors.Is(err, link.ErrUnavailable) {
		t.Errorf("closed connection: %v, want link.ErrUnavailable", err)
	}
}
