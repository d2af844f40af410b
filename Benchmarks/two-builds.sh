#!/usr/bin/env bash
# Two builds side by side on the same photos, in interleaved rounds: `prepare` and `thumbs` of 60
# photos (wall seconds), and the service's misses (60 photos × pr:list/dpr:3 and pr:upload, or
# $OUTPUTS, 4 at a time, fresh cache each round). For a refactor that must not cost anything: each figure is A's and
# B's min and median over the rounds, from the same run. Cache hits: Benchmarks/hot-path.sh.
#
# Usage: Benchmarks/two-builds.sh BIN_A BIN_B [ROUNDS]
#        OUTPUTS="pr:list/dpr:3/f:jpg" Benchmarks/two-builds.sh …   other outputs for the misses
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
A=$1 B=$2 ROUNDS=${3:-5}
OUTPUTS=${OUTPUTS:-pr:list/dpr:3/f:jpg pr:upload}
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
WORK=$ROOT/.build-bench/two-builds
rm -rf "$WORK" && mkdir -p "$WORK/photos"
sources=("$CORPUS"/photos/*)
for ((i = 0; i < 60; i++)); do
    src=${sources[$((i % ${#sources[@]}))]}
    cp "$src" "$WORK/photos/IMG_$(printf %04d $i).${src##*.}"
done
PORT=18190

seconds() { local start=$(date +%s.%N); "$@" >/dev/null 2>&1; awk -v end="$(date +%s.%N)" -v start="$start" 'BEGIN { print end - start }'; }

misses() {   # misses BIN: a fresh service, every photo at two outputs, 4 requests at a time
    "$1" serve --root "$WORK/photos" --insecure-unsigned --cache "$WORK/cache" --bind 127.0.0.1:$PORT --metrics-bind off 2>/dev/null &
    local server=$!
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/health" && break; sleep 0.1; done
    local start=$(date +%s.%N)
    for name in $(ls "$WORK/photos"); do
        for output in $OUTPUTS; do echo "http://127.0.0.1:$PORT/insecure/$output/plain/local:///$name"; done
    done | xargs -P 4 -n 1 curl -s -o /dev/null
    awk -v end="$(date +%s.%N)" -v start="$start" 'BEGIN { print end - start }'
    kill $server; wait $server 2>/dev/null || true
    rm -rf "$WORK/cache"
}

declare -A results
for ((round = 1; round <= ROUNDS; round++)); do
    for build in A B; do
        bin=${!build}
        rm -rf "$WORK/out"
        results[$build-prepare]+="$(seconds "$bin" prepare "$WORK/photos" --out "$WORK/out" --jobs 2) "
        rm -rf "$WORK/out"
        results[$build-thumbs]+="$(seconds "$bin" thumbs "$WORK/photos" --out "$WORK/out" --jobs 2) "
        results[$build-misses]+="$(misses "$bin") "
    done
    echo "round $round done" >&2
done
stats() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {printf "%.2f / %.2f", a[1], (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf '%-8s %-22s %-22s\n' measure "A min / median s" "B min / median s"
for measure in prepare thumbs misses; do
    printf '%-8s %-22s %-22s\n' $measure "$(echo "${results[A-$measure]}" | stats)" "$(echo "${results[B-$measure]}" | stats)"
done
