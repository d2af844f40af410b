#!/usr/bin/env bash
# The decode-memory estimate (DecodeCost, which serve admits renders by) against what a decode really
# holds: for each corpus photo and each generated bomb, the estimate `inspect` prints and the peak RSS
# of `prepare` of that file alone (the same decode box), less the peak of preparing a tiny photo.
# An estimate below its measurement is a bug.
#   Benchmarks/decode-cost.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${1:-.build/release/market-images}
corpus=${CORPUS:-../shared/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
PYTHONPATH="$PWD/Benchmarks" python3 - "$work/in" <<'PY'
import sys
from bombs import gradient, screen_gif
out = sys.argv[1]
rgb = gradient(8000, "RGB")
rgb.save(out + "/progressive-444-8000.jpg", progressive=True, subsampling=0, quality=90)
rgb.save(out + "/baseline-444-8000.jpg", subsampling=0, quality=90)
rgb.save(out + "/progressive-420-8000.jpg", progressive=True, subsampling=2, quality=90)
gradient(8000, "CMYK").save(out + "/progressive-cmyk-8000.jpg", progressive=True, quality=90)
rgb.resize((64, 64)).save(out + "/tiny.jpg")
screen_gif(16383, out + "/screen-16383.gif")
PY
find "$corpus/photos" "$corpus/color" "$corpus/alpha" -maxdepth 1 -type f | sort | while read -r photo; do cp "$photo" "$work/in/"; done
peak() { "$tool" prepare "$1" --out "$work/out-$RANDOM" --json --jobs 1 --max-pixels 10000000000 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin).get('peakMemoryBytes', 0))"; }
base=$(peak "$work/in/tiny.jpg")
printf '%-40s %12s %12s %8s\n' file "estimate MB" "measured MB" ratio
for file in "$work"/in/*; do
    name=$(basename "$file")
    [ "$name" = tiny.jpg ] && continue
    estimate=$("$tool" inspect "$file" --json --max-pixels 10000000000 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)[0].get('decodeMemory', 0))") || continue
    measured=$(( $(peak "$file") - base ))
    python3 -c "e,m=$estimate,$measured; print(f'%-40s %12.0f %12.0f %8s' % ('$name'[:40], e/2**20, max(m,0)/2**20, f'{e/max(m,1):.1f}' + ('' if e >= m else '  UNDER')))"
done
