#!/usr/bin/env bash
# The thumbnail service under load, against thumbor in the same run: wrk cycles over distinct 2K JPEGs
# (made from ../shared/corpus/photos) for each figure, and the results go to .build-bench/serve/results,
# which report.py turns into the serve section of BENCHMARKS.md. See Benchmarks/README.md.
#
# Usage: Benchmarks/serve.sh              every figure, 30 s per point, 2 rounds (about 25 minutes)
#        DURATION=10 RUNS=1 Benchmarks/serve.sh   a quick, noisier run
#        FIGURES="hit" THUMBOR_SETTING="2 0" Benchmarks/serve.sh   some figures, thumbor's setting given
#          (processes and threads), no report
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
WORK=$ROOT/.build-bench/serve
RESULTS=$WORK/results
IMAGES=$WORK/images
DURATION=${DURATION:-30}
RUNS=${RUNS:-2}
CORES=$(nproc)
BIN=$ROOT/.build/release/market-images
VENV=$ROOT/.build-bench/thumbor-venv
OURS=18080 THUMBOR=18888 ORIGIN=18081
export MARKET_IMAGES_KEY=6d61726b65742d696d61676573 MARKET_IMAGES_SALT=62656e6368
source "$ROOT/Benchmarks/images.sh"
source "$ROOT/Benchmarks/serve/servers.sh"

setup() {
    setup_servers
    "$VENV/bin/python" -c "import matplotlib" 2>/dev/null || "$VENV/bin/pip" install -q matplotlib
}

# Each figure measures both servers back to back (interleaved), in each round.
figure_miss() { ours miss 2 "$WORK/miss.paths" "$1"; theirs miss 2 "$WORK/thumbor-miss.paths" "$1"; }
figure_grid() { ours grid 2 "$WORK/grid.paths" "$1"; theirs grid 2 "$WORK/thumbor-grid.paths" "$1"; }
figure_webp() { ours webp 2 "$WORK/webp.paths" "$1"; theirs webp 2 "$WORK/thumbor-webp.paths" "$1"; }
# The same misses with --fast-decode (JPEGs decoded straight to the output's scale, as thumbor does).
figure_fast() { ours miss-fast 2 "$WORK/miss.paths" "$1" --fast-decode; ours webp-fast 2 "$WORK/webp.paths" "$1" --fast-decode; }
figure_remote() { ours remote 2 "$WORK/remote.paths" "$1" --allow-source "http://127.0.0.1:$ORIGIN/" --allow-private-sources; }

# Cache hits (the disk cache warmed with every thumbnail first) and revalidation with If-None-Match.
figure_hit() {
    rm -rf "$WORK/cache"
    start_ours --cache "$WORK/cache"
    while read -r path; do curl -s -o /dev/null "http://127.0.0.1:$OURS$path"; done < "$WORK/hit.paths"
    cp "$WORK/hit.paths" "$WORK/revalidate.paths"
    with_etags $OURS "$WORK/revalidate.paths"
    point hit ours $OURS 32 "$WORK/hit.paths" "$1"
    point revalidate ours $OURS 32 "$WORK/revalidate.paths" "$1"
    stop
    theirs hit 32 "$WORK/thumbor-hit.paths" "$1"
    start_thumbor "$THUMBOR_PROCESSES" "$THUMBOR_THREADS"
    cp "$WORK/thumbor-hit.paths" "$WORK/thumbor-revalidate.paths"
    with_etags $THUMBOR "$WORK/thumbor-revalidate.paths"
    point revalidate thumbor $THUMBOR 32 "$WORK/thumbor-revalidate.paths" "$1"
    stop
}

# Twelve-megapixel phone photos at 16 connections: a worker per core and a short queue, so it fills.
figure_phone() { ours phone 16 "$WORK/phone.paths" "$1" --workers "$CORES" --queue 4; theirs phone 16 "$WORK/thumbor-phone.paths" "$1"; }

main() {
    setup
    images
    [ -n "${FIGURES:-}" ] || rm -f "$RESULTS"/*.txt
    paths_ours miss 2k jpg rs:fit:512:512 q:80
    paths_ours grid 2k jpg pr:grid dpr:3
    paths_ours webp 2k webp rs:fit:512:512 q:80
    paths_ours hit 2k jpg pr:list dpr:3
    paths_ours phone 12mp jpg pr:list dpr:3
    paths_thumbor thumbor-miss 2k "fit-in/512x512/filters:format(jpeg):quality(80)"
    paths_thumbor thumbor-grid 2k "600x600/smart/filters:format(jpeg):quality(80)"
    paths_thumbor thumbor-webp 2k "fit-in/512x512/filters:format(webp):quality(80)"
    paths_thumbor thumbor-hit 2k "240x240/smart/filters:format(jpeg):quality(80)"
    paths_thumbor thumbor-phone 12mp "240x240/smart/filters:format(jpeg):quality(80)"
    : > "$WORK/remote.paths"
    local file
    for file in "$IMAGES"/2k/*; do
        "$BIN" url "http://127.0.0.1:$ORIGIN/2k/$(basename "$file")" rs:fit:512:512 q:80 --format jpg >> "$WORK/remote.paths"
    done

    best_thumbor

    # An nginx on loopback as the origin for the download-path figure.
    start_nginx "$ORIGIN" "$IMAGES"

    local run figure
    for run in $(seq 1 "$RUNS"); do
        for figure in ${FIGURES:-miss grid webp fast remote hit phone}; do "figure_$figure" "$run"; done
    done
    stop_nginx
    [ -n "${FIGURES:-}" ] || "$VENV/bin/python" "$ROOT/Benchmarks/serve_report.py" "$RESULTS" "$ROOT"
}

main "$@"
