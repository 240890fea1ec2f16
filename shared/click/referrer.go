package click

import "strings"

// refInfo is what the stats keep of a Referer.
type refInfo struct {
	host string
	cat  RefCategory
}

// refClassifier turns Referer headers into (host, category), caching by
// host so that the interned host string is shared by all rows.
type refClassifier struct {
	cache *boundedCache[refInfo]
}

func newRefClassifier(cacheSize int) *refClassifier {
	return &refClassifier{cache: newBoundedCache[refInfo](cacheSize)}
}

func (c *refClassifier) classify(ref []byte) refInfo {
	if len(ref) == 0 {
		return refInfo{cat: RefDirect}
	}
	var buf [MaxReferer]byte
	host, ok := refererHost(ref, &buf)
	if !ok {
		return refInfo{cat: RefOther}
	}
	if info, ok := c.cache.get(host); ok {
		return info
	}
	info := refInfo{host: string(host)}
	info.cat = categorize(info.host)
	c.cache.put(info.host, info)
	return info
}

// refererHost extracts the host of a Referer URL into buf: lower case,
// without port, user info, trailing dot or a leading "www.". It reports
// false when no plausible host is there.
func refererHost(ref []byte, buf *[MaxReferer]byte) ([]byte, bool) {
	s := trimSpace(ref)
	if i := indexScheme(s); i >= 0 {
		s = s[i+3:]
	} else if len(s) >= 2 && s[0] == '/' && s[1] == '/' {
		s = s[2:]
	}
	for i, c := range s {
		if c == '/' || c == '?' || c == '#' {
			s = s[:i]
			break
		}
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '@' {
			s = s[i+1:]
			break
		}
	}
	if len(s) > 0 && s[0] == '[' { // IPv6 literal
		end := 0
		for i, c := range s {
			if c == ']' {
				end = i
				break
			}
		}
		if end == 0 {
			return nil, false
		}
		s = s[1:end]
	} else {
		for i := len(s) - 1; i >= 0; i-- {
			if s[i] == ':' {
				s = s[:i]
				break
			}
		}
	}
	for len(s) > 0 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	n := 0
	for _, c := range s {
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '.', c == '-', c == '_', c == ':':
		default:
			return nil, false
		}
		buf[n] = c
		n++
	}
	host := buf[:n]
	if len(host) > 4 && string(host[:4]) == "www." {
		host = host[4:]
	}
	return host, len(host) > 0
}

func indexScheme(s []byte) int {
	for i := 0; i+2 < len(s); i++ {
		c := s[i]
		if c == ':' && s[i+1] == '/' && s[i+2] == '/' {
			return i
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return -1
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

// categorize looks host up in the referrer table: listed hosts and their
// subdomains first (longest suffix wins), then brands.
func categorize(host string) RefCategory {
	for s := host; ; {
		if c, ok := refHosts[s]; ok {
			return c
		}
		i := strings.IndexByte(s, '.')
		if i < 0 {
			break
		}
		s = s[i+1:]
	}
	for s := host; ; {
		label, rest, ok := strings.Cut(s, ".")
		if !ok {
			break
		}
		if c, ok := refBrands[label]; ok {
			return c
		}
		s = rest
	}
	return RefOther
}
