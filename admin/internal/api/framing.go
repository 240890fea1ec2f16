package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"kurz/admin/internal/safefetch"
	"kurz/shared/link"
)

// Frame and overlay links show their destination in an iframe on the
// short link's host. A destination that forbids being framed
// (X-Frame-Options, CSP frame-ancestors) cannot load there, and browsers
// give the frame page no way to notice: the visitor would see the
// browser's error page. So writes of such links look at the destinations'
// response headers, answer "warnings" (the owner learns it before the
// visitors do) and record the refusal on the link (links.frame_refused),
// which makes the edge serve it as a plain redirect. The write itself
// never depends on the check.

// Limits of the framing check: it runs inside the write request, so it is
// short and bounded however many targets the link has. The server-wide
// bounds (slots, remembered answers) are in framecheck.go.
const (
	frameCheckTimeout = 3 * time.Second
	maxFrameChecks    = 5
	// frameMaxRedirects caps the redirects followed per request (HEAD and
	// GET each), below safefetch's default: at most 5 × 2 × 3 requests per
	// write.
	frameMaxRedirects = 2
	// maxReasonLen caps the header text quoted back in a warning.
	maxReasonLen = 120
)

// framed reports whether a link of type typ shows its destination in an
// iframe (splash pages redirect, so they are not).
func framed(typ string) bool { return typ == link.TypeFrame || typ == link.TypeOverlay }

// frameState is the outcome of checking one destination.
type frameState int

const (
	verdictAllowed   frameState = iota
	verdictRefused              // the headers forbid framing on the short link's origin
	verdictUnchecked            // unreachable, refused by the address policy, or too slow
	verdictBusy                 // not tried: every server-wide slot was taken
)

// frameVerdict is what the check found for one destination; reason is the
// refusing header, for verdictRefused.
type frameVerdict struct {
	state  frameState
	reason string
}

// checkFraming runs the framing check of the just-written link l, returns
// its warnings and records on the link whether a destination refuses
// frames. A check that found no refusal but could not
// look at every destination records nothing: the link keeps its previous
// state (a new link: not refusing), so a busy server cannot turn a
// recorded refusal back into a broken frame. A failed record is logged,
// not returned: the link is written, and the flag only chooses how the
// edge shows it.
func (s *Server) checkFraming(ctx context.Context, l *link.Link) []string {
	res := s.frameWarnings(ctx, l)
	if !res.refused && !res.complete {
		return res.warnings
	}
	if err := s.store.SetFrameRefused(ctx, l.UserID, l.ID, res.refused); err != nil {
		s.log.Warn("record framing check", "link", l.ID, "err", err)
	}
	return res.warnings
}

// frameResult is the framing check of one link: one warning per
// destination that refuses framing or was not checked, whether any
// refuses, and whether every destination was checked.
type frameResult struct {
	warnings []string
	refused  bool
	complete bool
}

// frameWarnings checks where l sends visitors (the long URL, then the
// targeting links: at most maxFrameChecks distinct URLs, side by side,
// within frameCheckTimeout together). A link that is not framed is
// complete and not refused, without any request.
func (s *Server) frameWarnings(ctx context.Context, l *link.Link) frameResult {
	if !framed(l.Type) {
		return frameResult{complete: true}
	}
	ancestor, err := url.Parse(l.ShortURL(s.cfg.BaseURL))
	if err != nil {
		return frameResult{complete: true} // our own configured URL: validated at start-up
	}
	opt := s.frameFetch
	if opt.Timeout <= 0 || opt.Timeout > frameCheckTimeout {
		opt.Timeout = frameCheckTimeout
	}
	if opt.MaxRedirects == 0 || opt.MaxRedirects > frameMaxRedirects {
		opt.MaxRedirects = frameMaxRedirects
	}
	checkCtx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	dests := frameDestinations(l)
	verdicts := make([]frameVerdict, len(dests))
	var wg sync.WaitGroup
	for i, d := range dests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			verdicts[i] = s.checkDestination(checkCtx, d.url, ancestor, opt)
		}()
	}
	wg.Wait()
	res := frameResult{complete: true}
	for i, v := range verdicts {
		if w := frameWarning(dests[i], v, opt.Timeout); w != "" {
			res.warnings = append(res.warnings, w)
		}
		res.refused = res.refused || v.state == verdictRefused
		res.complete = res.complete && (v.state == verdictAllowed || v.state == verdictRefused)
	}
	return res
}

// frameDestinations lists l's distinct destinations with the field each
// came from, the long URL first, at most maxFrameChecks.
func frameDestinations(l *link.Link) []urlField {
	all := []urlField{{"url", l.LongURL}}
	for i, g := range l.GeoTargets {
		all = append(all, urlField{targetField("geotarget", i), g.Link})
	}
	for i, d := range l.DeviceTargets {
		all = append(all, urlField{targetField("devicetarget", i), d.Link})
	}
	for i, g := range l.LangTargets {
		all = append(all, urlField{targetField("languagetarget", i), g.Link})
	}
	var out []urlField
	seen := map[string]bool{}
	for _, d := range all {
		if !seen[d.url] && len(out) < maxFrameChecks {
			seen[d.url] = true
			out = append(out, d)
		}
	}
	return out
}

// checkDestination checks one destination for a frame on ancestor: a fresh
// remembered answer if there is one, else a fetch of its headers in a
// free slot, or verdictBusy when there is none. The answer is keyed by the
// ancestor's origin too, since frame-ancestors may allow one of our
// domains and not another. Answers are remembered for frameAnswerTTL,
// failures for frameFailureTTL, except when the caller went away (ctx
// canceled: that says nothing about the destination).
func (s *Server) checkDestination(ctx context.Context, rawURL string, ancestor *url.URL, opt safefetch.Options) frameVerdict {
	key := strings.ToLower(ancestor.Scheme+"://"+ancestor.Host) + " " + rawURL
	if v, ok := s.frames.get(key); ok {
		return v
	}
	if !s.frames.tryAcquire() {
		return frameVerdict{state: verdictBusy}
	}
	defer s.frames.release()
	_, h, err := safefetch.Headers(ctx, rawURL, opt)
	if err != nil {
		v := frameVerdict{state: verdictUnchecked}
		if !errors.Is(ctx.Err(), context.Canceled) {
			s.frames.put(key, v, frameFailureTTL)
		}
		return v
	}
	v := frameVerdict{state: verdictAllowed}
	if reason := framingBlock(h, ancestor); reason != "" {
		v = frameVerdict{state: verdictRefused, reason: reason}
	}
	s.frames.put(key, v, frameAnswerTTL)
	return v
}

// frameWarning is the warning about destination d, or "" when it may be
// framed.
func frameWarning(d urlField, v frameVerdict, timeout time.Duration) string {
	shown := originOf(d.url)
	const consequence = "; if it forbids framing, visitors see the browser's error page in the frame"
	switch v.state {
	case verdictRefused:
		return fmt.Sprintf("%s: %s forbids framing (%s); the link is served as a plain redirect to it, without the frame",
			d.field, shown, v.reason)
	case verdictUnchecked:
		return fmt.Sprintf("%s: %s could not be checked for framing (unreachable, or no answer within %s)%s",
			d.field, shown, timeout, consequence)
	case verdictBusy:
		return fmt.Sprintf("%s: %s was not checked for framing (the server is busy; try again)%s",
			d.field, shown, consequence)
	}
	return ""
}

// originOf is scheme://host of a valid URL, the part a warning shows.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

// framingBlock applies the browser's rules to a response's headers for a
// frame on ancestor and returns why framing is refused, or "" when it is
// allowed. An enforced CSP with frame-ancestors decides alone (browsers
// then ignore X-Frame-Options); otherwise X-Frame-Options does, as the
// HTML standard processes it.
func framingBlock(h http.Header, ancestor *url.URL) string {
	policies := 0
	for _, header := range h.Values("Content-Security-Policy") {
		for _, policy := range strings.Split(header, ",") {
			sources, ok := frameAncestors(policy)
			if !ok {
				continue
			}
			policies++
			if !ancestorsAllow(sources, ancestor) {
				return clip("Content-Security-Policy: frame-ancestors " + strings.Join(sources, " "))
			}
		}
	}
	if policies > 0 {
		return ""
	}
	return xfoBlock(h.Values("X-Frame-Options"))
}

// frameAncestors returns the source list of a policy's first
// frame-ancestors directive (directive names are case-insensitive; later
// duplicates are ignored, as browsers ignore them).
func frameAncestors(policy string) ([]string, bool) {
	for _, directive := range strings.Split(policy, ";") {
		fields := strings.Fields(directive)
		if len(fields) > 0 && strings.EqualFold(fields[0], "frame-ancestors") {
			return fields[1:], true
		}
	}
	return nil, false
}

// ancestorsAllow matches ancestor against a frame-ancestors source list
// (CSP level 3): *, scheme sources and host sources can allow it; 'self'
// cannot, since the short link's host is never the destination's; an
// empty list or 'none' allows nothing.
func ancestorsAllow(sources []string, ancestor *url.URL) bool {
	for _, src := range sources {
		if sourceMatches(strings.ToLower(src), ancestor) {
			return true
		}
	}
	return false
}

func sourceMatches(src string, anc *url.URL) bool {
	scheme := strings.ToLower(anc.Scheme)
	switch {
	case src == "*":
		return scheme == "http" || scheme == "https"
	case strings.HasPrefix(src, "'"):
		return false // 'none', 'self' and other keywords
	case strings.HasSuffix(src, ":") && !strings.Contains(src, "/"):
		return schemeMatches(strings.TrimSuffix(src, ":"), scheme)
	}
	rest := src
	if s, r, ok := strings.Cut(src, "://"); ok {
		if !schemeMatches(s, scheme) {
			return false
		}
		rest = r
	} else if scheme != "http" && scheme != "https" {
		return false
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i] // frame-ancestors compares origins: no path
	}
	host, port := rest, ""
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.HasSuffix(rest, "]") {
		host, port = rest[:i], rest[i+1:]
	}
	host = strings.Trim(host, "[]") // IPv6 literal, as Hostname gives it
	ancHost := strings.ToLower(anc.Hostname())
	switch {
	case host == "*":
	case strings.HasPrefix(host, "*."):
		if !strings.HasSuffix(ancHost, host[1:]) {
			return false
		}
	case host != ancHost:
		return false
	}
	return portMatches(port, anc)
}

// schemeMatches: a source's http also allows https (the secure upgrade).
func schemeMatches(src, scheme string) bool {
	return src == scheme || src == "http" && scheme == "https"
}

func portMatches(port string, anc *url.URL) bool {
	ancPort := anc.Port()
	if ancPort == "" {
		ancPort = map[string]string{"http": "80", "https": "443"}[strings.ToLower(anc.Scheme)]
	}
	switch port {
	case "*":
		return true
	case "":
		return ancPort == "80" || ancPort == "443"
	}
	return port == ancPort
}

// xfoBlock processes X-Frame-Options values as the HTML standard does: a
// single "deny" or "sameorigin" refuses (our host is never the
// destination's origin), conflicting values refuse, anything else (such as
// the obsolete ALLOW-FROM, which browsers ignore) allows.
func xfoBlock(values []string) string {
	set := map[string]bool{}
	var raw []string
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			p := strings.ToLower(strings.TrimSpace(part))
			if p != "" && !set[p] {
				set[p] = true
				raw = append(raw, strings.TrimSpace(part))
			}
		}
	}
	blocked := false
	switch {
	case len(set) > 1:
		blocked = set["deny"] || set["sameorigin"] || set["allowall"]
	case len(set) == 1:
		blocked = set["deny"] || set["sameorigin"]
	}
	if !blocked {
		return ""
	}
	return clip("X-Frame-Options: " + strings.Join(raw, ", "))
}

func clip(s string) string {
	if len(s) <= maxReasonLen {
		return s
	}
	return strings.ToValidUTF8(s[:maxReasonLen], "") + "…"
}
