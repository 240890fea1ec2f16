package clicks

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"kurz/shared/click"
)

// Spool segment format, version 1. All integers little endian.
//
//	header (24 bytes):
//	  magic     [4]byte "KZSP"
//	  version   uint8   1
//	  flags     uint8   bit 0: outcome unknown — the rows may already be in
//	                    ClickHouse; check their click ids before inserting
//	  reserved  [2]byte
//	  firstNano int64   capture time of the first row (for the ingest watermark)
//	  rows      uint32  rows written (an upper bound after a crash)
//	  reserved  [4]byte
//	records, each:
//	  length    uint32  of the payload
//	  crc       uint32  CRC-32C (Castagnoli) of the payload
//	  payload   one click.Row, see appendRow
//
// A segment is written once (a failed batch) or appended to by a single
// goroutine (overflow), fsynced when sealed and deleted only after its rows
// were inserted. Readers skip records whose checksum fails and resynchronise
// on the next valid record; a truncated tail (a crash while appending) is
// skipped the same way.
const (
	segMagic       = "KZSP"
	segVersion     = 1
	segHeaderSize  = 24
	recHeaderSize  = 8
	maxRecordSize  = 4096 // far above the largest row: strings are capped by click.Max*
	flagCheckFirst = 1 << 0
	offFlags       = 5
	offRows        = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// segHeader is the decoded header of a segment.
type segHeader struct {
	version   uint8
	flags     uint8
	firstNano int64
	rows      uint32
}

func appendHeader(b []byte, h segHeader) []byte {
	b = append(b, segMagic...)
	b = append(b, segVersion, h.flags, 0, 0)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.firstNano))
	b = binary.LittleEndian.AppendUint32(b, h.rows)
	return append(b, 0, 0, 0, 0)
}

var errBadHeader = errors.New("not a kurz spool segment")

func parseHeader(b []byte) (segHeader, error) {
	if len(b) < segHeaderSize || string(b[:4]) != segMagic {
		return segHeader{}, errBadHeader
	}
	h := segHeader{
		version:   b[4],
		flags:     b[offFlags],
		firstNano: int64(binary.LittleEndian.Uint64(b[8:])),
		rows:      binary.LittleEndian.Uint32(b[offRows:]),
	}
	if h.version != segVersion {
		return h, fmt.Errorf("spool segment version %d, this build reads %d", h.version, segVersion)
	}
	return h, nil
}

// appendRecord appends r as one framed record.
func appendRecord(b []byte, r *click.Row) []byte {
	start := len(b)
	b = append(b, make([]byte, recHeaderSize)...)
	b = appendRow(b, r)
	payload := b[start+recHeaderSize:]
	binary.LittleEndian.PutUint32(b[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(payload, castagnoli))
	return b
}

// appendRow encodes a row: fixed-width ids, varint ids, then the strings
// as uvarint length + bytes.
func appendRow(b []byte, r *click.Row) []byte {
	b = binary.LittleEndian.AppendUint64(b, r.ClickID)
	b = binary.LittleEndian.AppendUint64(b, uint64(r.UnixNano))
	b = append(b, byte(r.Kind), byte(r.Class), byte(r.RefCategory))
	b = binary.AppendUvarint(b, r.LinkID)
	b = binary.AppendUvarint(b, r.QRID)
	b = binary.AppendUvarint(b, r.OwnerID)
	b = binary.LittleEndian.AppendUint64(b, r.Visitor)
	for _, s := range [...]string{r.Country, r.Browser, r.OS, r.Device, r.RefHost, r.Language} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

var errBadRecord = errors.New("malformed spool record")

// rowDecoder decodes rows, interning their strings: browser, OS, country
// and so on repeat in nearly every row.
type rowDecoder struct {
	strs map[string]string
}

func (d *rowDecoder) decode(p []byte, r *click.Row) error {
	if len(p) < 8+8+3 {
		return errBadRecord
	}
	r.ClickID = binary.LittleEndian.Uint64(p)
	r.UnixNano = int64(binary.LittleEndian.Uint64(p[8:]))
	r.Kind, r.Class, r.RefCategory = click.Kind(p[16]), click.Class(p[17]), click.RefCategory(p[18])
	p = p[19:]
	for _, dst := range [...]*uint64{&r.LinkID, &r.QRID, &r.OwnerID} {
		v, n := binary.Uvarint(p)
		if n <= 0 {
			return errBadRecord
		}
		*dst, p = v, p[n:]
	}
	if len(p) < 8 {
		return errBadRecord
	}
	r.Visitor, p = binary.LittleEndian.Uint64(p), p[8:]
	for _, dst := range [...]*string{&r.Country, &r.Browser, &r.OS, &r.Device, &r.RefHost, &r.Language} {
		l, n := binary.Uvarint(p)
		if n <= 0 || uint64(len(p)-n) < l {
			return errBadRecord
		}
		*dst, p = d.intern(p[n:n+int(l)]), p[n+int(l):]
	}
	if len(p) != 0 || !r.Valid() {
		return errBadRecord
	}
	return nil
}

func (d *rowDecoder) intern(b []byte) string {
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	if d.strs == nil {
		d.strs = make(map[string]string)
	}
	s := string(b)
	if len(d.strs) < 4096 {
		d.strs[s] = s
	}
	return s
}

// segContents is a parsed segment.
type segContents struct {
	header  segHeader
	rows    []click.Row
	skipped int // corrupt regions skipped (each a log line)
}

// parseSegment decodes data, appending rows to rows[:0]. Corrupt records
// and a truncated tail are skipped and reported through onSkip (offset,
// reason); they do not fail the segment.
func parseSegment(data []byte, rows []click.Row, onSkip func(off int, reason string)) (segContents, error) {
	h, err := parseHeader(data)
	if err != nil {
		return segContents{}, err
	}
	c := segContents{header: h, rows: rows[:0]}
	var dec rowDecoder
	off := segHeaderSize
	for off < len(data) {
		var r click.Row
		n, reason := nextRecord(data, off, &dec, &r)
		if reason == "" {
			c.rows = append(c.rows, r)
			off += n
			continue
		}
		c.skipped++
		next := resync(data, off+1, &dec)
		if next < 0 {
			onSkip(off, reason+"; no valid record after it, rest of segment ("+fmt.Sprint(len(data)-off)+" bytes) skipped")
			break
		}
		onSkip(off, fmt.Sprintf("%s; resumed at offset %d", reason, next))
		off = next
	}
	return c, nil
}

// nextRecord validates and decodes the record at off. It returns the
// record's total size, or a reason why it is not a valid record.
func nextRecord(data []byte, off int, dec *rowDecoder, r *click.Row) (int, string) {
	if len(data)-off < recHeaderSize {
		return 0, "truncated record header"
	}
	n := int(binary.LittleEndian.Uint32(data[off:]))
	if n == 0 || n > maxRecordSize {
		return 0, fmt.Sprintf("implausible record length %d", n)
	}
	end := off + recHeaderSize + n
	if end > len(data) {
		return 0, "truncated record"
	}
	payload := data[off+recHeaderSize : end]
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(data[off+4:]) {
		return 0, "checksum mismatch"
	}
	if err := dec.decode(payload, r); err != nil {
		return 0, err.Error()
	}
	return end - off, ""
}

// resync finds the first offset at or after from where a valid record
// starts, or -1. A false match needs a 32-bit checksum collision plus a
// well-formed row.
func resync(data []byte, from int, dec *rowDecoder) int {
	var r click.Row
	for off := from; off+recHeaderSize < len(data); off++ {
		if _, reason := nextRecord(data, off, dec, &r); reason == "" {
			return off
		}
	}
	return -1
}
