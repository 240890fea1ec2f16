package obs

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestThrottled(t *testing.T) {
	type step struct {
		advance time.Duration
		level   slog.Level
		msg     string
		// written: the line reaches the log; suppressed: the count it carries.
		written    bool
		suppressed int
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"first line of a message is written", []step{{0, slog.LevelError, "insert failed", true, 0}}},
		{"repeats within the interval are counted, then reported", []step{
			{0, slog.LevelError, "insert failed", true, 0},
			{time.Second, slog.LevelError, "insert failed", false, 0},
			{time.Second, slog.LevelError, "insert failed", false, 0},
			{9 * time.Second, slog.LevelError, "insert failed", true, 2},
			{time.Second, slog.LevelError, "insert failed", false, 0},
			{10 * time.Second, slog.LevelError, "insert failed", true, 1},
			{10 * time.Second, slog.LevelError, "insert failed", true, 0},
		}},
		{"messages are throttled apart", []step{
			{0, slog.LevelWarn, "a", true, 0},
			{0, slog.LevelWarn, "b", true, 0},
			{0, slog.LevelWarn, "a", false, 0},
			{0, slog.LevelError, "a", true, 0},
		}},
		{"info and debug pass", []step{
			{0, slog.LevelInfo, "listening", true, 0},
			{0, slog.LevelInfo, "listening", true, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := &clock{t: time.Unix(1000, 0)}
			log := slog.New(newThrottle(slog.NewJSONHandler(&buf, nil), 10*time.Second, c.now)).With("component", "x")
			for i, s := range tt.steps {
				c.t = c.t.Add(s.advance)
				buf.Reset()
				log.Log(t.Context(), s.level, s.msg, "i", i)
				if got := buf.Len() > 0; got != s.written {
					t.Fatalf("step %d (%s): written %v, want %v", i, s.msg, got, s.written)
				}
				if !s.written {
					continue
				}
				var line map[string]any
				if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
					t.Fatal(err)
				}
				n, _ := line["suppressed"].(float64)
				if int(n) != s.suppressed || line["component"] != "x" {
					t.Fatalf("step %d: line %s, want suppressed=%d", i, strings.TrimSpace(buf.String()), s.suppressed)
				}
			}
		})
	}
}

// A derived logger (With) shares the throttle of its parent.
func TestThrottledShared(t *testing.T) {
	var buf bytes.Buffer
	log := Throttled(slog.New(slog.NewTextHandler(&buf, nil)), time.Hour)
	log.Error("boom")
	log.With("k", "v").Error("boom")
	log.WithGroup("g").Error("boom")
	if n := strings.Count(buf.String(), "boom"); n != 1 {
		t.Fatalf("%d lines written, want 1:\n%s", n, buf.String())
	}
}
