package deploy

import (
	"bufio"
	"bytes"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
)

const (
	composePath    = "deploy/docker/docker-compose.yml"
	composeEnvPath = "deploy/docker/.env.example"
)

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
}

type composeService struct {
	Image           string   `yaml:"image"`
	Build           any      `yaml:"build"`
	Command         []string `yaml:"command"`
	Environment     any      `yaml:"environment"` // a map, or a list of K=V
	Ports           []string `yaml:"ports"`
	Volumes         []string `yaml:"volumes"`
	Tmpfs           []string `yaml:"tmpfs"`
	ReadOnly        bool     `yaml:"read_only"`
	User            string   `yaml:"user"`
	CapDrop         []string `yaml:"cap_drop"`
	MemLimit        string   `yaml:"mem_limit"`
	StopGracePeriod string   `yaml:"stop_grace_period"`
	Healthcheck     *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
}

// parseEnvFile reads KEY=VALUE lines (an env file, systemd's
// EnvironmentFile), skipping comments.
func parseEnvFile(b []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return out
}

// interpolation is compose's ${NAME}, ${NAME:-default}, ${NAME:?error}.
var interpolation = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?:[:?-][^}]*)?\}`)

// checkCompose checks docker-compose.yml and .env.example and returns the
// kurz services as units.
func checkCompose(p *problems, fs files, img image) []unit {
	var cf composeFile
	if err := yaml.Unmarshal(fs[composePath], &cf); err != nil {
		p.add(composePath, "%v", err)
		return nil
	}
	dotenv := parseEnvFile(fs[composeEnvPath])
	envFile := map[string]envValue{}
	for k, v := range dotenv {
		envFile[k] = envValue{v, fromSecret}
	}
	checkEnvNames(p, composeEnvPath, envFile)
	checkPlaceholderSecret(p, composeEnvPath, dotenv["KURZ_SECRET"])

	var units []unit
	roles := map[string]string{}
	for _, name := range sortedKeys(cf.Services) {
		s := cf.Services[name]
		where := composePath + " service " + name
		env := composeEnv(p, where, s.Environment, dotenv)
		if s.Build == nil && !strings.HasPrefix(s.Image, "kurz") {
			// PostgreSQL, ClickHouse: only no KURZ_* settings.
			checkEnvNames(p, where, env)
			continue
		}
		roles[name] = roleOf(s.Command)
		units = append(units, composeUnit(p, where, s, img, env))
	}
	checkComposeOrder(p, cf, roles)
	return units
}

func composeUnit(p *problems, where string, s composeService, img image, env map[string]envValue) unit {
	u := unit{where: where, role: roleOf(s.Command), env: merge(img.env, env), needProbes: true, writable: s.Tmpfs}
	if !s.ReadOnly {
		p.add(where, "read_only: true is missing")
	}
	if !strings.EqualFold(strings.Join(s.CapDrop, ","), "ALL") {
		p.add(where, "cap_drop: [ALL] is missing")
	}
	if uid, _, _ := strings.Cut(s.User, ":"); s.User != "" && (uid == "0" || uid == "root") {
		p.add(where, "runs as root")
	}
	for _, v := range s.Volumes {
		if parts := strings.Split(v, ":"); len(parts) >= 2 && !strings.HasSuffix(v, ":ro") {
			u.writable = append(u.writable, parts[1])
		}
	}
	for _, port := range s.Ports {
		parts := strings.Split(port, ":")
		n, _ := strconv.Atoi(strings.TrimSuffix(parts[len(parts)-1], "/tcp"))
		u.ports = append(u.ports, n)
	}
	if s.Healthcheck != nil {
		for _, arg := range s.Healthcheck.Test {
			if pu, err := url.Parse(arg); err == nil && pu.Scheme == "http" {
				port, _ := strconv.Atoi(pu.Port())
				u.probes = append(u.probes, probe{"readiness", pu.Path, port})
			}
		}
	}
	u.stopGrace = 10 * time.Second // compose's default
	if s.StopGracePeriod != "" {
		d, err := parseSeconds(s.StopGracePeriod)
		if err != nil {
			p.add(where, "stop_grace_period: %v", err)
		}
		u.stopGrace = d
	}
	if s.MemLimit != "" {
		n, err := parseBytes(s.MemLimit)
		if err != nil {
			p.add(where, "mem_limit: %v", err)
		}
		u.memLimit = n
	}
	return u
}

// composeEnv reads a service's environment. A value taken from .env
// (interpolated) comes from the secret store; its value for the checks
// is the one .env.example shows.
func composeEnv(p *problems, where string, raw any, dotenv map[string]string) map[string]envValue {
	pairs := map[string]string{}
	switch e := raw.(type) {
	case nil:
	case map[string]any:
		for k, v := range e {
			pairs[k] = yamlScalar(v)
		}
	case []any:
		for _, item := range e {
			k, v, _ := strings.Cut(yamlScalar(item), "=")
			pairs[k] = v
		}
	default:
		p.add(where, "environment: want a map or a list, got %T", raw)
	}
	env := map[string]envValue{}
	for k, v := range pairs {
		src := fromLiteral
		value := interpolation.ReplaceAllStringFunc(v, func(m string) string {
			name := interpolation.FindStringSubmatch(m)[1]
			if _, ok := dotenv[name]; ok {
				src = fromSecret
			} else {
				p.add(where, "%s interpolates ${%s}, which %s does not define", k, name, composeEnvPath)
			}
			return dotenv[name]
		})
		env[k] = envValue{value, src}
	}
	return env
}

func yamlScalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		b, _ := yaml.Marshal(x)
		return strings.TrimSpace(string(b))
	}
}

// checkComposeOrder: the one-shot migrate runs `admin migrate`, and the
// admin and the edge start only after it succeeded.
func checkComposeOrder(p *problems, cf composeFile, roles map[string]string) {
	migrate, ok := migrateIn(p, composePath, roles)
	if !ok {
		return
	}
	for _, name := range sortedKeys(roles) {
		if r := roles[name]; r == roleEdge || r == roleAdmin {
			if c := cf.Services[name].DependsOn[migrate].Condition; c != "service_completed_successfully" {
				p.add(composePath, "service %s must depend on %s with service_completed_successfully, has %q", name, migrate, c)
			}
		}
	}
}

// merge returns base overridden by over.
func merge(base, over map[string]envValue) map[string]envValue {
	out := map[string]envValue{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}
