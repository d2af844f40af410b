#!/usr/bin/env bash
# Where the time of one image goes, and what the decode paths cost in quality: the fit-512 job (a 2K
# JPEG fitted into 512 px, JPEG Q80) timed stage by stage in-process (stage-timings, release build,
# one thread), against libjpeg-turbo's `djpeg` on the same files, with callgrind instruction counts
# where wall time is too noisy, and decode_quality.py's SSIM/SSIMULACRA2 table. Writes the stages
# section of BENCHMARKS.md (after the serve section; run.sh and serve.sh keep it).
#
# Usage: Benchmarks/stages.sh            about 4 minutes on 2 cores
#        ROUNDS=3 Benchmarks/stages.sh   quicker, noisier
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
IMAGES=$ROOT/.build-bench/serve/images
WORK=$ROOT/.build-bench/stages
ROUNDS=${ROUNDS:-7}
VENV=$ROOT/.build-bench/thumbor-venv
BIN=$ROOT/.build/release/stage-timings
source "$ROOT/Benchmarks/images.sh"

setup() {
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    local missing=()
    command -v vips >/dev/null || missing+=(libvips-tools)
    command -v djpeg >/dev/null || missing+=(libjpeg-turbo-progs)
    command -v valgrind >/dev/null || missing+=(valgrind)
    if [ ${#missing[@]} -gt 0 ]; then
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/python" -c "import PIL, skimage, ssimulacra2" 2>/dev/null || "$VENV/bin/pip" install -q pillow scikit-image ssimulacra2
    "$ROOT/scripts/setup"
    (cd "$ROOT" && swift build -c release --product stage-timings >/dev/null)
    mkdir -p "$WORK"
}

# djpeg SCALE: per-image milliseconds of `djpeg -scale SCALE` over the 2K JPEGs (process start and
# writing the PPM to /dev/null included, as the issue measured it), "min median" over ROUNDS rounds.
djpeg_floor() {
    local scale=$1 files=("$IMAGES"/2k/*.jpg) round start end
    for round in $(seq 1 "$ROUNDS"); do
        start=$(date +%s%N)
        for file in "${files[@]}"; do djpeg -scale "$scale" -outfile /dev/null "$file"; done
        end=$(date +%s%N)
        echo "$(( (end - start) / ${#files[@]} ))"
    done | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f %.2f", v[1] / 1e6, v[int((NR + 1) / 2)] / 1e6 }'
}

# instructions PATH: instructions per image of one path (callgrind; 3 rounds minus 1 round over 4
# images, so start-up cancels). Valgrind cannot read Swift 6.3's debug info: a stripped copy runs.
instructions() {
    local path=$1 files=("$IMAGES"/2k/img-{0,10,12,20}.jpg) rounds counts=()
    strip --strip-debug -o "$WORK/stage-timings" "$BIN"
    for rounds in 1 3; do
        valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.$path.$rounds" \
            "$WORK/stage-timings" --rounds "$rounds" --only "$path" "${files[@]}" >/dev/null 2>&1
        counts+=("$(callgrind_annotate "$WORK/callgrind.$path.$rounds" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')")
    done
    echo $(( (counts[1] - counts[0]) / 8 / 1000000 ))
}

main() {
    setup
    images
    echo "stage timings" >&2
    "$BIN" --rounds "$ROUNDS" "$IMAGES"/2k/*.jpg > "$WORK/stages.md"
    echo "djpeg" >&2
    read -r half_min half_median <<< "$(djpeg_floor 1/2)"
    read -r quarter_min quarter_median <<< "$(djpeg_floor 1/4)"
    echo "callgrind" >&2
    local floor before now draft
    floor=$(instructions floor) before=$(instructions before) now=$(instructions now) draft=$(instructions draft)
    echo "quality" >&2
    "$VENV/bin/python" "$ROOT/Benchmarks/decode_quality.py" "$BIN" "$IMAGES/2k" 512 > "$WORK/quality-512.md"
    "$VENV/bin/python" "$ROOT/Benchmarks/decode_quality.py" "$BIN" "$CORPUS/photos" 2048 > "$WORK/quality-2048.md"

    local now_median
    now_median=$(awk -F'|' '/^\| now:/ { gsub(/ /, "", $6); print $6 }' "$WORK/stages.md")
    {
        echo "<!-- stages: written by Benchmarks/stages.sh -->"
        echo "## Stage timings: one 2K JPEG fitted into 512 px (the thumbnail service's cache miss)"
        echo
        echo "In-process, release build, libvips on one thread, the serve benchmark's 28 2K JPEGs interleaved over"
        echo "$ROUNDS rounds; milliseconds per image. The floor is libjpeg-turbo decoding at the scale the job"
        echo "decodes at (1/2 for all of these) and nothing else."
        echo
        cat "$WORK/stages.md"
        echo
        echo "\`djpeg\` per image (a process per file, writing PPM to /dev/null; min / median of $ROUNDS rounds):"
        echo "scale 1/2 $half_min / $half_median ms, scale 1/4 $quarter_min / $quarter_median ms."
        echo "The job now against djpeg at its own scale: $(awk -v a="$now_median" -v b="$half_median" 'BEGIN { printf "%.2f", a / b }')×;"
        echo "against djpeg at 1/4 (the smallest scale that still covers 512 px): $(awk -v a="$now_median" -v b="$quarter_median" 'BEGIN { printf "%.2f", a / b }')×."
        echo
        echo "Instructions per image (callgrind, 4 of the JPEGs): floor ${floor} M, before ${before} M"
        echo "($(awk -v a="$before" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')×), now ${now} M ($(awk -v a="$now" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')×), draft ${draft} M ($(awk -v a="$draft" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')×)."
        echo
        echo "## Decode quality: each path against a full decode resized with float Lanczos3"
        echo
        cat "$WORK/quality-512.md"
        echo
        cat "$WORK/quality-2048.md"
        echo "<!-- /stages -->"
    } > "$WORK/section.md"
    python3 - "$ROOT/BENCHMARKS.md" "$WORK/section.md" <<'PY'
import sys
from pathlib import Path
target, section = Path(sys.argv[1]), Path(sys.argv[2]).read_text()
text = target.read_text()
start, end = text.find("<!-- stages:"), text.find("<!-- /stages -->")
if start >= 0:
    text = text[:start] + section + text[end + len("<!-- /stages -->\n"):]
else:
    text = text.rstrip() + "\n\n" + section
target.write_text(text)
PY
    echo "wrote the stages section of $ROOT/BENCHMARKS.md" >&2
}

main "$@"
