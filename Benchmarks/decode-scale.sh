#!/usr/bin/env bash
# The decode scale by output size: default (JPEGs decoded at a DCT scale that leaves a Lanczos3 pass
# of at least 2×) against --fast-decode (decoded straight to the output's scale, as thumbor's Pillow
# does). For images.sh's 28 distinct 2K JPEGs fitted into SIZE×SIZE squares at the list-cell, grid
# and detail sizes: the SSIMULACRA2 (PyPI's) of each output against a Lanczos3 resize of the full
# decode, min / mean, lossless and as the JPEG a cell loads (q:80); then ms per miss of that JPEG, one
# request at a time against a fresh service, the two interleaved, min / median over ROUNDS.
#
# Usage: Benchmarks/decode-scale.sh [BIN] [ROUNDS] [SIZES]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/.build/release/market-images} ROUNDS=${2:-3} SIZES=${3:-160 240 400 600 1024}
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
WORK=$ROOT/.build-bench/decode-scale
IMAGES=$ROOT/.build-bench/perceptual/images
PORT=18193
source "$ROOT/Benchmarks/misses.sh"
photo_root
rm -rf "$WORK/out" && mkdir -p "$WORK/out" "$WORK/full"
python3 -c "import ssimulacra2" 2>/dev/null || python3 -m pip install --quiet --break-system-packages ssimulacra2==0.3.0
for image in "$WORK/root/photos"/*.jpg; do
    name=$(basename "$image" .jpg)
    [ -f "$WORK/full/$name.v" ] || vips copy "$image" "$WORK/full/$name.v"
done

declare -A scores timings
for size in $SIZES; do
    mkdir -p "$WORK/out/ref-$size"
    for full in "$WORK/full"/*.v; do
        name=$(basename "$full" .v)
        vips thumbnail_image "$full" "$WORK/out/ref-$size/$name.png" "$size" --height "$size" --size down
        mv "$WORK/out/ref-$size/$name.png" "$WORK/out/ref-$size/$name" # named as fetch_each names outputs
    done
    for mode in default fast; do
        flags=(); [ $mode = fast ] && flags=(--fast-decode)
        start_service "$BIN" "$WORK/root" "${flags[@]}"
        fetch_each "rs:fit:$size:$size/f:png" "$WORK/root" photos "$WORK/out/$mode-$size" >/dev/null
        fetch_each "rs:fit:$size:$size/q:80/f:jpg" "$WORK/root" photos "$WORK/out/$mode-$size-q80" >/dev/null
        stop_service
        scores[$size-$mode]=$(score "$WORK/out/ref-$size" "$WORK/out/$mode-$size" | cut -d' ' -f2,3)
        scores[$size-$mode-q80]=$(score "$WORK/out/ref-$size" "$WORK/out/$mode-$size-q80" | cut -d' ' -f2,3)
    done
done
for ((round = 1; round <= ROUNDS; round++)); do
    for size in $SIZES; do
        for mode in default fast; do
            flags=(); [ $mode = fast ] && flags=(--fast-decode)
            start_service "$BIN" "$WORK/root" "${flags[@]}"
            timings[$size-$mode]+="$(fetch_each "rs:fit:$size:$size/q:80/f:jpg" "$WORK/root" photos) "
            stop_service
        done
    done
done
printf '%-5s %-8s %16s %16s %18s %18s\n' size output "default min/mean" "fast min/mean" "default ms min/med" "fast ms min/med"
for size in $SIZES; do
    for output in lossless q80; do
        suffix=""; times=("" "")
        [ $output = q80 ] && suffix=-q80 && times=("$(echo "${timings[$size-default]}" | stats)" "$(echo "${timings[$size-fast]}" | stats)")
        read -r dmin dmean <<< "${scores[$size-default$suffix]}"; read -r fmin fmean <<< "${scores[$size-fast$suffix]}"
        printf '%-5s %-8s %16s %16s %18s %18s\n' $size $output "$dmin/$dmean" "$fmin/$fmean" "${times[0]}" "${times[1]}"
    done
done
