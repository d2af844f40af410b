#!/usr/bin/env python3
"""Whether `aq:ssimulacra2` could score a large output on a smaller proxy: for photos fitted to SIZE
px, JPEG at a few qualities (Pillow), PyPI's SSIMULACRA2 of the output against its lossless cut at
full size, and of both halved (the proxy). Prints each pair and, per photo, the lowest listed quality
that reaches TARGET at full size and by the proxy: where they differ, a proxy would choose another
quality than the score it stands for.

Usage: Benchmarks/score-proxy.py IMAGES_DIR [SIZE] [TARGET] [COUNT]"""
import io, os, sys, tempfile
from PIL import Image
from ssimulacra2 import compute_ssimulacra2

folder = sys.argv[1]
size, target, count = int(sys.argv[2]) if len(sys.argv) > 2 else 1400, float(sys.argv[3]) if len(sys.argv) > 3 else 80, int(sys.argv[4]) if len(sys.argv) > 4 else 8
qualities = [40, 55, 70, 80, 90]
work = tempfile.mkdtemp()

def score(reference, distorted):
    a, b = os.path.join(work, "a.png"), os.path.join(work, "b.png")
    reference.save(a)
    distorted.save(b)
    return compute_ssimulacra2(a, b)

differences, disagreements = [], 0
names = sorted(os.listdir(folder))[::4][:count]
print(f"{'photo':12} {'q':>3} {'full':>6} {'proxy':>6}")
for name in names:
    reference = Image.open(os.path.join(folder, name)).convert("RGB")
    reference.thumbnail((size, size), Image.LANCZOS)
    half = (reference.width // 2, reference.height // 2)
    full_pass = proxy_pass = None
    for quality in qualities:
        buffer = io.BytesIO()
        reference.save(buffer, "JPEG", quality=quality)
        output = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
        full = score(reference, output)
        proxy = score(reference.resize(half, Image.LANCZOS), output.resize(half, Image.LANCZOS))
        differences.append(proxy - full)
        print(f"{name:12} {quality:3} {full:6.1f} {proxy:6.1f}")
        full_pass = full_pass or (quality if full >= target else None)
        proxy_pass = proxy_pass or (quality if proxy >= target else None)
    disagreements += full_pass != proxy_pass
    print(f"{name:12} lowest listed quality reaching {target:g}: full {full_pass}, proxy {proxy_pass}")
differences.sort()
print(f"proxy − full over {len(differences)} pairs: min {differences[0]:.1f}, median {differences[len(differences) // 2]:.1f}, max {differences[-1]:.1f}; "
      f"{disagreements} of {len(names)} photos choose another quality")
