#!/usr/bin/env bash
# What one request can cost `serve` at its default limits: each costly source of issue 32's attack
# (generated here: GIF screens, Adam7 16-bit PNGs, progressive and CMYK JPEGs, each once past the limits
# and once as large as they admit) and each URL that asks for a large intermediate image, sent alone to
# a freshly started service. Prints the status, the seconds to the answer and the service's peak
# resident memory (VmHWM) for that one request, against the peak after a 160 px thumbnail.
#   Benchmarks/worst-cases.sh [BINARY]        (vips, the libvips command-line tool, writes the PNGs)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/.build/release/market-images}
WORK=$(mktemp -d)
trap 'kill "$PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/root"
PYTHONPATH="$ROOT/Benchmarks" python3 - "$WORK/root" <<'PY'
import sys
from PIL import Image
from bombs import gradient, screen_gif
out = sys.argv[1]
screen_gif(16383, out + "/screen-16383.gif")
screen_gif(5000, out + "/screen-5000.gif")
gradient(16383, "RGB").save(out + "/progressive-444-16383.jpg", progressive=True, subsampling=0, quality=90)
gradient(6000, "RGB").save(out + "/progressive-444-6000.jpg", progressive=True, subsampling=0, quality=90)
gradient(16383, "CMYK").save(out + "/progressive-cmyk-16383.jpg", progressive=True, quality=90)
gradient(4000, "CMYK").save(out + "/progressive-cmyk-4000.jpg", progressive=True, quality=90)
gradient(16383, "CMYK").save(out + "/baseline-cmyk-16383.jpg", quality=90)
gradient(7500, "CMYK").save(out + "/baseline-cmyk-7500.jpg", quality=90)
gradient(640, "RGB").save(out + "/photo-640.jpg", quality=90)
Image.new("RGB", (1, 40), "red").save(out + "/strip-1x40.png")
PY
for side in 16383 5000; do
    vips black "$WORK/b.v" "$side" "$side" --bands 4 && vips cast "$WORK/b.v" "$WORK/c.v" ushort
    vips copy "$WORK/c.v" "$WORK/root/adam7-rgba16-$side.png[interlace]"
done
rm -f "$WORK"/*.v
cp "$ROOT/../shared/corpus/photos/iphone_13_pro_max.HEIC" "$WORK/root/phone.heic"

start() {
    "$BIN" serve --root "$WORK/root" --insecure-unsigned --bind 127.0.0.1:0 --metrics-bind off > "$WORK/out" 2> "$WORK/log" &
    PID=$!
    until grep -q "listening on" "$WORK/log"; do sleep 0.05; done
    URL=$(grep -o "http://127.0.0.1:[0-9]*" "$WORK/log" | head -1)
}
peak() { awk '/VmHWM/ { print int($2 / 1024) }' "/proc/$PID/status"; }
one() {
    start
    curl -s -o /dev/null "$URL/insecure/rs:fit:160:160/plain/local:///photo-640.jpg"
    local base; base=$(peak)
    local answer; answer=$(curl -s -o "$WORK/body" -w "%{http_code} %{time_total}" "$URL/insecure/$2/plain/local:///$1")
    local error; error=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('error',''))" "$WORK/body" 2>/dev/null || true)
    printf '%-28s %-36s %4s %-13s %7.1f s %6d MB %6d MB\n' "$1" "$2" "${answer% *}" "$error" "${answer#* }" "$(peak)" "$base"
    kill "$PID"; wait "$PID" 2>/dev/null || true
}
printf '%-28s %-36s %4s %-13s %9s %9s %9s\n' source options code error time peak "peak@160"
for file in screen-16383.gif screen-5000.gif adam7-rgba16-16383.png adam7-rgba16-5000.png progressive-444-16383.jpg \
            progressive-444-6000.jpg progressive-cmyk-16383.jpg progressive-cmyk-4000.jpg baseline-cmyk-16383.jpg \
            baseline-cmyk-7500.jpg phone.heic; do
    one "$file" "pr:list"
done
one baseline-cmyk-7500.jpg "rs:fit:4096:4096/f:png"
one photo-640.jpg "rs:fit:512:512/dpr:8/pd:1024/el:1"
one strip-1x40.png "rs:fill:4096:4096/el:1/g:no"
one phone.heic "rs:fit:4096:4096/el:1/f:avif"
one phone.heic "rs:fit:4096:4096/el:1/f:png"
