package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// Kind is what a seeded link exercises on the edge.
type Kind uint8

const (
	KindDirect   Kind = iota // plain 302: the cache-hit fast path
	KindTargeted             // geo + device + language rules evaluated
	KindPixel                // interstitial page with tracking pixels (200)
	KindPassword             // password form (200, no click)
	KindExpired              // 410 (no click)
	numKinds
)

var kindNames = [numKinds]string{"direct", "targeted", "pixel", "password", "expired"}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

func parseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown link kind %q", s)
}

// Counts reports whether a 2xx/3xx answer to a human visit of a link of
// this kind is a click the edge must record: redirects and pixel pages
// are; the password form (no visit yet) and expired links are not.
func (k Kind) Counts() bool { return k == KindDirect || k == KindTargeted || k == KindPixel }

// mix is the share of each kind in per-mille (sums to 1000).
type mix [numKinds]int

// defaultMix: 80% direct, 10% targeted, 5% pixels, 3% password, 2% expiring.
var defaultMix = mix{800, 100, 50, 30, 20}

// parseMix reads "direct=800,targeted=100,..." (per-mille, sum 1000).
func parseMix(s string) (mix, error) {
	var m mix
	sum := 0
	for part := range strings.SplitSeq(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return m, fmt.Errorf("mix %q: want kind=permille", part)
		}
		k, err := parseKind(name)
		if err != nil {
			return m, err
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return m, fmt.Errorf("mix %q: bad per-mille value", part)
		}
		m[k] = n
		sum += n
	}
	if sum != 1000 {
		return m, fmt.Errorf("mix sums to %d per mille, want 1000", sum)
	}
	return m, nil
}

// entry is one seeded link as the load sees it.
type entry struct {
	Host  string // "" = the default short domain
	Alias string
	Kind  Kind
}

// population is the alias file: the seeded links plus the owner's user id
// (the zero-loss check counts that user's clicks).
type population struct {
	OwnerID int64
	Entries []entry
}

// plan builds n entries with the kinds in proportion m, a share of them on
// the branded hosts, with unique random aliases. The order is shuffled so
// that Zipf ranks are not correlated with kinds.
func plan(n int, m mix, hosts []string, brandedPermille int, seed uint64) []entry {
	r := rand.New(rand.NewPCG(seed, 0x6b75727a))
	out := make([]entry, 0, n)
	for k := range numKinds {
		c := n * m[k] / 1000
		for range c {
			out = append(out, entry{Kind: k})
		}
	}
	for len(out) < n {
		out = append(out, entry{Kind: KindDirect})
	}
	seen := make(map[string]struct{}, n)
	for i := range out {
		if len(hosts) > 0 && r.IntN(1000) < brandedPermille {
			out[i].Host = hosts[r.IntN(len(hosts))]
		}
		for {
			a := randomAlias(r, 7)
			key := out[i].Host + "/" + a
			if _, dup := seen[key]; !dup {
				seen[key] = struct{}{}
				out[i].Alias = a
				break
			}
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

const aliasChars = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

func randomAlias(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = aliasChars[r.IntN(len(aliasChars))]
	}
	return string(b)
}

// writePopulation writes the alias file: a header line "# owner_id=N" then
// one "host<TAB>alias<TAB>kind" line per link ("-" for the default host).
func writePopulation(w io.Writer, p *population) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# kurz bench alias file: host<TAB>alias<TAB>kind\n# owner_id=%d\n", p.OwnerID)
	for _, e := range p.Entries {
		h := e.Host
		if h == "" {
			h = "-"
		}
		bw.WriteString(h)
		bw.WriteByte('\t')
		bw.WriteString(e.Alias)
		bw.WriteByte('\t')
		bw.WriteString(e.Kind.String())
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func readPopulation(r io.Reader) (*population, error) {
	p := &population{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "# owner_id="); ok {
			id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("alias file line %d: bad owner_id: %w", n, err)
			}
			p.OwnerID = id
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("alias file line %d: want host, alias, kind", n)
		}
		k, err := parseKind(f[2])
		if err != nil {
			return nil, fmt.Errorf("alias file line %d: %w", n, err)
		}
		if f[0] == "-" {
			f[0] = ""
		}
		p.Entries = append(p.Entries, entry{Host: f[0], Alias: f[1], Kind: k})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read alias file: %w", err)
	}
	if len(p.Entries) == 0 {
		return nil, fmt.Errorf("alias file holds no links")
	}
	return p, nil
}

func loadPopulation(path string) (*population, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open alias file: %w", err)
	}
	defer f.Close()
	return readPopulation(f)
}

// filterKinds keeps the entries whose kind is in keep (all when empty).
func filterKinds(es []entry, keep []Kind) []entry {
	if len(keep) == 0 {
		return es
	}
	var out []entry
	for _, e := range es {
		for _, k := range keep {
			if e.Kind == k {
				out = append(out, e)
				break
			}
		}
	}
	return out
}
