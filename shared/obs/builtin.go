package obs

import (
	"context"
	"fmt"
	"io"
)

// Builtin runs the commands every kurz binary has besides its own:
//
//	NAME --version    print the build (module version, VCS revision, commit time)
//	NAME probe URL    GET URL, exit 0 on 200: the container images' health check
//
// handled reports whether args were one of them; code is then the exit
// code. Neither reads the configuration, so both work with none.
func Builtin(name string, args []string, stdout, stderr io.Writer) (code int, handled bool) {
	switch {
	case len(args) == 1 && (args[0] == "--version" || args[0] == "-version"):
		fmt.Fprintln(stdout, name, ReadBuild())
		return 0, true
	case len(args) >= 1 && args[0] == "probe":
		if len(args) != 2 {
			fmt.Fprintf(stderr, "usage: %s probe URL\n", name)
			return 2, true
		}
		if err := Probe(context.Background(), args[1]); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1, true
		}
		return 0, true
	}
	return 0, false
}
