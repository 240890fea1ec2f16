package main

import (
	"flag"
	"fmt"
	"io"

	"kurz/shared/geoip"
)

const geoipUsage = "usage: admin geoip convert --v4 GeoIP.dat [--v6 GeoIPv6.dat] --out FILE.mmdb\n"

// geoipCmd runs `admin geoip convert`: it turns legacy GeoIP Country
// databases (Debian's geoip-database: /usr/share/GeoIP/GeoIP.dat and
// GeoIPv6.dat) into the MaxMind DB the edge reads (KURZ_GEOIP_DB). Exit
// status: 0 written, 1 a file could not be read or written, 2 usage.
func geoipCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "convert" {
		fmt.Fprint(stderr, geoipUsage)
		return 2
	}
	fs := flag.NewFlagSet("geoip convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	v4Path := fs.String("v4", "", "legacy IPv4 country database (GeoIP.dat), required")
	v6Path := fs.String("v6", "", "legacy IPv6 country database (GeoIPv6.dat), optional")
	out := fs.String("out", "", "MaxMind DB to write (replaced atomically), required")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *v4Path == "" || *out == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, geoipUsage)
		return 2
	}
	v4, err := geoip.OpenLegacy(*v4Path)
	if err != nil {
		fmt.Fprintf(stderr, "geoip convert: %v\n", err)
		return 1
	}
	var v6 *geoip.LegacyDB
	if *v6Path != "" {
		if v6, err = geoip.OpenLegacy(*v6Path); err != nil {
			fmt.Fprintf(stderr, "geoip convert: %v\n", err)
			return 1
		}
	}
	st, err := geoip.ConvertLegacy(*out, v4, v6)
	if err != nil {
		fmt.Fprintf(stderr, "geoip convert: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d IPv4 and %d IPv6 networks (%d with pseudo-codes and %d in reserved or IPv4-mapped space left out)\n",
		*out, st.IPv4, st.IPv6, st.Pseudo, st.Reserved)
	return 0
}
