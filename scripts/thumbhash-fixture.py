#!/usr/bin/env python3
"""Writes Tests/Fixtures/thumbhash/decodes.json: ThumbHashes and what independent decoders draw from
them, for MarketUploader's decoder (ThumbHashDecoderTests) to match within a level, with no Python at
test time. Run from the repository, with the tool built and both decoders in a virtual environment:

  swift build --product market-images
  python3 -m venv /tmp/th && /tmp/th/bin/pip install thumbhash fast-thumbhash
  /tmp/th/bin/python scripts/thumbhash-fixture.py [CORPUS]     # CORPUS: /work/shared/corpus

The hashes are our encoder's (`market-images thumbs`, the placeholder of thumbs.json, as /info
answers it) for images made here (aspect ratios from 7:1 to 1:7, opaque and transparent) and for
the corpus photos, plus hashes of seeded random bytes with every header layout (extreme terms,
clipped colours). For each: the pixels, average colour and aspect ratio the decoders give.

Two decoders, because PyPI's `thumbhash` (0.1.2, the project's oracle elsewhere) draws every pixel
of `thumb_hash_to_rgba` with the cosines of pixel (0, 0): its loop appends to `fx` and `fy` and
never clears them, so its placeholder is one flat colour. Its average colour and aspect ratio are
right. The pixels come from `fast-thumbhash`, bindings to the reference Rust crate (Evan Wallace's
own, which draws exactly what his JavaScript draws); PyPI's decoder with that one line fixed is run
too, and the fixture is written only if the two agree within a level on every channel (PyPI's rounds
where the reference truncates).
"""
import base64
import inspect
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import zlib
from importlib.metadata import version

import fast_thumbhash
import thumbhash

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(REPOSITORY, "Tests", "Fixtures", "thumbhash", "decodes.json")
TOOL = os.path.join(REPOSITORY, ".build", "debug", "market-images")
CORPUS_FOLDERS = ["photos", "orientation", "alpha", "color"]   # not hostile/: nothing to hash there


def pypi_decoder_fixed():
    """PyPI thumbhash's thumb_hash_to_rgba with its cosines cleared per pixel (and no stray print)."""
    source = inspect.getsource(thumbhash.thumb_hash_to_rgba)
    for old, new in [("            l = l_dc\n", "            fx, fy = [], []\n            l = l_dc\n"),
                     ("    print(ratio)\n", "")]:
        if source.count(old) != 1:
            sys.exit("thumbhash's decoder changed: check whether its pixel loop still needs fixing, then update this script")
        source = source.replace(old, new)
    namespace = dict(vars(thumbhash))
    exec(source, namespace)
    return namespace["thumb_hash_to_rgba"]


def png(width, height, pixel):
    """An 8-bit RGBA PNG of pixel(x, y) -> (r, g, b, a)."""
    rows = b"".join(b"\0" + bytes(c for x in range(width) for c in pixel(x, y)) for y in range(height))
    def chunk(kind, data):
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 6, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def generated_images(folder):
    """Smooth colour fields with a dark disc, at most 100 px a side so the encoder sees every pixel."""
    def picture(width, height, transparent):
        def pixel(x, y):
            u, v = (x + 0.5) / width, (y + 0.5) / height
            disc = (u - 0.6) ** 2 + (v - 0.4) ** 2 < 0.04
            r = 40 if disc else round(128 + 127 * math.sin(2 * math.pi * u))
            g = 30 if disc else round(128 + 127 * math.cos(2 * math.pi * v))
            b = round(255 * (u + v) / 2)
            a = max(0, min(255, round(255 * (1.4 - 2 * math.hypot(u - 0.5, v - 0.5))))) if transparent else 255
            return r, g, b, a
        return pixel
    shapes = [("square", 100, 100), ("landscape-4x3", 100, 75), ("portrait-3x4", 75, 100), ("landscape-2x1", 100, 50),
              ("portrait-1x2", 50, 100), ("wide-7x1", 100, 14), ("tall-1x7", 14, 100)]
    for transparent in (False, True):
        for name, width, height in shapes:
            path = os.path.join(folder, name + ("-alpha" if transparent else "") + ".png")
            with open(path, "wb") as file:
                file.write(png(width, height, picture(width, height, transparent)))


def random_hashes():
    """Seeded random bytes laid out as each kind of header says: with and without alpha, landscape
    and portrait, each count of terms on the shorter side."""
    generator = random.Random(46)
    hashes = []
    for alpha in (False, True):
        for landscape in (False, True):
            for shorter in (1, 4, 7):
                longer = 5 if alpha else 7
                lx, ly = (max(3, longer), max(3, shorter)) if landscape else (max(3, shorter), max(3, longer))
                terms = triangle(lx, ly) + 2 * triangle(3, 3) + (triangle(5, 5) if alpha else 0)
                data = bytearray(generator.randrange(256) for _ in range((6 if alpha else 5) + (terms + 1) // 2))
                data[2] = data[2] & 0x7F | (0x80 if alpha else 0)
                data[3] = data[3] & 0xF8 | shorter
                data[4] = data[4] & 0x7F | (0x80 if landscape else 0)
                name = f"random/{'alpha' if alpha else 'opaque'}-{'landscape' if landscape else 'portrait'}-{shorter}"
                hashes.append((name, base64.b64encode(bytes(data)).decode()))
    return hashes


def triangle(nx, ny):
    """AC terms a channel of nx by ny keeps (the reference's loop, less the DC term)."""
    return sum(1 for cy in range(ny) for cx in range(0 if cy else 1, nx) if cx * ny < nx * (ny - cy))


def our_hashes(inputs, folder):
    """Our encoder's hash per source, by name relative to its input's parent: thumbs.json's placeholders."""
    out = os.path.join(folder, "thumbs")
    run = subprocess.run([TOOL, "thumbs", *inputs, "--out", out, "--quiet", "--jobs", "2"], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"market-images thumbs failed:\n{run.stderr}")
    index = json.load(open(os.path.join(out, "thumbs.json")))
    hashes = []
    for entry in index["sources"]:
        source = os.path.normpath(os.path.join(out, entry["source"]))
        name = next(os.path.relpath(source, os.path.dirname(i)) for i in inputs if source.startswith(i + os.sep))
        hashes.append((name, entry["placeholder"]["thumbHash"]))
    return sorted(hashes)


def main():
    corpus = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpus"
    if not os.access(TOOL, os.X_OK):
        sys.exit(f"{TOOL} is missing: swift build --product market-images")
    fixed = pypi_decoder_fixed()
    with tempfile.TemporaryDirectory() as folder:
        made = os.path.join(folder, "generated")
        os.mkdir(made)
        generated_images(made)
        inputs = [made] + [os.path.join(corpus, f) for f in CORPUS_FOLDERS]
        hashes = our_hashes(inputs, folder) + random_hashes()

    cases, largest = [], 0
    for name, text in hashes:
        data = base64.b64decode(text)
        width, height, rgba = fast_thumbhash.thumb_hash_to_rgba(data)
        pypi_width, pypi_height, pypi_rgba = fixed(list(data))
        if (pypi_width, pypi_height) != (width, height):
            sys.exit(f"{name}: the decoders disagree on the size")
        difference = max(abs(a - b) for a, b in zip(rgba, pypi_rgba))
        if difference > 1:
            sys.exit(f"{name}: the decoders differ by {difference} levels")
        largest = max(largest, difference)
        average = thumbhash.thumb_hash_to_average_rgba(list(data))
        ratio = thumbhash.thumb_hash_to_approximate_aspect_ratio(list(data))
        if any(abs(a - b) > 1e-5 for a, b in zip(average, fast_thumbhash.thumb_hash_to_average_rgba(data))):
            sys.exit(f"{name}: the decoders disagree on the average colour")
        cases.append({"name": name, "hash": text, "aspectRatio": ratio, "average": [round(c, 6) for c in average],
                      "width": width, "height": height, "rgba": base64.b64encode(bytes(rgba)).decode()})

    os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
    with open(FIXTURE, "w") as file:
        json.dump({"about": "made by scripts/thumbhash-fixture.py; rgba: base64 of width×height RGBA pixels, not premultiplied, "
                            "as fast-thumbhash (the reference Rust crate) draws them; average and aspectRatio as PyPI thumbhash gives them",
                   "decoders": {name: version(name) for name in ("fast-thumbhash", "thumbhash")},
                   "cases": cases}, file, indent=1)
        file.write("\n")
    print(f"{len(cases)} hashes written to {os.path.relpath(FIXTURE, REPOSITORY)}; "
          f"PyPI thumbhash (fixed) and the reference crate differ by at most {largest} level(s)")


if __name__ == "__main__":
    main()
