#!/usr/bin/env bash
# Remote sources against local ones, in the same run: a loopback nginx is the image host (as an
# OpenMarket server's image host is to `serve`), its access log the count of what the service asked.
#   1. warm hits: pr:list/dpr:3 of local:/// files and of the same files over http, interleaved rounds of
#      wrk (32 connections), with the origin's request count during each remote run (target: 0);
#   2. cold misses: a fresh cache, 4 sizes of every source asked at once (16 in parallel), then the
#      origin's downloads printed beside the number of sources and of requests.
#
# Usage: Benchmarks/remote-sources.sh [BIN] [ROUNDS] [SECONDS]   (BIN: .build/release/market-images)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/.build/release/market-images} ROUNDS=${2:-3} DURATION=${3:-10}
WORK=$ROOT/.build-bench/remote-sources
rm -rf "$WORK" && mkdir -p "$WORK/root" "$WORK/nginx"
for file in "$ROOT"/Samples/*/*.jpg "$ROOT"/Tests/Fixtures/photos/*.jpg; do
    cp "$file" "$WORK/root/$(basename "$(dirname "$file")")-$(basename "$file")"
done
ORIGIN_PORT=18190 PORT=18191
cat > "$WORK/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log $WORK/nginx/access.log;
    client_body_temp_path $WORK/nginx; proxy_temp_path $WORK/nginx; fastcgi_temp_path $WORK/nginx;
    uwsgi_temp_path $WORK/nginx; scgi_temp_path $WORK/nginx;
    server { listen 127.0.0.1:$ORIGIN_PORT; root $WORK/root; etag on; }
}
EOF
nginx -c "$WORK/nginx/nginx.conf"
trap 'nginx -c "$WORK/nginx/nginx.conf" -s stop 2>/dev/null || true; kill $SERVER 2>/dev/null || true' EXIT
origin_requests() { wc -l < "$WORK/nginx/access.log"; }
export MARKET_IMAGES_KEY=72656d6f74652d62656e6368 MARKET_IMAGES_SALT=73616c74

serve() {   # starts the service on a fresh cache
    "$BIN" serve --root "$WORK/root" --allow-source "http://127.0.0.1:$ORIGIN_PORT/" --allow-private-sources \
        --cache "$WORK/cache-$RANDOM" --bind 127.0.0.1:$PORT --metrics-bind off 2>/dev/null &
    SERVER=$!
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/health" && break; sleep 0.1; done
}

rate() {   # rate PATHS: requests per second over DURATION
    PATHS=$1 wrk -t2 -c32 -d"${DURATION}s" -s "$ROOT/Benchmarks/serve/paths.lua" "http://127.0.0.1:$PORT" 2>/dev/null \
        | awk '/Requests\/sec/ {printf "%d", $2}'
}

: > "$WORK/local.paths"; : > "$WORK/remote.paths"; : > "$WORK/cold.paths"
sources=0
for file in "$WORK"/root/*.jpg; do
    name=$(basename "$file")
    sources=$((sources + 1))
    "$BIN" url "local:///$name" pr:list dpr:3 --format jpg >> "$WORK/local.paths"
    "$BIN" url "http://127.0.0.1:$ORIGIN_PORT/$name" pr:list dpr:3 --format jpg >> "$WORK/remote.paths"
    for options in "pr:list dpr:1" "pr:list dpr:3" "pr:grid dpr:2" "pr:upload"; do
        # shellcheck disable=SC2086
        "$BIN" url "http://127.0.0.1:$ORIGIN_PORT/$name" $options --format jpg >> "$WORK/cold.paths"
    done
done

declare -A hits
origin_during_hits=""
for round in $(seq 1 "$ROUNDS"); do
    serve
    while read -r path; do curl -s -o /dev/null "http://127.0.0.1:$PORT$path"; done < <(cat "$WORK/local.paths" "$WORK/remote.paths")
    for kind in local remote; do
        before=$(origin_requests)
        hits[$kind]+="$(rate "$WORK/$kind.paths") "
        [ "$kind" = remote ] && origin_during_hits+="$(( $(origin_requests) - before )) "
    done
    kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
local_median=$(echo "${hits[local]}" | median) remote_median=$(echo "${hits[remote]}" | median)
echo "warm hits/s, local:///: ${hits[local]}→ median $local_median"
echo "warm hits/s, http(s):  ${hits[remote]}→ median $remote_median (ratio $(awk -v r="$remote_median" -v l="$local_median" 'BEGIN {printf "%.2f", r / l}'))"
echo "origin requests during each remote hit run: $origin_during_hits"

serve
before=$(origin_requests)
started=$(date +%s.%N)
statuses=$(xargs -P 16 -I{} curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$PORT{}" < "$WORK/cold.paths" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
elapsed=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')
echo "cold misses: $(wc -l < "$WORK/cold.paths") requests (4 sizes of $sources sources, 16 at once) in ${elapsed}s: statuses $statuses origin downloads $(( $(origin_requests) - before ))"
