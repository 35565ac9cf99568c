#!/usr/bin/env bash
# conformance.sh - run Redis's own TCL test suite (tag 7.0.15) against HotKV, in
# both of the harness's modes (see docs/compatibility.md for the counts):
#   external  a fresh HotKV per unit, started here, driven by redis-suite.sh;
#   normal    the harness starts, restarts and kills HotKV itself as src/redis-server
#             (redis-spawn-suite.sh), with the binary copied as a file named redis-server.
#
# Usage: scripts/conformance.sh [external|normal|both] [UNIT...]   (default: both, every unit
#        of each script's default list)
# Environment:
#   REDIS_MIRROR  a git directory of github.com/redis/redis holding tag 7.0.15 (required)
#   CONFORMANCE   the directory of redis-suite.sh and redis-spawn-suite.sh
#                 (default ../shared/conformance beside the checkout)
#   HOTKV_BIN     the server binary (default bin/hotkv; `make conformance` builds it)
#   LOGS          where the raw logs go (default a new /tmp/hotkv-conformance.XXXXXX)
#   TLS=1         normal mode over TLS (the harness's --tls; needs tcl-tls and openssl)
#   HOTKV_ARGS    more "--directive value" arguments for the servers external mode starts
#                 (e.g. "--tiering yes --tiering-memory 1": the suite with values on disk)
# Prints each script's per-unit lines and TOTAL lines; exit status 1 when a mode's
# script failed to run at all, else 0 (failing tests are reported, not fatal: compare the
# passed counts with the baselines).
set -u
MODE=${1:-both}
case "$MODE" in external|normal|both) shift || true ;; *) MODE=both ;; esac
: "${REDIS_MIRROR:?set REDIS_MIRROR to a git directory of github.com/redis/redis (tag 7.0.15)}"
export REDIS_MIRROR
CONF=${CONFORMANCE:-$(cd "$(dirname "$0")/../.." && pwd)/shared/conformance}
BIN=$(realpath "${HOTKV_BIN:-bin/hotkv}")
LOGS=${LOGS:-$(mktemp -d /tmp/hotkv-conformance.XXXXXX)}
[ -x "$BIN" ] || { echo "conformance: no server binary at $BIN (make build)"; exit 2; }
for s in redis-suite.sh redis-spawn-suite.sh; do
  [ -f "$CONF/$s" ] || { echo "conformance: no $CONF/$s (set CONFORMANCE)"; exit 2; }
done
mkdir -p "$LOGS"
status=0

# free_port prints a TCP port nothing listens on.
free_port() {
  local p
  while :; do
    p=$((12000 + RANDOM % 4000))
    (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo "$p"; return; }
  done
}

run_external() {
  local units=("$@") total_p=0 total_f=0
  if [ ${#units[@]} -eq 0 ]; then
    mapfile -t units < <(sed -n 's/^\(unit\/[^:]*\):.*/\1/p; s/^\(integration\/[^:]*\):.*/\1/p' "$CONF/external-baseline.txt")
  fi
  echo "# external mode: a fresh $BIN per unit"
  # The harness's own ports (baseport-32 ...) are fixed by default: a base of our own
  # keeps two runs on one machine apart.
  export REDIS_SUITE_BASEPORT=${REDIS_SUITE_BASEPORT:-$((22000 + RANDOM % 80 * 100))}
  for u in "${units[@]}"; do
    local port dir pid line
    port=$(free_port); dir=$(mktemp -d /tmp/hotkv-conformance-srv.XXXXXX)
    # shellcheck disable=SC2086 # HOTKV_ARGS is a list of words
    "$BIN" --port "$port" --save '' --dir "$dir" ${HOTKV_ARGS:-} >"$dir/stdout" 2>&1 & pid=$!
    for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    line=$(bash "$CONF/redis-suite.sh" -v --logs "$LOGS/external" 127.0.0.1 "$port" "$u" | grep -v '^TOTAL\|^#')
    echo "$line"
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    rm -rf "$dir"
    local p f
    p=$(echo "$line" | sed -n 's/^[^ ]*: \([0-9]*\) passed.*/\1/p' | head -1)
    f=$(echo "$line" | sed -n 's/^[^ ]*: [0-9]* passed, \([0-9]*\) failed, \([0-9]*\) errors.*/\1 \2/p' | head -1)
    total_p=$((total_p + ${p:-0}))
    for n in $f; do total_f=$((total_f + n)); done
  done
  echo "TOTAL (external): $total_p passed, $total_f failed or errors"
}

run_normal() {
  local srv
  srv=$(mktemp -d /tmp/hotkv-conformance-bin.XXXXXX)
  # The harness runs src/redis-server and some tests check the process is called so.
  cp "$BIN" "$srv/redis-server"
  echo "# normal mode: the harness starts $srv/redis-server"
  local tls=()
  [ "${TLS:-0}" = 1 ] && tls=(--tls)
  bash "$CONF/redis-spawn-suite.sh" -v "${tls[@]}" --logs "$LOGS/normal" "$srv/redis-server" "$@" || [ $? -eq 1 ] || status=1
  rm -rf "$srv"
}

if [ "$MODE" = external ] || [ "$MODE" = both ]; then run_external "$@"; fi
if [ "$MODE" = normal ] || [ "$MODE" = both ]; then run_normal "$@"; fi
echo "# logs: $LOGS"
exit $status
