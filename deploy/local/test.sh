#!/usr/bin/env bash
# `make test`: start project-local PostgreSQL and ClickHouse (own data dir
# and ports, never those of `make run`), then vet and run every test against
# them. A server that cannot start is a failure, never a skip.
#
# `test.sh screenshots` (`make screenshots`) photographs every dashboard
# page at desktop and phone width into .run/screenshots/dashboard.
#
# `test.sh gobench` (`make gobench`) runs the edge's Go benchmarks against
# the same servers instead: the cache-hit benchmarks use a real pipeline
# into ClickHouse. BENCH (regexp, default .) and BENCHTIME (default 1s).
set -euo pipefail
mode=${1:-test}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
dir=$root/.run/test
pg_port=${KURZ_TEST_PG_PORT:-55433}
ch_port=${KURZ_TEST_CH_PORT:-59020}
stack=deploy/local/stack.sh

started=0
if [ -z "${KURZ_TEST_DATABASE_URL:-}" ] || [ -z "${KURZ_TEST_CLICKHOUSE_URL:-}" ]; then
	if ! "$stack" status "$dir"; then
		started=1
	fi
	"$stack" up "$dir" "$pg_port" "$ch_port"
	export KURZ_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/postgres?sslmode=disable"
	export KURZ_TEST_CLICKHOUSE_URL="clickhouse://127.0.0.1:$ch_port/default"
fi
stop() { [ "$started" = 1 ] && "$stack" down "$dir" || true; }
trap stop EXIT
# A development run: processes the tests start may use the development
# KURZ_SECRET (tests of the start-up check set their own environment).
export KURZ_DEV=1

if [ "$mode" = screenshots ]; then
	# `make screenshots`: every dashboard page at 1440 and 360 px wide.
	export KURZ_SCREENSHOT_DIR=${KURZ_SCREENSHOT_DIR:-$root/.run/screenshots/dashboard}
	mkdir -p "$KURZ_SCREENSHOT_DIR"
	rm -f "$KURZ_SCREENSHOT_DIR"/*.png
	echo "== dashboard screenshots into $KURZ_SCREENSHOT_DIR"
	go test -count=1 -run '^(TestScreenshots|TestStatsScreenshots|TestScreenshotsLinkForm|TestScreenshotsQR|TestScreenshotsPixels|TestScreenshotsCampaigns|TestScreenshotsChannels|TestScreenshotsDomains|TestScreenshotsVisitorPages|TestScreenshotsQREdit|TestScreenshotsDomainEdit|TestBrowserLoginThrottled|TestBrowserEndToEndEdge)$' ./admin/internal/dashboard/
	ls "$KURZ_SCREENSHOT_DIR"
	exit
fi
if [ "$mode" = gobench ]; then
	echo "== go test -bench ${BENCH:-.} ./edge/..."
	go test -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-1s}" ./edge/...
	exit
fi
deploy/local/lint.sh gofmt
echo "== go vet"
go vet ./...
echo "== go test"
go test -count=1 -timeout 14m ${GOTESTFLAGS:-} ./...
