package deploy

import (
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

const (
	systemdDir     = "deploy/systemd/"
	systemdEnvPath = systemdDir + "kurz.env.example"
)

// systemdUnit is a unit file's [Service] and [Unit] directives; a
// directive given more than once keeps every value, in order.
type systemdUnit map[string][]string

func parseSystemdUnit(b []byte) systemdUnit {
	u := systemdUnit{}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
		default:
			k, v, _ := strings.Cut(line, "=")
			u[section+"."+strings.TrimSpace(k)] = append(u[section+"."+strings.TrimSpace(k)], strings.TrimSpace(v))
		}
	}
	return u
}

func (u systemdUnit) last(key string) (string, bool) {
	vs := u["Service."+key]
	if len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1], true
}

// sandbox is what every unit must set (value "" = set, to anything but
// empty; a value = exactly that).
var sandbox = []struct{ key, want string }{
	{"ProtectSystem", "strict"},
	{"ProtectHome", "yes"},
	{"PrivateTmp", "yes"},
	{"PrivateDevices", "yes"},
	{"NoNewPrivileges", "yes"},
	{"CapabilityBoundingSet", "="}, // empty: no capabilities at all
	{"SystemCallFilter", "@system-service"},
	{"SystemCallArchitectures", "native"},
	{"RestrictAddressFamilies", ""},
	{"RestrictNamespaces", "yes"},
	{"RestrictSUIDSGID", "yes"},
	{"MemoryDenyWriteExecute", "yes"},
	{"LockPersonality", "yes"},
	{"ProtectKernelTunables", "yes"},
	{"ProtectKernelModules", "yes"},
	{"ProtectControlGroups", "yes"},
	{"EnvironmentFile", ""},
}

// envAssignment is one VAR=value of an Environment= line, quoted or not.
var envAssignment = regexp.MustCompile(`"([^"=]+)=([^"]*)"|([^\s"=]+)=(\S*)`)

// checkSystemd checks the unit files and returns the services as units.
func checkSystemd(p *problems, fs files) []unit {
	fileEnv := parseEnvFile(fs[systemdEnvPath])
	shared := withSource(fileEnv, fromSecret)
	checkEnvNames(p, systemdEnvPath, shared)
	checkPlaceholderSecret(p, systemdEnvPath, fileEnv["KURZ_SECRET"])
	var units []unit
	roles := map[string]string{}
	for _, name := range sortedKeys(fs) {
		if !strings.HasPrefix(name, systemdDir) || path.Ext(name) != ".service" {
			continue
		}
		su := parseSystemdUnit(fs[name])
		checkSandbox(p, name, su)
		exec, _ := su.last("ExecStart")
		u := unit{where: name, role: roleOf(strings.Fields(exec)), env: maps.Clone(shared)}
		roles[path.Base(name)] = u.role
		for _, line := range su["Service.Environment"] {
			for _, m := range envAssignment.FindAllStringSubmatch(line, -1) {
				k, v := m[1]+m[3], m[2]+m[4]
				u.env[k] = envValue{v, fromLiteral}
			}
		}
		if t, _ := su.last("TimeoutStopSec"); t != "" {
			d, err := parseSeconds(t)
			if err != nil {
				p.add(name, "TimeoutStopSec: %v", err)
			}
			u.stopGrace = d
		} else {
			u.stopGrace = 90e9 // systemd's DefaultTimeoutStopSec
		}
		if m, _ := su.last("MemoryMax"); m != "" {
			n, err := parseBytes(m)
			if err != nil {
				p.add(name, "MemoryMax: %v", err)
			}
			u.memLimit = n
		}
		for _, d := range strings.Fields(strings.Join(su["Service.StateDirectory"], " ")) {
			u.writable = append(u.writable, "/var/lib/"+d)
		}
		if u.role == roleMigrate {
			if t, _ := su.last("Type"); t != "oneshot" {
				p.add(name, "the migrations run once: Type=oneshot, not %q", t)
			}
		}
		units = append(units, u)
	}
	checkSystemdOrder(p, fs, roles)
	return units
}

func checkSandbox(p *problems, name string, su systemdUnit) {
	for _, s := range sandbox {
		vs := su["Service."+s.key]
		switch {
		case len(vs) == 0:
			p.add(name, "%s= is missing", s.key)
		case s.want == "=" && vs[len(vs)-1] != "":
			p.add(name, "%s=%s: want it empty", s.key, vs[len(vs)-1])
		case s.want != "" && s.want != "=" && !slices.Contains(vs, s.want):
			p.add(name, "%s=%s: want %s", s.key, strings.Join(vs, " "), s.want)
		}
	}
	dyn, _ := su.last("DynamicUser")
	user, _ := su.last("User")
	if dyn != "yes" && (user == "" || user == "root" || user == "0") {
		p.add(name, "runs as root: set DynamicUser=yes or a User=")
	}
}

// checkSystemdOrder: the admin and the edge start after the migrations.
func checkSystemdOrder(p *problems, fs files, roles map[string]string) {
	migrate, ok := migrateIn(p, systemdDir, roles)
	if !ok {
		return
	}
	for file, role := range roles {
		if role != roleEdge && role != roleAdmin {
			continue
		}
		after := parseSystemdUnit(fs[systemdDir+file])["Unit.After"]
		if !slices.Contains(strings.Fields(strings.Join(after, " ")), migrate) {
			p.add(systemdDir+file, "After= lacks %s", migrate)
		}
	}
}
