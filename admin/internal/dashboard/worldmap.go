package dashboard

import (
	_ "embed"
	"html"
	"html/template"
	"strconv"
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

// worldShape is one country of the map. Rest is its path element after
// the class's value up to the title's text, escaped once at start-up: the
// shapes are 50 KB that html/template escaped again on every page, with a
// reflective call per country per field (about half of the admin's CPU
// for a statistics page).
type worldShape struct{ Code, Path, Rest string }

// worldShapes are parsed once, at start-up.
var worldShapes = parseWorld(worldTSV)

func parseWorld(tsv string) []worldShape {
	var out []worldShape
	for line := range strings.SplitSeq(strings.TrimSpace(tsv), "\n") {
		code, path, ok := strings.Cut(line, "\t")
		if ok {
			rest := `" d="` + html.EscapeString(path) + `" data-cc="` + html.EscapeString(code) + `"><title>`
			out = append(out, worldShape{Code: code, Path: path, Rest: rest})
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
	// Paths is the map's path elements, titled "Germany: 3 clicks" with
	// one and noun (mapPaths).
	Paths template.HTML
}

// Steps are the legend's colour steps.
func (worldMap) Steps() []int { return []int{1, 2, 3, 4, 5} }

// buildWorldMap colours the map by counts (per ISO code, "" unknown);
// one and noun name a visit in its titles ("click", "clicks").
func buildWorldMap(counts []stats.Count, one, noun string) worldMap {
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
	m.Paths = mapPaths(m.Countries, one, noun)
	return m
}

// mapPaths writes the countries' path elements. Every text is escaped
// here (names and nouns are kurz's own, but escaped all the same); the
// shapes were escaped at start-up.
func mapPaths(cs []mapCountry, one, noun string) template.HTML {
	one, noun = html.EscapeString(one), html.EscapeString(noun)
	var b strings.Builder
	b.Grow(len(worldTSV) + len(cs)*64)
	for i, c := range cs {
		b.WriteString(`<path class="m`)
		b.WriteString(strconv.Itoa(c.Level))
		b.WriteString(worldShapes[i].Rest)
		b.WriteString(html.EscapeString(c.Name))
		b.WriteString(": ")
		b.WriteString(number(int(c.N)))
		b.WriteByte(' ')
		if c.N == 1 {
			b.WriteString(one)
		} else {
			b.WriteString(noun)
		}
		b.WriteString("</title></path>")
	}
	return template.HTML(b.String())
}

// countryTitle is the English name of an ISO code ("Kosovo" and others
// target does not name keep their code).
func countryTitle(code string) string {
	if n := target.CountryName(code); n != "" {
		return titleCase(n)
	}
	return code
}
