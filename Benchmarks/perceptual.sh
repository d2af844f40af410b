#!/usr/bin/env bash
# Quality by looks against a fixed quality, through the service: 28 distinct 2K JPEGs (images.sh, as
# serve.sh makes them) cut to 160, 240 and 600 px squares as JPEG, WebP, AVIF and JPEG XL, at q:80 and
# at aq:ssimulacra2 with the target set to the worst score q:80 gives on the set (PyPI's ssimulacra2
# scores both against the lossless cut; JPEG XL read back by libjxl's djxl). Beside them, the
# imgproxy engine (libvips 8.18 with mozjpeg, PyPI's pyvips-binary, in .build-bench/venv-pyvips) at
# Q80 as imgproxy calls it, scored against its own lossless cut. Prints bytes summed, the lowest and
# mean score per row and how many aq JPEGs came out 4:4:4, then ms per miss of q:80 and aq, one
# request at a time against a fresh service, min / median over ROUNDS.
#
# Usage: Benchmarks/perceptual.sh [BIN] [ROUNDS] [SIZES]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/.build/release/market-images} ROUNDS=${2:-3} SIZES=${3:-160 240 600}
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
WORK=$ROOT/.build-bench/perceptual
IMAGES=$WORK/images
PORT=18192
VENV=$ROOT/.build-bench/venv-pyvips
source "$ROOT/Benchmarks/misses.sh"
photo_root
rm -rf "$WORK/out" "$WORK/targets" && mkdir -p "$WORK/out"
python3 -c "import ssimulacra2" 2>/dev/null || python3 -m pip install --quiet --break-system-packages ssimulacra2==0.3.0
if ! [ -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import pyvips; assert pyvips.version(1) >= 18" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet pyvips
    # pyvips compiles itself against Debian's libvips 8.14 where libvips-dev is installed: the binary after.
    "$VENV/bin/pip" install --quiet --force-reinstall --no-deps pyvips-binary
fi

start() { start_service "$BIN" "$WORK/root"; }
stop() { stop_service; }
fetch() { fetch_each "$1" "$WORK/root" photos "$2"; }

# engine SIZE FORMAT OUT: the imgproxy engine's cut of each photo, losslessly (OUT/ref) and at Q80.
engine() {
    VIPS_CONCURRENCY=1 "$VENV/bin/python" - "$WORK/root/photos" "$1" "$2" "$3" <<'PY'
import os, sys, pyvips
pyvips.cache_set_max(0)
photos, size, fmt, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
os.makedirs(os.path.join(out, "ref"), exist_ok=True)
os.makedirs(os.path.join(out, "q80"), exist_ok=True)
for name in sorted(os.listdir(photos)):
    image = pyvips.Image.thumbnail(os.path.join(photos, name), size, height=size, size="down", crop="centre")
    if image.get_typeof("icc-profile-data"):
        image = image.icc_transform("srgb")
    stem = os.path.splitext(name)[0]
    image.pngsave(os.path.join(out, "ref", stem))
    data = {"jpg": lambda: image.jpegsave_buffer(Q=80, keep="none"), "webp": lambda: image.webpsave_buffer(Q=80, keep="none"),
            "avif": lambda: image.heifsave_buffer(Q=80, compression="av1", keep="none")}[fmt]()
    open(os.path.join(out, "q80", stem), "wb").write(data)
PY
}

row() { printf '%-5s %-5s %-9s %11s %12s %11s %12s %9s %6s\n' "$@"; }
row size fmt engine "q:80 bytes" "q:80 score" "aq bytes" "aq score" saving "4:4:4"
declare -A timings
for size in $SIZES; do
    start
    fetch "rs:fill:$size:$size/f:png" "$WORK/out/ref-$size" >/dev/null
    for format in jpg webp avif jxl; do
        fetch "rs:fill:$size:$size/q:80/f:$format" "$WORK/out/q80-$size-$format" >/dev/null
        read -r fixed_bytes fixed_min fixed_mean _ <<< "$(score "$WORK/out/ref-$size" "$WORK/out/q80-$size-$format")"
        fetch "rs:fill:$size:$size/aq:ssimulacra2:$fixed_min/f:$format" "$WORK/out/aq-$size-$format" >/dev/null
        read -r aq_bytes aq_min aq_mean full <<< "$(score "$WORK/out/ref-$size" "$WORK/out/aq-$size-$format")"
        row $size $format ours $fixed_bytes "$fixed_min/$fixed_mean" $aq_bytes "$aq_min/$aq_mean" \
            "$(awk -v a=$aq_bytes -v f=$fixed_bytes 'BEGIN { printf "%.1f%%", (1 - a / f) * 100 }')" "$([ $format = jpg ] && echo $full || echo -)"
        echo "$size $format $fixed_min" >> "$WORK/targets"
        if [ $format != jxl ]; then
            engine $size $format "$WORK/out/imgproxy-$size-$format"
            read -r engine_bytes engine_min engine_mean _ <<< "$(score "$WORK/out/imgproxy-$size-$format/ref" "$WORK/out/imgproxy-$size-$format/q80")"
            row $size $format imgproxy $engine_bytes "$engine_min/$engine_mean" - - - -
        fi
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
