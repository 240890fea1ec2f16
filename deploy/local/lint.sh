#!/usr/bin/env bash
# `make lint`: gofmt (fails on unformatted files), go vet and staticcheck
# over the whole module. staticcheck runs at a pinned version through
# `go run`, so nothing is installed globally and go.mod stays free of it;
# its first run downloads and compiles it (minutes), later runs take
# about a minute on two cores.
#
# `lint.sh gofmt` runs only the gofmt check: `make test` runs it, as it
# is instant and needs no network.
set -euo pipefail
cd "$(dirname "$0")/../.."
staticcheck=${STATICCHECK:-honnef.co/go/tools/cmd/staticcheck@v0.8.2}

check_gofmt() {
	local dirs bad
	dirs=$(go list -f '{{.Dir}}' ./...)
	# shellcheck disable=SC2086 # one glob per package directory
	bad=$(for d in $dirs; do gofmt -l "$d"/*.go; done)
	if [ -n "$bad" ]; then
		echo "gofmt: these files need formatting (gofmt -w):" >&2
		echo "$bad" >&2
		return 1
	fi
}

echo "== gofmt"
check_gofmt
[ "${1:-all}" = gofmt ] && exit
echo "== go vet"
go vet ./...
echo "== staticcheck ($staticcheck)"
go run "$staticcheck" ./...
