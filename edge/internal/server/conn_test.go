package server

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// An idle connection is cut after the read timeout (give or take the
// refresh grain), and data flows unchanged before that.
func TestCoarseDeadlines(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := CoarseDeadlines(raw, 300*time.Millisecond, time.Second)
	defer ln.Close()
	type result struct {
		got     string
		err     error
		elapsed time.Duration
	}
	done := make(chan result, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- result{err: err}
			return
		}
		defer c.Close()
		buf := make([]byte, 5)
		if _, err := io.ReadFull(c, buf); err != nil {
			done <- result{err: err}
			return
		}
		start := time.Now()
		_, err = c.Read(make([]byte, 1)) // the client now stays silent
		done <- result{got: string(buf), err: err, elapsed: time.Since(start)}
	}()
	c, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.got != "hello" {
		t.Fatalf("read %q, err %v", r.got, r.err)
	}
	if !errors.Is(r.err, os.ErrDeadlineExceeded) {
		t.Fatalf("idle read ended with %v, want a deadline error", r.err)
	}
	if r.elapsed > 2*time.Second {
		t.Fatalf("idle read lasted %v, want about 300ms", r.elapsed)
	}
}
