package deploy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
)

const readmePath = "README.md"

// harness lists the directories whose KURZ_* variables are read by test
// harnesses and the load generator, not by the edge or the admin: they
// are no configuration, so neither README.md's table nor a deployment
// file has them.
var harness = []string{
	"bench",                 // KURZ_BENCH_KEY, and KURZ_DATABASE_URL as a flag default
	"shared/pgstore/pgtest", // KURZ_TEST_DATABASE_URL
	"shared/chstore/chtest", // KURZ_TEST_CLICKHOUSE_URL
	"shared/browsertest",    // KURZ_SCREENSHOT_DIR
}

var varName = regexp.MustCompile(`^KURZ_[A-Z0-9_]+$`)

// codeVariables finds every string literal that is a whole KURZ_* name
// in the module's non-test Go files outside the harness: a variable read
// outside shared/config (os.Getenv("KURZ_X")) shows up here. It returns
// the names with one file each.
func codeVariables(fsys fs.FS) (map[string]string, error) {
	found := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			base := path.Base(p)
			if p != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "bin" || isHarness(p)) {
				return fs.SkipDir
			}
			return nil
		}
		if path.Ext(p) != ".go" || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && varName.MatchString(s) {
					found[s] = p
				}
			}
			return true
		})
		return nil
	})
	return found, err
}

func isHarness(dir string) bool {
	for _, h := range harness {
		if dir == h {
			return true
		}
	}
	return false
}

// checkCode: the code reads no KURZ_* variable that config.Variables
// does not list.
func checkCode(p *problems, fsys fs.FS) {
	found, err := codeVariables(fsys)
	if err != nil {
		p.add("module", "%v", err)
		return
	}
	vars := known()
	for _, name := range sortedKeys(found) {
		if _, ok := vars[name]; !ok {
			p.add(found[name], "names %s, which config.Variables does not list (read it through shared/config)", name)
		}
	}
}

// readmeRows returns the variables of README.md's configuration table.
func readmeRows(b []byte) []string {
	_, after, _ := strings.Cut(string(b), "\n## Configuration\n")
	section, _, _ := strings.Cut(after, "\n## ")
	var names []string
	for _, line := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(line, "| `"); ok {
			if name, _, ok := strings.Cut(rest, "`"); ok {
				names = append(names, name)
			}
		}
	}
	return names
}

// goRuntime are the table's rows that Go's runtime reads, not kurz.
var goRuntime = map[string]bool{"GOMEMLIMIT": true, "GODEBUG": true}

// checkReadme: README.md's table and config.Variables list the same
// variables.
func checkReadme(p *problems, files files) {
	rows := map[string]bool{}
	for _, name := range readmeRows(files[readmePath]) {
		rows[name] = true
	}
	if len(rows) == 0 {
		p.add(readmePath, "no configuration table under \"## Configuration\"")
		return
	}
	vars := known()
	for _, name := range sortedKeys(rows) {
		if _, ok := vars[name]; !ok && !goRuntime[name] {
			p.add(readmePath, "the configuration table has %s, which the code does not read", name)
		}
	}
	for _, name := range sortedKeys(vars) {
		if !rows[name] {
			p.add(readmePath, "the configuration table lacks %s, which the code reads", name)
		}
	}
}
