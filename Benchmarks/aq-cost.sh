#!/usr/bin/env bash
# What `aq:ssimulacra2` costs a miss by output size, in time and memory: the 28 distinct 2K JPEGs
# (images.sh) fitted into SIZES-px boxes as JPEG at q:80 and at aq:ssimulacra2:80, one request at a
# time against a fresh service that scores every size (--auto-quality-max-resolution 0, limits
# raised so nothing is refused); ms per miss min / median over ROUNDS, and the service's peak
# resident memory (VmHWM) over its run. Then the same URL on a 4096² noise JPEG at the service's
# defaults: how the estimate and the scoring limit answer it.
#
# Usage: Benchmarks/aq-cost.sh [BIN] [ROUNDS] [SIZES]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/.build/release/market-images} ROUNDS=${2:-3} SIZES=${3:-240 600 1000 1400 2048}
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
WORK=$ROOT/.build-bench/aq-cost
IMAGES=$WORK/images
PORT=18193
source "$ROOT/Benchmarks/misses.sh"
photo_root
unlimited=(--auto-quality-max-resolution 0 --max-render-memory 8589934592 --render-memory 8589934592 --render-timeout 120)
peak() { awk '/VmHWM/ {print int($2 / 1024)}' /proc/$SERVER/status; }

declare -A timings peaks
for ((round = 1; round <= ROUNDS; round++)); do
    for size in $SIZES; do
        for kind in q80 aq; do
            options="rs:fit:$size:$size/q:80/f:jpg"
            [ $kind = aq ] && options="rs:fit:$size:$size/aq:ssimulacra2:80/f:jpg"
            start_service "$BIN" "$WORK/root" "${unlimited[@]}"
            timings[$size-$kind]+="$(fetch_each "$options" "$WORK/root" photos) "
            peaks[$size-$kind]+="$(peak) "
            stop_service
        done
    done
done
printf '%-5s %18s %18s %8s %14s %14s\n' size "q:80 ms min/med" "aq ms min/med" ratio "q:80 peak MB" "aq peak MB"
for size in $SIZES; do
    q=$(echo "${timings[$size-q80]}" | stats) a=$(echo "${timings[$size-aq]}" | stats)
    ratio=$(awk -v q="${q#*/ }" -v a="${a#*/ }" 'BEGIN {printf "%.1fx", a / q}')
    printf '%-5s %18s %18s %8s %14s %14s\n' $size "$q" "$a" "$ratio" "$(echo "${peaks[$size-q80]}" | stats)" "$(echo "${peaks[$size-aq]}" | stats)"
done

# The attack of issue 43: a 3600² scored output of a 4096² noise JPEG, at the defaults and with no scoring limit.
mkdir -p "$WORK/root/noise"
python3 -c "
import numpy, sys
from PIL import Image
Image.fromarray(numpy.random.default_rng(7).integers(0, 256, (4096, 4096, 3), dtype=numpy.uint8)).save(sys.argv[1], quality=90)
" "$WORK/root/noise/noise.jpg"
url="/insecure/rs:fit:3600:3600/f:jpg/aq:ssimulacra2:99:90:100:0/plain/local:///noise/noise.jpg"
for flags in "" "--auto-quality-max-resolution 0"; do
    # shellcheck disable=SC2086
    start_service "$BIN" "$WORK/root" $flags
    answer=$(curl -s -o /dev/null -w '%{http_code} %{time_total}s %{size_download} bytes' "http://127.0.0.1:$PORT$url")
    echo "4096² noise, 3600² aq, ${flags:-defaults}: $answer, peak $(peak) MB"
    stop_service
done
