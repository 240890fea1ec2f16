package server

import (
	"bufio"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// BenchmarkServeTCP: one keep-alive loopback connection, request after
// request, through a real fasthttp server and the kernel. It isolates what
// the server configuration costs per request (the handler is a bare 302):
// fasthttp's own per-request timeouts against CoarseDeadlines.
func BenchmarkServeTCP(b *testing.B) {
	handler := func(ctx *fasthttp.RequestCtx) {
		ctx.Response.SetStatusCode(fasthttp.StatusFound)
		ctx.Response.Header.SetCanonical(strLocation, []byte("https://example.com/landing"))
	}
	cases := []struct {
		name string
		srv  func() *fasthttp.Server
		wrap func(net.Listener) net.Listener
	}{
		{"fasthttp-timeouts", func() *fasthttp.Server {
			return &fasthttp.Server{Handler: handler, NoDefaultServerHeader: true, NoDefaultContentType: true,
				ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second, IdleTimeout: 90 * time.Second}
		}, func(ln net.Listener) net.Listener { return ln }},
		{"coarse-deadlines", func() *fasthttp.Server {
			return &fasthttp.Server{Handler: handler, NoDefaultServerHeader: true, NoDefaultContentType: true}
		}, func(ln net.Listener) net.Listener { return CoarseDeadlines(ln, ConnReadTimeout, ConnWriteTimeout) }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			s := tc.srv()
			go s.Serve(tc.wrap(ln)) //nolint:errcheck // ends at Shutdown
			defer s.Shutdown()      //nolint:errcheck
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			req := []byte("GET /hot HTTP/1.1\r\nHost: kurz.test\r\nUser-Agent: bench\r\n\r\n")
			br := bufio.NewReader(c)
			var resp fasthttp.Response
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				if err := resp.Read(br); err != nil {
					b.Fatal(err)
				}
				if resp.StatusCode() != fasthttp.StatusFound {
					b.Fatalf("status %d", resp.StatusCode())
				}
			}
			// CPU time of the whole process (client included, the same in
			// both cases) per request: wall time on a shared machine says
			// more about the neighbours than about the server.
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the user+system CPU time of this process in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
