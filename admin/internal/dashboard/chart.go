package dashboard

import (
	"strconv"
	"strings"

	"kurz/admin/internal/stats"
)

// The click chart: server-rendered SVG (no script, no inline style, so the
// strict CSP holds), bars for clicks and a line for unique clicks, each
// bar titled with its numbers; the same numbers are a table below it.

const (
	chartBottom = 24.0 // room for the x labels
	chartTop    = 8.0
)

// chartSize is a chart's drawing: wide for desktops, narrow (fewer
// labels, taller in proportion) for phones; CSS shows one of them.
type chartSize struct {
	W, H, Left float64 // Left: room for the y labels
	Labels     int     // x labels at most
}

var (
	wideChart   = chartSize{W: 720, H: 220, Left: 44, Labels: 7}
	narrowChart = chartSize{W: 360, H: 240, Left: 36, Labels: 3}
)

type chart struct {
	chartSize
	Class   string // chart-wide or chart-narrow
	Bars    []chartBar
	Unique  string // polyline points
	YTicks  []chartTick
	XLabels []chartTick
	Empty   bool   // no click in the range
	Noun    string // what the bars count: "clicks", "scans"
}

// Bottom is the y of the x labels; Right the end of the grid lines.
func (c chart) Bottom() float64 { return c.H - 6 }
func (c chart) AxisX() float64  { return c.Left - 6 }

type chartBar struct {
	X, Y, W, H     float64
	Label          string
	Clicks, Unique uint64
}

type chartTick struct {
	Pos   float64
	Label string
}

func buildChart(series []stats.Bucket, iv stats.Interval, size chartSize, class string) chart {
	c := chart{chartSize: size, Class: class}
	chartW, chartH, chartLeft := size.W, size.H, size.Left
	var top uint64
	for _, b := range series {
		top = max(top, b.Clicks, b.UniqueClicks)
	}
	c.Empty = top == 0
	scale := niceMax(top)
	plotW, plotH := chartW-chartLeft, chartH-chartTop-chartBottom
	n := float64(max(len(series), 1))
	step := plotW / n
	gap := min(step*0.2, 4)
	var pts []string
	every := max((len(series)+size.Labels-1)/size.Labels, 1)
	for i, b := range series {
		x := chartLeft + float64(i)*step
		h := float64(b.Clicks) / float64(scale) * plotH
		label := stats.FormatBucket(b.Start, iv)
		if iv == stats.Hour {
			label = b.Start.UTC().Format("Jan 2 15:04")
		}
		c.Bars = append(c.Bars, chartBar{X: x + gap/2, Y: chartTop + plotH - h, W: step - gap, H: h,
			Label: label, Clicks: b.Clicks, Unique: b.UniqueClicks})
		uy := chartTop + plotH - float64(b.UniqueClicks)/float64(scale)*plotH
		pts = append(pts, fmtF(x+step/2)+","+fmtF(uy))
		if i%every == 0 {
			short := b.Start.UTC().Format("Jan 2")
			if iv == stats.Hour {
				short = b.Start.UTC().Format("Jan 2 15h")
			}
			c.XLabels = append(c.XLabels, chartTick{Pos: x + step/2, Label: short})
		}
	}
	c.Unique = strings.Join(pts, " ")
	for i := range 5 {
		v := scale * uint64(i) / 4
		c.YTicks = append(c.YTicks, chartTick{Pos: chartTop + plotH - float64(v)/float64(scale)*plotH, Label: number(int(v))})
	}
	return c
}

// niceMax rounds the chart's top up to 4 × a round step (1, 2, 5 × 10^k),
// so the four grid lines fall on whole numbers.
func niceMax(n uint64) uint64 {
	if n < 4 {
		return 4
	}
	for p := uint64(1); ; p *= 10 {
		for _, m := range []uint64{1, 2, 5} {
			if 4*m*p >= n {
				return 4 * m * p
			}
		}
	}
}

func fmtF(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
