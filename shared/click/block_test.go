package click

import (
	"reflect"
	"strings"
	"testing"
)

func TestInsertSQLNamesEveryColumn(t *testing.T) {
	want := "INSERT INTO click_events (click_id, ts, kind, target_id, link_id, qr_id, owner_id, class, visitor, country, browser, os, device, referrer_host, referrer_category, language)"
	if InsertSQL != want {
		t.Fatalf("InsertSQL = %q\nwant        %q", InsertSQL, want)
	}
}

func TestBlockAddAndReset(t *testing.T) {
	var b Block
	rows := []Row{
		{ClickID: 1, UnixNano: 1_700_000_000_900_000_000, Kind: KindLink, Class: ClassBot, LinkID: 4, QRID: 0, OwnerID: 2, Visitor: 99, Country: "DE", Browser: "Chrome", OS: "Windows", Device: "desktop", RefHost: "t.co", RefCategory: RefMicroblog, Language: "de"},
		{ClickID: 2, UnixNano: 1_700_000_001_000_000_000, Kind: KindQR, Class: ClassHuman, LinkID: 4, QRID: 8, OwnerID: 2},
	}
	for i := range rows {
		b.Add(&rows[i])
	}
	if b.Len() != 2 {
		t.Fatalf("Len = %d", b.Len())
	}
	got := map[string]any{}
	for _, c := range b.Columns() {
		if reflect.ValueOf(c.Data).Len() != 2 {
			t.Fatalf("column %s has %d values", c.Name, reflect.ValueOf(c.Data).Len())
		}
		got[c.Name] = c.Data
	}
	checks := map[string]any{
		"ts":                []int64{1_700_000_000, 1_700_000_001},
		"kind":              []int8{1, 2},
		"target_id":         []uint64{4, 8},
		"class":             []int8{1, 0},
		"referrer_category": []int8{3, 0},
		"country":           []string{"DE", ""},
	}
	for name, want := range checks {
		if !reflect.DeepEqual(got[name], want) {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
	if n := strings.Count(InsertSQL, ",") + 1; n != len(b.Columns()) {
		t.Fatalf("InsertSQL has %d columns, block %d", n, len(b.Columns()))
	}
	b.Reset()
	if b.Len() != 0 {
		t.Fatalf("Len after Reset = %d", b.Len())
	}
	for _, c := range b.Columns() {
		if reflect.ValueOf(c.Data).Len() != 0 {
			t.Fatalf("column %s not reset", c.Name)
		}
	}
}
