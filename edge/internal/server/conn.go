package server

import (
	"net"
	"sync/atomic"
	"time"
)

// Connection timeouts of the edge, kept by CoarseDeadlines rather than by
// fasthttp.
const (
	// ConnReadTimeout bounds every read: an idle keep-alive connection, or
	// a client that stops sending mid-request, is closed after it.
	ConnReadTimeout = 30 * time.Second
	// ConnWriteTimeout bounds every write of a response.
	ConnWriteTimeout = 10 * time.Second
	// deadlineGrain: a deadline is refreshed when it was set longer ago
	// than this, so an effective timeout lies in (timeout-grain, timeout].
	deadlineGrain = int64(time.Second)
)

// CoarseDeadlines wraps ln so that its connections refresh their read and
// write deadlines at most once per second instead of three times per
// request. fasthttp's ReadTimeout, IdleTimeout and WriteTimeout each
// cost a SetDeadline (a runtime timer update) plus a time.Now per
// request: 7% of the edge's CPU in a profile of cache-hit redirects (see
// edge/PERFORMANCE.md). The server from NewHTTPServer leaves them unset
// and relies on this listener.
//
// The difference in protection: fasthttp's ReadTimeout bounds the whole
// request; here each read is bounded, like nginx's client_header_timeout,
// so a client trickling a byte every few seconds keeps its connection (a
// goroutine and a 4 KiB buffer) until the header size limit is reached.
//
// read and write are the timeouts (serve passes ConnReadTimeout and
// ConnWriteTimeout).
func CoarseDeadlines(ln net.Listener, read, write time.Duration) net.Listener {
	return &deadlineListener{Listener: ln, read: read, write: write}
}

type deadlineListener struct {
	net.Listener
	read, write time.Duration
}

func (l *deadlineListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &deadlineConn{Conn: c, read: l.read, write: l.write}, nil
}

// deadlineConn remembers when it last set each deadline. Reads and writes
// may come from different goroutines (net.Conn allows it), hence atomics.
type deadlineConn struct {
	net.Conn
	read, write       time.Duration
	readSet, writeSet atomic.Int64 // unix ns of the last SetReadDeadline / SetWriteDeadline
}

func (c *deadlineConn) Read(b []byte) (int, error) {
	now := time.Now()
	if n := now.UnixNano(); n-c.readSet.Load() >= deadlineGrain {
		c.readSet.Store(n)
		if err := c.Conn.SetReadDeadline(now.Add(c.read)); err != nil {
			return 0, err
		}
	}
	return c.Conn.Read(b)
}

func (c *deadlineConn) Write(b []byte) (int, error) {
	now := time.Now()
	if n := now.UnixNano(); n-c.writeSet.Load() >= deadlineGrain {
		c.writeSet.Store(n)
		if err := c.Conn.SetWriteDeadline(now.Add(c.write)); err != nil {
			return 0, err
		}
	}
	return c.Conn.Write(b)
}
