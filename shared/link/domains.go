package link

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Domain is a branded short domain. Host is what the edge matches the Host
// header against; Domain is the normalised scheme://host[:port] shown to
// the user and used to build short URLs.
type Domain struct {
	ID           int64
	UserID       int64
	Host         string
	Domain       string
	RedirectRoot string // "" = none
	Redirect404  string // "" = none
	CreatedAt    time.Time
}

// Domain validation errors; callers prefix the field name.
var (
	ErrDomainExtra    = errors.New("must be only scheme and host such as https://go.example.com: no path, query, fragment or user:password@")
	ErrDomainPort     = errors.New("must have a port from 1 to 65535 when a port is given")
	ErrDomainASCII    = errors.New("must use the ASCII (punycode, xn--) form of an international host name")
	ErrDomainReserved = errors.New("is the service's default short domain")
)

// InUseError is returned when a record cannot be deleted because N other
// records still reference it.
type InUseError struct {
	N int64
}

func (e *InUseError) Error() string { return fmt.Sprintf("in use by %d records", e.N) }

// ParseDomain validates a branded domain given as an absolute http(s) URL
// with a host and nothing else (a lone "/" path is tolerated) and returns the
// normalised address scheme://host[:port] and the host key host[:port],
// both lower case, with a port equal to the scheme's default dropped.
func ParseDomain(raw string) (domain, host string, err error) {
	s, err := ValidURL(raw)
	if err != nil {
		return "", "", err
	}
	if strings.ContainsAny(s, "?#@") {
		return "", "", ErrDomainExtra
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", "", ErrURLScheme
	}
	if u.Path != "" && u.Path != "/" || u.RawPath != "" {
		return "", "", ErrDomainExtra
	}
	for i := 0; i < len(u.Host); i++ {
		if u.Host[i] >= 0x80 {
			return "", "", ErrDomainASCII
		}
	}
	scheme := strings.ToLower(u.Scheme)
	name := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if name == "" {
		return "", "", ErrURLHost
	}
	if strings.Contains(name, ":") { // IPv6 literal
		name = "[" + name + "]"
	}
	host = name
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", "", ErrDomainPort
		}
		if !(scheme == "http" && n == 80 || scheme == "https" && n == 443) {
			host = name + ":" + strconv.Itoa(n)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", "", ErrDomainPort
	}
	return scheme + "://" + host, host, nil
}

// ShortURL is the public address of alias on this domain.
func (d *Domain) ShortURL(alias string) string { return d.Domain + "/" + alias }

// NotFoundError is ErrNotFound naming what was missing, for requests that
// touch two records (e.g. assigning a link to a campaign).
type NotFoundError struct {
	What string
}

func (e *NotFoundError) Error() string { return e.What + " not found" }

// Is makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }
