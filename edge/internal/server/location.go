package server

import (
	"strings"
	"unsafe"

	"github.com/valyala/bytebufferpool"
)

var (
	strLocation     = []byte("Location")
	strCacheControl = []byte("Cache-Control")
	strNoStore      = []byte("no-store")
	locationPool    bytebufferpool.Pool
)

// s2b views a string as bytes without copying; the result must not be
// written to (fasthttp copies header values it is given).
func s2b(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// appendWithQuery appends dest with the visitor's query string q merged
// in, and returns the result.
//
// Precedence: the owner wins. Pairs of q whose name already appears in
// dest's query (which includes the link's parameters, applied when the
// link was compiled) are dropped; the others are appended in their order,
// before dest's fragment. Names are compared as sent (percent-encoded).
// Bytes that have no business in a Location header (controls, space, '#',
// non-ASCII) are percent-encoded, so the header can never carry CR/LF.
func appendWithQuery(dst []byte, dest string, q []byte) []byte {
	pre, frag := dest, ""
	if i := strings.IndexByte(dest, '#'); i >= 0 {
		pre, frag = dest[:i], dest[i:]
	}
	own := ""
	if i := strings.IndexByte(pre, '?'); i >= 0 {
		own = pre[i+1:]
	}
	dst = append(dst, pre...)
	need := byte('?')
	if strings.IndexByte(pre, '?') >= 0 {
		need = '&'
		if last := pre[len(pre)-1]; last == '?' || last == '&' {
			need = 0
		}
	}
	for len(q) > 0 {
		var pair []byte
		if i := indexByte(q, '&'); i >= 0 {
			pair, q = q[:i], q[i+1:]
		} else {
			pair, q = q, nil
		}
		if len(pair) == 0 || hasName(own, pairKey(pair)) {
			continue
		}
		if need != 0 {
			dst = append(dst, need)
		}
		need = '&'
		dst = appendQuerySafe(dst, pair)
	}
	return append(dst, frag...)
}

func pairKey(pair []byte) []byte {
	if i := indexByte(pair, '='); i >= 0 {
		return pair[:i]
	}
	return pair
}

// hasName reports whether the raw query own has a pair named name.
func hasName(own string, name []byte) bool {
	for len(own) > 0 {
		var pair string
		if i := strings.IndexByte(own, '&'); i >= 0 {
			pair, own = own[:i], own[i+1:]
		} else {
			pair, own = own, ""
		}
		k := pair
		if i := strings.IndexByte(pair, '='); i >= 0 {
			k = pair[:i]
		}
		if k == string(name) {
			return true
		}
	}
	return false
}

const hexDigits = "0123456789ABCDEF"

func appendQuerySafe(dst, b []byte) []byte {
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || c == '#' || c == '"' || c == '<' || c == '>' || c == '\\' {
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
