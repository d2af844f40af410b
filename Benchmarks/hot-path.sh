#!/usr/bin/env bash
# The service's hot path, two builds side by side: cache hits (from memory) and If-None-Match
# revalidations of 240 px list thumbnails, 32 connections, for build A and build B in interleaved
# rounds on the same machine, so a change in the HTTP layer (a router, a middleware) is measured
# against what it replaced rather than against figures from another day.
#
# Usage: Benchmarks/hot-path.sh BIN_A BIN_B [ROUNDS] [SECONDS]     e.g. an older checkout's release
#        build against .build/release/market-images; prints one line per round and the medians.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
A=$1 B=$2 ROUNDS=${3:-3} DURATION=${4:-10}
WORK=$ROOT/.build-bench/hot-path
rm -rf "$WORK" && mkdir -p "$WORK/root"
for file in "$ROOT"/Samples/*/*.jpg "$ROOT"/Tests/Fixtures/photos/*.jpg; do
    cp "$file" "$WORK/root/$(basename "$(dirname "$file")")-$(basename "$file")"
done
export MARKET_IMAGES_KEY=686f742d70617468 MARKET_IMAGES_SALT=73616c74
PORT=18180

serve() {   # serve BIN: starts it with a fresh cache, warms every path, fills $WORK/revalidate.paths
    "$1" serve --root "$WORK/root" --cache "$WORK/cache-$RANDOM" --bind 127.0.0.1:$PORT --metrics-bind off 2>/dev/null &
    SERVER=$!
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/health" && break; sleep 0.1; done
    : > "$WORK/revalidate.paths"
    while read -r path; do
        tag=$(curl -s -o /dev/null -D - "http://127.0.0.1:$PORT$path" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')
        printf '%s\t%s\n' "$path" "$tag" >> "$WORK/revalidate.paths"
    done < "$WORK/hit.paths"
}

rate() {   # rate PATHS: requests per second over DURATION
    PATHS=$1 wrk -t2 -c32 -d"${DURATION}s" -s "$ROOT/Benchmarks/serve/paths.lua" "http://127.0.0.1:$PORT" 2>/dev/null \
        | awk '/Requests\/sec/ {printf "%d", $2}'
}

: > "$WORK/hit.paths"
for file in "$WORK"/root/*.jpg; do
    "$B" url "local:///$(basename "$file")" pr:list dpr:3 --format jpg >> "$WORK/hit.paths"
done
declare -A hits revalidations
for round in $(seq 1 "$ROUNDS"); do
    for build in A B; do
        bin=${!build}
        serve "$bin"
        hits[$build]+="$(rate "$WORK/hit.paths") "
        revalidations[$build]+="$(rate "$WORK/revalidate.paths") "
        kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
    done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for build in A B; do
    echo "$build (${!build}): hits/s ${hits[$build]}→ median $(echo "${hits[$build]}" | median); revalidations/s ${revalidations[$build]}→ median $(echo "${revalidations[$build]}" | median)"
done
