#!/usr/bin/env bash
# What each processing option adds to a cache miss: one release build, 28 distinct 2K JPEGs (images.sh:
# the corpus photos fitted to 2048 px, as is, mirrored, flipped and turned), 28 copies of a 3-frame
# 600×400 GIF and 28 of the corpus's iPhone HEIC (whose embedded 240×320 thumbnail libvips uses when it
# covers the box), each requested once per round, one request at a time on one kept-alive connection,
# against a fresh service (no cache); rounds interleave the cases. Prints ms per miss, min and median.
#
# Usage: Benchmarks/options.sh [BIN] [ROUNDS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/.build/release/market-images} ROUNDS=${2:-5}
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
WORK=$ROOT/.build-bench/options
IMAGES=$WORK/images
PORT=18191
source "$ROOT/Benchmarks/misses.sh"
photo_root
mkdir -p "$WORK/root/gifs" "$WORK/root/heic"
for n in $(seq -w 0 27); do cp "$CORPUS/photos/iphone_13_pro_max.HEIC" "$WORK/root/heic/$n.heic"; done
python3 - "$WORK/root/gifs" <<'PY'
import sys
from PIL import Image, ImageDraw
frames = []
for index, colour in enumerate([(200, 40, 40), (40, 160, 60), (40, 60, 200)]):
    frame = Image.new("RGB", (600, 400), colour)
    ImageDraw.Draw(frame).ellipse((50 + 150 * index, 100, 250 + 150 * index, 300), fill=(250, 250, 250))
    frames.append(frame)
for n in range(28):
    frames[0].save(f"{sys.argv[1]}/{n:02d}.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)
PY
cp "$ROOT/Tests/Fixtures/alpha/Flag_of_the_Netherlands-alpha.png" "$WORK/logo.png"

# name|folder|options|serve flags
CASES=(
    "fit|photos|rs:fit:600:600/f:jpg|"
    "blur|photos|rs:fit:600:600/bl:5/f:jpg|"
    "sharpen|photos|rs:fit:600:600/sh:1/f:jpg|"
    "watermark|photos|rs:fit:600:600/wm:0.5:soea:10:10:0.2/f:jpg|--watermark $WORK/logo.png"
    "rot:90|photos|rs:fit:600:600/rot:90/f:jpg|"
    "gif still|gifs|rs:fit:300:300/f:webp|"
    "gif 3 frames|gifs|rs:fit:300:300/f:webp|--max-animation-frames 10"
    "heic 240|heic|rs:fit:240:240/f:jpg|"
    "heic 1200|heic|rs:fit:1200:1200/f:jpg|"
)

misses() {   # misses FOLDER OPTIONS FLAGS...: ms per miss over the folder, sequentially
    local folder=$1 options=$2; shift 2
    start_service "$BIN" "$WORK/root" "$@"
    fetch_each "$options" "$WORK/root" "$folder"
    stop_service
}

declare -A results
for ((round = 1; round <= ROUNDS; round++)); do
    for case in "${CASES[@]}"; do
        IFS='|' read -r name folder options flags <<< "$case"
        # shellcheck disable=SC2086
        results[$name]+="$(misses "$folder" "$options" $flags) "
    done
    echo "round $round done" >&2
done
printf '%-14s %s\n' case "ms per miss, min / median"
for case in "${CASES[@]}"; do
    IFS='|' read -r name _ <<< "$case"
    printf '%-14s %s\n' "$name" "$(echo "${results[$name]}" | stats)"
done
