#!/usr/bin/env bash
# The Gaussian blur at which a photo is warned about (looks blurry, or has no sharp detail), as a
# seller meets it: each distinct picture of the corpus blurred by Pillow (scripts/degrade-photo.py) at
# sigma 1 to 8, once fitted to 2048 px (the size `prepare` makes) and once at the photo's own size
# (`prepare` then shrinks it, and the blur with it), then `market-images inspect --json`. Prints, per
# photo and size, what each sigma was flagged as, the smallest sigma caught from which every larger
# one is caught too, and the false alarms on the originals.
# Usage: Benchmarks/blur-catch.sh [CORPUS_FOLDER] [BINARY]
set -euo pipefail
source "$(dirname "$0")/looks-setup.sh"
# One of each picture: the orientation set is one scene (Landscape_1 stands for it), the samples are copies.
photos=("$corpus"/photos/* "$corpus"/color/* "$corpus"/orientation/Landscape_1.jpg "$corpus"/alpha/*)
for file in "${photos[@]}"; do
    name=$(basename "$file"); stem="$work/${name%.*}"
    # Pillow reads no HEIC: blur a copy this tool made at the photo's own size (upright, JPEG at Q95).
    if ! python3 -c "import sys; from PIL import Image; Image.open(sys.argv[1])" "$file" 2>/dev/null; then
        "$binary" prepare "$file" --out "$work/readable" --max-edge 8192 --max-bytes 50000000 --min-quality 95 --max-quality 95 >/dev/null
        file="$work/readable/${name%.*}.jpg"
    fi
    for edge in 2048 own; do
        for sigma in 1 2 3 4 5 6 7 8; do
            python3 "$here/scripts/degrade-photo.py" --edge "$edge" "$file" "$stem.$edge.$sigma.jpg" blur "$sigma"
        done
    done
done
"$binary" inspect "${photos[@]}" --json > "$work/originals.json" || true
"$binary" inspect "$work"/*.jpg --json > "$work/blurred.json" || true
python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
def flag(finding):
    text = " ".join(finding.get("warnings") or [])
    return "detail" if "no sharp detail" in text else "blurry" if "looks blurry" in text else "-"
originals = {os.path.basename(f["file"]).rsplit(".", 1)[0]: f for f in json.load(open(f"{work}/originals.json")) if f.get("look")}
blurred = {os.path.basename(f["file"]): f for f in json.load(open(f"{work}/blurred.json")) if f.get("look")}
print("%-40s %5s %6s %6s  %s" % ("photo", "size", "edges", "detail", "sigma 1 2 3 4 5 6 7 8 → caught from"))
false_alarms = []
caught_from = {"2048": [], "own": []}
for stem, finding in sorted(originals.items()):
    look = finding["look"]
    if flag(finding) != "-": false_alarms.append(f"{stem} ({flag(finding)}, detail {look['detailStrength']})")
    for edge in ("2048", "own"):
        flags = [flag(blurred[f"{stem}.{edge}.{s}.jpg"]) if f"{stem}.{edge}.{s}.jpg" in blurred else "?" for s in range(1, 9)]
        # The smallest sigma from which every larger one is caught.
        start = next((s for s in range(1, 9) if all(f in ("blurry", "detail") for f in flags[s - 1:])), None)
        caught_from[edge].append(start)
        print("%-40s %5s %6.1f %6.1f  %s → %s" % (stem[:40], edge, look["edgeStrength"], look["detailStrength"],
              " ".join({"blurry": "B", "detail": "D", "-": ".", "?": "?"}[f] for f in flags), start or "never"))
print("\nB looks blurry, D no sharp detail, . nothing said")
print(f"false alarms on the {len(originals)} originals: {len(false_alarms)}: " + "; ".join(false_alarms))
for edge, starts in caught_from.items():
    known = [s for s in starts if s]
    print(f"blurred at {edge}: caught from sigma " + ", ".join(f"{s}: {starts.count(s)}" for s in sorted(set(known))) + f"; never: {starts.count(None)} of {len(starts)}")
PY
