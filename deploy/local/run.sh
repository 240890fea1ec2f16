#!/usr/bin/env bash
# `make run`: the whole local stack in the foreground. Starts project-local
# PostgreSQL and ClickHouse under .run/dev (unless KURZ_DATABASE_URL and
# KURZ_CLICKHOUSE_URL name servers of yours), migrates, creates a demo user
# once, prints its API key and the URLs, then runs edge and admin until
# Ctrl-C, which stops everything this script started.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
dir=$root/.run/dev
pg_port=${KURZ_DEV_PG_PORT:-55432}
ch_port=${KURZ_DEV_CH_PORT:-59000}
stack=deploy/local/stack.sh
mkdir -p "$dir"

own_stack=0
pids=()
cleanup() {
	trap - INT TERM EXIT
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	[ "$own_stack" = 1 ] && "$stack" down "$dir" || true
	echo "stopped."
}
trap cleanup INT TERM EXIT

if [ -z "${KURZ_DATABASE_URL:-}" ] || [ -z "${KURZ_CLICKHOUSE_URL:-}" ]; then
	own_stack=1
	"$stack" up "$dir" "$pg_port" "$ch_port"
	psql="psql -h 127.0.0.1 -p $pg_port -U postgres -d postgres -qtA"
	if [ "$($psql -c "SELECT 1 FROM pg_database WHERE datname = 'kurz'")" != 1 ]; then
		$psql -c "CREATE DATABASE kurz"
	fi
	export KURZ_DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/kurz?sslmode=disable"
	export KURZ_CLICKHOUSE_URL="clickhouse://127.0.0.1:$ch_port/default"
fi
export KURZ_SPOOL_DIR=${KURZ_SPOOL_DIR:-$dir/spool}


go build -o bin/edge ./edge
go build -o bin/admin ./admin
bin/admin migrate

keyfile=$dir/demo-key
if [ ! -s "$keyfile" ]; then
	out=$(bin/admin user create --email demo@example.com --username demo --plan pro --rate-limit 0 --admin)
	printf '%s\n' "$out" | sed -E 's/.*"api_key":"([^"]+)".*/\1/' >"$keyfile"
	chmod 600 "$keyfile"
fi
key=$(cat "$keyfile")
admin_addr=${KURZ_ADMIN_ADDR:-:8081}
edge_addr=${KURZ_EDGE_ADDR:-:8080}
admin_port=${admin_addr##*:}
cat <<MSG

kurz is running.
  demo API key : $key
  admin API    : http://localhost:$admin_port/api
                 curl -H 'Authorization: Bearer $key' http://localhost:$admin_port/api/account
  price API    : http://localhost:$admin_port/api/price?symbol=AAPL
  short links  : ${KURZ_BASE_URL:-http://localhost:8080}/<alias>  (edge listening on $edge_addr)
Press Ctrl-C to stop everything.

MSG
bin/admin serve & pids+=($!)
# schedtrace set to ~25 days keeps Go's sysmon thread out of its deep sleep,
# which otherwise wakes with a futex on every idle-to-busy switch: 20% of the
# edge's CPU at moderate load (edge/PERFORMANCE.md, "sysmon"). The trace line
# itself is never printed in practice.
GODEBUG="${GODEBUG:-schedtrace=2147483647}" bin/edge & pids+=($!)
wait -n "${pids[@]}" || true
