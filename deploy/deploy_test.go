package deploy

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// root is the repository's root, seen from this package's directory.
const root = ".."

// readFiles loads the deployment files and what they are checked against.
func readFiles(t *testing.T) files {
	t.Helper()
	fs := files{}
	for _, pattern := range []string{
		"deploy/docker/Dockerfile", "deploy/docker/docker-compose.yml", "deploy/docker/.env.example",
		"deploy/k8s/*.yaml", "deploy/systemd/*", readmePath, ".gitignore",
	} {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil || len(matches) == 0 {
			t.Fatalf("%s: no such file (%v)", pattern, err)
		}
		for _, m := range matches {
			b, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, m)
			fs[filepath.ToSlash(rel)] = b
		}
	}
	return fs
}

// check runs every check over fs.
func check(fs files) problems {
	var p problems
	img := checkDockerfile(&p, fs)
	for _, format := range []struct {
		where string
		units []unit
	}{
		{composePath, checkCompose(&p, fs, img)},
		{k8sDir, checkK8s(&p, fs, img)},
		{systemdDir, checkSystemd(&p, fs)},
	} {
		roles := map[string]bool{}
		for _, u := range format.units {
			roles[u.role] = true
			checkUnit(&p, u)
		}
		for _, r := range []string{roleEdge, roleAdmin, roleMigrate} {
			if !roles[r] {
				p.add(format.where, "nothing runs the %s", r)
			}
		}
	}
	checkReadme(&p, fs)
	if !slices.Contains(strings.Split(string(fs[".gitignore"]), "\n"), "/deploy/docker/.env") {
		p.add(".gitignore", "/deploy/docker/.env (the real secrets) is not ignored")
	}
	return p
}

// TestDeployFiles checks the deployment files against the code: KURZ_*
// variables, credentials, ports, probes, stop timeouts, memory, the
// spool, security settings, and README.md's configuration table.
func TestDeployFiles(t *testing.T) {
	p := check(readFiles(t))
	checkCode(&p, os.DirFS(root))
	for _, line := range p {
		t.Error(line)
	}
}

// TestChecksCatch plants one mistake at a time in a copy of the real
// files and expects the checks to report it: the test above can fail.
func TestChecksCatch(t *testing.T) {
	const (
		compose  = composePath
		dotenv   = composeEnvPath
		edgeK8s  = "deploy/k8s/edge-deployment.yaml"
		adminK8s = "deploy/k8s/admin-deployment.yaml"
		cm       = "deploy/k8s/configmap.yaml"
		edgeUnit = "deploy/systemd/kurz-edge.service"
	)
	tests := []struct {
		name, file, old, new, want string
	}{
		// variables
		{"unknown variable in compose", compose, "KURZ_LOG_LEVEL: info", "KURZ_LOG_LEVEL: info\n  KURZ_BOGUS: x", "KURZ_BOGUS, which the code does not read"},
		{"unknown variable in .env", dotenv, "KURZ_SECRET=change-me", "KURZ_SECRET=change-me\nKURZ_SECERT=x", "KURZ_SECERT"},
		{"unknown variable in a ConfigMap", cm, "KURZ_LOG_LEVEL: info", "KURZ_LOG_LEVLE: info", "KURZ_LOG_LEVLE, which the code does not read"},
		{"unknown variable in a container", edgeK8s, "- name: GODEBUG", "- name: KURZ_SPOOL_DIRECTORY\n              value: /x\n            - name: GODEBUG", "KURZ_SPOOL_DIRECTORY"},
		{"unknown variable in a unit", edgeUnit, "Environment=GOMEMLIMIT=920MiB", "Environment=GOMEMLIMIT=920MiB KURZ_WARM=1", "KURZ_WARM"},
		{"unknown variable in the image", dockerfilePath, "ENV KURZ_SPOOL_DIR=/var/lib/kurz/spool", "ENV KURZ_SPOOL_DIR=/var/lib/kurz/spool KURZ_X=1", "KURZ_X"},
		{"harness variable in a deployment", cm, "KURZ_LOG_LEVEL: info", "KURZ_TEST_DATABASE_URL: x", "KURZ_TEST_DATABASE_URL"},
		{"invalid value", cm, "KURZ_REGISTRATION: invite", "KURZ_REGISTRATION: sometimes", "does not load"},
		// credentials
		{"secret in a ConfigMap", cm, "KURZ_LOG_LEVEL: info", "KURZ_SECRET: abc", "KURZ_SECRET carries a credential"},
		{"secret literal in compose", compose, "KURZ_SECRET: ${KURZ_SECRET:?set KURZ_SECRET in .env (openssl rand -base64 48)}", "KURZ_SECRET: hardcoded", "KURZ_SECRET carries a credential"},
		{"secret in a unit's Environment=", edgeUnit, "Environment=GOMEMLIMIT=920MiB", "Environment=GOMEMLIMIT=920MiB\nEnvironment=KURZ_DATABASE_URL=postgres://u:p@h/db", "KURZ_DATABASE_URL carries a credential"},
		{"secret in the image", dockerfilePath, "ENV KURZ_SPOOL_DIR=", "ENV KURZ_SECRET=x KURZ_SPOOL_DIR=", "KURZ_SECRET carries a credential"},
		{"placeholder a process would accept", "deploy/k8s/secret.yaml", "KURZ_SECRET: change-me", "KURZ_SECRET: change-me-change-me-change-me-change-me", "placeholder"},
		{"undefined interpolation", compose, "${CLICKHOUSE_PASSWORD:?set CLICKHOUSE_PASSWORD in .env}@clickhouse", "${CH_PASSWORD}@clickhouse", "does not define"},
		// ports and probes
		{"wrong container port", edgeK8s, "containerPort: 8080", "containerPort: 8088", "the edge listens on 8080"},
		{"address moved, port not", cm, "KURZ_LOG_LEVEL: info", "KURZ_LOG_LEVEL: info\n  KURZ_ADMIN_ADDR: \":9000\"", "the admin listens on 9000"},
		{"wrong readiness path", edgeK8s, "path: /readyz", "path: /ready", "readiness probe on \"/ready\""},
		{"wrong liveness path", adminK8s, "path: /healthz", "path: /livez", "liveness probe on \"/livez\""},
		{"no liveness probe", adminK8s, "livenessProbe:", "startupProbe:", "no liveness probe"},
		{"compose health check on the wrong port", compose, "http://127.0.0.1:8081/readyz", "http://127.0.0.1:8080/readyz", "readiness probe on port 8080"},
		{"compose health check on the wrong path", compose, "http://127.0.0.1:8080/readyz", "http://127.0.0.1:8080/healthz", "readiness probe on \"/healthz\""},
		{"published port", compose, "\"8080:8080\"", "\"8080:80\"", "the edge listens on 8080"},
		{"EXPOSE", dockerfilePath, "EXPOSE 8080 8081", "EXPOSE 8080", "lacks 8081"},
		{"Service target port", "deploy/k8s/edge-service.yaml", "targetPort: http", "targetPort: web", "targets port web"},
		// stopping
		{"short grace period", edgeK8s, "terminationGracePeriodSeconds: 60", "terminationGracePeriodSeconds: 30", "to stop"},
		{"compose default grace", compose, "stop_grace_period: 60s", "", "gives the edge 10s to stop"},
		{"systemd stop timeout", edgeUnit, "TimeoutStopSec=60s", "TimeoutStopSec=20s", "gives the edge 20s to stop"},
		// memory and spool
		{"GOMEMLIMIT far from 90%", edgeK8s, "value: 920MiB", "value: 1000MiB", "GOMEMLIMIT is 98%"},
		{"no memory limit", edgeUnit, "MemoryMax=1G", "", "no memory limit"},
		{"no GODEBUG", compose, "GODEBUG: schedtrace=2147483647", "GODEBUG: \"\"", "schedtrace"},
		{"spool not writable", edgeK8s, "mountPath: /var/lib/kurz/spool", "mountPath: /var/lib/kurz/other", "is not in a writable directory"},
		{"spool volume too small", edgeK8s, "sizeLimit: 1280Mi", "sizeLimit: 512Mi", "less than KURZ_SPOOL_MAX_BYTES"},
		{"spool outside the state directory", edgeUnit, "KURZ_SPOOL_DIR=/var/lib/kurz-edge/spool", "KURZ_SPOOL_DIR=/srv/spool", "is not in a writable directory"},
		// security
		{"root image", dockerfilePath, "USER 65532:65532", "USER root", "non-root USER"},
		{"full base image", dockerfilePath, "FROM gcr.io/distroless/static-debian12:nonroot", "FROM debian:12", "want distroless"},
		{"cgo", dockerfilePath, "ENV CGO_ENABLED=0", "ENV CGO_ENABLED=1", "CGO_ENABLED=0"},
		{"writable root", adminK8s, "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", "readOnlyRootFilesystem"},
		{"capabilities kept", edgeK8s, "drop: [ALL]", "drop: [NET_RAW]", "drop: [ALL]"},
		{"service links", edgeK8s, "enableServiceLinks: false", "enableServiceLinks: true", "enableServiceLinks"},
		{"compose writable root", compose, "read_only: true", "read_only: false", "read_only"},
		{"sandbox option dropped", edgeUnit, "ProtectSystem=strict", "ProtectSystem=full", "ProtectSystem"},
		{"capabilities in a unit", edgeUnit, "CapabilityBoundingSet=\n", "CapabilityBoundingSet=CAP_NET_BIND_SERVICE\n", "want it empty"},
		{"root unit", edgeUnit, "DynamicUser=yes", "DynamicUser=no", "runs as root"},
		// wiring
		{"migrate not waited for", compose, "migrate: {condition: service_completed_successfully}\n\n  edge:", "migrate: {condition: service_started}\n\n  edge:", "service_completed_successfully"},
		{"no migrate unit order", "deploy/systemd/kurz-admin.service", "After=network-online.target kurz-migrate.service", "After=network-online.target", "After= lacks kurz-migrate.service"},
		{"HPA target", "deploy/k8s/edge-hpa.yaml", "name: kurz-edge\n  minReplicas", "name: kurz-edges\n  minReplicas", "no HorizontalPodAutoscaler scales the edge"},
		{"PDB selector", "deploy/k8s/edge-pdb.yaml", "component: edge", "component: edges", "no PodDisruptionBudget"},
		{"file not in the kustomization", "deploy/k8s/kustomization.yaml", "  - edge-pdb.yaml\n", "", "resources lacks edge-pdb.yaml"},
		{"no edge in compose", compose, `command: ["/usr/local/bin/edge", "serve"]`, `command: ["/usr/local/bin/edge", "run"]`, "nothing runs the edge"},
		{"no admin unit", "deploy/systemd/kurz-admin.service", "ExecStart=/usr/local/bin/admin serve", "ExecStart=/usr/local/bin/admin", "nothing runs the admin"},
		{".env not ignored", ".gitignore", "/deploy/docker/.env\n", "", "not ignored"},
		// README
		{"README row the code does not read", readmePath, "| `KURZ_LOG_LEVEL` |", "| `KURZ_LOG_LEVELS` |", "has KURZ_LOG_LEVELS, which the code does not read"},
		{"README lacks a variable", readmePath, "| `KURZ_WARM_LINKS` |", "| `KURZ_WARM` |", "lacks KURZ_WARM_LINKS"},
	}
	real := files{}
	for k, v := range readFiles(t) {
		real[k] = v
	}
	if p := check(real); len(p) > 0 {
		t.Fatalf("the real files already fail: %q", p)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			planted := files{}
			for k, v := range real {
				planted[k] = v
			}
			if !bytes.Contains(planted[tt.file], []byte(tt.old)) {
				t.Fatalf("%s has no %q to replace", tt.file, tt.old)
			}
			planted[tt.file] = bytes.Replace(planted[tt.file], []byte(tt.old), []byte(tt.new), 1)
			p := check(planted)
			if !slices.ContainsFunc(p, func(line string) bool { return strings.Contains(line, tt.want) }) {
				t.Errorf("want a problem with %q, got %q", tt.want, p)
			}
		})
	}
}

// TestCodeScanCatches plants variables in a module's Go files.
func TestCodeScanCatches(t *testing.T) {
	src := func(body string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("package x\n\nimport \"os\"\n\nvar _ = " + body + "\n")}
	}
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string // "" = no problem
	}{
		{"read outside shared/config", fstest.MapFS{"edge/x.go": src(`os.Getenv("KURZ_EDGE_SECRET")`)}, "KURZ_EDGE_SECRET"},
		{"as a constant", fstest.MapFS{"admin/internal/x/x.go": src(`"KURZ_NEW_THING"`)}, "KURZ_NEW_THING"},
		{"a known variable", fstest.MapFS{"edge/x.go": src(`os.Getenv("KURZ_SECRET")`)}, ""},
		{"a harness variable", fstest.MapFS{"shared/pgstore/pgtest/x.go": src(`os.Getenv("KURZ_TEST_DATABASE_URL")`)}, ""},
		{"in a test file", fstest.MapFS{"edge/x_test.go": src(`os.Getenv("KURZ_ONLY_IN_TESTS")`)}, ""},
		{"in a message, not a name", fstest.MapFS{"edge/x.go": src(`"set KURZ_NOPE first"`)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p problems
			checkCode(&p, tt.fsys)
			switch {
			case tt.want == "" && len(p) > 0:
				t.Errorf("want no problem, got %q", p)
			case tt.want != "" && !slices.ContainsFunc(p, func(l string) bool { return strings.Contains(l, tt.want) }):
				t.Errorf("want a problem with %q, got %q", tt.want, p)
			}
		})
	}
}
