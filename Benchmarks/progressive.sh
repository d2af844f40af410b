#!/usr/bin/env bash
# Progressive against baseline JPEG at prepare's settings: each corpus photo fitted to 2048 px, then the
# highest quality (40..95) whose JPEG fits 300,000 bytes, baseline and progressive, and bytes at Q80.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${1:-$ROOT/../shared/corpus} OUT=$ROOT/.build-bench/progressive
mkdir -p "$OUT"
for f in "$CORPUS"/photos/* "$CORPUS"/color/concert.jpg; do
    name=$(basename "$f")
    vips thumbnail "$f" "$OUT/$name.v" 2048 --size down 2>/dev/null || continue
    line="$name"
    for mode in baseline progressive; do
        extra=""; [ $mode = progressive ] && extra="--interlace"
        best=none
        for q in $(seq 95 -1 40); do
            vips jpegsave "$OUT/$name.v" "$OUT/o.jpg" -Q $q --optimize-coding --strip --subsample-mode on $extra
            if [ "$(stat -c %s "$OUT/o.jpg")" -le 300000 ]; then best=$q; break; fi
        done
        vips jpegsave "$OUT/$name.v" "$OUT/o.jpg" -Q 80 --optimize-coding --strip --subsample-mode on $extra
        line="$line $mode:q$best:$(stat -c %s "$OUT/o.jpg")@Q80"
    done
    echo "$line"
done
