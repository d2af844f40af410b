#!/usr/bin/env python3
"""Chroma subsampling at equal looks: for each photo at 240 and 600 px (libvips thumbnail, centre
crop; 240 and 600 unless given), the smallest JPEG quality (bisection, 20-100) scoring at least TARGET by PyPI's
`ssimulacra2` against the lossless cut, in 4:2:0 and in 4:4:4 (progressive, optimised Huffman,
stripped, as `serve` writes JPEG), and the bytes of each. Besides the corpus photos: two product
shots drawn with Pillow, red and blue lettering on white beside a photo, where 4:4:4 is said to win.
Usage: python3 Benchmarks/subsampling.py [TARGET] [SIZES, e.g. 240,600] [CORPUS]
"""
import glob, os, subprocess, sys
from PIL import Image, ImageDraw, ImageFont
from ssimulacra2 import compute_ssimulacra2

TARGET = float(sys.argv[1]) if len(sys.argv) > 1 else 75.0
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [int(size) for size in (sys.argv[2] if len(sys.argv) > 2 else "240,600").split(",")]
CORPUS = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, "..", "shared", "corpus")
WORK = os.path.join(ROOT, ".build-bench", "subsampling")
os.makedirs(WORK, exist_ok=True)

def vips(*args):
    subprocess.run(["vips", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def product_shot(path, colour, photo):
    """A 1600×1200 listing image: a photo on the left, a price tag in `colour` lettering on the right."""
    canvas = Image.new("RGB", (1600, 1200), "white")
    canvas.paste(Image.open(photo).convert("RGB").resize((800, 1200)), (0, 0))
    draw = ImageDraw.Draw(canvas)
    fonts = glob.glob("/usr/share/fonts/truetype/*/*Bold*.ttf") + glob.glob("/usr/share/fonts/truetype/*/*.ttf")
    font = ImageFont.truetype(fonts[0], 150) if fonts else ImageFont.load_default()
    for row, text in enumerate(["SALE", "-50%", "₩9,900"]):
        draw.text((850, 150 + row * 330), text, fill=colour, font=font)
    draw.rectangle((830, 1080, 1580, 1150), fill=colour)
    canvas.save(path, quality=95, subsampling=0)

photos = sorted(glob.glob(os.path.join(CORPUS, "photos", "*"))) + [os.path.join(CORPUS, "color", "concert.jpg"),
                                                                   os.path.join(CORPUS, "color", "Channel_digital_image_CMYK_color.jpg")]
for name, colour in [("red", (220, 20, 30)), ("blue", (20, 40, 200))]:
    path = os.path.join(WORK, f"product-{name}.jpg")
    product_shot(path, colour, os.path.join(CORPUS, "photos", "jolla.jpg"))
    photos.append(path)

def smallest(base, mode):
    low, high, best = 20, 100, None
    while low <= high:
        q = (low + high) // 2
        out = os.path.join(WORK, f"out-{mode}.jpg")
        vips("jpegsave", base + ".v", out, "--Q", str(q), "--optimize-coding", "--strip", "--interlace", "--subsample-mode", mode)
        if compute_ssimulacra2(base + ".png", out) >= TARGET:
            best, high = (q, os.path.getsize(out)), q - 1
        else:
            low = q + 1
    return best

print(f"SSIMULACRA2 >= {TARGET}: smallest quality and bytes, 4:2:0 against 4:4:4")
totals = {}
for size in SIZES:
    for photo in photos:
        base = os.path.join(WORK, f"{os.path.basename(photo)}-{size}")
        vips("thumbnail", photo, base + ".v", str(size), "--height", str(size), "--crop", "centre", "--export-profile", "srgb")
        vips("pngsave", base + ".v", base + ".png")
        s420, s444 = smallest(base, "on"), smallest(base, "off")
        if s420 is None or s444 is None:
            reached = "4:4:4 at q%d, %d bytes" % s444 if s444 else "4:2:0 at q%d, %d bytes" % s420 if s420 else "neither"
            print(f"{size:4d} {os.path.basename(photo):40s} only {reached} reaches it"); continue
        totals.setdefault(size, [0, 0, 0, 0])
        totals[size][0] += s420[1]; totals[size][1] += s444[1]; totals[size][2] += min(s420[1], s444[1]); totals[size][3] += 1
        print(f"{size:4d} {os.path.basename(photo):40s} 4:2:0 q{s420[0]:3d} {s420[1]:7d}  4:4:4 q{s444[0]:3d} {s444[1]:7d}  "
              f"{(s444[1] / s420[1] - 1) * 100:+6.1f}%")
for size, (a, b, best, n) in totals.items():
    print(f"{size} px, {n} images: 4:2:0 {a} bytes, 4:4:4 {b} ({(b / a - 1) * 100:+.1f}%), the better of each {best} ({(best / a - 1) * 100:+.1f}%)")
