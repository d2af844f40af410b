#!/usr/bin/env bash
# The photo-look warnings (blurry, too dark, blown out, near-duplicate) measured as a seller meets
# them: `market-images inspect --json` on every photo of the corpus and on degraded copies made by
# scripts/degrade-photo.py (Pillow): a Gaussian blur of 2 and 3 px, −2 and +2 EV, and a copy at 40%
# re-encoded at quality 60, each at 1024 px. Prints each photo's measures, what was flagged, and the
# false-alarm and catch rates; the near-duplicate hash distances of copies and of distinct photos.
# Usage: Benchmarks/photo-looks.sh [CORPUS_FOLDER] [BINARY]
set -euo pipefail
source "$(dirname "$0")/looks-setup.sh"
photos=()
for file in "$corpus"/photos/* "$corpus"/color/* "$corpus"/orientation/*.jpg "$corpus"/alpha/* "$here"/Samples/*/*.*; do
    case "$file" in *.json|*.md) continue ;; esac
    photos+=("$file")
done
for file in "${photos[@]}"; do
    name=$(basename "$file"); stem="$work/${name%.*}"
    # Pillow reads no HEIC: degrade a copy this tool made (upright, JPEG at Q95).
    if ! python3 "$here/scripts/degrade-photo.py" "$file" "$stem.sharp.jpg" sharp 2>/dev/null; then
        "$binary" prepare "$file" --out "$work/readable" --max-bytes 20000000 --min-quality 95 --max-quality 95 >/dev/null
        file="$work/readable/${name%.*}.jpg"
        python3 "$here/scripts/degrade-photo.py" "$file" "$stem.sharp.jpg" sharp
    fi
    python3 "$here/scripts/degrade-photo.py" "$file" "$stem.blur2.jpg" blur 2
    python3 "$here/scripts/degrade-photo.py" "$file" "$stem.blur3.jpg" blur 3
    python3 "$here/scripts/degrade-photo.py" "$file" "$stem.dark.jpg" ev -2
    python3 "$here/scripts/degrade-photo.py" "$file" "$stem.bright.jpg" ev 2
    python3 "$here/scripts/degrade-photo.py" "$file" "$stem.copy.jpg" copy 0.4 60
done
"$binary" inspect "${photos[@]}" --json > "$work/originals.json" || true
"$binary" inspect "$work"/*.jpg --json > "$work/degraded.json" || true
python3 - "$work" <<'PY'
import json, os, sys, itertools
work = sys.argv[1]
originals = {os.path.basename(f["file"]).rsplit(".", 1)[0]: f for f in json.load(open(f"{work}/originals.json")) if f.get("look")}
degraded = {os.path.basename(f["file"]): f for f in json.load(open(f"{work}/degraded.json")) if f.get("look")}
def flags(finding):
    text = " ".join(finding.get("warnings") or [])
    return {k for k, words in [("blur", ("blurry", "no sharp detail")), ("dark", ("too dark",)), ("blown", ("blown out",))] if any(w in text for w in words)}
def bits(a, b): return bin(int(a["look"]["hash"], 16) ^ int(b["look"]["hash"], 16)).count("1")
print("%-44s %6s %5s %4s %4s %6s  %-11s %-8s %-8s %-8s %-8s %s" % ("photo", "blur", "edge", "p99", "p50", "clip%", "original", "blur2", "blur3", "-2EV", "+2EV", "copy bits"))
counts = {"false": 0, "originals": 0}
caught = {k: [0, 0] for k in ("blur2", "blur3", "dark", "bright")}
expect = {"blur2": "blur", "blur3": "blur", "dark": "dark", "bright": "blown"}
for stem, finding in sorted(originals.items()):
    look = finding["look"]
    row = {k: degraded.get(f"{stem}.{k}.jpg") for k in ("blur2", "blur3", "dark", "bright", "copy")}
    counts["originals"] += 1
    counts["false"] += bool(flags(finding))
    cells = []
    for k in ("blur2", "blur3", "dark", "bright"):
        hit = row[k] is not None and expect[k] in flags(row[k])
        judgeable = not (expect[k] == "blur" and look["edgeStrength"] < 3)
        if judgeable:
            caught[k][1] += 1; caught[k][0] += hit
        cells.append(("yes" if hit else "MISSED") if judgeable else "n/a")
    print("%-44s %6.2f %5.1f %4d %4d %6.1f  %-11s %-8s %-8s %-8s %-8s %s" % (stem[:44], look["blurWidth"], look["edgeStrength"], look["highlights"], look["median"],
          100 * look["clippedHighlights"], ",".join(sorted(flags(finding))) or "-", *cells, bits(finding, row["copy"]) if row["copy"] else "?"))
print(f"\nfalse alarms on the originals: {counts['false']} of {counts['originals']}")
for k, (hit, total) in caught.items(): print(f"{k}: caught {hit} of {total}")
copies = [bits(f, degraded[f"{s}.copy.jpg"]) for s, f in originals.items() if f"{s}.copy.jpg" in degraded]
print(f"copies at 40%, Q60: hash distance {min(copies)}–{max(copies)} bits")
# The corpus holds the same picture several times (the orientation set, the samples' copies): a
# pair is "the same" when its 64×64 luminance differs by under 16 levels on average, judged by Pillow
# from the originals, independently of the hash.
from PIL import Image, ImageOps
def thumb(f):
    image = ImageOps.exif_transpose(Image.open(f["file"])).convert("L").resize((64, 64))
    return list(image.tobytes())
thumbs = {}
for s, f in originals.items():
    try: thumbs[s] = thumb(f)
    except Exception: pass
def same(a, b): return a in thumbs and b in thumbs and sum(abs(x - y) for x, y in zip(thumbs[a], thumbs[b])) / 4096 < 16
# (Pillow reads no HEIC: those pairs are left out.)
pairs = [(bits(originals[a], originals[b]), a, b) for a, b in itertools.combinations(thumbs, 2)]
different = sorted(p for p in pairs if not same(p[1], p[2]))
alike = [p for p in pairs if same(p[1], p[2])]
print(f"pairs of the same picture: {len(alike)}, hash distance {min(p[0] for p in alike)}–{max(p[0] for p in alike)} bits")
print(f"pairs of different pictures: {len(different)}; closest:", ", ".join(f"{d} bits {a}~{b}" for d, a, b in different[:5]))
PY
