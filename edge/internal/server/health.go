package server

import (
	"context"
	"time"

	"github.com/valyala/fasthttp"
)

// healthz: the process is alive.
func (s *Server) healthz(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString("ok\n")
}

// readyz: the link cache's start-up warm-up is done, PostgreSQL answers
// within a second and the click pipeline is healthy. An edge that is not ready can still serve cached links; the
// orchestrator decides whether to route to it.
func (s *Server) readyz(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("text/plain; charset=utf-8")
	if s.cat.Warming() {
		// Still bulk-loading the link cache: serving works (misses load
		// lazily), but an orchestrator should wait for the warm cache.
		ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
		ctx.SetBodyString("warming\n")
		return
	}
	c, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.cat.Ping(c); err != nil {
		ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
		ctx.SetBodyString("postgres: unavailable\n")
		return
	}
	if s.cfg.PipelineReady != nil {
		if err := s.cfg.PipelineReady(); err != nil {
			ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
			ctx.SetBodyString("clicks: " + err.Error() + "\n")
			return
		}
	}
	ctx.SetBodyString("ready\n")
}
