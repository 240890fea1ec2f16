package server

import (
	"log/slog"
	"net"
	"path/filepath"
	"testing"

	"github.com/valyala/fasthttp"

	"kurz/edge/internal/clicks"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/geoip"
)

// withPipeline wires the real click pipeline (a fresh ClickHouse database)
// as the hand-off, so benchmarks and allocation tests measure TryPush too.
func withPipeline(tb testing.TB) (envOption, *clicks.Pipeline) {
	tb.Helper()
	conn, _ := chtest.New(tb)
	enr, err := click.NewEnricher(click.EnricherConfig{Secret: []byte("s")})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := clicks.New(clicks.Config{Conn: conn, Enricher: enr, SpoolDir: filepath.Join(tb.TempDir(), "spool"),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close(t0()) }) //nolint:errcheck
	return func(c *Config) { c.Push = p.TryPush }, p
}

// hotCtx prepares a reusable request context for path, served once so the
// link is cached.
func hotCtx(tb testing.TB, e *env, path, ua string, headers map[string]string) *fasthttp.RequestCtx {
	tb.Helper()
	var req fasthttp.Request
	req.SetRequestURI(path)
	req.Header.SetHost("kurz.test")
	req.Header.SetUserAgent(ua)
	req.Header.Set("Referer", "https://news.example.com/story")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	ctx := new(fasthttp.RequestCtx)
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(203, 0, 113, 9), Port: 5000}, nil)
	e.srv.Handler(ctx) // miss: loads and caches
	e.cat.Wait()
	ctx.Response.Reset()
	e.srv.Handler(ctx)
	if ctx.Response.StatusCode() != 302 {
		tb.Fatalf("status %d", ctx.Response.StatusCode())
	}
	return ctx
}

func serveLoop(ctx *fasthttp.RequestCtx, s *Server) {
	ctx.Response.Reset()
	s.Handler(ctx)
}

func benchEnv(b *testing.B, opts ...envOption) (*env, *clicks.Pipeline) {
	b.Helper()
	withP, p := withPipeline(b)
	e := newEnv(b, append([]envOption{withP}, opts...)...)
	return e, p
}

func targetedLink() linkRow {
	return linkRow{Alias: "tgt", URL: "https://example.com/default",
		Geo:    [][2]string{{"US", "https://example.com/us"}, {"GB", "https://example.com/gb"}, {"DE", "https://example.com/de"}},
		Device: [][2]string{{"iphone", "https://example.com/iphone"}, {"android", "https://example.com/android"}},
		Lang:   [][2]string{{"es", "https://example.com/es"}, {"fr", "https://example.com/fr"}, {"ja", "https://example.com/ja"}},
	}
}

func geoOption(tb testing.TB) envOption {
	path := filepath.Join(tb.TempDir(), "geo.mmdb")
	if err := geoip.WriteTestDB(path, map[string]string{"203.0.113.0/24": "JP"}); err != nil {
		tb.Fatal(err)
	}
	db, err := geoip.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return func(c *Config) { c.CountryOf = db.Country }
}

// BenchmarkRedirectHit: a cache hit on a direct link, click hand-off to the
// real pipeline included.
func BenchmarkRedirectHit(b *testing.B) {
	e, _ := benchEnv(b)
	e.addLink(linkRow{Alias: "hot", URL: "https://example.com/a/long/landing/page?utm_source=x"})
	ctx := hotCtx(b, e, "/hot", windowsUA, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serveLoop(ctx, e.srv)
	}
}

// BenchmarkRedirectHitQuery: the same with a visitor query string to merge.
func BenchmarkRedirectHitQuery(b *testing.B) {
	e, _ := benchEnv(b)
	e.addLink(linkRow{Alias: "hot", URL: "https://example.com/landing?utm_source=x"})
	ctx := hotCtx(b, e, "/hot?fbclid=abc123&utm_source=y", windowsUA, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serveLoop(ctx, e.srv)
	}
}

// BenchmarkRedirectTargeted: geo (GeoIP on the client IP) + device +
// language rules evaluated; the language rule decides.
func BenchmarkRedirectTargeted(b *testing.B) {
	e, _ := benchEnv(b, geoOption(b))
	e.addLink(targetedLink())
	ctx := hotCtx(b, e, "/tgt", windowsUA, map[string]string{"Accept-Language": "de-DE,de;q=0.9,fr;q=0.8,en;q=0.5"})
	if loc := string(ctx.Response.Header.Peek("Location")); loc != "https://example.com/fr" {
		b.Fatalf("Location %q", loc)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serveLoop(ctx, e.srv)
	}
}

// BenchmarkRedirectHitParallel: the hit path from all cores at once (no
// shared locks on the path).
func BenchmarkRedirectHitParallel(b *testing.B) {
	e, _ := benchEnv(b)
	e.addLink(linkRow{Alias: "hot", URL: "https://example.com/landing"})
	hotCtx(b, e, "/hot", windowsUA, nil)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := hotCtx(b, e, "/hot", windowsUA, nil)
		for pb.Next() {
			serveLoop(ctx, e.srv)
		}
	})
}

// BenchmarkScanHeaders is the per-visit pass over the request headers
// (observe), with a browser's usual headers behind a trusted proxy.
func BenchmarkScanHeaders(b *testing.B) {
	var req fasthttp.Request
	req.Header.SetHost("kurz.test")
	req.Header.SetUserAgent("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15")
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("Accept-Language", "de-DE,de;q=0.9")
	req.Header.Set("Referer", "https://news.example.com/story")
	req.Header.Set("X-Forwarded-For", "203.0.113.7")
	req.Header.Set("CF-IPCountry", "DE")
	req.Header.Set("Connection", "keep-alive")
	s := &Server{countryHeader: []byte("CF-IPCountry")}
	b.ReportAllocs()
	for b.Loop() {
		r := s.scanHeaders(&req.Header)
		if len(r.country) != 2 {
			b.Fatal(string(r.country))
		}
	}
}
