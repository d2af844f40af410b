#!/usr/bin/env bash
# False alarms of the marketplace rules (--listing) as a seller meets them: `prepare --listing M` on
# every photo of the corpus (photos, colour, alpha, orientation) for each marketplace, and on products
# on white (the made product photos of Tests/Fixtures/products cut out by `--background white`, then
# checked again). Prints each warning's kind per marketplace; on products on white any rule but the
# long side is a false alarm (the made photos are 800 px).
# Usage: Benchmarks/listing-rules.sh [CORPUS_FOLDER] [BINARY]
set -euo pipefail
source "$(dirname "$0")/products-setup.sh"
corpus="${1:-$here/../shared/corpus}"
binary="${2:-$here/.build/debug/market-images}"
mkdir -p "$work/corpus" "$work/made"
for folder in photos color alpha orientation; do cp "$corpus/$folder"/* "$work/corpus/"; done
rm -f "$work"/corpus/*.md
for file in "$work"/cases/*.png; do case "$file" in *.truth.png) ;; *) cp "$file" "$work/made/" ;; esac; done
"$binary" prepare "$work/made" --out "$work/white" --background white --quiet >/dev/null 2>&1 || true
kinds() { sed -n 's/^warning: [^:]*: \(.*\), \(Amazon\|eBay\|Coupang\|Naver\|OpenMarket\) .*/\1/p' | sed -E 's/[0-9]+/N/g' | sort | uniq -c; }
for market in amazon ebay coupang naver openmarket; do
    echo "== $market: corpus ($(ls "$work/corpus" | wc -l) photos)"
    "$binary" prepare "$work/corpus" --out "$work/out-$market" --listing "$market" --quiet 2>&1 >/dev/null | kinds
    echo "== $market: products on white ($(find "$work/white" -name '*.jpg' | wc -l) photos)"
    "$binary" prepare "$work/white" --out "$work/again-$market" --listing "$market" --quiet 2>&1 >/dev/null | kinds
done
