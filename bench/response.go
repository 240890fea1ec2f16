package main

import (
	"bytes"
	"errors"
)

// HTTP/1.1 response parsing for the event loop: the loop reads whatever
// the socket holds into a connection's buffer and asks parseHead whether a
// whole response head is there yet. Bodies are skipped, never copied.

var (
	errMalformed = errors.New("malformed response")
	errClosed    = errors.New("connection closed by server")
	errTooLarge  = errors.New("response head or chunked body larger than the read buffer")
)

// responseHead is what the load generator needs from a response.
type responseHead struct {
	size      int   // bytes of status line + headers + blank line
	status    int   // e.g. 302
	keepAlive bool  // the connection stays open afterwards
	bodyLen   int64 // Content-Length; -1 when absent
	chunked   bool
}

// parseHead parses the response head at the start of b. ok is false while
// the head is incomplete (read more and call again).
func parseHead(b []byte) (h responseHead, ok bool, err error) {
	end := bytes.Index(b, []byte("\n\r\n"))
	if end < 0 {
		// Heads ending in bare "\n\n" are tolerated too.
		if end = bytes.Index(b, []byte("\n\n")); end < 0 {
			return h, false, nil
		}
		h.size = end + 2
	} else {
		h.size = end + 3
	}
	head := b[:h.size]
	nl := bytes.IndexByte(head, '\n')
	line := head[:nl+1]
	// "HTTP/1.1 302 Found\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return h, false, errMalformed
	}
	for _, d := range line[9:12] {
		if d < '0' || d > '9' {
			return h, false, errMalformed
		}
		h.status = h.status*10 + int(d-'0')
	}
	h.keepAlive, h.bodyLen = line[7] == '1', -1
	for rest := head[nl+1:]; len(rest) > 2; {
		nl = bytes.IndexByte(rest, '\n')
		line, rest = rest[:nl+1], rest[nl+1:]
		switch line[0] | 0x20 {
		case 'c':
			if v, ok := headerValue(line, "content-length:"); ok {
				var valid bool
				if h.bodyLen, valid = parseDecimal(v); !valid {
					return h, false, errMalformed
				}
			} else if v, ok := headerValue(line, "connection:"); ok {
				if containsFold(v, "close") {
					h.keepAlive = false
				} else if containsFold(v, "keep-alive") {
					h.keepAlive = true
				}
			}
		case 't':
			if v, ok := headerValue(line, "transfer-encoding:"); ok && containsFold(v, "chunked") {
				h.chunked = true
			}
		}
	}
	if h.status < 200 || h.status == 204 || h.status == 304 {
		h.bodyLen, h.chunked = 0, false
	}
	return h, true, nil
}

// chunkedSize returns the length of the complete chunked body (with its
// trailers) at the start of b; ok is false while it is incomplete.
func chunkedSize(b []byte) (n int, ok bool, err error) {
	for {
		nl := bytes.IndexByte(b[n:], '\n')
		if nl < 0 {
			return 0, false, nil
		}
		line := b[n : n+nl+1]
		var size, digits int
		for _, d := range line {
			v := hexValue(d)
			if v < 0 {
				break
			}
			if digits++; digits > 15 {
				return 0, false, errMalformed
			}
			size = size<<4 | v
		}
		if digits == 0 {
			return 0, false, errMalformed
		}
		n += nl + 1
		if size == 0 { // trailers up to the blank line
			for {
				nl := bytes.IndexByte(b[n:], '\n')
				if nl < 0 {
					return 0, false, nil
				}
				blank := nl == 0 || nl == 1 && b[n] == '\r'
				n += nl + 1
				if blank {
					return n, true, nil
				}
			}
		}
		if n += size + 2; n > len(b) {
			return 0, false, nil
		}
	}
}

func hexValue(d byte) int {
	switch {
	case d >= '0' && d <= '9':
		return int(d - '0')
	case d >= 'a' && d <= 'f':
		return int(d-'a') + 10
	case d >= 'A' && d <= 'F':
		return int(d-'A') + 10
	}
	return -1
}

// headerValue returns the trimmed value of line when its name (lower case,
// with the colon) is name.
func headerValue(line []byte, name string) ([]byte, bool) {
	if len(line) < len(name) || !equalFoldASCII(line, name) {
		return nil, false
	}
	return bytes.TrimSpace(line[len(name):]), true
}

func containsFold(v []byte, word string) bool {
	for i := 0; i+len(word) <= len(v); i++ {
		if equalFoldASCII(v[i:], word) {
			return true
		}
	}
	return false
}

// equalFoldASCII reports whether b starts with lower, ignoring ASCII case
// (lower holds only lower-case letters, digits and punctuation).
func equalFoldASCII(b []byte, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func parseDecimal(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, d := range v {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	return n, true
}
