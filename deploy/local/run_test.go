// Package local_test checks the scripts behind make run, make test and
// make bench: their syntax, and run.sh's helper functions (sourced with a
// fake bin/admin, so no server starts). The commands those helpers call
// are tested in their packages: admin (geoip convert, price import of
// deploy/local/sample-prices.csv, user create and rotate-key) and bench
// (default results path).
package local_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestScriptsParse(t *testing.T) {
	scripts, err := filepath.Glob("*.sh")
	if err != nil || len(scripts) < 4 {
		t.Fatalf("scripts %v, %v", scripts, err)
	}
	for _, s := range scripts {
		if out, err := exec.Command("bash", "-n", s).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", s, err, out)
		}
	}
}

// fakeAdmin stands in for bin/admin: it logs its arguments to $FAKE_LOG
// and answers as $FAKE_MODE says.
const fakeAdmin = `#!/bin/sh
echo "$*" >>"$FAKE_LOG"
case "$1 $2" in
"geoip convert")
	[ "$FAKE_MODE" = fail ] && { echo "geoip convert: broken" >&2; exit 1; }
	while [ $# -gt 0 ]; do [ "$1" = --out ] && echo mmdb >"$2"; shift; done ;;
"user create")
	case "$FAKE_MODE" in
	created) echo '{"api_key":"kurz_demo0123456789","email":"demo@example.com","id":1,"username":"demo"}' ;;
	exists) echo "user create: email or username already taken" >&2; exit 1 ;;
	*) echo "user create: connection refused" >&2; exit 1 ;;
	esac ;;
esac
`

type runEnv struct {
	t                   *testing.T
	dir, geoip, admin   string
	log                 string
	installGeoIPCreates bool
}

func newRunEnv(t *testing.T) *runEnv {
	t.Helper()
	tmp := t.TempDir()
	e := &runEnv{t: t, dir: filepath.Join(tmp, "dev"), geoip: filepath.Join(tmp, "GeoIP"),
		admin: filepath.Join(tmp, "admin"), log: filepath.Join(tmp, "admin.log")}
	for _, d := range []string{e.dir, e.geoip} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(e.admin, []byte(fakeAdmin), 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

// run sources run.sh in bash and runs script with the helpers' variables
// set; env adds variables (KURZ_* of the test's own environment are
// dropped). It returns stdout, stderr and the admin calls of this run.
func (e *runEnv) run(script string, env ...string) (stdout, stderr string, calls []string, err error) {
	e.t.Helper()
	os.Remove(e.log)
	install := "install_geoip_database() { echo 'stub: no apt' >&2; return 1; }"
	if e.installGeoIPCreates {
		install = "install_geoip_database() { echo dat >\"$geoip_dir/GeoIP.dat\"; }"
	}
	full := "source ./run.sh\n" + install + "\n" +
		"dir=" + e.dir + " geoip_dir=" + e.geoip + " admin=" + e.admin + " admin_addr=:8081 edge_addr=:8080\n" +
		"dev_defaults\n" + script
	cmd := exec.Command("bash", "-c", full)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KURZ_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "FAKE_LOG="+e.log)
	cmd.Env = append(cmd.Env, env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if b, rerr := os.ReadFile(e.log); rerr == nil {
		calls = strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	return out.String(), errb.String(), calls, err
}

func TestRunDevDefaults(t *testing.T) {
	e := newRunEnv(t)
	show := `echo "$KURZ_REGISTRATION|$KURZ_COUNTRY_HEADER|$KURZ_TRUSTED_PROXIES|$KURZ_DEV"`
	tests := []struct {
		env  []string
		want string
	}{
		// KURZ_DEV=1: edge and admin start without a KURZ_SECRET of one's own.
		{nil, "open|X-Kurz-Country|127.0.0.0/8,::1/128|1"},
		// The user's settings win, an empty one too (header off).
		{[]string{"KURZ_REGISTRATION=closed", "KURZ_COUNTRY_HEADER=", "KURZ_TRUSTED_PROXIES=10.0.0.0/8", "KURZ_DEV=0"}, "closed||10.0.0.0/8|0"},
	}
	for _, tt := range tests {
		out, stderr, _, err := e.run(show, tt.env...)
		if err != nil || strings.TrimSpace(out) != tt.want {
			t.Errorf("env %v: %q (%v, %s), want %q", tt.env, out, err, stderr, tt.want)
		}
	}
}

func TestRunGeoIPSetup(t *testing.T) {
	e := newRunEnv(t)
	db := filepath.Join(e.dir, "country.mmdb")
	v4, v6 := filepath.Join(e.geoip, "GeoIP.dat"), filepath.Join(e.geoip, "GeoIPv6.dat")
	show := `geoip_setup; echo "db=${KURZ_GEOIP_DB:-}"`
	convertBoth := "geoip convert --v4 " + v4 + " --out " + db + " --v6 " + v6
	step := func(name string, env []string, wantDB string, wantCalls []string, wantErr string) {
		t.Helper()
		out, stderr, calls, err := e.run(show, env...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr)
		}
		if got := strings.TrimSpace(out); got != "db="+wantDB {
			t.Errorf("%s: %s, want db=%s", name, got, wantDB)
		}
		if strings.Join(calls, ";") != strings.Join(wantCalls, ";") {
			t.Errorf("%s: admin calls %q, want %q", name, calls, wantCalls)
		}
		if !strings.Contains(stderr, wantErr) {
			t.Errorf("%s: stderr %q, want %q", name, stderr, wantErr)
		}
	}
	step("no database, no apt", nil, "", nil, "continuing without GeoIP")

	touch := func(path string, age time.Duration) {
		t.Helper()
		if err := os.WriteFile(path, []byte("dat"), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(path, when, when); err != nil {
			t.Fatal(err)
		}
	}
	touch(v4, time.Hour)
	touch(v6, time.Hour)
	step("first conversion", nil, db, []string{convertBoth}, "")
	step("reused", nil, db, nil, "")
	touch(v6, -time.Minute) // a newer package version
	step("newer .dat converts again", nil, db, []string{convertBoth}, "")
	step("user's own database", []string{"KURZ_GEOIP_DB=/srv/own.mmdb"}, "/srv/own.mmdb", nil, "")
	touch(v4, -2*time.Minute)
	step("conversion fails", []string{"FAKE_MODE=fail"}, "", []string{convertBoth}, "continuing without GeoIP")

	e2 := newRunEnv(t)
	e2.installGeoIPCreates = true
	out, stderr, calls, err := e2.run(show)
	wantDB := filepath.Join(e2.dir, "country.mmdb")
	if err != nil || strings.TrimSpace(out) != "db="+wantDB || len(calls) != 1 ||
		calls[0] != "geoip convert --v4 "+filepath.Join(e2.geoip, "GeoIP.dat")+" --out "+wantDB {
		t.Errorf("installed by the script: %q, calls %q, %v %s", out, calls, err, stderr)
	}
}

func TestRunDemoUser(t *testing.T) {
	e := newRunEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "demo-key"), []byte("kurz_old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const exists = "demo user exists; key was shown when it was created; get a new one with: bin/admin user rotate-key --email demo@example.com"
	tests := []struct {
		mode    string
		want    []string
		notWant []string
	}{
		{"created", []string{"kurz_demo0123456789", "shown\n  only now", "Bearer kurz_demo0123456789"}, []string{exists, "KEY"}},
		{"exists", []string{exists, "Bearer KEY", "(KEY below stands for it)"}, []string{"kurz_demo", "only now"}},
	}
	for _, tt := range tests {
		out, stderr, calls, err := e.run("demo_user; banner", "FAKE_MODE="+tt.mode)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.mode, err, stderr)
		}
		if len(calls) != 1 || !strings.HasPrefix(calls[0], "user create --email demo@example.com --username demo --plan pro --rate-limit 0 --admin") {
			t.Errorf("%s: admin calls %q", tt.mode, calls)
		}
		for _, w := range append(tt.want,
			"curl -sI -H 'X-Kurz-Country: DE' http://localhost:8080/geo-demo",
			`"geotarget":[{"location":"DE","link":"https://example.de/"}]`,
			"open (KURZ_REGISTRATION=open) at POST http://localhost:8081/api/register",
			"dashboard    : http://localhost:8081/  (sign in as demo / kurz-demo)",
			"-A 'Mozilla/5.0'",
			"/api/price?symbol=AAPL") {
			if !strings.Contains(out, w) {
				t.Errorf("%s: banner lacks %q:\n%s", tt.mode, w, out)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(out, w) {
				t.Errorf("%s: banner has %q:\n%s", tt.mode, w, out)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "demo-key")); err == nil {
		t.Error("the old key file is still there")
	}
	if _, stderr, _, err := e.run("demo_user; echo unreachable", "FAKE_MODE=down"); err == nil || !strings.Contains(stderr, "connection refused") {
		t.Errorf("failing user create: err %v, stderr %q", err, stderr)
	}
}

// TestDevScriptsSetKurzDev: make test and make bench are development runs
// (KURZ_DEV=1), so the processes they start may use the development
// KURZ_SECRET; make run's dev_defaults are tested above.
func TestDevScriptsSetKurzDev(t *testing.T) {
	for _, s := range []string{"test.sh", "bench.sh"} {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains("\n"+string(b), "\nexport KURZ_DEV=1\n") {
			t.Errorf("%s does not export KURZ_DEV=1", s)
		}
	}
}
