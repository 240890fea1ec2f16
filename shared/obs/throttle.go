package obs

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// LogEvery is the interval of Throttled loggers in both processes: a
// message that repeats is written at most once per LogEvery.
const LogEvery = 10 * time.Second

// Throttled returns a logger that writes each warning or error message
// (by level and text) at most once per every: the first occurrence is
// written, the repeats within the interval are counted, and the first
// occurrence after it carries their number as the attribute "suppressed".
// Info and debug lines pass unthrottled (start-up, state changes). Use it
// for components whose warnings can repeat per request or per batch; a
// flood then costs one line per interval instead of one per event.
func Throttled(log *slog.Logger, every time.Duration) *slog.Logger {
	return slog.New(newThrottle(log.Handler(), every, time.Now))
}

// throttle is the slog.Handler behind Throttled. The state is shared by
// the handlers WithAttrs and WithGroup derive, so a message is throttled
// wherever it is logged from.
type throttle struct {
	next  slog.Handler
	state *throttleState
}

type throttleState struct {
	every time.Duration
	now   func() time.Time
	mu    sync.Mutex
	seen  map[throttleKey]*throttled
}

type throttleKey struct {
	level slog.Level
	msg   string
}

type throttled struct {
	until      time.Time // repeats before this are suppressed
	suppressed int
}

// maxThrottled bounds the messages remembered; past it, entries whose
// interval has passed are forgotten (messages are constants in practice).
const maxThrottled = 4096

func newThrottle(next slog.Handler, every time.Duration, now func() time.Time) *throttle {
	return &throttle{next: next, state: &throttleState{every: every, now: now, seen: map[throttleKey]*throttled{}}}
}

func (t *throttle) Enabled(ctx context.Context, l slog.Level) bool { return t.next.Enabled(ctx, l) }

func (t *throttle) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return t.next.Handle(ctx, r)
	}
	n, ok := t.state.admit(throttleKey{r.Level, r.Message})
	if !ok {
		return nil
	}
	if n > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("suppressed", n))
	}
	return t.next.Handle(ctx, r)
}

func (t *throttle) WithAttrs(as []slog.Attr) slog.Handler {
	return &throttle{next: t.next.WithAttrs(as), state: t.state}
}

func (t *throttle) WithGroup(name string) slog.Handler {
	return &throttle{next: t.next.WithGroup(name), state: t.state}
}

// admit reports whether a record of key is written now, and how many
// were suppressed since the last one written.
func (s *throttleState) admit(key throttleKey) (suppressed int, ok bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.seen[key]
	if e == nil {
		if len(s.seen) >= maxThrottled {
			s.forget(now)
		}
		s.seen[key] = &throttled{until: now.Add(s.every)}
		return 0, true
	}
	if now.Before(e.until) {
		e.suppressed++
		return 0, false
	}
	suppressed, e.suppressed, e.until = e.suppressed, 0, now.Add(s.every)
	return suppressed, true
}

func (s *throttleState) forget(now time.Time) {
	for k, e := range s.seen {
		if !now.Before(e.until) && e.suppressed == 0 {
			delete(s.seen, k)
		}
	}
}
