#!/usr/bin/env bash
# Quality by looks against a fixed quality, through the service: 28 distinct 2K JPEGs (images.sh, as
# serve.sh makes them) cut to 240 and 600 px squares as JPEG, WebP and AVIF, at q:80 and at
# aq:ssimulacra2 with the target set to the worst score q:80 gives on the set (PyPI's ssimulacra2 scores
# both against the lossless cut). Prints bytes summed and the lowest score per row, then ms per miss of
# each, one request at a time against a fresh service, min / median over ROUNDS.
#
# Usage: Benchmarks/perceptual.sh [BIN] [ROUNDS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/.build/release/market-images} ROUNDS=${2:-3}
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
WORK=$ROOT/.build-bench/perceptual
IMAGES=$WORK/images
PORT=18192
source "$ROOT/Benchmarks/misses.sh"
photo_root
rm -rf "$WORK/out" "$WORK/targets" && mkdir -p "$WORK/out"
python3 -c "import ssimulacra2" 2>/dev/null || python3 -m pip install --quiet --break-system-packages ssimulacra2==0.3.0

start() { start_service "$BIN" "$WORK/root"; }
stop() { stop_service; }
fetch() { fetch_each "$1" "$WORK/root" photos "$2"; }

# score REFERENCE_DIR DIR: "bytes min-score mean-score" of DIR's images against the references.
score() {
    python3 - "$1" "$2" <<'PY'
import os, sys, tempfile
from PIL import Image
from ssimulacra2 import compute_ssimulacra2
references, outputs = sys.argv[1], sys.argv[2]
scores, total = [], 0
for name in sorted(os.listdir(outputs)):
    path = os.path.join(outputs, name)
    total += os.path.getsize(path)
    with tempfile.NamedTemporaryFile(suffix=".png") as decoded:
        Image.open(path).convert("RGB").save(decoded.name)
        scores.append(compute_ssimulacra2(os.path.join(references, name), decoded.name))
print(total, f"{min(scores):.1f}", f"{sum(scores) / len(scores):.1f}")
PY
}

printf '%-5s %-5s %14s %14s %14s %14s %9s\n' size fmt "q:80 bytes" "q:80 min/mean" "aq bytes" "aq min/mean" saving
declare -A timings
for size in 240 600; do
    start
    fetch "rs:fill:$size:$size/f:png" "$WORK/out/ref-$size" >/dev/null
    for format in jpg webp avif; do
        fetch "rs:fill:$size:$size/q:80/f:$format" "$WORK/out/q80-$size-$format" >/dev/null
        read -r fixed_bytes fixed_min fixed_mean <<< "$(score "$WORK/out/ref-$size" "$WORK/out/q80-$size-$format")"
        fetch "rs:fill:$size:$size/aq:ssimulacra2:$fixed_min/f:$format" "$WORK/out/aq-$size-$format" >/dev/null
        read -r aq_bytes aq_min aq_mean <<< "$(score "$WORK/out/ref-$size" "$WORK/out/aq-$size-$format")"
        printf '%-5s %-5s %14s %14s %14s %14s %8s%%\n' $size $format $fixed_bytes "$fixed_min/$fixed_mean" $aq_bytes "$aq_min/$aq_mean" \
            "$(awk -v a=$aq_bytes -v f=$fixed_bytes 'BEGIN { printf "%.1f", (1 - a / f) * 100 }')"
        echo "$size $format $fixed_min" >> "$WORK/targets"
    done
    stop
done
for ((round = 1; round <= ROUNDS; round++)); do
    while read -r size format target; do
        for kind in q80 aq; do
            options="rs:fill:$size:$size/q:80/f:$format"
            [ $kind = aq ] && options="rs:fill:$size:$size/aq:ssimulacra2:$target/f:$format"
            start
            timings[$size-$format-$kind]+="$(fetch "$options" "$WORK/out/timing") "
            stop
        done
    done < "$WORK/targets"
done
printf '\n%-5s %-5s %18s %18s\n' size fmt "q:80 ms min/med" "aq ms min/med"
while read -r size format _; do
    printf '%-5s %-5s %18s %18s\n' $size $format "$(echo "${timings[$size-$format-q80]}" | stats)" "$(echo "${timings[$size-$format-aq]}" | stats)"
done < "$WORK/targets"
