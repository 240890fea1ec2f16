package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// The load generator is an event loop over raw non-blocking sockets, like
// wrk's: one goroutine per loop (one loop per --procs) owns its
// connections, writes a pre-built request on each, and epoll tells it which
// answers arrived. One request in flight per connection (keep-alive, no
// pipelining). A goroutine per connection over Go's netpoller measured
// half of wrk's requests per CPU-second here: every request cost a failed
// read, a goroutine switch and an epoll_wait returning a single event,
// while an event loop handles ~20 answers per epoll_wait. The sockets are
// not Go net.Conns on purpose, so that the runtime's netpoller never wakes
// for them.

// readBufSize bounds a response head (and a chunked body); Content-Length
// bodies of any size are skipped as they stream in.
const readBufSize = 32 << 10

// connection states
const (
	stIdle       = iota // waiting until dueAt (open-loop schedule, or back-off after an error)
	stConnecting        // non-blocking connect in progress
	stWriting           // request partly written (socket buffer full)
	stReading           // request sent, reading the answer
	stDone              // nothing left to send
)

// loopConn is one connection and the request on it.
type loopConn struct {
	w     *worker
	index int32 // position in eventLoop.conns (the epoll event's data)
	fd    int
	state uint8
	dueAt time.Time // stIdle: when to send next (zero: not scheduled)
	// freeAt is when the connection last became free (answer or error):
	// an open-loop send later than both it and the intended time is the
	// load generator's own lag.
	freeAt time.Time
	// the request in flight
	written          int
	intended, sent   time.Time
	idx              int
	human            bool
	buf              []byte // read buffer; buf[:n] holds unread bytes
	n                int
	head             responseHead
	haveHead         bool
	skip             int64 // body bytes still to discard
	armedForWritable bool
}

// eventLoop drives a set of connections from one goroutine.
type eventLoop struct {
	sh     *shared
	sa     unix.Sockaddr
	family int
	epfd   int
	timer  int // timerfd: wakes the loop for open-loop send times below epoll's 1 ms resolution
	armed  time.Time
	conns  []*loopConn
	active int
	events []unix.EpollEvent
}

// timerIndex marks the timerfd's epoll events.
const timerIndex = -1

func newEventLoop(sh *shared, workers []*worker) (*eventLoop, error) {
	ta, err := net.ResolveTCPAddr("tcp", sh.cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", sh.cfg.Addr, err)
	}
	l := &eventLoop{sh: sh, epfd: -1, timer: -1, events: make([]unix.EpollEvent, 256)}
	if ip4 := ta.IP.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: ta.Port}
		copy(sa.Addr[:], ip4)
		l.sa, l.family = sa, unix.AF_INET
	} else {
		sa := &unix.SockaddrInet6{Port: ta.Port}
		copy(sa.Addr[:], ta.IP.To16())
		l.sa, l.family = sa, unix.AF_INET6
	}
	if l.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if l.timer, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err != nil {
		l.close()
		return nil, os.NewSyscallError("timerfd_create", err)
	}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, l.timer, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: timerIndex}); err != nil {
		l.close()
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	for i, w := range workers {
		l.conns = append(l.conns, &loopConn{w: w, index: int32(i), fd: -1, buf: make([]byte, readBufSize)})
	}
	return l, nil
}

func (l *eventLoop) close() {
	for _, c := range l.conns {
		l.closeConn(c)
	}
	if l.timer >= 0 {
		unix.Close(l.timer)
	}
	if l.epfd >= 0 {
		unix.Close(l.epfd)
	}
}

// run drives every connection until none has anything left to send.
func (l *eventLoop) run() error {
	defer l.close()
	now := time.Now()
	l.active = len(l.conns)
	for _, c := range l.conns {
		c.freeAt = l.sh.start
		l.next(c, now)
	}
	for l.active > 0 {
		n, err := unix.EpollWait(l.epfd, l.events, l.waitMillis(now))
		if err != nil && !errors.Is(err, unix.EINTR) {
			return os.NewSyscallError("epoll_wait", err)
		}
		now = time.Now()
		for i := range max(n, 0) {
			ev := &l.events[i]
			if ev.Fd == timerIndex {
				var b [8]byte
				unix.Read(l.timer, b[:]) //nolint:errcheck // only drains the expiry count
				l.armed = time.Time{}
				continue
			}
			l.handle(l.conns[ev.Fd], ev.Events, now)
		}
		l.fire(now)
	}
	return nil
}

// waitMillis is epoll_wait's timeout: until the earliest scheduled send
// (the timerfd covers the sub-millisecond part), or a timeout check.
func (l *eventLoop) waitMillis(now time.Time) int {
	var due time.Time
	for _, c := range l.conns {
		if c.state == stIdle && !c.dueAt.IsZero() && (due.IsZero() || c.dueAt.Before(due)) {
			due = c.dueAt
		}
	}
	if due.IsZero() {
		return 100 // wake up for the request timeouts
	}
	d := due.Sub(now)
	if d <= 0 {
		return 0
	}
	if !due.Equal(l.armed) {
		l.armed = due
		spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
		unix.TimerfdSettime(l.timer, 0, &spec, nil) //nolint:errcheck // epoll's ms timeout is the fallback
	}
	return int(d/time.Millisecond) + 1
}

// fire sends the requests that are due and fails those that timed out.
func (l *eventLoop) fire(now time.Time) {
	timeout := l.sh.cfg.Timeout
	for _, c := range l.conns {
		switch c.state {
		case stIdle:
			if !c.dueAt.IsZero() && !now.Before(c.dueAt) {
				c.dueAt = time.Time{}
				l.next(c, now)
			}
		case stConnecting, stWriting, stReading:
			if now.Sub(c.sent) > timeout {
				l.fail(c, os.ErrDeadlineExceeded, now)
			}
		}
	}
}

// next schedules or sends c's next request, or retires c.
func (l *eventLoop) next(c *loopConn, now time.Time) {
	w, cfg := c.w, l.sh.cfg
	c.intended = time.Time{}
	if cfg.Rate > 0 {
		intended := l.sh.start.Add(intendedOffset(w.id, w.k, cfg.Conns, cfg.Rate))
		if !l.sh.deadline.IsZero() && intended.After(l.sh.deadline) {
			l.retire(c)
			return
		}
		if intended.After(now) {
			c.state, c.dueAt = stIdle, intended
			return
		}
		c.intended = intended
	}
	if !l.sh.take(now) {
		l.retire(c)
		return
	}
	idx, ok := w.pick()
	if !ok {
		l.retire(c)
		return
	}
	w.k++
	if cfg.Rate > 0 {
		late := now.Sub(later(c.intended, c.freeAt))
		w.hlag.RecordValue(max(late.Microseconds(), 1)) //nolint:errcheck // clamps at 60 s
	}
	c.idx = idx
	w.buf, c.human = l.sh.reqs.build(w.buf[:0], idx, w.rng.Uint64())
	c.sent, c.written = now, 0
	if c.fd < 0 {
		l.connect(c, now)
		return
	}
	l.write(c, now)
}

func (l *eventLoop) retire(c *loopConn) {
	l.closeConn(c)
	c.state = stDone
	l.active--
}

func (l *eventLoop) connect(c *loopConn, now time.Time) {
	fd, err := unix.Socket(l.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.fail(c, os.NewSyscallError("socket", err), now)
		return
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) //nolint:errcheck // latency only
	c.fd, c.n, c.haveHead, c.skip = fd, 0, false, 0
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT, Fd: c.index}); err != nil {
		l.fail(c, os.NewSyscallError("epoll_ctl", err), now)
		return
	}
	c.armedForWritable = true
	if err := unix.Connect(fd, l.sa); err != nil && !errors.Is(err, unix.EINPROGRESS) {
		l.fail(c, os.NewSyscallError("connect", err), now)
		return
	}
	c.state = stConnecting
}

// write sends (the rest of) the request in w.buf.
func (l *eventLoop) write(c *loopConn, now time.Time) {
	req := c.w.buf
	for c.written < len(req) {
		n, err := rawWrite(c.fd, req[c.written:])
		if errors.Is(err, unix.EAGAIN) {
			c.state = stWriting
			l.wantWritable(c, true, now)
			return
		}
		if err != nil {
			l.fail(c, os.NewSyscallError("write", err), now)
			return
		}
		c.written += n
	}
	c.state = stReading
	l.wantWritable(c, false, now)
}

func (l *eventLoop) wantWritable(c *loopConn, on bool, now time.Time) {
	if c.armedForWritable == on {
		return
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: c.index}
	if on {
		ev.Events |= unix.EPOLLOUT
	}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, c.fd, &ev); err != nil {
		l.fail(c, os.NewSyscallError("epoll_ctl", err), now)
		return
	}
	c.armedForWritable = on
}

// handle reacts to c's epoll events.
func (l *eventLoop) handle(c *loopConn, events uint32, now time.Time) {
	switch c.state {
	case stConnecting:
		soErr, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR)
		if err == nil && soErr != 0 {
			err = unix.Errno(soErr)
		}
		if err != nil {
			l.fail(c, os.NewSyscallError("connect", err), now)
			return
		}
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			l.write(c, now)
		}
	case stWriting:
		l.write(c, now)
	case stReading:
		l.read(c, now)
	default:
		// An idle keep-alive connection became readable: the server closed
		// it (or sent garbage). Close it; the next request reconnects.
		if c.fd >= 0 {
			l.closeConn(c)
		}
	}
}

// read consumes what the socket holds and completes the response when it
// is all there.
func (l *eventLoop) read(c *loopConn, now time.Time) {
	if c.n == len(c.buf) {
		l.fail(c, errTooLarge, now)
		return
	}
	m, err := rawRead(c.fd, c.buf[c.n:])
	switch {
	case errors.Is(err, unix.EAGAIN):
		return
	case err != nil:
		l.fail(c, os.NewSyscallError("read", err), now)
		return
	case m == 0:
		if c.haveHead && c.head.bodyLen < 0 && !c.head.chunked {
			l.complete(c, now) // the body ran until the server closed
			return
		}
		l.fail(c, errClosed, now)
		return
	}
	c.n += m
	if !c.haveHead {
		h, ok, err := parseHead(c.buf[:c.n])
		if err != nil {
			l.fail(c, err, now)
			return
		}
		if !ok {
			return
		}
		c.head, c.haveHead = h, true
		c.n = copy(c.buf, c.buf[h.size:c.n])
		c.skip = max(h.bodyLen, 0)
		if h.bodyLen < 0 && !h.chunked {
			c.head.keepAlive = false // body until close
		}
	}
	switch {
	case c.head.chunked:
		size, ok, err := chunkedSize(c.buf[:c.n])
		if err != nil || !ok {
			if err != nil {
				l.fail(c, err, now)
			}
			return
		}
		c.n = copy(c.buf, c.buf[size:c.n])
	case c.head.bodyLen < 0:
		c.n = 0 // discard until close
		return
	default:
		d := min(c.skip, int64(c.n))
		c.skip -= d
		c.n = copy(c.buf, c.buf[d:c.n])
		if c.skip > 0 {
			return
		}
	}
	l.complete(c, now)
}

// complete records the answer and moves c on to its next request.
func (l *eventLoop) complete(c *loopConn, now time.Time) {
	c.w.record(c.intended, c.sent, now, c.head.status, c.idx, c.human)
	c.freeAt = now
	c.haveHead = false
	if !c.head.keepAlive || c.n > 0 { // c.n > 0: bytes nobody asked for
		l.closeConn(c)
	}
	l.next(c, now)
}

// fail records err for the request in flight and closes the connection;
// in a closed loop the connection backs off 10 ms (no hot spin on a dead
// target), in an open loop it goes on with its schedule.
func (l *eventLoop) fail(c *loopConn, err error, now time.Time) {
	c.w.recordErr(err)
	c.freeAt = now
	l.closeConn(c)
	c.state, c.dueAt = stIdle, now
	if l.sh.cfg.Rate == 0 {
		c.dueAt = now.Add(10 * time.Millisecond)
	}
}

func (l *eventLoop) closeConn(c *loopConn) {
	if c.fd >= 0 {
		unix.Close(c.fd) // also removes it from the epoll set
		c.fd = -1
	}
	c.n, c.haveHead, c.skip, c.armedForWritable = 0, false, 0, false
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
