package clicks

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"kurz/shared/click"
)

func sampleRows(n int) []click.Row {
	rows := make([]click.Row, n)
	for i := range rows {
		rows[i] = click.Row{
			ClickID: uint64(1000 + i), UnixNano: 1_700_000_000_000_000_000 + int64(i), Kind: click.KindLink, Class: click.Class(i % 4),
			RefCategory: click.RefCategory(i % 8), LinkID: uint64(i), QRID: uint64(i * 300), OwnerID: 1 << 40, Visitor: ^uint64(i),
			Country: "DE", Browser: "Chrome", OS: "Windows", Device: "desktop", RefHost: "example.org", Language: "de",
		}
	}
	return rows
}

// encodeSegment returns a segment holding rows and the offset of each record.
func encodeSegment(rows []click.Row, flags uint8) ([]byte, []int) {
	b := appendHeader(nil, segHeader{flags: flags, firstNano: rows[0].UnixNano, rows: uint32(len(rows))})
	offs := make([]int, len(rows))
	for i := range rows {
		offs[i] = len(b)
		b = appendRecord(b, &rows[i])
	}
	return b, offs
}

func ids(rows []click.Row) []uint64 {
	out := make([]uint64, len(rows))
	for i, r := range rows {
		out[i] = r.ClickID
	}
	return out
}

func TestSegmentRoundTrip(t *testing.T) {
	rows := sampleRows(50)
	data, _ := encodeSegment(rows, flagCheckFirst)
	c, err := parseSegment(data, nil, func(off int, reason string) { t.Errorf("skip at %d: %s", off, reason) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.rows, rows) {
		t.Fatalf("rows differ after a round trip:\n got %+v\nwant %+v", c.rows[0], rows[0])
	}
	if c.header.flags != flagCheckFirst || c.header.rows != 50 || c.header.firstNano != rows[0].UnixNano {
		t.Fatalf("header %+v", c.header)
	}
}

func TestSegmentCorruption(t *testing.T) {
	rows := sampleRows(10)
	all := ids(rows)
	without := func(i ...int) []uint64 {
		return slices.DeleteFunc(slices.Clone(all), func(id uint64) bool { return slices.Contains(i, int(id-1000)) })
	}
	tests := []struct {
		name    string
		corrupt func(b []byte, offs []int) []byte
		want    []uint64
		skipped int
		err     error
	}{
		{"intact", func(b []byte, _ []int) []byte { return b }, all, 0, nil},
		{"header only", func(b []byte, offs []int) []byte { return b[:offs[0]] }, nil, 0, nil},
		{"truncated last record", func(b []byte, offs []int) []byte { return b[:offs[9]+12] }, without(9), 1, nil},
		{"truncated record header", func(b []byte, offs []int) []byte { return b[:offs[9]+3] }, without(9), 1, nil},
		{"payload byte flipped", func(b []byte, offs []int) []byte { b[offs[4]+20] ^= 0x40; return b }, without(4), 1, nil},
		{"length byte flipped", func(b []byte, offs []int) []byte { b[offs[4]] ^= 0x01; return b }, without(4), 1, nil},
		{"length made huge", func(b []byte, offs []int) []byte { binary.LittleEndian.PutUint32(b[offs[4]:], 1<<30); return b }, without(4), 1, nil},
		{"checksum byte flipped", func(b []byte, offs []int) []byte { b[offs[2]+5] ^= 0xff; return b }, without(2), 1, nil},
		{"two corrupt records", func(b []byte, offs []int) []byte { b[offs[1]+9] ^= 1; b[offs[7]+30] ^= 1; return b }, without(1, 7), 2, nil},
		{"garbage between records", func(b []byte, offs []int) []byte {
			return slices.Concat(b[:offs[5]], []byte("some garbage that is not a record at all"), b[offs[5]:])
		}, all, 1, nil},
		{"zeroed tail (preallocated, never written)", func(b []byte, _ []int) []byte { return append(b, make([]byte, 64)...) }, all, 1, nil},
		{"bad magic", func(b []byte, _ []int) []byte { b[0] = 'X'; return b }, nil, 0, errBadHeader},
		{"unknown version", func(b []byte, _ []int) []byte { b[4] = 9; return b }, nil, 0, errors.New("version")},
		{"short header", func(b []byte, _ []int) []byte { return b[:10] }, nil, 0, errBadHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, offs := encodeSegment(rows, 0)
			data = tt.corrupt(data, offs)
			var skips []string
			c, err := parseSegment(data, nil, func(off int, reason string) { skips = append(skips, reason) })
			if tt.err != nil {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(c.rows); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Fatalf("rows %v, want %v (skips %q)", got, tt.want, skips)
			}
			if c.skipped != tt.skipped || len(skips) != tt.skipped {
				t.Fatalf("skipped %d (%q), want %d", c.skipped, skips, tt.skipped)
			}
		})
	}
}

func TestDecodeRejectsInvalidEnums(t *testing.T) {
	r := sampleRows(1)[0]
	r.Kind = 7
	payload := appendRow(nil, &r)
	var d rowDecoder
	var out click.Row
	if err := d.decode(payload, &out); err == nil {
		t.Fatal("a row with an undefined kind decoded")
	}
}
