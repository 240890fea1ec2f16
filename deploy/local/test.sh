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
#
# Every mode but screenshots and gobench also starts the ClickHouse
# cluster of deploy/local/cluster.sh (ZooKeeper on KURZ_TEST_ZK_PORT,
# default 2281; four servers from KURZ_TEST_CLUSTER_PORT, default 29200:
# below Linux's ephemeral range, where a client socket once held one of
# their 12 ports and a server failed to start: "Address already in use")
# unless KURZ_TEST_CLICKHOUSE_CLUSTER_URL and
# KURZ_TEST_CLICKHOUSE_REPLICATED_URL name one. `test.sh cluster` (`make
# test-cluster`) runs only the cluster tests (names containing Cluster);
# `make test` runs them with everything else (about 30 s on their own,
# docs/scaling.md).
set -euo pipefail
mode=${1:-test}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
dir=$root/.run/test
pg_port=${KURZ_TEST_PG_PORT:-55433}
ch_port=${KURZ_TEST_CH_PORT:-59020}
stack=deploy/local/stack.sh

cluster_dir=$root/.run/test-cluster
started=0
cluster_started=0
# Stop what this run started, also when a server fails to come up.
stop() {
	[ "$cluster_started" = 1 ] && deploy/local/cluster.sh down "$cluster_dir" || true
	[ "$started" = 1 ] && "$stack" down "$dir" || true
}
trap stop EXIT
if [ -z "${KURZ_TEST_DATABASE_URL:-}" ] || [ -z "${KURZ_TEST_CLICKHOUSE_URL:-}" ]; then
	if ! "$stack" status "$dir"; then
		started=1
	fi
	"$stack" up "$dir" "$pg_port" "$ch_port"
	export KURZ_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/postgres?sslmode=disable"
	export KURZ_TEST_CLICKHOUSE_URL="clickhouse://127.0.0.1:$ch_port/default"
fi
if [ "$mode" = test ] || [ "$mode" = cluster ]; then
	if [ -z "${KURZ_TEST_CLICKHOUSE_CLUSTER_URL:-}" ] || [ -z "${KURZ_TEST_CLICKHOUSE_REPLICATED_URL:-}" ]; then
		cluster_port=${KURZ_TEST_CLUSTER_PORT:-29200}
		if ! deploy/local/cluster.sh status "$cluster_dir"; then
			cluster_started=1
		fi
		deploy/local/cluster.sh up "$cluster_dir" "${KURZ_TEST_ZK_PORT:-2281}" "$cluster_port"
		export KURZ_TEST_CLICKHOUSE_CLUSTER_URL="clickhouse://127.0.0.1:$cluster_port/default"
		export KURZ_TEST_CLICKHOUSE_REPLICATED_URL="clickhouse://127.0.0.1:$((cluster_port + 6))/default"
	fi
fi
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
if [ "$mode" = cluster ]; then
	echo "== go test -run Cluster (ClickHouse cluster)"
	go test -count=1 -timeout 10m -run Cluster ${GOTESTFLAGS:-} ./shared/chstore/... ./admin/internal/stats/ ./internal/clustertest/
	exit
fi
deploy/local/lint.sh gofmt
echo "== go vet"
go vet ./...
echo "== go test"
go test -count=1 -timeout 14m ${GOTESTFLAGS:-} ./...
