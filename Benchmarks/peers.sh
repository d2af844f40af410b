#!/usr/bin/env bash
# The three costs users pay, each against the peer they would use instead, in one run on one machine:
#   a miss   the thumbnail service fitting 28 distinct 2K JPEGs into 512 px (JPEG Q80, wrk, 2
#            connections) against the imgproxy engine (serve/engine.py: libvips 8.18 with mozjpeg from
#            PyPI's pyvips-binary, one process per core) and thumbor at its best setting, with each
#            server's outputs scored by SSIMULACRA2 against a float Lanczos3 resize of the full decode;
#   a folder `prepare` of the corpus (progressive JPEG ≤ 300,000 bytes) against Pillow doing the same
#            (pillow_prepare.py --progressive), and `prepare --max-edge 512` of the 28 JPEGs against
#            `djpeg` decoding them at the job's DCT scale (the decoder's floor, one process per file);
#   a hit    the service answering 28 cached 240 px outputs (wrk, 32 connections) against nginx (one
#            worker, no access log) serving the same bytes as files; and `/health` on the same server
#            (three bytes through the same HTTP stack, middleware and access log: the stack's floor).
# The servers and commands are interleaved in every round; each ratio is ours over the peer's from the
# same round. Prints the table and writes the peers section of BENCHMARKS.md (peers_report.py).
#
# Usage: Benchmarks/peers.sh                       3 rounds, 20 s a server point (about 15 minutes)
#        ROUNDS=2 DURATION=10 Benchmarks/peers.sh   quicker, noisier
#        ROWS="miss hit" Benchmarks/peers.sh        some rows only
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
WORK=$ROOT/.build-bench/peers
RESULTS=$WORK/results
IMAGES=$ROOT/.build-bench/serve/images
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-3}
CORES=$(nproc)
BIN=$ROOT/.build/release/market-images
VENV=$ROOT/.build-bench/thumbor-venv
ENGINE_VENV=$ROOT/.build-bench/venv-pyvips
OURS=18080 THUMBOR=18888 ENGINE=18090 STATIC=18091
export MARKET_IMAGES_KEY=6d61726b65742d696d61676573 MARKET_IMAGES_SALT=62656e6368
source "$ROOT/Benchmarks/images.sh"
source "$ROOT/Benchmarks/serve/servers.sh"

setup() {
    setup_servers djpeg:libjpeg-turbo-progs
    "$VENV/bin/python" -c "import ssimulacra2, pillow_heif" 2>/dev/null || "$VENV/bin/pip" install -q ssimulacra2 pillow-heif
    if ! "$ENGINE_VENV/bin/python" -c "import pyvips; assert pyvips.version(1) >= 18" 2>/dev/null; then
        python3 -m venv "$ENGINE_VENV"
        "$ENGINE_VENV/bin/pip" install -q pyvips
        # pyvips compiles itself against Debian's libvips 8.14 where libvips-dev is installed: the binary after.
        "$ENGINE_VENV/bin/pip" install -q --force-reinstall --no-deps pyvips-binary
    fi
    rm -rf "$RESULTS"
    mkdir -p "$RESULTS"
}

start_engine() {
    "$ENGINE_VENV/bin/python" "$ROOT/Benchmarks/serve/engine.py" "$IMAGES/2k" "$ENGINE" "$CORES" &
    SERVER=$!
    wait_port $ENGINE health
}

# save PORT LIST FOLDER: each path's answer under its source's name in FOLDER (the lists follow the
# 2k folder's order, as NAMES does).
save() {
    local port=$1 list=$2 folder=$3 path n=0
    mkdir -p "$folder"
    while read -r path; do curl -sf -o "$folder/${NAMES[n++]}" "http://127.0.0.1:$port$path"; done < "$list"
}

# seconds NAME ROUND COMMAND...: the command's wall time, into RESULTS/NAME.ROUND.
seconds() {
    local name=$1 round=$2 start; shift 2
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    echo "$(( $(date +%s%N) - start ))" | awk '{ printf "%.4f\n", $1 / 1e9 }' > "$RESULTS/$name.$round"
}

djpeg_all() {
    local file
    for file in "$IMAGES"/2k/*.jpg; do djpeg -scale 1/2 -outfile /dev/null "$file"; done
}

row_miss() {
    local round=$1
    ours miss 2 "$WORK/miss.paths" "$round"
    start_engine
    point miss engine $ENGINE 2 "$WORK/engine-miss.paths" "$round"
    stop
    theirs miss 2 "$WORK/thumbor-miss.paths" "$round"
}

row_prepare() {
    local round=$1
    rm -rf "$WORK/out"
    seconds prepare.ours "$round" "$BIN" prepare "$CORPUS/photos" --out "$WORK/out" -q
    rm -rf "$WORK/out"
    seconds prepare.pillow "$round" "$VENV/bin/python" "$ROOT/Benchmarks/pillow_prepare.py" "$CORPUS/photos" "$WORK/out" --progressive
}

row_fit() {
    local round=$1
    rm -rf "$WORK/out"
    seconds fit.ours "$round" "$BIN" prepare "$IMAGES/2k" --out "$WORK/out" --max-edge 512 -q
    seconds fit.djpeg "$round" djpeg_all
}

row_hit() {
    local round=$1
    start_ours --cache "$WORK/cache"
    save $OURS "$WORK/hit.paths" "$WORK/static"
    point hit ours $OURS 32 "$WORK/hit.paths" "$round"
    point health ours $OURS 32 "$WORK/health.paths" "$round"
    stop
    start_nginx $STATIC "$WORK/static"
    wait_port $STATIC "${NAMES[0]}"
    point hit nginx $STATIC 32 "$WORK/static.paths" "$round"
    stop_nginx
}

main() {
    setup
    images
    paths_ours miss 2k jpg rs:fit:512:512 q:80
    paths_ours hit 2k jpg pr:list dpr:3
    paths_thumbor thumbor-miss 2k "fit-in/512x512/filters:format(jpeg):quality(80)"
    local file
    NAMES=()
    for file in "$IMAGES"/2k/*; do NAMES+=("$(basename "$file")"); done
    printf '/fit/512/512/80/%s\n' "${NAMES[@]}" > "$WORK/engine-miss.paths"
    printf '/%s\n' "${NAMES[@]}" > "$WORK/static.paths"
    echo /health > "$WORK/health.paths"
    rm -rf "$WORK/cache" "$WORK/static" "$WORK/outputs"

    local rows=${ROWS:-miss prepare fit hit} row round
    if [[ " $rows " == *" miss "* ]]; then
        best_thumbor
        # Each server's outputs, for the scores.
        start_ours; save $OURS "$WORK/miss.paths" "$WORK/outputs/ours"; stop
        start_engine; save $ENGINE "$WORK/engine-miss.paths" "$WORK/outputs/engine"; stop
        start_thumbor "$THUMBOR_PROCESSES" "$THUMBOR_THREADS"; save $THUMBOR "$WORK/thumbor-miss.paths" "$WORK/outputs/thumbor"; stop
    fi
    for round in $(seq 1 "$ROUNDS"); do
        for row in $rows; do "row_$row" "$round"; done
    done
    "$VENV/bin/python" "$ROOT/Benchmarks/peers_report.py" "$RESULTS" "$WORK/outputs" "$IMAGES/2k" "$ROOT"
}

main "$@"
