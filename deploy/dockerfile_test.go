package deploy

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"kurz/shared/config"
)

const dockerfilePath = "deploy/docker/Dockerfile"

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd, args string
}

func parseDockerfile(b []byte) []instruction {
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(line)
		if cur.Len() == 0 && (t == "" || strings.HasPrefix(t, "#")) {
			continue
		}
		if more, ok := strings.CutSuffix(t, "\\"); ok {
			cur.WriteString(more + " ")
			continue
		}
		cur.WriteString(t)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

// image is what the final stage gives every container run from it.
type image struct {
	env map[string]envValue
}

// checkDockerfile checks the image's build and returns what its final
// stage sets.
func checkDockerfile(p *problems, fs files) image {
	ins := parseDockerfile(fs[dockerfilePath])
	final := 0
	for i, in := range ins {
		if in.cmd == "FROM" {
			final = i
		}
	}
	build := joinArgs(ins[:final])
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "./edge", "./admin"} {
		if !strings.Contains(build, want) {
			p.add(dockerfilePath, "the build stage lacks %s (static binaries of both commands, without build paths)", want)
		}
	}
	img := image{env: map[string]envValue{}}
	var from, user string
	var expose []int
	for _, in := range ins[final:] {
		switch in.cmd {
		case "FROM":
			from = strings.Fields(in.args)[0]
		case "USER":
			user = in.args
		case "ENV":
			for k, v := range envArgs(in.args) {
				img.env[k] = envValue{v, fromLiteral}
			}
		case "EXPOSE":
			for _, f := range strings.Fields(in.args) {
				n, _ := strconv.Atoi(strings.TrimSuffix(f, "/tcp"))
				expose = append(expose, n)
			}
		case "COPY":
			if strings.Contains(in.args, "--from=") && strings.Contains(in.args, "/edge") != strings.Contains(in.args, "/admin") {
				p.add(dockerfilePath, "copy both binaries into the final image: %s", in.args)
			}
		}
	}
	if !strings.HasPrefix(from, "gcr.io/distroless/static") && from != "scratch" {
		p.add(dockerfilePath, "final stage FROM %s: want distroless static or scratch", from)
	}
	if uid, _, _ := strings.Cut(user, ":"); uid == "" || uid == "0" || uid == "root" {
		p.add(dockerfilePath, "the final stage runs as %q: want a non-root USER", user)
	}
	for _, addr := range []string{config.DefaultEdgeAddr, config.DefaultAdminAddr} {
		if port, _ := portOf(addr); !slices.Contains(expose, port) {
			p.add(dockerfilePath, "EXPOSE %v lacks %d, the default port of %s", expose, port, addr)
		}
	}
	checkEnvNames(p, dockerfilePath, img.env)
	return img
}

func joinArgs(ins []instruction) string {
	var s strings.Builder
	for _, in := range ins {
		s.WriteString(in.cmd + " " + in.args + "\n")
	}
	return s.String()
}

var envPair = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)`)

// envArgs reads ENV's arguments: K=V pairs, or the legacy "K V".
func envArgs(args string) map[string]string {
	out := map[string]string{}
	if k, v, ok := strings.Cut(args, " "); ok && !strings.Contains(k, "=") {
		out[k] = strings.TrimSpace(v)
		return out
	}
	for _, m := range envPair.FindAllStringSubmatch(args, -1) {
		out[m[1]] = strings.Trim(m[2], `"`)
	}
	return out
}
