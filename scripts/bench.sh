#!/usr/bin/env bash
# Runs redis-benchmark against HotKV and redis-server side by side on this
# machine, alternating between them, and prints the median requests/s of
# each and their ratio (HotKV / Redis) per test and pipeline depth.
#
#   scripts/bench.sh                  # defaults below
#   TESTS=set,get N=200000 RUNS=5 scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."

TESTS=${TESTS:-set,get,incr,mset,evalsha,evalsha_kl,tls_set,tls_get,acl_set,acl_get,set_lru,repl_set}
# SEARCH=0 skips the search rows (internal/searchbench, against RediSearch).
# TIER=0 skips the disk-tier rows (internal/tierbench, HotKV against itself;
# TIER_KEYS values of 1 KB, default 100000).
# HOL: head-of-line rows (internal/holbench): round trips of GET {b} while
# one client runs 250 ms operations on {a} back to back: script (a Lua
# script; key-locked on HotKV, flag-less on Redis), sort (SORT ... STORE).
N=${N:-200000}
CLIENTS=${CLIENTS:-50}
PIPELINES=${PIPELINES:-"1 16"}
RUNS=${RUNS:-3}
KEYSPACE=${KEYSPACE:-100000}
BIN=${BIN:-bin/hotkv}

command -v redis-benchmark >/dev/null || { echo "redis-benchmark missing: make deps" >&2; exit 1; }
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/hotkv
TXBENCH=bin/txbench
go build -o "$TXBENCH" ./internal/txbench
PUBBENCH=bin/pubbench
go build -o "$PUBBENCH" ./internal/pubbench
HOLBENCH=bin/holbench
go build -o "$HOLBENCH" ./internal/holbench
HOL=${HOL-script,sort}

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
HPORT=$(freeport); RPORT=$(freeport)
# Each server also listens for TLS (tls_* tests) on the port above.
declare -A TLSPORT=([$HPORT]=$(freeport) [$RPORT]=$(freeport))
tmp=$(mktemp -d)
mkdir "$tmp/hotkv" "$tmp/redis" "$tmp/certs"
go run ./internal/testcerts/gencerts "$tmp/certs"
TLSARGS=(--tls-cert-file "$tmp/certs/server.crt" --tls-key-file "$tmp/certs/server.key"
  --tls-ca-cert-file "$tmp/certs/ca.crt" --tls-auth-clients no)
"$BIN" --port "$HPORT" --tls-port "${TLSPORT[$HPORT]}" "${TLSARGS[@]}" --save '' --dir "$tmp/hotkv" \
  --enable-debug-command yes >"$tmp/hotkv.log" 2>&1 & HPID=$!
redis-server --port "$RPORT" --tls-port "${TLSPORT[$RPORT]}" "${TLSARGS[@]}" --save '' --appendonly no --dir "$tmp/redis" \
  --enable-debug-command yes --logfile "$tmp/redis.log" & RPID=$!
trap 'kill $HPID $RPID 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in $HPORT $RPORT; do
  for i in $(seq 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
done

csv_rps() { awk -F'","' 'NR>1 {gsub(/"/,"",$2); print $2; exit}'; }

# run PORT TEST PIPELINE -> requests per second. TEST is a redis-benchmark
# test name, or one of ours:
#   zrange100  ZRANGE of the first 100 members of a 100-member sorted set
#   blpop      BLPOP/LPUSH ping-pong: CLIENTS/2 clients block on a list while
#              CLIENTS/2 push to it (pipelining does not apply)
#   multi      MULTI, INCR {t}:a, INCR {t}:b, EXEC on random tags (transactions
#              per second; pipelining does not apply)
#   evalsha    EVALSHA of the key-locked counter of the key-based-locking spec,
#              without its allow-key-locking line, on random user:<n>:quota
#              keys (global lock on HotKV)
#   evalsha_kl the same on HotKV with allow-key-locking; Redis runs the
#              flag-less script (it refuses the flag)
#   setbit     SETBIT of bit 7 of random keys (redis-benchmark's random
#              numbers have leading zeros, which offsets refuse)
#   pfadd      PFADD of random elements to one HyperLogLog
#   xadd       XADD of one field to one stream kept at about 100000 entries
#   publish    PUBLISH to a channel with 10 subscribers (messages per second,
#              each received 10 times; pipelining does not apply)
#   tls_set, tls_get
#              SET and GET over TLS (TLSv1.3, no client certificate)
#   acl_set, acl_get
#              SET and GET as an ACL user with a key pattern (~key:*, every
#              command): the cost of permission checks against the default
#              user's set/get rows
#   set_everysec, set_always
#              SET with the append-only file on (appendfsync everysec or
#              always) on both servers, their files on the same disk
#   repl_set   SET on a master with one replica attached (a HotKV replica of
#              HotKV, a redis-server replica of redis-server), started for
#              the run; the replica's lag at the end of the last run (the
#              time until its offset is the master's) is printed below
#   set_lru    a write flood at maxmemory: SET of 1 KB values to a million
#              keys under maxmemory 64mb and allkeys-lru, from an empty
#              database (each run evicts); the servers' RSS after the last
#              run is printed below the table
COUNTER='local current = tonumber(redis.call('"'GET'"', KEYS[1]) or "0")
if current >= tonumber(ARGV[1]) then
  return 0
end
redis.call('"'INCR'"', KEYS[1])
return 1'
# aof PORT POLICY|off turns a server's append-only file on with POLICY,
# waiting for the rewrite that starts it, or off.
aof() {
  if [ "$2" = off ]; then
    redis-cli -p "$1" config set appendonly no >/dev/null
    return
  fi
  redis-cli -p "$1" config set appendfsync "$2" >/dev/null
  redis-cli -p "$1" config set appendonly yes >/dev/null
  for i in $(seq 100); do
    redis-cli -p "$1" info persistence | grep -q '^aof_rewrite_in_progress:0' && break
    sleep 0.1
  done
}
run() {
  case "$2" in
  setbit)
    redis-benchmark -p "$1" -n "$N" -c "$CLIENTS" -P "$3" -r "$KEYSPACE" -q --csv \
      SETBIT bits:__rand_int__ 7 1 2>/dev/null | csv_rps || true ;;
  xadd)
    redis-cli -p "$1" del bench:st >/dev/null
    redis-benchmark -p "$1" -n "$N" -c "$CLIENTS" -P "$3" -q --csv \
      XADD bench:st MAXLEN '~' 100000 '*' f v 2>/dev/null | csv_rps || true ;;
  pfadd)
    redis-cli -p "$1" del bench:hll >/dev/null
    redis-benchmark -p "$1" -n "$N" -c "$CLIENTS" -P "$3" -r "$KEYSPACE" -q --csv \
      PFADD bench:hll __rand_int__ 2>/dev/null | csv_rps || true ;;
  set_everysec | set_always)
    aof "$1" "${2#set_}"
    redis-benchmark -p "$1" -t set -n "$N" -c "$CLIENTS" -P "$3" -r "$KEYSPACE" -q --csv 2>/dev/null | csv_rps || true
    aof "$1" off ;;
  set_lru)
    redis-cli -p "$1" flushall >/dev/null
    redis-cli -p "$1" config set maxmemory-policy allkeys-lru >/dev/null
    redis-cli -p "$1" config set maxmemory 64mb >/dev/null
    redis-benchmark -p "$1" -t set -d 1000 -n "$N" -c "$CLIENTS" -P "$3" -r 1000000 -q --csv 2>/dev/null | csv_rps || true
    redis-cli -p "$1" info memory | awk -F: '/^used_memory_rss:/ {printf "%d", $2/1048576}' >"$tmp/rss.$1"
    redis-cli -p "$1" config set maxmemory 0 >/dev/null
    redis-cli -p "$1" config set maxmemory-policy noeviction >/dev/null
    redis-cli -p "$1" flushall >/dev/null ;;
  repl_set)
    local rp pid start
    rp=$(freeport)
    start_replica "$1" "$rp"; pid=$!
    redis-benchmark -p "$1" -t set -n "$N" -c "$CLIENTS" -P "$3" -r "$KEYSPACE" -q --csv 2>/dev/null | csv_rps || true
    start=$(date +%s.%N)
    for i in $(seq 3000); do
      [ "$(repl_offset "$1")" = "$(repl_offset "$rp")" ] && break
      sleep 0.01
    done
    awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%d", (b-a)*1000}' >"$tmp/lag.$1"
    kill "$pid"; wait "$pid" 2>/dev/null || true ;;
  tls_set | tls_get)
    redis-benchmark -p "${TLSPORT[$1]}" --tls --cacert "$tmp/certs/ca.crt" -t "${2#tls_}" -n "$N" -c "$CLIENTS" -P "$3" \
      -r "$KEYSPACE" -q --csv 2>/dev/null | csv_rps || true ;;
  acl_set | acl_get)
    redis-cli -p "$1" ACL SETUSER bench on '>benchpw' '~key:*' '+@all' >/dev/null
    redis-benchmark -p "$1" --user bench -a benchpw -t "${2#acl_}" -n "$N" -c "$CLIENTS" -P "$3" \
      -r "$KEYSPACE" -q --csv 2>/dev/null | csv_rps || true ;;
  evalsha | evalsha_kl)
    local body=$COUNTER sha
    [ "$2" = evalsha_kl ] && [ "$1" = "$HPORT" ] && body="#!lua flags=allow-key-locking
$COUNTER"
    sha=$(redis-cli -p "$1" script load "$body")
    redis-benchmark -p "$1" -n "$N" -c "$CLIENTS" -P "$3" -r "$KEYSPACE" -q --csv \
      EVALSHA "$sha" 1 "user:__rand_int__:quota" 1000000000 2>/dev/null | csv_rps || true ;;
  zrange100)
    redis-cli -p "$1" del bench:z >/dev/null
    redis-cli -p "$1" zcard bench:z 2>&1 | grep -q ERR && return 0
    for i in $(seq 0 99); do echo "ZADD bench:z $i m$i"; done | redis-cli -p "$1" >/dev/null
    redis-benchmark -p "$1" -n "$N" -c "$CLIENTS" -P "$3" -q --csv ZRANGE bench:z 0 99 2>/dev/null | csv_rps || true ;;
  multi)
    "$TXBENCH" -addr "127.0.0.1:$1" -c "$CLIENTS" -n "$N" -r "$KEYSPACE" || true ;;
  publish)
    "$PUBBENCH" -addr "127.0.0.1:$1" -c "$CLIENTS" -s 10 -n "$N" || true ;;
  blpop)
    redis-cli -p "$1" del bench:q >/dev/null
    # A server without BLPOP would "finish" at once: measure nothing.
    redis-cli -p "$1" blpop bench:q 0.01 2>&1 | grep -q ERR && return 0
    local half=$((CLIENTS / 2)) start end
    start=$(date +%s.%N)
    redis-benchmark -p "$1" -n "$N" -c "$half" -q --csv BLPOP bench:q 0 >/dev/null 2>&1 &
    local pop=$!
    redis-benchmark -p "$1" -n "$N" -c "$half" -q --csv LPUSH bench:q x >/dev/null 2>&1
    wait "$pop"
    end=$(date +%s.%N)
    awk -v n="$N" -v a="$start" -v b="$end" 'BEGIN {printf "%.2f\n", n/(b-a)}' ;;
  *)
    redis-benchmark -p "$1" -t "$2" -n "$N" -c "$CLIENTS" -P "$3" -r "$KEYSPACE" -q --csv 2>/dev/null | csv_rps || true ;;
  esac
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# start_replica MASTERPORT PORT starts a replica of the master's kind (in
# the background: $! is its pid) and waits until its link is up.
start_replica() {
  mkdir -p "$tmp/replica.$2"
  if [ "$1" = "$HPORT" ]; then
    "$BIN" --port "$2" --save '' --dir "$tmp/replica.$2" --replicaof 127.0.0.1 "$1" >"$tmp/replica.$2.log" 2>&1 &
  else
    redis-server --port "$2" --save '' --appendonly no --dir "$tmp/replica.$2" --replicaof 127.0.0.1 "$1" \
      --logfile "$tmp/replica.$2.log" &
  fi
  for i in $(seq 6000); do
    redis-cli -p "$2" info replication 2>/dev/null | grep -q '^master_link_status:up' && break
    sleep 0.01
  done
}
repl_offset() { redis-cli -p "$1" info replication | awk -F: '/^master_repl_offset:/ {gsub(/\r/,"",$2); print $2}'; }

printf '%-10s %-4s %14s %14s %7s\n' test P hotkv_rps redis_rps ratio
IFS=, read -ra tests <<<"$TESTS"
for t in "${tests[@]}"; do
  pipelines=$PIPELINES
  case "$t" in blpop | multi | publish) pipelines=1 ;; esac
  for p in $pipelines; do
    h=(); r=()
    for i in $(seq "$RUNS"); do
      h+=("$(run "$HPORT" "$t" "$p")")
      r+=("$(run "$RPORT" "$t" "$p")")
    done
    hm=$(printf '%s\n' "${h[@]}" | median); rm_=$(printf '%s\n' "${r[@]}" | median)
    ratio=$(awk -v a="$hm" -v b="$rm_" 'BEGIN {if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2f", a/b}')
    printf '%-10s %-4s %14s %14s %7s\n' "$t" "$p" "$hm" "$rm_" "$ratio"
  done
done

if [ -f "$tmp/lag.$HPORT" ]; then
  printf '\nrepl_set replica lag after the last run: hotkv %s ms, redis %s ms\n' \
    "$(cat "$tmp/lag.$HPORT")" "$(cat "$tmp/lag.$RPORT")"
fi
if [ -f "$tmp/rss.$HPORT" ]; then
  printf '\nset_lru RSS after the flood (maxmemory 64 MB): hotkv %s MB, redis %s MB\n' \
    "$(cat "$tmp/rss.$HPORT")" "$(cat "$tmp/rss.$RPORT")"
fi

# Memory rows (MEM=0 skips them): RSS growth for a million small strings
# (DEBUG POPULATE: keys of 10 bytes, values of 9), the SAVE of that
# dataset, and RSS 2 s after FLUSHALL.
rss_mb() { redis-cli -p "$1" info memory | awk -F: '/^used_memory_rss:/ {printf "%d", $2/1048576}'; }
mem_row() {
  local before after start end
  redis-cli -p "$1" flushall >/dev/null; sleep 1
  before=$(rss_mb "$1")
  redis-cli -p "$1" debug populate 1000000 >/dev/null
  after=$(rss_mb "$1")
  start=$(date +%s.%N); redis-cli -p "$1" save >/dev/null; end=$(date +%s.%N)
  redis-cli -p "$1" flushall >/dev/null; sleep 2
  awk -v b="$before" -v a="$after" -v s="$start" -v e="$end" -v f="$(rss_mb "$1")" \
    'BEGIN {printf "%d MB, SAVE %.2f s, after FLUSHALL %d MB", a-b, e-s, f}'
}
if [ "${MEM:-1}" != 0 ]; then
  printf '\n1M strings: RSS growth, SAVE, RSS after FLUSHALL\n  hotkv %s\n  redis %s\n' \
    "$(mem_row "$HPORT")" "$(mem_row "$RPORT")"
fi

# Memory per data type (also skipped by MEM=0): internal/membench starts a
# fresh HotKV and redis-server for each dataset (a million elements: small
# lists, hashes, intsets, sorted sets, and streams; MEMSETS=all for every
# one it has), and prints RSS and used_memory growth and HotKV / Redis.
if [ "${MEM:-1}" != 0 ]; then
  MEMBENCH=bin/membench
  go build -o "$MEMBENCH" ./internal/membench
  printf '\n'
  "$MEMBENCH" -bin "$BIN" -sets "${MEMSETS:-list_small,hash_small,set_int,zset_small,stream}"
fi

# Full synchronization of a million small strings (REPL=0 skips it): the
# seconds from REPLICAOF until a fresh replica's link is up.
full_sync_row() {
  local rp pid start end
  redis-cli -p "$1" flushall >/dev/null
  redis-cli -p "$1" config set repl-diskless-sync-delay 0 >/dev/null
  redis-cli -p "$1" debug populate 1000000 >/dev/null
  rp=$(freeport)
  start=$(date +%s.%N)
  start_replica "$1" "$rp"; pid=$!
  end=$(date +%s.%N)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  redis-cli -p "$1" flushall >/dev/null
  awk -v s="$start" -v e="$end" 'BEGIN {printf "%.2f s", e-s}'
}
if [ "${REPL:-1}" != 0 ]; then
  printf '\nfull sync of 1M strings to a fresh replica: hotkv %s, redis %s\n' \
    "$(full_sync_row "$HPORT")" "$(full_sync_row "$RPORT")"
fi

# Head-of-line rows: probe round trips on {b} while {a} is busy.
if [ -n "$HOL" ]; then
  printf '\n%-10s %18s %18s %10s\n' hol 'hotkv p50/p99 ms' 'redis p50/p99 ms' 'op ms h/r'
  IFS=, read -ra hols <<<"$HOL"
  for op in "${hols[@]}"; do
    read -r hp50 hp99 hop < <("$HOLBENCH" -addr "127.0.0.1:$HPORT" -op "$op" -kl)
    read -r rp50 rp99 rop < <("$HOLBENCH" -addr "127.0.0.1:$RPORT" -op "$op")
    printf '%-10s %18s %18s %10s\n' "$op" "$hp50/$hp99" "$rp50/$rp99" "$hop/$rop"
  done
fi

# Search rows (SEARCH=0 skips them): HotKV's FT.* against RediSearch 2.10.5
# (the search oracle, which internal/searchbench starts itself): indexing,
# queries of each kind, an aggregation, queries while another index takes
# writes.
if [ "${SEARCH:-1}" != 0 ]; then
  SEARCHBENCH=bin/searchbench
  go build -o "$SEARCHBENCH" ./internal/searchbench
  redis-cli -p "$HPORT" flushall >/dev/null
  printf '\n'
  "$SEARCHBENCH" -hotkv "127.0.0.1:$HPORT" -n "${SEARCH_DOCS:-20000}"
fi

# Disk-tier rows (TIER=0 skips them): HotKV with `tiering yes` against the
# all-memory HotKV (internal/tierbench, which starts both itself): a
# dataset ten times tiering-memory; GET over a hot set that fits the
# budget, GET over everything, a SET flood, and the rate of other clients
# on a tag while key-locked scripts read its cold keys (declared in KEYS,
# or named inside the script: read under the tag's lock).
if [ "${TIER:-1}" != 0 ]; then
  TIERBENCH=bin/tierbench
  go build -o "$TIERBENCH" ./internal/tierbench
  printf '\n'
  "$TIERBENCH" -bin "$BIN" -n "${TIER_KEYS:-100000}"
fi
