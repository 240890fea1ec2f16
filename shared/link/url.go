package link

import (
	"errors"
	"net"
	"net/url"
	"strings"
)

// MaxURLLen bounds every URL we store or redirect to.
const MaxURLLen = 4096

// URL validation errors; callers prefix the field name.
var (
	ErrURLRequired = errors.New("required")
	ErrURLTooLong  = errors.New("must be at most 4096 characters")
	ErrURLScheme   = errors.New("must be an absolute http or https URL")
	ErrURLHost     = errors.New("must have a valid host")
	ErrURLControl  = errors.New("must not contain spaces or control characters")
	ErrURLUserinfo = errors.New("must not contain user:password@")
)

// ValidURL checks that raw is an absolute http(s) URL with a host, free of
// control characters (a Location header must never carry CR/LF) and of
// userinfo (a classic phishing disguise), and returns it trimmed. Schemes
// such as javascript:, data:, file: and vbscript: fail the scheme rule.
func ValidURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", ErrURLRequired
	}
	if len(s) > MaxURLLen {
		return "", ErrURLTooLong
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c == 0x7f {
			return "", ErrURLControl
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", ErrURLScheme
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" || u.Opaque != "" {
		return "", ErrURLScheme
	}
	if u.User != nil {
		return "", ErrURLUserinfo
	}
	if !validHost(u.Hostname()) {
		return "", ErrURLHost
	}
	return s, nil
}

// HostOf returns the lower-case host[:port] of an already valid URL.
func HostOf(valid string) string {
	u, err := url.Parse(valid)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// HostName is host (host[:port]) without its port and without a trailing
// dot, lower case: the name a Host header carries whatever its port. The
// edge ignores the port when no domain claims it exactly, so names, not
// hosts, must be unique and must not be the default domain's. It folds
// ASCII only; comparisons of hosts a browser may spell in Unicode or
// full-width forms (loop checks) use shared/hostname, which owns the
// IDNA mapping so that this package stays standard-library only.
func HostName(host string) string {
	name, _ := SplitHost(strings.ToLower(host))
	return strings.TrimSuffix(name, ".")
}

// SplitHost splits "name:port" into "name" and ":port" ("" when there is
// none); IPv6 literals keep their brackets ("[::1]:80" -> "[::1]", ":80").
func SplitHost(h string) (name, port string) {
	i := strings.LastIndexByte(h, ':')
	if i < 0 {
		return h, ""
	}
	if strings.HasPrefix(h, "[") { // IPv6 literal: a port only right after ']'
		if j := strings.IndexByte(h, ']'); j >= 0 && i == j+1 {
			return h[:i], h[i:]
		}
		return h, ""
	}
	return h[:i], h[i:]
}

func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	if ip := net.ParseIP(h); ip != nil {
		return true
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c >= 0x80
			if !ok {
				return false
			}
		}
	}
	return true
}
