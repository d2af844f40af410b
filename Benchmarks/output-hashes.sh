#!/usr/bin/env bash
# Prints one "sha256  output" line per output the tool makes from the corpus: `prepare` (JPEG, PNG
# first, trim), `thumbs` (attention and pad), and `serve`'s presets and a few option mixes. Run it
# before and after a change to the pixel code and diff the two: a refactor must not move a byte.
#   Benchmarks/output-hashes.sh [BINARY] > hashes.txt
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${1:-.build/debug/market-images}
corpus=${CORPUS:-../shared/corpus}
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

mkdir -p "$work/photos"
# Every still photo of the corpus except the hostile ones, flat, under names of our own.
n=0
while IFS= read -r photo; do
  n=$((n + 1)); cp "$photo" "$work/photos/$(printf '%02d' $n)-$(basename "$photo" | tr -c 'A-Za-z0-9.\n' '_')"
done < <(find "$corpus" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.heic' -o -iname '*.webp' -o -iname '*.tif*' \) -not -path '*/hostile/*' | sort)

hashes() { (cd "$1" && find . -type f \( -name '*.jpg' -o -name '*.png' -o -name '*.webp' \) | sort | xargs sha256sum | sed "s|  \./|  $2/|"); }
"$tool" prepare "$work/photos" --out "$work/prepare" --jobs 2 >/dev/null 2>&1 || true
hashes "$work/prepare" prepare
"$tool" prepare "$work/photos" --out "$work/prepare-png" --format png --trim --jobs 2 >/dev/null 2>&1 || true
hashes "$work/prepare-png" prepare-png-trim
"$tool" thumbs "$work/photos" --out "$work/thumbs" --jobs 2 >/dev/null 2>&1 || true
hashes "$work/thumbs" thumbs
"$tool" thumbs "$work/photos" --out "$work/thumbs-pad" --crop pad --format webp --jobs 2 >/dev/null 2>&1 || true
hashes "$work/thumbs-pad" thumbs-pad-webp

"$tool" serve --root "$work/photos" --insecure-unsigned --bind 127.0.0.1:0 --metrics-bind 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
for _ in $(seq 100); do cat "$work/serve.out" "$work/serve.err" | grep -q "listening on http" && break; sleep 0.1; done
base=$(cat "$work/serve.out" "$work/serve.err" | grep -o "listening on http://127.0.0.1:[0-9]*" | cut -d' ' -f3)
for photo in "$work"/photos/*; do
  name=$(basename "$photo")
  for options in pr:upload pr:list/dpr:2/f:jpg pr:grid/dpr:3/f:webp pr:card/f:png rs:fill:300:200/g:sm/mb:8000 t:10/rs:fit:256:256/ex:1/pd:8/bg:auto; do
    printf '%s  serve/%s/%s\n' "$(curl -s "$base/unsafe/$options/plain/local:///$name" | sha256sum | cut -d' ' -f1)" "$options" "$name"
  done
done
