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

setup() {
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    local missing=()
    command -v wrk >/dev/null || missing+=(wrk)
    command -v nginx >/dev/null || missing+=(nginx-light)
    command -v vips >/dev/null || missing+=(libvips-tools)
    if [ ${#missing[@]} -gt 0 ]; then
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    [ -x "$VENV/bin/thumbor" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "thumbor>=7,<8" pillow-heif; }
    "$VENV/bin/python" -c "import matplotlib" 2>/dev/null || "$VENV/bin/pip" install -q matplotlib
    "$ROOT/scripts/setup"
    (cd "$ROOT" && swift build -c release --product market-images >/dev/null)
    mkdir -p "$RESULTS"
}

# paths NAME KIND OPTIONS...: the request paths of one figure, for our service (signed) or thumbor.
paths_ours() {
    local name=$1 folder=$2 format=$3; shift 3
    local file
    : > "$WORK/$name.paths"
    for file in "$IMAGES/$folder"/*; do
        "$BIN" url "local:///$folder/$(basename "$file")" "$@" ${format:+--format $format} >> "$WORK/$name.paths"
    done
}

paths_thumbor() {
    local name=$1 folder=$2 operations=$3 file
    : > "$WORK/$name.paths"
    for file in "$IMAGES/$folder"/*; do echo "/unsafe/$operations/$folder/$(basename "$file")" >> "$WORK/$name.paths"; done
}

# Adds each path's ETag, so the requests revalidate.
with_etags() {
    local port=$1 list=$2 path
    while read -r path; do
        printf '%s\t%s\n' "$path" "$(curl -s -o /dev/null -D - "http://127.0.0.1:$port$path" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')"
    done < "$list" > "$list.tags"
    mv "$list.tags" "$list"
}

wait_port() {
    local i
    for i in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$1/${2:-}" && return 0; sleep 0.1; done
    echo "nothing listening on $1" >&2; return 1
}

# Peak RSS in KB of a process and all its children (thumbor's forks).
peak_rss() {
    local pids total=0 pid
    pids="$1 $(pgrep -P "$1" | tr '\n' ' ')"
    for pid in $pids; do total=$((total + $(awk '/VmHWM/{print $2}' "/proc/$pid/status" 2>/dev/null || echo 0))); done
    echo $total
}

start_ours() {
    "$BIN" serve --root "$IMAGES" --bind "127.0.0.1:$OURS" --max-pixels 300000000 "$@" 2>/dev/null &
    SERVER=$!
    wait_port $OURS health
}

start_thumbor() {
    local processes=$1 threads=$2
    sed -e "s|@ROOT@|$IMAGES|" -e "s|@THREADS@|$threads|" "$ROOT/Benchmarks/serve/thumbor.conf.in" > "$WORK/thumbor.conf"
    "$VENV/bin/thumbor" -c "$WORK/thumbor.conf" -p $THUMBOR -i 127.0.0.1 --processes "$processes" -l error >/dev/null 2>&1 &
    SERVER=$!
    wait_port $THUMBOR healthcheck
}

# Stops the server and its children, and waits until its port is free for the next one.
stop() {
    pkill -TERM -P "$SERVER" 2>/dev/null || true
    kill -TERM "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    local i
    for i in $(seq 1 100); do
        curl -s -o /dev/null "http://127.0.0.1:$OURS/" || curl -s -o /dev/null "http://127.0.0.1:$THUMBOR/" || return 0
        sleep 0.1
    done
}

# point NAME SERVER PORT CONCURRENCY PATHS: one wrk run; its RESULT line and the server's peak RSS.
point() {
    local name=$1 server=$2 port=$3 concurrency=$4 list=$5 run=$6
    local threads=$((concurrency < 2 ? 1 : 2))
    local line
    line=$(PATHS="$list" wrk -t$threads -c"$concurrency" -d"${DURATION}s" --timeout 10s -s "$ROOT/Benchmarks/serve/paths.lua" \
        "http://127.0.0.1:$port" | grep '^RESULT')
    echo "$line rss_kb=$(peak_rss "$SERVER")" > "$RESULTS/$name.$server.$run.txt"
    echo "$name $server run $run: $line"
}

# ours NAME CONCURRENCY PATHS [serve options]: a fresh server per point, so its peak RSS is this point's.
ours() {
    local name=$1 concurrency=$2 list=$3 run=$4; shift 4
    start_ours "$@"
    point "$name" ours $OURS "$concurrency" "$list" "$run"
    stop
}

theirs() {
    local name=$1 concurrency=$2 list=$3 run=$4
    start_thumbor "$THUMBOR_PROCESSES" "$THUMBOR_THREADS"
    point "$name" thumbor $THUMBOR "$concurrency" "$list" "$run"
    stop
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

    # thumbor at its best on this machine: one process per core, or one process with a thread per core.
    local best=-1 processes threads rate
    THUMBOR_BEST=${THUMBOR_SETTING:-}
    for setting in $([ -n "$THUMBOR_BEST" ] || echo "$CORES,0 1,$CORES"); do
        setting=${setting/,/ }
        read -r processes threads <<< "$setting"
        THUMBOR_PROCESSES=$processes THUMBOR_THREADS=$threads theirs "miss-p$processes" 2 "$WORK/thumbor-miss.paths" 0
        rate=$(awk '{split($2,a,"="); split($3,b,"="); printf "%d", a[2]/b[2]}' "$RESULTS/miss-p$processes.thumbor.0.txt")
        if [ "$rate" -gt "$best" ]; then best=$rate; THUMBOR_BEST="$processes $threads"; fi
    done
    read -r THUMBOR_PROCESSES THUMBOR_THREADS <<< "$THUMBOR_BEST"
    echo "thumbor processes=$THUMBOR_PROCESSES threads=$THUMBOR_THREADS" > "$RESULTS/thumbor-setting.txt"

    # An nginx on loopback as the origin for the download-path figure.
    mkdir -p "$WORK/nginx"
    cat > "$WORK/nginx/nginx.conf" <<CONF
daemon off; worker_processes 1; error_log stderr error; pid $WORK/nginx/nginx.pid;
events { worker_connections 256; }
http { access_log off; client_body_temp_path $WORK/nginx; proxy_temp_path $WORK/nginx; fastcgi_temp_path $WORK/nginx;
  uwsgi_temp_path $WORK/nginx; scgi_temp_path $WORK/nginx; types { image/jpeg jpg; }
  server { listen 127.0.0.1:$ORIGIN; root $IMAGES; } }
CONF
    nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" &
    local origin=$!

    local run figure
    for run in $(seq 1 "$RUNS"); do
        for figure in ${FIGURES:-miss grid webp fast remote hit phone}; do "figure_$figure" "$run"; done
    done
    kill "$origin" 2>/dev/null || true
    wait "$origin" 2>/dev/null || true
    [ -n "${FIGURES:-}" ] || "$VENV/bin/python" "$ROOT/Benchmarks/serve_report.py" "$RESULTS" "$ROOT"
}

main "$@"
