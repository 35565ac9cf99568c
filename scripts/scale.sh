#!/usr/bin/env bash
# Multi-core scaling: HotKV at several event-loop counts against
# redis-server, each server pinned with taskset, redis-benchmark pinned to
# the other half of the machine (--threads 8 -c 256). Prints requests/s per
# test, pipeline depth and server set-up, and each HotKV row's ratio to the
# single-threaded Redis row. Meant for a machine with 16 or more cores
# (../shared/design/performance.md); on fewer it still runs, overlapping.
#
#   LOOPS="1 4 8 15" TESTS=get,set,incr,evalsha_kl scripts/scale.sh
#
# Binaries come from PATH unless REDIS_SERVER, REDIS_BENCHMARK, REDIS_CLI,
# HOTKV and HOLBENCH name them (each may be a command with arguments, such
# as a dynamic loader and its library path).
set -uo pipefail
cd "$(dirname "$0")/.."

LOOPS=${LOOPS:-"1 4 8 15"}
TESTS=${TESTS:-get,set,incr,evalsha_kl}
PIPELINES=${PIPELINES:-"1 16"}
SECS=${SECS:-4}           # seconds per measured run
CAL=${CAL:-100000}        # requests of a calibration run at -P 1 (times P)
CLIENTS=${CLIENTS:-256}
THREADS=${THREADS:-8}
KEYSPACE=${KEYSPACE:-1000000}
REDIS_IO=${REDIS_IO:-"1 8"}   # redis-server io-threads set-ups to measure
HOL_LOOPS=${HOL_LOOPS-8}     # the loop count of the head-of-line rows ("" for none)
# SPARE: cores HotKV gets beyond one per loop (its default sizing leaves
# one for the Go runtime and the kernel: io-threads is cores - 1).
SPARE=${SPARE:-0}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_BENCHMARK=${REDIS_BENCHMARK:-redis-benchmark}
REDIS_CLI=${REDIS_CLI:-redis-cli}
HOTKV=${HOTKV:-bin/hotkv}
HOLBENCH=${HOLBENCH:-bin/holbench}

ncpu=$(nproc)
half=$((ncpu / 2))
# The client runs on the upper half of the machine.
CLIENT_CPUS=${CLIENT_CPUS:-$half-$((ncpu - 1))}

tmp=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
PORT=7400

cli() { $REDIS_CLI -p "$PORT" "$@"; }
# start CPUS CMD... starts a server pinned to CPUS and waits for it.
start() {
  local cpus=$1; shift
  rm -rf "$tmp/d"; mkdir "$tmp/d"
  taskset -c "$cpus" "$@" >"$tmp/server.log" 2>&1 &
  PID=$!
  for _ in $(seq 100); do cli ping >/dev/null 2>&1 && return 0; sleep 0.05; done
  echo "server did not start: $*" >&2; cat "$tmp/server.log" >&2; return 1
}
stop() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; PID=; }

COUNTER='local current = tonumber(redis.call('"'GET'"', KEYS[1]) or "0")
if current >= tonumber(ARGV[1]) then
  return 0
end
redis.call('"'INCR'"', KEYS[1])
return 1'

csv_rps() { awk -F'","' 'NR>1 {gsub(/"/,"",$2); print $2; exit}'; }
# bench KIND TEST P -> requests/s (KIND: hotkv or redis). redis-benchmark
# with --threads ends a run only on a 250 ms tick, so a short run reads
# low by up to a tick: a calibration run of CAL requests sizes the
# measured run to last about SECS seconds.
bench() {
  local b=(taskset -c "$CLIENT_CPUS" $REDIS_BENCHMARK -p "$PORT" --threads "$THREADS"
    -c "$CLIENTS" -P "$3" -r "$KEYSPACE" -q --csv)
  local cmd=()
  case "$2" in
  evalsha_kl)
    local body=$COUNTER
    [ "$1" = hotkv ] && body="#!lua flags=allow-key-locking
$body"
    local sha
    sha=$(cli script load "$body")
    cmd=(EVALSHA "$sha" 1 "user:__rand_int__:quota" 1000000000) ;;
  *) b+=(-t "$2") ;;
  esac
  # Options go before a command's arguments: after them they are its own.
  local cal n
  cal=$("${b[@]}" -n $((CAL * $3)) "${cmd[@]}" 2>/dev/null | csv_rps)
  n=$(awk -v r="${cal:-0}" -v s="$SECS" 'BEGIN {printf "%.0f", r * s}')
  [ "$n" -gt 0 ] 2>/dev/null || return 0
  "${b[@]}" -n "$n" "${cmd[@]}" 2>/dev/null | csv_rps
}

declare -A rps hol
setups=()
IFS=, read -ra tests <<<"$TESTS"
measure() { # measure KIND SETUP
  setups+=("$2")
  for t in "${tests[@]}"; do
    for p in $PIPELINES; do
      rps[$2,$t,$p]=$(bench "$1" "$t" "$p")
    done
  done
}

for io in $REDIS_IO; do
  start "0-$((half - 1))" $REDIS_SERVER --port "$PORT" --save '' --appendonly no \
    --dir "$tmp/d" --io-threads "$io" --io-threads-do-reads yes || exit 1
  measure redis "redis-io$io"
  stop
done
for l in $LOOPS; do
  start "0-$((l - 1 + SPARE))" $HOTKV --port "$PORT" --save '' --dir "$tmp/d" --io-threads "$l" || exit 1
  measure hotkv "hotkv-$l"
  if [ "$l" = "$HOL_LOOPS" ]; then
    for op in script sort; do
      hol[$op]=$(taskset -c "$CLIENT_CPUS" $HOLBENCH -addr "127.0.0.1:$PORT" -op "$op" -kl)
    done
  fi
  stop
done

base=${setups[0]}
printf '%-12s %-3s' test P
for s in "${setups[@]}"; do printf ' %14s' "$s"; done
printf '\n'
for t in "${tests[@]}"; do
  for p in $PIPELINES; do
    printf '%-12s %-3s' "$t" "$p"
    for s in "${setups[@]}"; do
      v=${rps[$s,$t,$p]:-}
      r=$(awk -v a="$v" -v b="${rps[$base,$t,$p]:-}" 'BEGIN {if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2f", a/b}')
      printf ' %9s(%s)' "${v%.*}" "$r"
    done
    printf '\n'
  done
done
printf '(ratio to %s)\n' "$base"

if [ -n "$HOL_LOOPS" ]; then
  start "0-$((half - 1))" $REDIS_SERVER --port "$PORT" --save '' --appendonly no --dir "$tmp/d" || exit 1
  printf '\nhead-of-line, p50 p99 ms and holder op ms (hotkv at %s loops vs redis)\n' "$HOL_LOOPS"
  for op in script sort; do
    printf '%-6s hotkv %s   redis %s\n' "$op" "${hol[$op]:-n/a}" \
      "$(taskset -c "$CLIENT_CPUS" $HOLBENCH -addr "127.0.0.1:$PORT" -op "$op")"
  done
  stop
fi
