//go:build ignore

// worldmap_gen writes worlddata/world.tsv, the dashboard's world map, from
// world-atlas's countries-110m.json (Natural Earth 1:110m, public domain;
// world-atlas is ISC): one line per country, its ISO 3166-1 alpha-2 code,
// a tab and its SVG path in the Natural Earth projection, 1000 units wide,
// without Antarctica. Regenerate (needs the npm client once; the build
// needs neither npm nor the JSON):
//
//	npm pack world-atlas@2.0.2 && tar xzf world-atlas-2.0.2.tgz
//	go run worldmap_gen.go package/countries-110m.json > worlddata/world.tsv
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/text/language"
)

type topology struct {
	Transform struct{ Scale, Translate [2]float64 }
	Arcs      [][][2]float64
	Objects   struct {
		Countries struct {
			Geometries []struct {
				Type  string
				ID    string
				Arcs  json.RawMessage
				Props struct{ Name string } `json:"properties"`
			}
		}
	}
}

// Names world-atlas leaves without a numeric id.
var byName = map[string]string{"Kosovo": "XK", "N. Cyprus": "CY", "Somaliland": "SO"}

const width = 1000.0

func main() {
	raw, err := os.ReadFile(os.Args[1])
	check(err)
	var t topology
	check(json.Unmarshal(raw, &t))
	arcs := decodeArcs(t)
	paths := map[string][]string{}
	for _, g := range t.Objects.Countries.Geometries {
		code := byName[g.Props.Name]
		if g.ID != "" {
			r, err := language.ParseRegion(g.ID)
			check(err)
			code = r.String()
		}
		if code == "AQ" || code == "" || g.ID == "010" {
			continue
		}
		var polys [][][]int
		switch g.Type {
		case "Polygon":
			var p [][]int
			check(json.Unmarshal(g.Arcs, &p))
			polys = [][][]int{p}
		case "MultiPolygon":
			check(json.Unmarshal(g.Arcs, &polys))
		default:
			continue
		}
		for _, p := range polys {
			for _, ring := range p {
				for _, pts := range unwrap(ringPoints(arcs, ring)) {
					paths[code] = append(paths[code], ringPath(pts))
				}
			}
		}
	}
	codes := make([]string, 0, len(paths))
	for c := range paths {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		fmt.Printf("%s\t%s\n", c, strings.Join(paths[c], ""))
	}
}

// decodeArcs undoes the quantization and delta encoding: lon/lat points.
func decodeArcs(t topology) [][][2]float64 {
	out := make([][][2]float64, len(t.Arcs))
	for i, a := range t.Arcs {
		var x, y float64
		for _, p := range a {
			x, y = x+p[0], y+p[1]
			out[i] = append(out[i], [2]float64{x*t.Transform.Scale[0] + t.Transform.Translate[0],
				y*t.Transform.Scale[1] + t.Transform.Translate[1]})
		}
	}
	return out
}

// ringPoints joins a ring's arcs (~i: arc i reversed).
func ringPoints(arcs [][][2]float64, ring []int) [][2]float64 {
	var pts [][2]float64
	for _, i := range ring {
		a := arcs[max(i, ^i)]
		if i < 0 {
			a = reversed(a)
		}
		if len(pts) > 0 {
			a = a[1:]
		}
		pts = append(pts, a...)
	}
	return pts
}

// unwrap makes a ring that crosses the antimeridian (Russia, Fiji)
// continuous in longitude, so it is not drawn as a stripe across the
// world, and returns it with a copy 360° over for the part past ±180°;
// the view box cuts both at the map's edges.
func unwrap(pts [][2]float64) [][][2]float64 {
	out := make([][2]float64, len(pts))
	shift, lo, hi := 0.0, 180.0, -180.0
	for i, p := range pts {
		if i > 0 {
			switch d := p[0] + shift - out[i-1][0]; {
			case d > 180:
				shift -= 360
			case d < -180:
				shift += 360
			}
		}
		out[i] = [2]float64{p[0] + shift, p[1]}
		lo, hi = min(lo, out[i][0]), max(hi, out[i][0])
	}
	rings := [][][2]float64{out}
	for _, off := range []float64{360, -360} {
		if (off > 0 && lo < -180) || (off < 0 && hi > 180) {
			c := make([][2]float64, len(out))
			for i, p := range out {
				c[i] = [2]float64{p[0] + off, p[1]}
			}
			rings = append(rings, c)
		}
	}
	return rings
}

// ringPath draws a ring, dropping points within a unit of the previous
// one; relative moves in whole units (the map is drawn at most 1000 px
// wide).
func ringPath(pts [][2]float64) string {
	var b strings.Builder
	var lx, ly int
	n := 0
	for _, p := range pts {
		fx, fy := project(p[0], p[1])
		x, y := int(math.Round(fx)), int(math.Round(fy))
		if n > 0 && x == lx && y == ly {
			continue
		}
		if n == 0 {
			b.WriteString("M" + strconv.Itoa(x) + " " + strconv.Itoa(y))
		} else {
			b.WriteString("l" + strconv.Itoa(x-lx) + " " + strconv.Itoa(y-ly))
		}
		lx, ly = x, y
		n++
	}
	if n < 3 {
		return ""
	}
	b.WriteString("Z")
	return b.String()
}

func reversed(a [][2]float64) [][2]float64 {
	r := make([][2]float64, len(a))
	for i, p := range a {
		r[len(a)-1-i] = p
	}
	return r
}

// project is the Natural Earth projection (Šavrič et al., as d3-geo's
// geoNaturalEarth1), scaled to width and shifted so y=0 is 84°N.
func project(lon, lat float64) (float64, float64) {
	l, p := lon*math.Pi/180, lat*math.Pi/180
	p2 := p * p
	p4 := p2 * p2
	x := l * (0.8707 - 0.131979*p2 + p4*(-0.013791+p4*(0.003971*p2-0.001529*p4)))
	y := p * (1.007226 + p2*(0.015085+p4*(-0.044475+0.028874*p2-0.005916*p4)))
	s := width / (2 * math.Pi * 0.8707)
	_, top := 0.0, 1.38 // y of about 84°N
	return x*s + width/2, (top - y) * s
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
