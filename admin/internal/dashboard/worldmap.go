package dashboard

import (
	_ "embed"
	"strings"

	"kurz/admin/internal/stats"
	"kurz/shared/target"
)

// The world map of the statistics page: every country a path with its
// ISO 3166-1 alpha-2 code, coloured in five steps by its share of the
// most clicked country's clicks (CSS classes m0..m5: no inline style, so
// the strict CSP holds), each titled with its name and clicks. The shapes
// are Natural Earth's 1:110m countries (public domain) by way of the npm
// package world-atlas 2.0.2 (ISC); worldmap_gen.go made world.tsv, and
// worlddata/README.md says how to make it again.

//go:embed worlddata/world.tsv
var worldTSV string

// worldShape is one country of the map.
type worldShape struct{ Code, Path string }

// worldShapes are parsed once, at start-up.
var worldShapes = parseWorld(worldTSV)

func parseWorld(tsv string) []worldShape {
	var out []worldShape
	for line := range strings.SplitSeq(strings.TrimSpace(tsv), "\n") {
		code, path, ok := strings.Cut(line, "\t")
		if ok {
			out = append(out, worldShape{Code: code, Path: path})
		}
	}
	return out
}

// mapCountry is a country as the map draws it.
type mapCountry struct {
	Code, Name, Path string
	N                uint64
	Level            int // 0: no clicks; 1..5: share of the top country
}

type worldMap struct {
	Countries []mapCountry
	Top       uint64 // the most clicks of a country
	Unmapped  uint64 // clicks from unknown places or from countries the map has no shape for
}

// Steps are the legend's colour steps.
func (worldMap) Steps() []int { return []int{1, 2, 3, 4, 5} }

// buildWorldMap colours the map by counts (per ISO code, "" unknown).
func buildWorldMap(counts []stats.Count) worldMap {
	by := make(map[string]uint64, len(counts))
	var m worldMap
	for _, c := range counts {
		by[c.Name] += c.N
		m.Top = max(m.Top, c.N)
	}
	for _, s := range worldShapes {
		n := by[s.Code]
		delete(by, s.Code)
		mc := mapCountry{Code: s.Code, Path: s.Path, N: n, Name: countryTitle(s.Code)}
		if n > 0 {
			mc.Level = int((n*5 + m.Top - 1) / m.Top) // 1..5, rounded up
		}
		m.Countries = append(m.Countries, mc)
	}
	for _, n := range by {
		m.Unmapped += n
	}
	return m
}

// countryTitle is the English name of an ISO code ("Kosovo" and others
// target does not name keep their code).
func countryTitle(code string) string {
	if n := target.CountryName(code); n != "" {
		return titleCase(n)
	}
	return code
}
