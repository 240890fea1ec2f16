package obs

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestBuildFrom(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"tagged checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"},
			Settings: vcs("vcs.revision", "0123456789abcdef", "vcs.time", "2026-11-25T10:15:00Z", "vcs.modified", "false")},
			"v1.2.3 revision 0123456789abcdef committed 2026-11-25T10:15:00Z go1.26.8"},
		{"dirty work tree", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261125101500-0123456789ab+dirty"},
			Settings: vcs("vcs.revision", "0123456789abcdef", "vcs.modified", "true")},
			"v0.0.0-20261125101500-0123456789ab+dirty revision 0123456789abcdef (modified) go1.26.8"},
		{"no vcs (go run, tarball)", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"(devel) go1.26.8"},
		{"no version at all", debug.BuildInfo{}, "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := buildFrom(&tt.info).String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestReadBuild reads the test binary's own build info: it has one, with
// the toolchain's version.
func TestReadBuild(t *testing.T) {
	b := ReadBuild()
	if b.Version == "" || !strings.HasPrefix(b.GoVersion, "go") {
		t.Errorf("ReadBuild() = %+v", b)
	}
}
