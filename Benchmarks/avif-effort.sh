#!/usr/bin/env bash
# AVIF's encoder effort against time and bytes, beside WebP and JPEG: 512 px versions of corpus photos
# (vips thumbnail), each encoded with libvips' heifsave (AV1) at the service's default AVIF quality at
# each effort, and as WebP Q79 and JPEG Q80; the same quality number, not the same visual quality.
# Times include vips' start-up (about 20 ms a run). Usage: Benchmarks/avif-effort.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$ROOT/.build-bench/avif-effort
rm -rf "$WORK" && mkdir -p "$WORK"
for file in "$ROOT"/Tests/Fixtures/photos/{DSCN0010.jpg,jolla.jpg,flowers.jpeg,2569067123_aca715a2ee_o.jpg} "$ROOT"/Samples/sku-camera/IMG_2.jpg; do
    vips thumbnail "$file" "$WORK/$(basename "$file").v" 512
done
for effort in 0 2 4 6; do
    bytes=0 ms=0
    for image in "$WORK"/*.v; do
        started=$(date +%s%N)
        vips heifsave "$image" "$WORK/out.avif" --compression av1 --effort "$effort" -Q 63 --strip
        ms=$(( ms + ($(date +%s%N) - started) / 1000000 )); bytes=$(( bytes + $(stat -c %s "$WORK/out.avif") ))
    done
    echo "AVIF effort $effort: $bytes bytes, $ms ms for 5 photos"
done
webp=0 jpeg=0
for image in "$WORK"/*.v; do
    vips webpsave "$image" "$WORK/out.webp" -Q 79 --strip; webp=$(( webp + $(stat -c %s "$WORK/out.webp") ))
    vips jpegsave "$image" "$WORK/out.jpg" -Q 80 --strip; jpeg=$(( jpeg + $(stat -c %s "$WORK/out.jpg") ))
done
echo "WebP Q79: $webp bytes; JPEG Q80: $jpeg bytes"
