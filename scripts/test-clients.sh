#!/usr/bin/env bash
# Runs the client libraries' test suites (clients/<language>) and the
# compatibility checks of unchanged third-party libraries (compat/<name>)
# against a HotKV built from this tree, installing their packages from the
# registries. Each suite starts its own server.
set -euo pipefail
cd "$(dirname "$0")/.."
export HOTKV_BINARY="$PWD/bin/hotkv"
go build -o "$HOTKV_BINARY" ./cmd/hotkv

echo "== clients/go"
(cd clients/go && go vet ./... && go test -race -count=1 ./...)

echo "== clients/python"
venv=${HOTKV_PYVENV:-${TMPDIR:-/tmp}/hotkv-pyvenv}
if [ ! -x "$venv/bin/pip" ]; then
  if ! python3 -m venv "$venv" 2>/dev/null; then
    # Debian keeps venv in a package of its own.
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv) >/dev/null
    python3 -m venv "$venv"
  fi
fi
"$venv/bin/pip" install -q --disable-pip-version-check redis pytest -e clients/python
"$venv/bin/pytest" -q clients/python/tests

echo "== clients/node"
(cd clients/node && npm ci --no-audit --no-fund --loglevel=error && npm test)

echo "== clients/java"
(cd clients/java && mvn -q -B test)

echo "== compat/bullmq"
(cd compat/bullmq && npm ci --no-audit --no-fund --loglevel=error && npm test)
