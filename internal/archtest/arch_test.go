package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pkg is what `go list -json` tells about one package.
type pkg struct {
	ImportPath   string
	Imports      []string // of the package's non-test files
	TestImports  []string // of its _test.go files in the package
	XTestImports []string // of its _test.go files in package x_test
}

// rule forbids an import: a package matching from must not import one
// matching to, unless the package is exempt. Non-test files are checked
// always; test files only when tests is set.
type rule struct {
	name   string
	from   func(string) bool
	to     func(string) bool
	exempt []string
	tests  bool
}

const (
	pgx        = "github.com/jackc/pgx/"
	clickhouse = "github.com/ClickHouse/clickhouse-go/"
)

func under(prefix string) func(string) bool {
	return func(p string) bool { return p == prefix || strings.HasPrefix(p, prefix+"/") }
}

func prefixed(prefix string) func(string) bool {
	return func(p string) bool { return strings.HasPrefix(p, prefix) }
}

func anyPkg(string) bool { return true }

// rules are the import invariants of docs/architecture.md. bench/ (the
// load generator) may seed the stores directly: it is exempt from the
// driver rules. Test files follow the separation of edge and admin and
// reach PostgreSQL only through pgstore and its test helper pgtest; they
// may use clickhouse-go's types to hold the connections chtest gives them.
var rules = []rule{
	{name: "only shared/pgstore imports pgx", from: anyPkg, to: prefixed(pgx), tests: true,
		exempt: []string{"kurz/shared/pgstore", "kurz/shared/pgstore/pgtest", "kurz/bench"}},
	{name: "only shared/chstore, the click pipeline, admin stats and price history import clickhouse-go",
		from: anyPkg, to: prefixed(clickhouse),
		exempt: []string{"kurz/shared/chstore", "kurz/shared/chstore/chtest", "kurz/edge/internal/clicks",
			"kurz/admin/internal/stats", "kurz/admin/internal/price", "kurz/bench"}},
	{name: "the edge never imports admin", from: under("kurz/edge"), to: under("kurz/admin"), tests: true},
	{name: "admin never imports the edge", from: under("kurz/admin"), to: under("kurz/edge"), tests: true},
	{name: "shared/ imports neither edge nor admin", from: under("kurz/shared"),
		to: func(p string) bool { return under("kurz/edge")(p) || under("kurz/admin")(p) }, tests: true},
}

// violations lists "package imports path (rule)" for every broken rule.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		for _, r := range rules {
			if !r.from(p.ImportPath) || slices.Contains(r.exempt, p.ImportPath) {
				continue
			}
			imports := p.Imports
			if r.tests {
				imports = slices.Concat(p.Imports, p.TestImports, p.XTestImports)
			}
			for _, imp := range imports {
				if r.to(imp) {
					out = append(out, p.ImportPath+" imports "+imp+" ("+r.name+")")
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// listModule runs `go list -json ./...` at the module root.
func listModule(t *testing.T) []pkg {
	t.Helper()
	// go test puts its own GOROOT/bin first on the test's PATH.
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestImportInvariants checks every package of the module against the
// rules.
func TestImportInvariants(t *testing.T) {
	pkgs := listModule(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[p.ImportPath] = true
	}
	// A listing that misses the packages the rules are about proves nothing.
	for _, want := range []string{"kurz/edge", "kurz/edge/internal/catalog", "kurz/admin", "kurz/shared/pgstore", "kurz/shared/chstore"} {
		if !seen[want] {
			t.Fatalf("go list did not list %s (%d packages)", want, len(pkgs))
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// The rules catch each kind of violation, in non-test and test files.
func TestImportRulesCatch(t *testing.T) {
	tests := []struct {
		name string
		p    pkg
		want int
	}{
		{"edge package imports pgx", pkg{ImportPath: "kurz/edge/internal/server", Imports: []string{pgx + "v5"}}, 1},
		{"edge test imports pgxpool", pkg{ImportPath: "kurz/edge/internal/server", TestImports: []string{pgx + "v5/pgxpool"}}, 1},
		{"edge main imports clickhouse-go", pkg{ImportPath: "kurz/edge", Imports: []string{clickhouse + "v2"}}, 1},
		{"edge test uses clickhouse driver types", pkg{ImportPath: "kurz/edge/internal/server", XTestImports: []string{clickhouse + "v2/lib/driver"}}, 0},
		{"admin imports the edge", pkg{ImportPath: "kurz/admin/internal/api", Imports: []string{"kurz/edge/internal/catalog"}}, 1},
		{"edge test imports admin", pkg{ImportPath: "kurz/edge", XTestImports: []string{"kurz/admin/internal/api"}}, 1},
		{"shared imports the edge", pkg{ImportPath: "kurz/shared/link", Imports: []string{"kurz/edge/internal/catalog"}}, 1},
		{"pgstore and its helper import pgx", pkg{ImportPath: "kurz/shared/pgstore/pgtest", Imports: []string{pgx + "v5"}}, 0},
		{"click pipeline imports clickhouse-go", pkg{ImportPath: "kurz/edge/internal/clicks", Imports: []string{clickhouse + "v2"}}, 0},
		{"bench seeds PostgreSQL directly", pkg{ImportPath: "kurz/bench", Imports: []string{pgx + "v5"}}, 0},
		{"edgeish prefix is not the edge", pkg{ImportPath: "kurz/edgeish", Imports: []string{"kurz/admin"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := violations([]pkg{tt.p}); len(got) != tt.want {
				t.Fatalf("violations %q, want %d", got, tt.want)
			}
		})
	}
}
