package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// seedConfig is what both seeding paths need.
type seedConfig struct {
	links       int
	mix         mix
	hosts       []string // branded domain hosts
	branded     int      // per-mille of links on a branded domain
	seed        uint64
	out         string
	via         string
	databaseURL string
	noNotify    bool
	userID      int64
	adminURL    string
	key         string
	concurrency int
	expireAfter time.Duration
}

func seedCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	var c seedConfig
	var mixFlag, hostsFlag string
	fs.IntVar(&c.links, "links", 100_000, "number of links to create")
	fs.StringVar(&mixFlag, "mix", "direct=800,targeted=100,pixel=50,password=30,expired=20", "per-mille share of each link kind")
	fs.StringVar(&hostsFlag, "domains", "go.brand-a.test,link.brand-b.test,s.brand-c.test", "branded domain hosts (comma-separated; empty for none)")
	fs.IntVar(&c.branded, "branded", 100, "per-mille of links on a branded domain")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed (aliases, kinds)")
	fs.StringVar(&c.out, "out", "aliases.tsv", "alias file to write (host, alias, kind)")
	fs.StringVar(&c.via, "via", "pg", "pg: COPY straight into PostgreSQL (fast, documented bulk path); api: POST /api/url/add")
	fs.StringVar(&c.databaseURL, "database-url", os.Getenv("KURZ_DATABASE_URL"), "PostgreSQL URL (--via pg)")
	fs.BoolVar(&c.noNotify, "no-notify", false, "--via pg: skip the per-row change notices (the links table's owner only; locks links until the commit). Only when no edge serves these links yet or every edge restarts afterwards: a running edge keeps what it cached, and answers 404 for the new links (its set of existing aliases never heard of them)")
	fs.Int64Var(&c.userID, "user-id", 0, "owner of the links (--via pg; the id 'admin user create' printed)")
	fs.StringVar(&c.adminURL, "admin", "http://127.0.0.1:8081", "admin API base URL (--via api)")
	fs.StringVar(&c.key, "key", os.Getenv("KURZ_BENCH_KEY"), "API key made with --rate-limit 0 (--via api)")
	fs.IntVar(&c.concurrency, "concurrency", 16, "parallel API requests (--via api)")
	fs.DurationVar(&c.expireAfter, "expire-after", 10*time.Second, "--via api: expiring links get this expiry (the API refuses past ones); seed waits until it has passed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if c.mix, err = parseMix(mixFlag); err != nil {
		return err
	}
	for h := range strings.SplitSeq(hostsFlag, ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			c.hosts = append(c.hosts, h)
		}
	}
	if c.links <= 0 {
		return errors.New("--links must be positive")
	}
	start := time.Now()
	entries := plan(c.links, c.mix, c.hosts, c.branded, c.seed)
	p := &population{Entries: entries}
	switch c.via {
	case "pg":
		if c.userID <= 0 {
			return errors.New("--via pg needs --user-id")
		}
		p.OwnerID = c.userID
		err = seedPG(ctx, &c, entries)
	case "api":
		p.OwnerID, err = seedAPI(ctx, &c, entries)
	default:
		return fmt.Errorf("--via %q: want pg or api", c.via)
	}
	if err != nil {
		return err
	}
	f, err := os.Create(c.out)
	if err != nil {
		return fmt.Errorf("create alias file: %w", err)
	}
	if err := writePopulation(f, p); err != nil {
		f.Close()
		return fmt.Errorf("write alias file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close alias file: %w", err)
	}
	el := time.Since(start)
	fmt.Fprintf(stdout, "seeded %d links via %s in %s (%.0f links/s); alias file %s\n",
		len(entries), c.via, el.Round(time.Millisecond), float64(len(entries))/el.Seconds(), c.out)
	return nil
}

// linkSpec is the content of one seeded link, shared by both paths.
type linkSpec struct {
	LongURL  string
	Geo      []targetJSON
	Device   []targetJSON
	Language []targetJSON
	Password string // plain text; hashed by the store path
	Expired  bool
	Pixels   bool
}

// targetJSON is the stored and the API shape of a targeting rule: exactly
// one of Location, Device, Language is set.
type targetJSON struct {
	Location string `json:"location,omitempty"`
	Device   string `json:"device,omitempty"`
	Language string `json:"language,omitempty"`
	Link     string `json:"link"`
}

const benchPassword = "bench-password"

// specFor gives link i of kind k realistic content: destinations with
// paths and UTM parameters, targeting rules that real campaigns use (a few
// countries, mobile platforms, languages).
func specFor(i int, k Kind) linkSpec {
	s := linkSpec{LongURL: fmt.Sprintf("https://shop.example.com/products/%d?utm_source=kurz&utm_medium=social&utm_campaign=c%d", i, i%97)}
	switch k {
	case KindTargeted:
		s.Geo = []targetJSON{
			{Location: "DE", Link: fmt.Sprintf("https://de.shop.example.com/produkte/%d", i)},
			{Location: "FR", Link: fmt.Sprintf("https://fr.shop.example.com/produits/%d", i)},
			{Location: "GB", Link: fmt.Sprintf("https://uk.shop.example.com/products/%d", i)},
		}
		s.Device = []targetJSON{
			{Device: "iphone", Link: "https://apps.apple.example.com/app/id1234567890"},
			{Device: "android", Link: "https://play.example.com/store/apps/details?id=com.example.shop"},
		}
		s.Language = []targetJSON{
			{Language: "es", Link: fmt.Sprintf("https://es.shop.example.com/productos/%d", i)},
			{Language: "pt", Link: fmt.Sprintf("https://br.shop.example.com/produtos/%d", i)},
		}
	case KindPixel:
		s.Pixels = true
	case KindPassword:
		s.Password = benchPassword
	case KindExpired:
		s.Expired = true
	}
	return s
}

func mustJSON(v any) []byte {
	if v == nil {
		return []byte("[]")
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain structs are marshalled
	}
	if string(b) == "null" {
		return []byte("[]")
	}
	return b
}
