package click

import "strings"

// Block is a batch of rows stored column by column, the form in which the
// ClickHouse driver encodes an INSERT fastest (one Append per column instead
// of one boxed value per cell). Reset reuses its slices.
type Block struct {
	clickID  []uint64
	ts       []int64 // unix seconds: clicks.ts is a DateTime
	kind     []int8
	targetID []uint64
	linkID   []uint64
	qrID     []uint64
	ownerID  []uint64
	class    []int8
	visitor  []uint64
	country  []string
	browser  []string
	os       []string
	device   []string
	refHost  []string
	refCat   []int8
	language []string
}

// Column is one column of a Block: its name in the clicks table and its
// values (a slice of the Go type the driver expects for it).
type Column struct {
	Name string
	Data any
}

// Columns returns the block's columns in insert order. This is the one place
// that lists the columns a Row fills; InsertSQL is derived from it.
func (b *Block) Columns() []Column {
	return []Column{
		{"click_id", b.clickID},
		{"ts", b.ts},
		{"kind", b.kind},
		{"target_id", b.targetID},
		{"link_id", b.linkID},
		{"qr_id", b.qrID},
		{"owner_id", b.ownerID},
		{"class", b.class},
		{"visitor", b.visitor},
		{"country", b.country},
		{"browser", b.browser},
		{"os", b.os},
		{"device", b.device},
		{"referrer_host", b.refHost},
		{"referrer_category", b.refCat},
		{"language", b.language},
	}
}

// Table is the ClickHouse table the edge writes clicks to (migration
// 0011). clicks, its predecessor, keeps the clicks of earlier versions and
// its own views: a click is counted by the views of the table it went to.
const Table = "click_events"

// RawSource is the raw clicks of every version, for reads (a FROM clause):
// clicks and click_events through ClickHouse's merge table function,
// which reads each within its own primary key.
const RawSource = `merge(currentDatabase(), '^(clicks|click_events)$')`

// InsertSQL is the statement a Block is sent with. It names its columns:
// ClickHouse 18.16 rejects batch inserts without a column list.
var InsertSQL = InsertSQLFor(Table)

// InsertSQLFor is InsertSQL into another table with the clicks table's
// columns (benchmarks compare against a view-less copy). table is spliced
// into the statement: it must be a trusted identifier, never input.
func InsertSQLFor(table string) string {
	cols := new(Block).Columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return "INSERT INTO " + table + " (" + strings.Join(names, ", ") + ")"
}

// Add appends r to the block.
func (b *Block) Add(r *Row) {
	b.clickID = append(b.clickID, r.ClickID)
	b.ts = append(b.ts, r.UnixNano/1e9)
	b.kind = append(b.kind, int8(r.Kind))
	b.targetID = append(b.targetID, r.TargetID())
	b.linkID = append(b.linkID, r.LinkID)
	b.qrID = append(b.qrID, r.QRID)
	b.ownerID = append(b.ownerID, r.OwnerID)
	b.class = append(b.class, int8(r.Class))
	b.visitor = append(b.visitor, r.Visitor)
	b.country = append(b.country, r.Country)
	b.browser = append(b.browser, r.Browser)
	b.os = append(b.os, r.OS)
	b.device = append(b.device, r.Device)
	b.refHost = append(b.refHost, r.RefHost)
	b.refCat = append(b.refCat, int8(r.RefCategory))
	b.language = append(b.language, r.Language)
}

// Len returns the number of rows in the block.
func (b *Block) Len() int { return len(b.clickID) }

// Reset empties the block, keeping its capacity.
func (b *Block) Reset() {
	b.clickID = b.clickID[:0]
	b.ts = b.ts[:0]
	b.kind = b.kind[:0]
	b.targetID = b.targetID[:0]
	b.linkID = b.linkID[:0]
	b.qrID = b.qrID[:0]
	b.ownerID = b.ownerID[:0]
	b.class = b.class[:0]
	b.visitor = b.visitor[:0]
	clear(b.country) // drop string references so interned strings can be collected
	b.country = b.country[:0]
	clear(b.browser)
	b.browser = b.browser[:0]
	clear(b.os)
	b.os = b.os[:0]
	clear(b.device)
	b.device = b.device[:0]
	clear(b.refHost)
	b.refHost = b.refHost[:0]
	b.refCat = b.refCat[:0]
	clear(b.language)
	b.language = b.language[:0]
}
