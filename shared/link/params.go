package link

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// A link's URL parameters are set on every address the link sends a
// visitor to: the destination, each targeting rule's and the app store
// deep links'. The edge applies them when it loads a link; the
// dashboard's preview shows the address they make.

// ErrBadParam is returned when a link's URL parameters make its
// destination an invalid URL.
var ErrBadParam = errors.New("parameter makes the url invalid")

// WithParams validates raw and sets each parameter on its query: a
// parameter replaces every same-named pair already in the URL (the link's
// parameters are the owner's latest word), other pairs keep their order,
// and the fragment stays last.
func WithParams(raw string, params []Param) (string, error) {
	s, err := ValidURL(raw)
	if err != nil {
		return "", err
	}
	if len(params) == 0 {
		return s, nil
	}
	frag := ""
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s, frag = s[:i], s[i:]
	}
	base, query, _ := strings.Cut(s, "?")
	var b strings.Builder
	b.WriteString(base)
	sep := byte('?')
	for pair := range strings.SplitSeq(query, "&") {
		if pair == "" || hasParam(params, pairName(pair)) {
			continue
		}
		b.WriteByte(sep)
		b.WriteString(pair)
		sep = '&'
	}
	for _, p := range params {
		if p.Name == "" {
			continue
		}
		b.WriteByte(sep)
		b.WriteString(url.QueryEscape(p.Name))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(p.Value))
		sep = '&'
	}
	b.WriteString(frag)
	out, err := ValidURL(b.String())
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadParam, err)
	}
	return out, nil
}

// ParamURL is WithParams, or "" for an empty address or one the
// parameters make invalid: the edge then leaves that rule or deep link
// out, and the dashboard's preview does the same.
func ParamURL(raw string, params []Param) string {
	if raw == "" {
		return ""
	}
	u, err := WithParams(raw, params)
	if err != nil {
		return ""
	}
	return u
}

// pairName returns the decoded name of a name=value query pair.
func pairName(pair string) string {
	name, _, _ := strings.Cut(pair, "=")
	if n, err := url.QueryUnescape(name); err == nil {
		return n
	}
	return name
}

func hasParam(params []Param, name string) bool {
	for _, p := range params {
		if p.Name == name {
			return true
		}
	}
	return false
}
