"""How close each way of fitting a JPEG into a box comes to the ideal: SSIM (scikit-image) and
SSIMULACRA2 of each output against a reference made from the full decode with libvips' Lanczos3 in
float. The ways: libvips' `vips_thumbnail` (what market-images did before), market-images now and its
draft decode (`serve --fast-decode`), both written by `stage-timings --save`, and Pillow twice: as
thumbor calls it (draft to the output size, then LANCZOS) and as `Image.thumbnail` does (draft to twice
the box, then LANCZOS). Everything is compared as lossless PNG, so only decode and resize differ.
Usage: decode_quality.py STAGE_TIMINGS FOLDER_OF_JPEGS [BOX]   (prints a Markdown table)
Needs the `vips` command, Pillow, scikit-image and ssimulacra2 (PyPI).
"""
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy
from PIL import Image
from skimage.metrics import structural_similarity
from ssimulacra2 import compute_ssimulacra2

stage_timings, folder = sys.argv[1], Path(sys.argv[2])
BOX = int(sys.argv[3]) if len(sys.argv) > 3 else 512
WAYS = {
    "before": "libvips `vips_thumbnail` (before)",
    "now": "market-images now",
    "draft": "market-images draft decode (`serve --fast-decode`)",
    "thumbor": "Pillow as thumbor calls it (draft to the output size + LANCZOS)",
    "thumbnail": "Pillow `Image.thumbnail` (draft to 2× + LANCZOS)",
}


def vips(*arguments):
    subprocess.run(["vips", *map(str, arguments)], check=True, capture_output=True)


def pixels(path):
    return numpy.asarray(Image.open(path).convert("RGB"), dtype=numpy.float64)


sources = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg"))
ssim = {way: [] for way in WAYS}
ssimulacra = {way: [] for way in WAYS}
with tempfile.TemporaryDirectory() as work:
    work = Path(work)
    subprocess.run([stage_timings, "--box", str(BOX), "--save", str(work), *map(str, sources)], check=True)
    for source in sources:
        with Image.open(source) as image:
            width, height = image.size
        scale = min(BOX / width, BOX / height, 1)
        target = (int(width * scale + 0.5), int(height * scale + 0.5))
        vips("cast", source, work / "float.v", "float")
        vips("resize", work / "float.v", work / "resized.v", scale, "--kernel", "lanczos3")
        vips("round", work / "resized.v", work / "rounded.v", "rint")
        vips("cast", work / "rounded.v", work / "reference.png", "uchar")
        vips("thumbnail", source, work / "before.png", BOX, "--height", BOX, "--size", "down")
        for way in ("now", "draft"):
            (work / f"{source.stem}.{way}.png").rename(work / f"{way}.png")
        with Image.open(source) as image:
            image.draft("RGB", target)
            image.convert("RGB").resize(target, Image.LANCZOS).save(work / "thumbor.png")
        with Image.open(source) as image:
            image.thumbnail((BOX, BOX), Image.LANCZOS)
            image.convert("RGB").save(work / "thumbnail.png")
        reference = pixels(work / "reference.png")
        for way in WAYS:
            candidate = pixels(work / f"{way}.png")
            if candidate.shape != reference.shape:
                sys.exit(f"{source.name}: {way} is {candidate.shape[1]}×{candidate.shape[0]}, the reference {reference.shape[1]}×{reference.shape[0]}")
            ssim[way].append(structural_similarity(reference, candidate, channel_axis=2, data_range=255))
            ssimulacra[way].append(compute_ssimulacra2(str(work / "reference.png"), str(work / f"{way}.png")))

print(f"| {len(sources)} JPEGs fitted into {BOX} px | SSIM mean | SSIM min | SSIMULACRA2 mean | SSIMULACRA2 min |")
print("|---|---|---|---|---|")
for way, label in WAYS.items():
    print(f"| {label} | {statistics.mean(ssim[way]):.4f} | {min(ssim[way]):.4f} | "
          f"{statistics.mean(ssimulacra[way]):.2f} | {min(ssimulacra[way]):.2f} |")
