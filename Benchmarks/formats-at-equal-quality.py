#!/usr/bin/env python3
"""Bytes and encode time per format at equal SSIMULACRA2, the way serve makes thumbnails (JPEG XL
read back by libjxl's `djxl` for the metric).

For each photo of the corpus at 240 and 600 px (vips thumbnail, centre crop), the reference is the
resized image itself; each format's quality is searched (bisection) for the lowest setting that scores
at least TARGET in SSIMULACRA2 (the `ssimulacra2` package, in a venv: see BENCHMARKS.md), and its bytes
and encode time are recorded. Encode time is `vips` CLI time minus a no-op `vips copy` of the same
image, the median of 3. Usage: .build-bench/venv/bin/python Benchmarks/formats-at-equal-quality.py [CORPUS]
"""
import glob, os, statistics, subprocess, sys, time
from ssimulacra2 import compute_ssimulacra2

TARGET = 80.0  # "high quality" on SSIMULACRA2's scale (90: visually lossless)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "corpus")
WORK = os.path.join(ROOT, ".build-bench", "formats")
os.makedirs(WORK, exist_ok=True)
FORMATS = {
    "JPEG baseline": ("jpg", ["jpegsave", "--optimize-coding", "--strip", "--subsample-mode", "on"]),
    "JPEG progressive": ("jpg", ["jpegsave", "--optimize-coding", "--strip", "--subsample-mode", "on", "--interlace"]),
    "WebP": ("webp", ["webpsave", "--strip"]),
    "AVIF effort 0": ("avif", ["heifsave", "--compression", "av1", "--effort", "0", "--strip"]),
    "AVIF effort 4": ("avif", ["heifsave", "--compression", "av1", "--effort", "4", "--strip"]),
    "JPEG XL effort 4": ("jxl", ["jxlsave", "--effort", "4", "--strip"]),
}

def vips(*args):
    started = time.perf_counter()
    subprocess.run(["vips", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started

def encode(source, fmt, quality):
    """The encoded file, and a file PyPI's metric can read (JPEG XL through libjxl's djxl)."""
    ext, command = FORMATS[fmt]
    out = os.path.join(WORK, f"out.{ext}")
    vips(command[0], source, out, "-Q", str(quality), *command[1:])
    if ext != "jxl":
        return out, out
    subprocess.run(["djxl", out, out + ".png"], check=True, capture_output=True)
    return out, out + ".png"

photos = sorted(glob.glob(os.path.join(CORPUS, "photos", "*.jp*g")))
results = {(fmt, size): [] for fmt in FORMATS for size in (240, 600)}
for photo in photos:
    for size in (240, 600):
        base = os.path.join(WORK, f"{os.path.basename(photo)}-{size}")
        vips("thumbnail", photo, base + ".v", str(size), "--height", str(size), "--crop", "centre")
        vips("pngsave", base + ".v", base + ".png")
        noop = statistics.median(vips("copy", base + ".v", base + "-copy.v") for _ in range(3))
        for fmt in FORMATS:
            low, high, best = 1, 100, None
            while low <= high:
                q = (low + high) // 2
                score = compute_ssimulacra2(base + ".png", encode(base + ".v", fmt, q)[1])
                if score >= TARGET:
                    best, high = q, q - 1
                else:
                    low = q + 1
            if best is None:
                continue
            out = encode(base + ".v", fmt, best)[0]
            ext, command = FORMATS[fmt]
            ms = statistics.median(vips(command[0], base + ".v", out, "-Q", str(best), *command[1:]) for _ in range(3)) - noop
            results[(fmt, size)].append((os.path.getsize(out), max(0.0, ms * 1000), best))

print(f"{len(photos)} photos, SSIMULACRA2 >= {TARGET}")
for size in (240, 600):
    for fmt in FORMATS:
        rows = results[(fmt, size)]
        if rows:
            print(f"{size} px  {fmt:17}  bytes {sum(r[0] for r in rows):8d}  median encode {statistics.median(r[1] for r in rows):6.1f} ms"
                  f"  qualities {min(r[2] for r in rows)}-{max(r[2] for r in rows)}  ({len(rows)} photos)")
