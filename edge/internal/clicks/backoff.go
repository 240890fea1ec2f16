package clicks

import (
	"log/slog"
	"math/rand/v2"
	"time"
)

// backoff is an exponential delay with a cap. Each wait is drawn from the
// upper half of the current step ("equal jitter"): edges whose inserts all
// failed at the same moment do not retry in lockstep, and every wait is
// still at least as long as the one before.
type backoff struct {
	min, max, step time.Duration
}

func newBackoff(min, max time.Duration) backoff { return backoff{min: min, max: max, step: min} }

// next returns how long to wait now and doubles the step up to the cap.
func (b *backoff) next() time.Duration {
	d := b.step/2 + rand.N(b.step/2+1)
	b.step = min(b.step*2, b.max)
	return d
}

func (b *backoff) reset() { b.step = b.min }

// failureLog reports a repeating failure at most once per interval: the
// first failure at once, then one line per interval with how many failed
// meanwhile, and one line when it stops failing.
type failureLog struct {
	every  time.Duration
	last   time.Time // when a line was last written
	failed int       // consecutive failures
	held   int       // failures since the last line
}

func (f *failureLog) fail(log *slog.Logger, now time.Time, err error, retryIn time.Duration, segs, rows int) {
	f.failed++
	f.held++
	if f.failed > 1 && now.Sub(f.last) < f.every {
		return
	}
	log.Warn("click spool replay failed; retrying with backoff",
		"err", err, "failures", f.failed, "since_last_report", f.held, "retry_in", retryIn.Round(time.Millisecond),
		"segments", segs, "rows", rows)
	f.last, f.held = now, 0
}

func (f *failureLog) ok(log *slog.Logger) {
	if f.failed > 0 {
		log.Info("click spool replay works again", "failures", f.failed)
	}
	f.failed, f.held = 0, 0
}
