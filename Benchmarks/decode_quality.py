"""SSIM of three ways to get a 2K JPEG into a 512 px box, each against a reference made from the full
decode with libvips' Lanczos3 (float): libvips' thumbnail (shrink-on-load one step short of the box,
then Lanczos: what market-images did before), the DCT-scaled decode straight to the box (what it does
now, like Pillow's draft), and Pillow (draft + LANCZOS, what thumbor does). Outputs are compared as
lossless PNGs, so only the decode and resize differ.
Usage: decode_quality.py FOLDER_OF_JPEGS   (needs pyvips-free tools: the `vips` command, Pillow, scikit-image)
"""
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy
from PIL import Image
from skimage.metrics import structural_similarity

BOX = 512


def vips(*arguments):
    subprocess.run(["vips", *map(str, arguments)], check=True, capture_output=True)


def load(path):
    return numpy.asarray(Image.open(path).convert("RGB"), dtype=numpy.float64)


scores = {"libvips thumbnail (before)": [], "DCT-scaled decode (now)": [], "Pillow draft + LANCZOS (thumbor)": []}
with tempfile.TemporaryDirectory() as work:
    work = Path(work)
    for source in sorted(Path(sys.argv[1]).glob("*.jpg")):
        width = int(subprocess.run(["vipsheader", "-f", "width", str(source)], capture_output=True, text=True).stdout)
        height = int(subprocess.run(["vipsheader", "-f", "height", str(source)], capture_output=True, text=True).stdout)
        scale = min(BOX / width, BOX / height)
        target = (round(width * scale), round(height * scale))
        vips("copy", source, work / "full.v")
        vips("resize", work / "full.v", work / "reference.png", scale, "--kernel", "lanczos3")
        vips("thumbnail", source, work / "before.png", BOX, "--height", BOX)
        shrink = next(s for s in (8, 4, 2, 1) if width // s >= target[0] and height // s >= target[1])
        vips("jpegload", source, work / "draft.v", "--shrink", shrink)
        vips("thumbnail_image", work / "draft.v", work / "now.png", BOX, "--height", BOX)
        with Image.open(source) as image:
            image.draft("RGB", (BOX, BOX))
            image.convert("RGB").resize(target, Image.LANCZOS).save(work / "pillow.png")
        reference = load(work / "reference.png")
        for label, name in zip(scores, ["before.png", "now.png", "pillow.png"]):
            candidate = load(work / name)
            if candidate.shape != reference.shape:
                sys.exit(f"{source.name}: {name} is {candidate.shape[1]}×{candidate.shape[0]}, the reference {reference.shape[1]}×{reference.shape[0]}")
            scores[label].append(structural_similarity(reference, candidate, channel_axis=2, data_range=255))

print(f"| decode and resize into {BOX} px | mean SSIM | min | images |")
print("|---|---|---|---|")
for label, values in scores.items():
    print(f"| {label} | {statistics.mean(values):.4f} | {min(values):.4f} | {len(values)} |")
