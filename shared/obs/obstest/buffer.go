package obstest

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// Buffer is a bytes.Buffer safe for concurrent writers and readers: a
// log destination that a test reads while the logger's goroutines (or a
// child process's output copier) write.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// NoMetricsListener fails the test unless the JSON log in s shows the
// process started (a line whose msg is started) without starting, or
// trying to start, a metrics listener.
func (s *Buffer) NoMetricsListener(tb testing.TB, started string) {
	tb.Helper()
	out := s.String()
	if !strings.Contains(out, `"msg":"`+started+`"`) {
		tb.Fatalf("no %q line in the log:\n%s", started, out)
	}
	if strings.Contains(out, "metrics") {
		tb.Fatalf("a metrics listener was started or tried:\n%s", out)
	}
}
