#!/usr/bin/env bash
# What progressive JPEG costs and saves, by scan script: libjpeg-turbo's `cjpeg` at Q80 4:2:0 on the
# serve benchmark's 28 2K JPEGs fitted to BOX (PPM made by `vips thumbnail`), baseline with and
# without optimised Huffman codes, libjpeg's standard progression (ten scans with successive
# approximation; always optimised) and the nine scans of spectral selection that
# Sources/CKernels/jpeg_encode.c writes. Prints microseconds per image (min of ROUNDS, a process per
# file, so start-up and the PPM read are in every figure alike) and the bytes summed.
# Usage: Benchmarks/progressive-scans.sh [BOX] [ROUNDS]     (images from Benchmarks/serve.sh or peers.sh)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BOX=${1:-512} ROUNDS=${2:-5}
IMAGES=$ROOT/.build-bench/serve/images/2k WORK=$ROOT/.build-bench/scans/$BOX
[ -d "$IMAGES" ] || { echo "no $IMAGES: run Benchmarks/peers.sh or serve.sh first" >&2; exit 1; }
mkdir -p "$WORK"
for f in "$IMAGES"/*.jpg; do
    [ -f "$WORK/$(basename "${f%.jpg}").ppm" ] || vips thumbnail "$f" "$WORK/$(basename "${f%.jpg}").ppm" "$BOX" --height "$BOX" --size down
done
cat > "$WORK/spectral.scans" <<'SCANS'
0,1,2: 0-0, 0, 0;
0: 1-2, 0, 0;
0: 3-5, 0, 0;
2: 1-2, 0, 0;
1: 1-2, 0, 0;
2: 3-63, 0, 0;
1: 3-63, 0, 0;
0: 6-14, 0, 0;
0: 15-63, 0, 0;
SCANS
run() {
    local label=$1 best=0 total round start elapsed file; shift
    for round in $(seq 1 "$ROUNDS"); do
        start=$(date +%s%N) total=0
        for file in "$WORK"/*.ppm; do
            cjpeg -quality 80 -sample 2x2 "$@" "$file" > "$WORK/out.jpg"
            total=$((total + $(stat -c %s "$WORK/out.jpg")))
        done
        elapsed=$(( ($(date +%s%N) - start) / 1000 / $(ls "$WORK"/*.ppm | wc -l) ))
        if [ "$best" -eq 0 ] || [ "$elapsed" -lt "$best" ]; then best=$elapsed; fi
    done
    printf '%-32s %8d us/image %10d bytes\n' "$label" "$best" "$total"
}
echo "$BOX px, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $ROUNDS rounds"
run "baseline" 
run "baseline, optimised codes" -optimize
run "progressive, libjpeg's 10 scans" -optimize -progressive
run "progressive, 9 spectral scans" -optimize -scans "$WORK/spectral.scans"
