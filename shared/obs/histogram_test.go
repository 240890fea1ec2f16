package obs

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestHistogram(t *testing.T) {
	h := NewHistogram(time.Millisecond, 10*time.Millisecond)
	for _, d := range []time.Duration{500 * time.Microsecond, time.Millisecond, 5 * time.Millisecond, time.Second} {
		h.Observe(d)
	}
	var buf bytes.Buffer
	h.WritePrometheus(&buf, "x_seconds", `route="a"`)
	want := `x_seconds_bucket{route="a",le="0.001"} 2
x_seconds_bucket{route="a",le="0.01"} 3
x_seconds_bucket{route="a",le="+Inf"} 4
x_seconds_sum{route="a"} 1.0065
x_seconds_count{route="a"} 4
`
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	NewHistogram().WritePrometheus(&buf, "y_seconds", "")
	if !strings.Contains(buf.String(), `y_seconds_bucket{le="5e-05"} 0`) || !strings.Contains(buf.String(), "y_seconds_count 0\n") {
		t.Fatalf("unlabelled histogram:\n%s", buf.String())
	}
}

func TestHistogramObserveAllocs(t *testing.T) {
	h := NewHistogram()
	if n := testing.AllocsPerRun(1000, func() { h.Observe(3 * time.Millisecond) }); n != 0 {
		t.Fatalf("%v allocs per Observe", n)
	}
}

func BenchmarkHistogramObserve(b *testing.B) {
	h := NewHistogram()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			h.Observe(120 * time.Microsecond)
		}
	})
}

func TestHistogramNil(t *testing.T) {
	var h *Histogram
	h.Observe(time.Second) // must not panic
}
