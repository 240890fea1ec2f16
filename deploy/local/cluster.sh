#!/usr/bin/env bash
# A project-local ClickHouse cluster for `make test-cluster` (and `make
# test`): one ZooKeeper and four ClickHouse servers, each with its own data
# and config under DIR (git-ignored .run/), listening on 127.0.0.1 only.
#
#   cluster.sh up DIR ZK_PORT CH_PORT   start ZooKeeper and the servers (reuses data)
#   cluster.sh down DIR                 stop them
#   cluster.sh status DIR               exit 0 when all run
#
# Servers 1-4 take CH_PORT, CH_PORT+3, CH_PORT+6 and CH_PORT+9 (each also
# uses +1 for HTTP and +2 for interserver traffic, see stack.sh). Every
# server knows two clusters (docs/operations.md, "ClickHouse cluster"):
#   kurz_sharded     two shards of one replica: servers 1 and 2
#   kurz_replicated  one shard of two replicas: servers 3 and 4
#                    (ReplicatedMergeTree, KURZ_CLICKHOUSE_REPLICATED=1)
# ZooKeeper carries ON CLUSTER DDL (18.16 needs it even without
# replication) and the replication log. It is Debian's zookeeper package,
# run as a plain Java process of this script, never the system service.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
stack=$here/stack.sh
ZK_CLASSPATH=${ZK_CLASSPATH:-/etc/zookeeper/conf:/usr/share/java/zookeeper.jar}

log() { printf 'cluster: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

install() {
	"$stack" install
	[ -f /usr/share/java/zookeeper.jar ] && command -v java >/dev/null 2>&1 && return 0
	command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] ||
		die "missing: zookeeper (Java). Run as root (apt-get install -y zookeeper) or install ZooKeeper 3.x."
	log "installing zookeeper (apt)"
	apt-get update -qq
	# The non-daemon package: no system service starts; this script runs it.
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends zookeeper >/dev/null
}

# zk_pids prints the pid of DIR's ZooKeeper, found by its config path,
# which is unique per DIR.
zk_pids() { pgrep -f -- "ZooKeeperServerMain $1/zk/zoo.cfg" || true; }

zk_ok() { [ "$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1; echo ruok >&3; cat <&3" 2>/dev/null)" = imok ]; }

zk_up() {
	local dir=$1 port=$2 zk=$1/zk
	mkdir -p "$zk/data"
	cat >"$zk/zoo.cfg" <<CFG
tickTime=2000
dataDir=$zk/data
clientPort=$port
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok
CFG
	if [ -n "$(zk_pids "$dir")" ]; then
		log "zookeeper already running ($zk)"
		return 0
	fi
	(cd "$zk" && exec setsid java -Xmx256m -cp "$ZK_CLASSPATH" -Dzookeeper.log.dir="$zk" \
		org.apache.zookeeper.server.ZooKeeperServerMain "$zk/zoo.cfg" >"$zk/out.log" 2>&1 </dev/null) &
	local i
	for i in $(seq 1 300); do
		if zk_ok "$port"; then
			log "zookeeper on 127.0.0.1:$port"
			return 0
		fi
		[ $i -gt 30 ] && [ -z "$(zk_pids "$dir")" ] && break
		sleep 0.1
	done
	tail -20 "$zk/out.log" >&2 || true
	die "zookeeper did not start"
}

zk_down() {
	local pids
	pids=$(zk_pids "$1")
	[ -n "$pids" ] || return 0
	kill -TERM $pids 2>/dev/null || true
	for _ in $(seq 1 100); do [ -z "$(zk_pids "$1")" ] && return 0; sleep 0.1; done
	pids=$(zk_pids "$1")
	[ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
}

# shard_xml prints a <shard> of the servers on the given ports.
shard_xml() {
	local p
	printf '            <shard><internal_replication>%s</internal_replication>\n' "$1"
	shift
	for p in "$@"; do
		printf '                <replica><host>127.0.0.1</host><port>%s</port></replica>\n' "$p"
	done
	printf '            </shard>\n'
}

# ch_cluster_config writes server N's cluster settings into a config.d
# file, which ClickHouse merges into the config.xml stack.sh writes.
ch_cluster_config() {
	local dir=$1 zk_port=$2 base=$3 n=$4 shard=$5 replica=$6
	local p1=$base p2=$((base + 3)) p3=$((base + 6)) p4=$((base + 9))
	mkdir -p "$dir/ch$n/ch/config.d"
	cat >"$dir/ch$n/ch/config.d/cluster.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <interserver_http_host>127.0.0.1</interserver_http_host>
    <zookeeper>
        <node><host>127.0.0.1</host><port>$zk_port</port></node>
        <session_timeout_ms>30000</session_timeout_ms>
    </zookeeper>
    <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>
    <macros><shard>$shard</shard><replica>$replica</replica></macros>
    <remote_servers>
        <kurz_sharded>
$(shard_xml false "$p1")
$(shard_xml false "$p2")
        </kurz_sharded>
        <kurz_replicated>
$(shard_xml true "$p3" "$p4")
        </kurz_replicated>
    </remote_servers>
</yandex>
XML
}

up() {
	local dir=$1 zk_port=$2 base=$3
	install
	zk_up "$dir" "$zk_port"
	# Server: shard and replica macros. 1 and 2 are the two shards of
	# kurz_sharded; 3 and 4 the two replicas of kurz_replicated's shard.
	local spec n shard replica
	for spec in "1 01 r1" "2 02 r1" "3 01 r3" "4 01 r4"; do
		read -r n shard replica <<<"$spec"
		ch_cluster_config "$dir" "$zk_port" "$base" "$n" "$shard" "$replica"
		"$stack" ch-up "$dir/ch$n" $((base + 3 * (n - 1)))
	done
}

down() {
	local n
	for n in 1 2 3 4; do "$stack" ch-down "$1/ch$n"; done
	zk_down "$1"
}

status() {
	local n
	[ -n "$(zk_pids "$1")" ] || return 1
	for n in 1 2 3 4; do
		[ -n "$(pgrep -f -- "--config-file=$1/ch$n/ch/config.xml")" ] || return 1
	done
}

cmd=${1:-}
shift || true
case "$cmd" in
up)
	[ $# -eq 3 ] || die "usage: cluster.sh up DIR ZK_PORT CH_PORT"
	up "$@"
	;;
down) [ $# -eq 1 ] || die "usage: cluster.sh down DIR"; down "$1" ;;
status) status "$1" ;;
*) die "usage: cluster.sh up DIR ZK_PORT CH_PORT | down DIR | status DIR" ;;
esac
