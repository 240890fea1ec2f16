package server

import (
	"bufio"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"kurz/shared/clientip"
)

// doRaw runs one raw HTTP/1.1 request (CRLF line ends added) from peer
// through the full handler: for requests e.do cannot build, such as a
// header sent in several lines.
func (e *env) doRaw(peer string, lines ...string) *fasthttp.Response {
	e.t.Helper()
	var fr fasthttp.Request
	if err := fr.Read(bufio.NewReader(strings.NewReader(strings.Join(lines, "\r\n") + "\r\n\r\n"))); err != nil {
		e.t.Fatal(err)
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&fr, &net.TCPAddr{IP: netip.MustParseAddr(peer).AsSlice(), Port: 40000}, nil)
	e.srv.Handler(&ctx)
	var resp fasthttp.Response
	ctx.Response.CopyTo(&resp)
	return &resp
}

// TestForwardedForLines: X-Forwarded-For sent in several lines is one list
// (joined with "," in order) for every consumer on the edge: the click's
// client IP and the password limiter's. The client's own first line and
// our proxies' later lines are told apart as in a single line; reading
// only the first line (the client's pick) or only the last (all trusted
// hops) gets it wrong.
func TestForwardedForLines(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Resolver = clientip.New([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
		c.PasswordAttempts = 2
	})
	plain := e.addLink(linkRow{Alias: "plain", URL: "https://example.com/plain"})
	e.addLink(linkRow{Alias: "locked", URL: "https://example.com/", Password: "right"})
	xff := []string{"X-Forwarded-For: 6.6.6.6", "X-Forwarded-For: 198.51.100.9", "X-Forwarded-For: 127.0.0.2"}
	client := netip.MustParseAddr("198.51.100.9")

	r := e.doRaw("127.0.0.1", append([]string{"GET /plain HTTP/1.1", "Host: kurz.test", "User-Agent: " + browserUA}, xff...)...)
	expect(t, r, 302, "https://example.com/plain")
	if h := e.rec.last(t); h.LinkID != plain || netip.AddrFrom16(h.IP).Unmap() != client {
		t.Fatalf("click of link %d from %v, want %d from %v", h.LinkID, netip.AddrFrom16(h.IP).Unmap(), plain, client)
	}

	post := func(form string, xff ...string) *fasthttp.Response {
		t.Helper()
		head := []string{"POST /locked HTTP/1.1", "Host: kurz.test", "User-Agent: " + browserUA,
			"Content-Type: application/x-www-form-urlencoded", "Content-Length: " + fmtID(int64(len(form)))}
		return e.doRaw("127.0.0.1", append(append(head, xff...), "", form)...)
	}
	for range 2 {
		expect(t, post("password=wrong", xff...), 403, "")
	}
	// The two wrong attempts were the client's at 198.51.100.9 ...
	expect(t, post("password=wrong", "X-Forwarded-For: 198.51.100.9"), 429, "")
	// ... not those of the address it put in its own first line.
	expect(t, post("password=wrong", "X-Forwarded-For: 6.6.6.6"), 403, "")
}
