#!/usr/bin/env python3
"""Writes a degraded copy of a photo, as a seller's bad shot would be, for measuring the photo-look
warnings (tests, Benchmarks/photo-looks.sh and blur-catch.sh). Pillow only. The copy is upright, at
most 1024 px on its long edge (about a detail page's size; `--edge N` before IN for N, `--edge own`
for the photo's own size), JPEG quality 95 unless said:

  degrade-photo.py IN OUT sharp         the photo itself, at that size
  degrade-photo.py IN OUT blur SIGMA    a Gaussian blur of SIGMA px
  degrade-photo.py IN OUT ev STOPS      exposure changed by STOPS (in linear light, clipped)
  degrade-photo.py IN OUT copy SCALE Q  resized by SCALE and re-encoded at quality Q
"""
import sys
from PIL import Image, ImageFilter, ImageOps

arguments = sys.argv[1:]
edge = 1024
if arguments[:1] == ["--edge"]:
    edge = None if arguments[1] == "own" else int(arguments[1])
    arguments = arguments[2:]
source, target, kind, *args = arguments
image = ImageOps.exif_transpose(Image.open(source))
if image.mode in ("RGBA", "LA", "P"):
    image = image.convert("RGBA")
    white = Image.new("RGBA", image.size, (255, 255, 255, 255))
    white.alpha_composite(image)
    image = white
image = image.convert("RGB")
scale = edge / max(image.size) if edge else 1
if scale < 1:
    image = image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)
quality = 95
if kind == "blur":
    image = image.filter(ImageFilter.GaussianBlur(float(args[0])))
elif kind == "ev":
    gain = 2 ** float(args[0])
    def encode(linear):
        linear = min(max(linear, 0.0), 1.0)
        return 12.92 * linear if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055
    def decode(level):
        value = level / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4
    table = [round(255 * encode(decode(level) * gain)) for level in range(256)]
    image = image.point(table * 3)
elif kind == "copy":
    factor = float(args[0])
    image = image.resize((max(1, round(image.width * factor)), max(1, round(image.height * factor))), Image.LANCZOS)
    quality = int(args[1])
elif kind != "sharp":
    sys.exit(f"unknown degradation {kind}")
image.save(target, "JPEG", quality=quality)
