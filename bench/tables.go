package main

import (
	"bufio"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The header tables the load varies requests over. Embedded so that a
// copied binary runs anywhere; --tables DIR replaces them.
//
//go:embed tables/*.tsv
var tablesFS embed.FS

// weighted is a table of values picked in proportion to their weights.
// pick is O(1): idx repeats each entry's index weight times.
type weighted struct {
	values []string
	class  []string // optional second column (user agents: human/bot/preview)
	idx    []uint16
}

func (w *weighted) pick(r uint64) int { return int(w.idx[r%uint64(len(w.idx))]) }

// parseWeighted reads lines "weight<TAB>[class<TAB>]value"; '#' starts a
// comment line. withClass says whether the middle column is present.
func parseWeighted(name, src string, withClass bool) (*weighted, error) {
	w := &weighted{}
	sc := bufio.NewScanner(strings.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		want := 2
		if withClass {
			want = 3
		}
		if len(parts) != want {
			return nil, fmt.Errorf("%s:%d: want %d tab-separated fields", name, n, want)
		}
		wt, err := strconv.Atoi(parts[0])
		if err != nil || wt <= 0 || wt > 1000 {
			return nil, fmt.Errorf("%s:%d: weight %q is not an integer in 1..1000", name, n, parts[0])
		}
		i := len(w.values)
		if withClass {
			w.class = append(w.class, parts[1])
		}
		w.values = append(w.values, parts[want-1])
		for range wt {
			w.idx = append(w.idx, uint16(i))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(w.values) == 0 {
		return nil, fmt.Errorf("%s: no entries", name)
	}
	return w, nil
}

// headerTables are the four tables a visitor is drawn from.
type headerTables struct {
	agents, languages, countries, referrers *weighted
}

// loadTables reads the embedded tables, or those in dir when it is set.
func loadTables(dir string) (*headerTables, error) {
	read := func(name string) (string, error) {
		if dir == "" {
			b, err := tablesFS.ReadFile("tables/" + name)
			return string(b), err
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		return string(b), err
	}
	var t headerTables
	for _, e := range []struct {
		name      string
		dst       **weighted
		withClass bool
	}{
		{"useragents.tsv", &t.agents, true},
		{"languages.tsv", &t.languages, false},
		{"countries.tsv", &t.countries, false},
		{"referrers.tsv", &t.referrers, false},
	} {
		src, err := read(e.name)
		if err != nil {
			return nil, fmt.Errorf("read table %s: %w", e.name, err)
		}
		if *e.dst, err = parseWeighted(e.name, src, e.withClass); err != nil {
			return nil, err
		}
	}
	for i, c := range t.agents.class {
		if c != "human" && c != "bot" && c != "preview" {
			return nil, fmt.Errorf("useragents.tsv entry %d: class %q is not human, bot or preview", i+1, c)
		}
	}
	return &t, nil
}
