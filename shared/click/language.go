package click

// primaryLanguage returns the primary subtag (ISO 639, 2–3 letters, lower
// case) of the language the Accept-Language header prefers: the highest
// q-value, the first one on ties; "*" and q=0 entries are ignored. ok is
// false when there is none. The result points into buf.
func primaryLanguage(header []byte, buf *[3]byte) ([]byte, bool) {
	var (
		best  []byte
		bestQ = -1
	)
	for len(header) > 0 {
		var item []byte
		item, header = cutByte(header, ',')
		tag, params := cutByte(item, ';')
		q := qValue(params)
		tag = trimSpace(tag)
		primary, _ := cutByte(tag, '-')
		primary, _ = cutByte(primary, '_')
		if q > bestQ && q > 0 && validPrimary(primary) {
			best, bestQ = primary, q
		}
	}
	if best == nil {
		return nil, false
	}
	n := copy(buf[:], best)
	for i := range n {
		buf[i] |= 0x20 // ASCII letters only, see validPrimary
	}
	return buf[:n], true
}

func validPrimary(b []byte) bool {
	if len(b) < 2 || len(b) > 3 {
		return false
	}
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// qValue parses the q parameter of an Accept-Language item into thousandths
// (1000 when absent, -1 when malformed).
func qValue(params []byte) int {
	for len(params) > 0 {
		var p []byte
		p, params = cutByte(params, ';')
		p = trimSpace(p)
		if len(p) < 2 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=' {
			continue
		}
		return parseQ(p[2:])
	}
	return 1000
}

func parseQ(v []byte) int {
	if len(v) == 0 || len(v) > 5 {
		return -1
	}
	whole, frac := cutByte(v, '.')
	if len(whole) != 1 || (whole[0] != '0' && whole[0] != '1') {
		return -1
	}
	q := int(whole[0]-'0') * 1000
	scale := 100
	for _, c := range frac {
		if c < '0' || c > '9' || scale == 0 {
			return -1
		}
		q += int(c-'0') * scale
		scale /= 10
	}
	if q > 1000 {
		return -1
	}
	return q
}

func cutByte(b []byte, sep byte) (before, after []byte) {
	for i, c := range b {
		if c == sep {
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}
