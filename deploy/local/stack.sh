#!/usr/bin/env bash
# Project-local PostgreSQL 15 and ClickHouse servers for `make run` and
# `make test`. Data lives under a directory of the caller's choice (under
# .run/, git-ignored); the system clusters are never touched.
#
#   stack.sh install                      install missing server packages and chromium (apt)
#   stack.sh up DIR PG_PORT CH_PORT       start both (reuses existing data)
#   stack.sh down DIR                     stop both
#   stack.sh status DIR                   exit 0 when both run
#   stack.sh pg-up|pg-down DIR [PORT]     one server only
#   stack.sh ch-up|ch-down DIR [PORT]
#
# ClickHouse also takes CH_PORT+1 (HTTP) and CH_PORT+2 (interserver): keep
# instances' CH_PORTs at least 3 apart. Servers listen on 127.0.0.1 only. PostgreSQL trusts local connections:
# these instances are for development and tests, never for production.
set -euo pipefail

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

log() { printf 'stack: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

install() {
	local need=()
	[ -x "$PG_BIN/postgres" ] || need+=(postgresql-15)
	command -v clickhouse-server >/dev/null 2>&1 || need+=(clickhouse-server clickhouse-client)
	command -v pgrep >/dev/null 2>&1 || need+=(procps)
	command -v setpriv >/dev/null 2>&1 || need+=(util-linux)
	# The browser tests (shared/browsertest) drive Debian's Chromium. Only
	# they need it, so when it cannot be installed here the servers still
	# start and those tests fail saying what is missing.
	local browser=()
	[ -x /usr/bin/chromium ] || browser=(chromium)
	if [ ${#need[@]} -eq 0 ]; then
		[ ${#browser[@]} -eq 0 ] && return 0
		if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" -ne 0 ]; then
			log "chromium is missing: the browser tests fail until /usr/bin/chromium is installed (as root: apt-get install chromium)"
			return 0
		fi
	fi
	need+=("${browser[@]}")
	if ! command -v apt-get >/dev/null 2>&1; then
		die "missing: ${need[*]}. Install PostgreSQL 15, ClickHouse server and Chromium (/usr/bin/chromium, for the browser tests) with your package manager, or set KURZ_DATABASE_URL and KURZ_CLICKHOUSE_URL to servers you run."
	fi
	[ "$(id -u)" -eq 0 ] || die "missing: ${need[*]}. Run as root (apt-get install -y ${need[*]}) or set KURZ_DATABASE_URL and KURZ_CLICKHOUSE_URL."
	log "installing ${need[*]} (apt)"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
	# The Debian package may create and start a system cluster; we do not use it.
}

as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"
	else
		"$@"
	fi
}

# pg_dir prints where DIR's PostgreSQL data lives: DIR/pg, or, when user
# postgres cannot reach DIR (a checkout under a private home directory), a
# directory under /var/tmp recorded in DIR/pg.path.
pg_dir() {
	if [ -f "$1/pg.path" ]; then cat "$1/pg.path"; else echo "$1/pg"; fi
}

pg_up() {
	local dir=$1 port=$2 pgdir
	mkdir -p "$dir"
	pgdir=$(pg_dir "$dir")
	if [ "$(id -u)" -eq 0 ]; then
		mkdir -p "$pgdir"
		chown postgres:postgres "$pgdir"
		chmod 700 "$pgdir"
		if ! as_postgres test -w "$pgdir"; then
			pgdir=/var/tmp/kurz-pg-$(printf '%s' "$dir" | md5sum | cut -c1-12)
			log "user postgres cannot reach $dir; keeping PostgreSQL data in $pgdir"
			mkdir -p "$pgdir"
			chown postgres:postgres "$pgdir"
			chmod 700 "$pgdir"
			echo "$pgdir" >"$dir/pg.path"
		fi
	fi
	if [ ! -f "$pgdir/PG_VERSION" ]; then
		log "initdb $pgdir"
		as_postgres "$PG_BIN/initdb" -D "$pgdir" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
	fi
	if as_postgres "$PG_BIN/pg_ctl" -D "$pgdir" status >/dev/null 2>&1; then
		log "postgres already running ($pgdir)"
	else
		as_postgres "$PG_BIN/pg_ctl" -D "$pgdir" -l "$pgdir/server.log" -w -t 60 \
			-o "-c listen_addresses=127.0.0.1 -p $port -k $pgdir -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=256MB" \
			start >/dev/null || { tail -20 "$pgdir/server.log" >&2; die "postgres did not start"; }
		log "postgres on 127.0.0.1:$port"
	fi
}

pg_down() {
	local pgdir
	pgdir=$(pg_dir "$1")
	[ -f "$pgdir/postmaster.pid" ] || return 0
	as_postgres "$PG_BIN/pg_ctl" -D "$pgdir" -m fast -w stop >/dev/null 2>&1 || true
}

ch_config() {
	local dir=$1 port=$2 chdir=$1/ch
	mkdir -p "$chdir/data" "$chdir/tmp" "$chdir/user_files" "$chdir/format_schemas" "$chdir/log"
	cat >"$chdir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>warning</level>
        <log>$chdir/log/server.log</log>
        <errorlog>$chdir/log/error.log</errorlog>
        <size>100M</size>
        <count>2</count>
    </logger>
    <listen_host>127.0.0.1</listen_host>
    <tcp_port>$port</tcp_port>
    <http_port>$((port + 1))</http_port>
    <interserver_http_port>$((port + 2))</interserver_http_port>
    <path>$chdir/data/</path>
    <tmp_path>$chdir/tmp/</tmp_path>
    <user_files_path>$chdir/user_files/</user_files_path>
    <format_schema_path>$chdir/format_schemas/</format_schema_path>
    <users_config>$chdir/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mark_cache_size>268435456</mark_cache_size>
    <max_concurrent_queries>200</max_concurrent_queries>
    <mlock_executable>false</mlock_executable>
    <!-- A row per part written or merged: make bench reports ClickHouse's
         work by table from it (bench/README.md, "The CPU split"). -->
    <part_log>
        <database>system</database>
        <table>part_log</table>
        <flush_interval_milliseconds>7500</flush_interval_milliseconds>
    </part_log>
</yandex>
XML
	cat >"$chdir/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
XML
}

ch_ping() { clickhouse-client --host 127.0.0.1 --port "$1" --query 'SELECT 1' >/dev/null 2>&1; }

# ch_pids prints the pids of the server using this directory's config. The
# config path is unique per directory, so this never touches another
# instance (make run's, make test's, a test's throwaway server).
ch_pids() { pgrep -f -- "--config-file=$1/ch/config.xml" || true; }

ch_up() {
	local dir=$1 port=$2 chdir=$1/ch
	ch_config "$dir" "$port"
	if [ -n "$(ch_pids "$dir")" ]; then
		log "clickhouse already running ($chdir)"
		return 0
	fi
	# jemalloc keeps freed pages instead of returning them to the kernel
	# (MALLOC_CONF: no decay): ClickHouse's CPU per click measured ~25%
	# lower with it (edge/PERFORMANCE.md, "jemalloc's decay"), at the cost
	# of RSS staying at its peak. A dedicated ClickHouse server should run
	# so; deploy/ sets it for the containers and units too.
	(cd "$chdir" && MALLOC_CONF=${MALLOC_CONF:-dirty_decay_ms:-1,muzzy_decay_ms:-1} \
		exec setsid clickhouse-server --config-file="$chdir/config.xml" >"$chdir/log/stdout.log" 2>&1 </dev/null) &
	local i
	for i in $(seq 1 300); do
		if ch_ping "$port"; then
			ch_pids "$dir" | head -1 >"$chdir/pid"
			log "clickhouse on 127.0.0.1:$port"
			return 0
		fi
		[ $i -gt 20 ] && [ -z "$(ch_pids "$dir")" ] && break
		sleep 0.1
	done
	tail -20 "$chdir/log/error.log" "$chdir/log/stdout.log" >&2 2>/dev/null || true
	die "clickhouse did not start"
}

ch_down() {
	local dir=$1 pids
	pids=$(ch_pids "$dir")
	if [ -n "$pids" ]; then
		kill -TERM $pids 2>/dev/null || true
		for _ in $(seq 1 150); do [ -z "$(ch_pids "$dir")" ] && break; sleep 0.1; done
		pids=$(ch_pids "$dir")
		[ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
	fi
	rm -f "$dir/ch/pid"
}

cmd=${1:-}
shift || true
case "$cmd" in
install) install ;;
up)
	[ $# -eq 3 ] || die "usage: stack.sh up DIR PG_PORT CH_PORT"
	install
	pg_up "$1" "$2"
	ch_up "$1" "$3"
	;;
down) ch_down "$1"; pg_down "$1" ;;
status) # exit 0 when both servers of DIR run
	[ -f "$(pg_dir "$1")/postmaster.pid" ] && [ -n "$(ch_pids "$1")" ] ;;
pg-up) pg_up "$1" "$2" ;;
pg-down) pg_down "$1" ;;
ch-up) ch_up "$1" "$2" ;;
ch-down) ch_down "$1" ;;
*) die "usage: stack.sh install | up DIR PG_PORT CH_PORT | down DIR | pg-up|ch-up DIR PORT | pg-down|ch-down DIR" ;;
esac
