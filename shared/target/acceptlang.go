package target

import "bytes"

// maxAcceptTags bounds the Accept-Language entries kept (browsers send
// fewer than ten); maxAcceptParts bounds the comma-separated parts
// inspected, so a header of a thousand commas costs no more than a normal one.
const (
	maxAcceptTags  = 16
	maxAcceptParts = 64
)

// visitorTag is one Accept-Language entry with its subtags packed as in
// langRule. Zero script or region means the visitor did not send one.
type visitorTag struct {
	lang, script, region uint32
	q                    uint16 // quality in thousandths, 0..1000
}

// acceptList is a parsed Accept-Language header. It lives on the caller's
// stack: parsing and matching never allocate.
type acceptList struct {
	n    int
	tags [maxAcceptTags]visitorTag // sorted by descending q, stable
}

// parse fills l from header. Entries that are not language[-script]
// [-region][-anything] with an optional valid q are skipped, as is "*":
// a wildcard says nothing a targeting rule could use, and the link's own
// URL is the fallback anyway.
func (l *acceptList) parse(header []byte) {
	l.n = 0
	for parts := 0; len(header) > 0 && l.n < maxAcceptTags && parts < maxAcceptParts; parts++ {
		part := header
		if i := bytes.IndexByte(header, ','); i >= 0 {
			part, header = header[:i], header[i+1:]
		} else {
			header = nil
		}
		if t, ok := parseAcceptPart(part); ok {
			l.insert(t)
		}
	}
}

// insert keeps tags sorted by descending q; equal q keep arrival order.
func (l *acceptList) insert(t visitorTag) {
	i := l.n
	for i > 0 && l.tags[i-1].q < t.q {
		l.tags[i] = l.tags[i-1]
		i--
	}
	l.tags[i] = t
	l.n++
}

// refuses reports whether a q=0 entry names exactly the rule's language
// (RFC 9110: q=0 means "not acceptable").
func (l *acceptList) refuses(r *langRule) bool {
	for i := l.n - 1; i >= 0 && l.tags[i].q == 0; i-- {
		if r.score(&l.tags[i]) == 3 {
			return true
		}
	}
	return false
}

func parseAcceptPart(p []byte) (visitorTag, bool) {
	tag := p
	q := uint16(1000)
	if i := bytes.IndexByte(p, ';'); i >= 0 {
		tag = p[:i]
		var ok bool
		if q, ok = parseParams(p[i+1:]); !ok {
			return visitorTag{}, false
		}
	}
	t, ok := parseVisitorTag(trimSpace(tag))
	t.q = q
	return t, ok
}

// parseParams finds the q parameter among ";"-separated parameters;
// others are ignored. A malformed q invalidates the entry.
func parseParams(p []byte) (uint16, bool) {
	q := uint16(1000)
	for len(p) > 0 {
		param := p
		if i := bytes.IndexByte(p, ';'); i >= 0 {
			param, p = p[:i], p[i+1:]
		} else {
			p = nil
		}
		param = trimSpace(param)
		if len(param) >= 2 && lower(param[0]) == 'q' && param[1] == '=' {
			var ok bool
			if q, ok = parseQ(trimSpace(param[2:])); !ok {
				return 0, false
			}
		}
	}
	return q, true
}

// parseQ parses an RFC 9110 qvalue: "0" ["." 0*3DIGIT] / "1" ["." 0*3"0"].
func parseQ(b []byte) (uint16, bool) {
	if len(b) == 0 || (b[0] != '0' && b[0] != '1') {
		return 0, false
	}
	q := uint16(b[0]-'0') * 1000
	if len(b) == 1 {
		return q, true
	}
	if b[1] != '.' || len(b) > 5 {
		return 0, false
	}
	scale := uint16(100)
	for _, c := range b[2:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		q += uint16(c-'0') * scale
		scale /= 10
	}
	if q > 1000 {
		return 0, false
	}
	return q, true
}

// parseVisitorTag reads language[-script][-region] and ignores whatever
// follows (variants, extensions). "_" is accepted as a separator because
// some clients send POSIX locales ("en_US").
func parseVisitorTag(b []byte) (visitorTag, bool) {
	var t visitorTag
	for n := 0; len(b) > 0; n++ {
		sub := b
		if i := indexSep(b); i >= 0 {
			sub, b = b[:i], b[i+1:]
			if len(b) == 0 {
				return t, false // trailing separator
			}
		} else {
			b = nil
		}
		switch {
		case n == 0:
			if (len(sub) != 2 && len(sub) != 3) || !allLetters(sub) {
				return t, false
			}
			t.lang = packLowerBytes(sub)
		case len(sub) == 4 && allLetters(sub) && t.script == 0 && t.region == 0:
			t.script = packLowerBytes(sub)
		case t.region == 0 && ((len(sub) == 2 && allLetters(sub)) || (len(sub) == 3 && allDigits(sub))):
			t.region = packUpperBytes(sub)
		case len(sub) == 0 || !allAlnum(sub):
			return t, false
		default:
			return t, true // a variant or extension: the rest is irrelevant here
		}
	}
	return t, t.lang != 0
}

func indexSep(b []byte) int {
	for i, x := range b {
		if x == '-' || x == '_' {
			return i
		}
	}
	return -1
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func allLetters(b []byte) bool {
	for _, c := range b {
		if !isLetter(c) {
			return false
		}
	}
	return true
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func allAlnum(b []byte) bool {
	for _, c := range b {
		if !isLetter(c) && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func packLowerBytes(b []byte) uint32 {
	var k uint32
	for i := 0; i < len(b) && i < 4; i++ {
		k = k<<8 | uint32(lower(b[i]))
	}
	return k
}

func packUpperBytes(b []byte) uint32 {
	var k uint32
	for i := 0; i < len(b) && i < 4; i++ {
		k = k<<8 | uint32(upper(b[i]))
	}
	return k
}
