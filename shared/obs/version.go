package obs

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Build is what a binary knows about its own build, from the build info
// the Go toolchain embeds (module version, VCS revision and time; the
// revision and time only when built inside a git checkout with
// -buildvcs, the default).
type Build struct {
	Version   string // module version: a tag, a pseudo-version or "(devel)"
	Revision  string // VCS revision, "" when unknown
	Time      string // VCS commit time (RFC 3339), "" when unknown
	Modified  bool   // the work tree had uncommitted changes
	GoVersion string
}

// ReadBuild returns the running binary's Build.
func ReadBuild() Build {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Build{Version: "(unknown)"}
	}
	return buildFrom(info)
}

func buildFrom(info *debug.BuildInfo) Build {
	b := Build{Version: info.Main.Version, GoVersion: info.GoVersion}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the one line `--version` prints after the program's name:
// "v0.0.0-20261125101500-0123456789ab revision 0123456789ab… committed
// 2026-11-25T10:15:00Z go1.26.8". Go's build info has no build time; the
// commit time is the closest it records.
func (b Build) String() string {
	var s strings.Builder
	s.WriteString(b.Version)
	if b.Revision != "" {
		fmt.Fprintf(&s, " revision %s", b.Revision)
		if b.Modified {
			s.WriteString(" (modified)")
		}
	}
	if b.Time != "" {
		fmt.Fprintf(&s, " committed %s", b.Time)
	}
	if b.GoVersion != "" {
		fmt.Fprintf(&s, " %s", b.GoVersion)
	}
	return s.String()
}
