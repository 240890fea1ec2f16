package main

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
)

// sweepPoint is one open-loop run of a sweep.
type sweepPoint struct {
	Rate, Throughput float64
	P50, P99, P999   float64 // ms
}

// Chart geometry (px).
const (
	svgW, svgH       = 800, 480
	padL, padR       = 70, 150
	padT, padB       = 40, 50
	plotW, plotH     = svgW - padL - padR, svgH - padT - padB
	minLatencyMillis = 0.01
)

// writeSweepSVG draws p50/p99/p99.9 latency (log scale, ms) against the
// achieved throughput (linear), one polyline per percentile. Hand-written
// SVG: no dependency, opens in any browser.
func writeSweepSVG(w io.Writer, title string, pts []sweepPoint) error {
	bw := bufio.NewWriter(w)
	xMax, yMin, yMax := 1.0, math.Inf(1), 0.0
	for _, p := range pts {
		xMax = max(xMax, p.Throughput)
		for _, v := range []float64{p.P50, p.P99, p.P999} {
			v = max(v, minLatencyMillis)
			yMin, yMax = min(yMin, v), max(yMax, v)
		}
	}
	if len(pts) == 0 {
		yMin, yMax = 0.1, 10
	}
	lo, hi := math.Floor(math.Log10(yMin)), math.Ceil(math.Log10(yMax))
	if hi <= lo {
		hi = lo + 1
	}
	xMax = niceCeil(xMax)
	x := func(v float64) float64 { return padL + v/xMax*plotW }
	y := func(ms float64) float64 {
		return padT + plotH - (math.Log10(max(ms, minLatencyMillis))-lo)/(hi-lo)*plotH
	}
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", svgW, svgH, svgW, svgH)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgW, svgH)
	fmt.Fprintf(bw, `<text x="%d" y="22" font-size="15">%s</text>`+"\n", padL, esc("latency vs. throughput (open loop): "+title))
	for e := lo; e <= hi; e++ { // decades of the log y axis
		yy := y(math.Pow(10, e))
		fmt.Fprintf(bw, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", padL, yy, padL+plotW, yy)
		fmt.Fprintf(bw, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", padL-6, yy+4, esc(msLabel(math.Pow(10, e))))
	}
	for i := 0; i <= 5; i++ {
		v := xMax * float64(i) / 5
		xx := x(v)
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>`+"\n", xx, padT, xx, padT+plotH)
		fmt.Fprintf(bw, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", xx, padT+plotH+18, esc(human(v)))
	}
	fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>`+"\n", padL, padT, plotW, plotH)
	fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="middle">achieved throughput (requests/s)</text>`+"\n", padL+plotW/2, svgH-10)
	fmt.Fprintf(bw, `<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">latency (ms, log scale)</text>`+"\n", padT+plotH/2, padT+plotH/2)
	series := []struct {
		name, color string
		v           func(sweepPoint) float64
	}{
		{"p50", "#1f77b4", func(p sweepPoint) float64 { return p.P50 }},
		{"p99", "#ff7f0e", func(p sweepPoint) float64 { return p.P99 }},
		{"p99.9", "#d62728", func(p sweepPoint) float64 { return p.P999 }},
	}
	for i, s := range series {
		var sb strings.Builder
		for _, p := range pts {
			fmt.Fprintf(&sb, "%.1f,%.1f ", x(p.Throughput), y(s.v(p)))
		}
		fmt.Fprintf(bw, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", s.color, strings.TrimSpace(sb.String()))
		for _, p := range pts {
			fmt.Fprintf(bw, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s</title></circle>`+"\n", x(p.Throughput), y(s.v(p)), s.color,
				esc(fmt.Sprintf("%s %s at %s req/s (target %s/s)", s.name, msLabel(s.v(p)), human(p.Throughput), human(p.Rate))))
		}
		ly := padT + 20 + i*20
		fmt.Fprintf(bw, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d">%s</text>`+"\n",
			padL+plotW+15, ly, padL+plotW+40, ly, s.color, padL+plotW+46, ly+4, s.name)
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

func esc(s string) string {
	var sb strings.Builder
	xml.EscapeText(&sb, []byte(s)) //nolint:errcheck // strings.Builder does not fail
	return sb.String()
}

func msLabel(ms float64) string {
	switch {
	case ms >= 1000:
		return fmt.Sprintf("%gs", ms/1000)
	case ms >= 1:
		return fmt.Sprintf("%gms", ms)
	}
	return fmt.Sprintf("%gµs", math.Round(ms*1000*1000)/1000)
}

// niceCeil rounds v up to a round multiple of a power of ten (1, 1.5, 2,
// 2.5, 3, 4, 5, 6, 8): the plot uses most of its width.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}
