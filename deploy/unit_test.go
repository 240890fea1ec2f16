package deploy

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kurz/shared/config"
	"kurz/shared/obs"
)

// files holds the deployment files and what they are checked against,
// by path relative to the repository's root ("deploy/k8s/edge-deployment.yaml").
// The checks read only these bytes, so a test can plant mistakes in a copy.
type files map[string][]byte

// problems collects what the checks find, one line each, prefixed with
// the file they are about.
type problems []string

func (p *problems) add(where, format string, args ...any) {
	*p = append(*p, where+": "+fmt.Sprintf(format, args...))
}

// Roles: which kurz process a unit runs.
const (
	roleEdge    = "edge"
	roleAdmin   = "admin"
	roleMigrate = "migrate"
)

// Sources of a variable's value.
const (
	fromLiteral = "plain configuration" // a value written in the file, a ConfigMap, a Dockerfile ENV
	fromSecret  = "secret store"        // a Kubernetes Secret, an env file, compose's .env interpolation
)

type envValue struct {
	value  string
	source string
}

// probe is one HTTP health check of a unit.
type probe struct {
	kind string // "readiness" or "liveness"
	path string
	port int
}

// unit is one way a deployment file runs a kurz process, reduced to what
// the checks compare with the code.
type unit struct {
	where string // file, and the service or container in it
	role  string
	env   map[string]envValue
	// ports the unit declares for its listener (container ports, published
	// ports); nil when the format declares none.
	ports  []int
	probes []probe
	// needProbes: the format has health checks, so edge and admin must
	// have readiness (and liveness, when needLiveness).
	needProbes, needLiveness bool
	// stopGrace is how long the process gets between SIGTERM and SIGKILL,
	// minus any wait before the SIGTERM (Kubernetes' preStop).
	stopGrace time.Duration
	memLimit  int64    // bytes; 0 = none
	writable  []string // directories the process may write
	// spoolRoom is the size of the volume at the spool directory, 0 when
	// unbounded or unknown.
	spoolRoom int64
}

// roleOf names the process a command line runs.
func roleOf(cmd []string) string {
	if len(cmd) == 0 {
		return ""
	}
	bin := cmd[0][strings.LastIndex(cmd[0], "/")+1:]
	args := strings.Join(cmd[1:], " ")
	switch {
	case bin == "edge" && (args == "" || args == "serve"):
		return roleEdge
	case bin == "admin" && args == "serve":
		return roleAdmin
	case bin == "admin" && args == "migrate":
		return roleMigrate
	}
	return ""
}

// migrateIn returns the service (or unit) of roles, by name, that runs
// the migrations.
func migrateIn(p *problems, where string, roles map[string]string) (string, bool) {
	for _, name := range sortedKeys(roles) {
		if roles[name] == roleMigrate {
			return name, true
		}
	}
	p.add(where, "nothing runs `admin migrate`")
	return "", false
}

// known is every variable the processes read, by name.
func known() map[string]config.Var {
	m := map[string]config.Var{}
	for _, v := range config.Variables() {
		m[v.Name] = v
	}
	return m
}

// checkEnvNames: only KURZ_* variables the code reads; credentials only
// from a secret store.
func checkEnvNames(p *problems, where string, env map[string]envValue) {
	vars := known()
	for _, name := range sortedKeys(env) {
		if !strings.HasPrefix(name, "KURZ_") {
			continue
		}
		v, ok := vars[name]
		switch {
		case !ok:
			p.add(where, "sets %s, which the code does not read (config.Variables)", name)
		case v.Secret && env[name].source != fromSecret:
			p.add(where, "%s carries a credential but comes from %s, not a secret store", name, env[name].source)
		}
	}
}

// effective loads the configuration a unit's process sees.
func effective(env map[string]envValue) (*config.Config, error) {
	return config.LoadFrom(func(name string) string { return env[name].value })
}

// stopBudget is how long a role takes at most to stop (shared/config).
func stopBudget(role string) time.Duration {
	switch role {
	case roleEdge:
		return config.EdgeStopTimeout
	case roleAdmin:
		return config.AdminStopTimeout
	}
	return 0
}

// checkUnit compares one unit with the code.
func checkUnit(p *problems, u unit) {
	checkEnvNames(p, u.where, u.env)
	if u.role == "" {
		p.add(u.where, "runs neither `edge serve`, `admin serve` nor `admin migrate`")
		return
	}
	cfg, err := effective(u.env)
	if err != nil {
		p.add(u.where, "the configuration does not load: %v", err)
		return
	}
	if u.role == roleMigrate {
		return
	}
	addr := map[string]string{roleEdge: cfg.EdgeAddr, roleAdmin: cfg.AdminAddr}[u.role]
	port, err := portOf(addr)
	if err != nil {
		p.add(u.where, "listen address %q: %v", addr, err)
		return
	}
	if u.ports != nil && !slices.Contains(u.ports, port) {
		p.add(u.where, "declares ports %v, but the %s listens on %d (%q)", u.ports, u.role, port, addr)
	}
	checkProbes(p, u, port)
	if budget := stopBudget(u.role); u.stopGrace < budget+5*time.Second {
		p.add(u.where, "gives the %s %v to stop; it may take %v (shared/config), give it at least 5 s more",
			u.role, u.stopGrace, budget)
	}
	if u.role == roleEdge {
		checkEdgeMemory(p, u)
		checkSpool(p, u, cfg)
	}
}

func checkProbes(p *problems, u unit, port int) {
	want := map[string]string{"readiness": obs.ReadinessPath, "liveness": obs.LivenessPath}
	seen := map[string]bool{}
	for _, pr := range u.probes {
		seen[pr.kind] = true
		if pr.path != want[pr.kind] {
			p.add(u.where, "%s probe on %q, the %s serves it at %s", pr.kind, pr.path, u.role, want[pr.kind])
		}
		if pr.port != port {
			p.add(u.where, "%s probe on port %d, the %s listens on %d", pr.kind, pr.port, u.role, port)
		}
	}
	if u.needProbes && !seen["readiness"] {
		p.add(u.where, "no readiness probe on %s", obs.ReadinessPath)
	}
	if u.needLiveness && !seen["liveness"] {
		p.add(u.where, "no liveness probe on %s", obs.LivenessPath)
	}
}

// checkEdgeMemory: README.md's GOMEMLIMIT (~90% of the memory limit) and
// GODEBUG rows.
func checkEdgeMemory(p *problems, u unit) {
	if u.memLimit == 0 {
		p.add(u.where, "the edge has no memory limit (GOMEMLIMIT is set from it)")
	} else if lim, err := parseBytes(u.env["GOMEMLIMIT"].value); err != nil {
		p.add(u.where, "GOMEMLIMIT %q: %v", u.env["GOMEMLIMIT"].value, err)
	} else if r := float64(lim) / float64(u.memLimit); r < 0.85 || r > 0.95 {
		p.add(u.where, "GOMEMLIMIT is %.0f%% of the memory limit, want ~90%%", r*100)
	}
	if !strings.Contains(u.env["GODEBUG"].value, "schedtrace=2147483647") {
		p.add(u.where, "GODEBUG lacks schedtrace=2147483647 (README.md)")
	}
}

// checkSpool: the edge writes its spool into a writable, large enough
// directory.
func checkSpool(p *problems, u unit, cfg *config.Config) {
	ok := false
	for _, w := range u.writable {
		if cfg.SpoolDir == w || strings.HasPrefix(cfg.SpoolDir, strings.TrimSuffix(w, "/")+"/") {
			ok = true
		}
	}
	if !ok {
		p.add(u.where, "KURZ_SPOOL_DIR %s is not in a writable directory (%v)", cfg.SpoolDir, u.writable)
	}
	if u.spoolRoom > 0 && u.spoolRoom < cfg.SpoolMaxBytes {
		p.add(u.where, "the spool's volume holds %d bytes, less than KURZ_SPOOL_MAX_BYTES %d", u.spoolRoom, cfg.SpoolMaxBytes)
	}
}

// checkPlaceholderSecret: a KURZ_SECRET written in a template must be too
// short to serve with, so a forgotten placeholder stops the processes.
func checkPlaceholderSecret(p *problems, where, value string) {
	if len(value) >= config.MinSecretBytes && !strings.Contains(value, "${") {
		p.add(where, "KURZ_SECRET placeholder is %d bytes: one a process would accept; keep templates below %d",
			len(value), config.MinSecretBytes)
	}
}

func portOf(addr string) (int, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(port)
}

// parseBytes reads the memory sizes of the three formats: Go's
// GOMEMLIMIT (920MiB), Kubernetes quantities (1Gi, 512M), compose's
// mem_limit (1g) and systemd's MemoryMax (1G, binary).
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
		{"B", 1}, {"b", 1}, {"", 1},
	}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil || n <= 0 {
				return 0, fmt.Errorf("not a size: %q", s)
			}
			return n * u.mult, nil
		}
	}
	return 0, fmt.Errorf("not a size: %q", s)
}

// parseSeconds reads compose's and systemd's durations: 60s, 1m30s,
// 1min, or plain seconds.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), "min", "m")
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	return time.ParseDuration(strings.ReplaceAll(s, " ", ""))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"920MiB", 920 << 20}, {"1Gi", 1 << 30}, {"1g", 1 << 30}, {"1G", 1 << 30}, {"512M", 512 << 20},
		{"1073741824", 1 << 30}, {"1280Mi", 1280 << 20}, {"x", -1}, {"", -1}, {"-1G", -1},
	}
	for _, tt := range tests {
		got, err := parseBytes(tt.in)
		if tt.want < 0 && err == nil || tt.want >= 0 && got != tt.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}
