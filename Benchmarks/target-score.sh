#!/usr/bin/env bash
# `prepare --target-score T` against `prepare` as it is (the best quality that fits 300,000 bytes) and
# against Pillow doing the plain job (Benchmarks/pillow_prepare.py): on the corpus's seven photos, the
# bytes summed and PyPI's SSIMULACRA2 of each upload (min / mean) against the same photo fitted
# losslessly; then photos per second on run.sh's folder of 60, the three interleaved, min / median
# seconds over ROUNDS.
#
# Usage: Benchmarks/target-score.sh [TARGET] [ROUNDS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${1:-80} ROUNDS=${2:-3}
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
WORK=$ROOT/.build-bench
BIN=$ROOT/.build/release/market-images
PY=$WORK/venv/bin/python
OUT=$WORK/target-score
[ -x "$PY" ] || { python3 -m venv "$WORK/venv"; "$WORK/venv/bin/pip" install -q pillow pillow-heif ssimulacra2==0.3.0; }
"$PY" -c "import PIL, pillow_heif, ssimulacra2" 2>/dev/null || "$WORK/venv/bin/pip" install -q pillow pillow-heif ssimulacra2==0.3.0
source "$ROOT/Benchmarks/misses.sh" # for stats
rm -rf "$OUT" && mkdir -p "$OUT"

# The references: each photo fitted into 2048 losslessly, as prepare fits it (resized again, Lanczos,
# for an upload the budget shrank).
"$BIN" thumbs "$CORPUS/photos" --out "$OUT/reference" --variant fit=2048 --scales 1 --crop none --format png -q >/dev/null
"$BIN" prepare "$CORPUS/photos" --out "$OUT/plain" -q >/dev/null
"$BIN" prepare "$CORPUS/photos" --out "$OUT/scored" --target-score "$TARGET" -q >/dev/null
"$PY" "$ROOT/Benchmarks/pillow_prepare.py" "$CORPUS/photos" "$OUT/pillow" >/dev/null
"$PY" - "$OUT" <<'PY'
import glob, os, sys, tempfile
from PIL import Image
from ssimulacra2 import compute_ssimulacra2
out = sys.argv[1]
for kind in ("plain", "scored", "pillow"):
    scores, total = [], 0
    for reference in sorted(glob.glob(os.path.join(out, "reference", "**", "*.fit@1x.png"), recursive=True)):
        stem = os.path.basename(reference).split(".fit@")[0]
        upload = glob.glob(os.path.join(out, kind, "**", stem + ".jpg"), recursive=True)[0]
        total += os.path.getsize(upload)
        size = Image.open(upload).size
        with tempfile.NamedTemporaryFile(suffix=".png") as fitted:
            Image.open(reference).convert("RGB").resize(size, Image.LANCZOS).save(fitted.name)
            scores.append(compute_ssimulacra2(fitted.name, upload))
    print(f"{kind:7s} {total:9d} bytes  SSIMULACRA2 {min(scores):.1f} / {sum(scores) / len(scores):.1f}")
PY

# Speed on 60 photos, interleaved.
dir=$WORK/photos-60
if ! [ -d "$dir" ] || [ "$(ls "$dir" | wc -l)" -ne 60 ]; then
    rm -rf "$dir"; mkdir -p "$dir"; sources=("$CORPUS"/photos/*)
    for ((i = 0; i < 60; i++)); do src=${sources[$((i % ${#sources[@]}))]}; cp "$src" "$dir/IMG_$(printf %04d $i).${src##*.}"; done
fi
declare -A times
for ((round = 1; round <= ROUNDS; round++)); do
    for kind in plain scored pillow; do
        rm -rf "$OUT/run"
        case $kind in
            plain) command=("$BIN" prepare "$dir" --out "$OUT/run" -q) ;;
            scored) command=("$BIN" prepare "$dir" --out "$OUT/run" -q --target-score "$TARGET") ;;
            pillow) command=("$PY" "$ROOT/Benchmarks/pillow_prepare.py" "$dir" "$OUT/run") ;;
        esac
        start=$(date +%s.%N); "${command[@]}" >/dev/null 2>&1; end=$(date +%s.%N)
        times[$kind]+="$(echo "$end - $start" | bc) "
    done
done
for kind in plain scored pillow; do
    median=$(echo "${times[$kind]}" | tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
    printf '%-7s 60 photos: %s s (min / median), %.1f photos/s at the median\n' $kind "$(echo "${times[$kind]}" | stats)" "$(echo "60 / $median" | bc -l)"
done
