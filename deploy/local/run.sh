#!/usr/bin/env bash
# `make run`: the whole local stack in the foreground. Starts project-local
# PostgreSQL and ClickHouse under .run/dev (unless KURZ_DATABASE_URL and
# KURZ_CLICKHOUSE_URL name servers of yours), migrates, creates a demo user
# once (its API key is printed only then), loads sample price quotes, makes
# Debian's GeoIP country database readable for the edge, prints the URLs
# and curl examples, then runs edge and admin until Ctrl-C, which stops
# everything this script started.
#
# The dashboard is on the admin's address; the demo user signs in with the
# password KURZ_DEMO_PASSWORD (default kurz-demo), set when it is created.
#
# Development settings, each applied only when the variable is unset:
#   KURZ_REGISTRATION=open             anyone may sign up (POST /api/register)
#   KURZ_COUNTRY_HEADER=X-Kurz-Country a country header to try geo rules with
#   KURZ_TRUSTED_PROXIES=127.0.0.0/8,::1/128
#                                      ...believed from loopback only, which
#                                      also makes X-Forwarded-For from curl count
#   KURZ_GEOIP_DB=.run/dev/country.mmdb
#                                      converted from Debian's geoip-database
#   KURZ_DEV=1                         a development run: edge and admin start
#                                      without KURZ_SECRET (its development value)
# Never copy these to production: there the country header must come from
# your proxy or CDN, and KURZ_TRUSTED_PROXIES must name only those proxies.
#
# deploy/local/run_test.go sources this file to test its helper functions:
# everything above the "main" line only defines them.
set -euo pipefail

# dev_defaults exports the development settings above, keeping any value
# the user set (even an empty one: KURZ_COUNTRY_HEADER= turns the header off).
dev_defaults() {
	export KURZ_REGISTRATION=${KURZ_REGISTRATION-open}
	export KURZ_COUNTRY_HEADER=${KURZ_COUNTRY_HEADER-X-Kurz-Country}
	export KURZ_TRUSTED_PROXIES=${KURZ_TRUSTED_PROXIES-127.0.0.0/8,::1/128}
	export KURZ_DEV=${KURZ_DEV-1}
}

# install_geoip_database installs Debian's geoip-database when root and apt
# are there; tests replace it.
install_geoip_database() {
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "run: no GeoIP: $geoip_dir/GeoIP.dat is missing (Debian package geoip-database; installing it needs root and apt)." >&2
		return 1
	fi
	echo "run: installing geoip-database (apt) for GeoIP country lookups" >&2
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends geoip-database >/dev/null
}

# geoip_setup exports KURZ_GEOIP_DB, the edge's country database for real
# addresses: Debian's legacy GeoIP.dat (+ GeoIPv6.dat) converted once into
# $dir/country.mmdb by `admin geoip convert`, again only when a .dat file is
# newer. Optional: without it geo rules work with the country header only.
# A KURZ_GEOIP_DB of the user's is left alone.
geoip_setup() {
	local v4=$geoip_dir/GeoIP.dat v6=$geoip_dir/GeoIPv6.dat db=$dir/country.mmdb
	[ -z "${KURZ_GEOIP_DB:-}" ] || return 0
	if [ ! -r "$v4" ] && ! install_geoip_database; then
		echo "run: continuing without GeoIP; geo rules still work with the country header (KURZ_COUNTRY_HEADER)." >&2
		return 0
	fi
	if [ ! -s "$db" ] || [ "$v4" -nt "$db" ] || { [ -r "$v6" ] && [ "$v6" -nt "$db" ]; }; then
		local args=(--v4 "$v4" --out "$db")
		[ -r "$v6" ] && args+=(--v6 "$v6")
		if ! "$admin" geoip convert "${args[@]}" >&2; then
			echo "run: converting $v4 failed; continuing without GeoIP." >&2
			return 0
		fi
	fi
	export KURZ_GEOIP_DB=$db
}

# demo_password is the demo user's dashboard password (development only).
demo_password=${KURZ_DEMO_PASSWORD:-kurz-demo}

# demo_user creates the demo user on the first run and sets demo_key to its
# API key; later runs find it and set demo_key to the placeholder KEY. The
# key is never stored: kurz keeps only its hash, and a copy in a file went
# stale as soon as someone rotated the key (POST /api/account/key/rotate).
demo_user() {
	local out
	rm -f "$dir/demo-key" # a copy older versions of this script kept
	if out=$("$admin" user create --email demo@example.com --username demo --plan pro --rate-limit 0 --admin \
		--password "$demo_password" 2>&1); then
		demo_key=$(printf '%s\n' "$out" | sed -nE 's/.*"api_key":"([^"]+)".*/\1/p')
		[ -n "$demo_key" ] || { printf 'run: unexpected output of user create: %s\n' "$out" >&2; return 1; }
		demo_new=1
		return 0
	fi
	if printf '%s' "$out" | grep -q 'already taken'; then
		demo_key=KEY demo_new=0
		return 0
	fi
	printf '%s\n' "$out" >&2
	return 1
}

# banner prints the URLs and curl examples.
banner() {
	local admin_url=http://localhost:${admin_addr##*:} edge_url=http://localhost:${edge_addr##*:}
	local auth="-H 'Authorization: Bearer $demo_key'"
	echo
	echo "kurz is running."
	if [ "$demo_new" = 1 ]; then
		cat <<MSG
  ************************************************************************
  demo user created (operator role, no rate limit). Its API key is shown
  only now; save it:

      $demo_key

  ************************************************************************
MSG
	else
		echo "  demo user exists; key was shown when it was created; get a new one with: bin/admin user rotate-key --email demo@example.com"
		echo "  (KEY below stands for it)"
	fi
	cat <<MSG
  dashboard    : $admin_url/  (sign in as demo / $demo_password)
MSG
	if [ "$demo_new" != 1 ]; then
		echo "                 a demo user from before the dashboard has no password: bin/admin user reset-password --email demo@example.com"
		echo "                 prints a link that sets one"
	fi
	cat <<MSG
  admin API    : $admin_url/api
                 curl $auth $admin_url/api/account
  price API    : curl $auth '$admin_url/api/price?symbol=AAPL'
                 (sample quotes from deploy/local/sample-prices.csv; they are old, so "stale": true)
  short links  : ${KURZ_BASE_URL:-http://localhost:8080}/<alias>  (edge listening on $edge_addr)
MSG
	if [ "$KURZ_REGISTRATION" = open ]; then
		cat <<MSG
  sign-up      : open (KURZ_REGISTRATION=open) at POST $admin_url/api/register
                 curl -X POST $admin_url/api/register -H 'Content-Type: application/json' \\
                   -d '{"email":"ann@example.com","username":"ann","password":"a long passphrase"}'
                 (new users are on plan free, 30 requests/minute; the demo user has no limit)
MSG
	else
		echo "  sign-up      : KURZ_REGISTRATION=$KURZ_REGISTRATION (see docs/api.md, POST /api/register)"
	fi
	if [ -n "$KURZ_COUNTRY_HEADER" ]; then
		cat <<MSG
  geo rules    : the edge believes $KURZ_COUNTRY_HEADER from loopback (development only):
                 curl $auth -H 'Content-Type: application/json' \\
                   -d '{"url":"https://example.com/","custom":"geo-demo","geotarget":[{"location":"DE","link":"https://example.de/"}]}' \\
                   $admin_url/api/url/add
                 curl -sI -H '$KURZ_COUNTRY_HEADER: DE' $edge_url/geo-demo    # Location: https://example.de/
MSG
	fi
	if [ -n "${KURZ_GEOIP_DB:-}" ]; then
		echo "                 GeoIP ($KURZ_GEOIP_DB) for real addresses, e.g. through X-Forwarded-For from loopback:"
		echo "                 curl -sI -H 'X-Forwarded-For: 193.99.144.80' $edge_url/geo-demo"
	fi
	cat <<MSG
  statistics   : only a browser's GET is a click: curl's own User-Agent counts as a bot, a HEAD
                 (curl -I) never as a click. As a browser: curl -s -o /dev/null -A 'Mozilla/5.0' $edge_url/geo-demo
Press Ctrl-C to stop everything.

MSG
}

[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
# ---- main -------------------------------------------------------------------

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
dir=$root/.run/dev
pg_port=${KURZ_DEV_PG_PORT:-55432}
ch_port=${KURZ_DEV_CH_PORT:-59000}
stack=deploy/local/stack.sh
admin=bin/admin
geoip_dir=/usr/share/GeoIP
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
dev_defaults

go build -o bin/edge ./edge
go build -o bin/admin ./admin
bin/admin migrate
geoip_setup
demo_user
# The sample quotes, so the price URL below answers. Re-importing changes
# no quote (older ticks never replace newer ones).
bin/admin price import deploy/local/sample-prices.csv >/dev/null ||
	echo "run: importing deploy/local/sample-prices.csv failed (see above); the price API has no sample data." >&2

admin_addr=${KURZ_ADMIN_ADDR:-:8081}
edge_addr=${KURZ_EDGE_ADDR:-:8080}
banner
bin/admin serve & pids+=($!)
# schedtrace set to ~25 days keeps Go's sysmon thread out of its deep sleep,
# which otherwise wakes with a futex on every idle-to-busy switch: 20% of the
# edge's CPU at moderate load (edge/PERFORMANCE.md, "sysmon"). The trace line
# itself is never printed in practice.
GODEBUG="${GODEBUG:-schedtrace=2147483647}" bin/edge & pids+=($!)
wait -n "${pids[@]}" || true
