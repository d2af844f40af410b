"""Product photos with known masks, for the background model's quality (IoU against the truth).

Each product is drawn on a plain ground with Pillow, shaded as lit from the left, and composited with
a soft shadow onto a textured ground: a crop of a real photo from Tests/Fixtures (a wooden table, a
garden, a street) or a woven cloth made here. The product's drawn alpha is the truth. Two cases the
model is expected to fail are made too: a white mug on a white sheet and a clear glass. One more is
made only when named, so the benchmarks' sets stay as they are: a brown mug on the wooden table, its
dark inside the colour of the wood (brown-mug-on-wood).

Usage: python3 make.py FIXTURES_DIR OUT_DIR [NAME...]   (writes NAME.png and NAME.truth.png per case,
all of them but brown-mug-on-wood, or those named; prints the names)
"""
import math
import os
import random
import sys

from PIL import Image, ImageChops, ImageDraw, ImageFilter

SIDE = 800


def shaded(size, colour, light=0.55, dark=-0.35):
    """A horizontal light-to-dark ramp of `colour`: a rounded object lit from the left."""
    w, h = size
    row = Image.new("RGB", (w, 1))
    for x in range(w):
        t = x / max(1, w - 1)
        k = 1 + light * math.cos(t * math.pi * 0.9) if t < 0.5 else 1 + dark * (t - 0.5) * 2
        row.putpixel((x, 0), tuple(max(0, min(255, int(v * k))) for v in colour))
    return row.resize(size, Image.NEAREST)


def mug(colour):
    alpha = Image.new("L", (SIDE, SIDE), 0)
    d = ImageDraw.Draw(alpha)
    d.rounded_rectangle((230, 220, 520, 600), radius=30, fill=255)
    d.ellipse((230, 190, 520, 250), fill=255)
    d.ellipse((480, 300, 640, 500), fill=255)
    d.ellipse((520, 345, 600, 455), fill=0)
    body = shaded((SIDE, SIDE), colour)
    ImageDraw.Draw(body).ellipse((245, 198, 505, 242), fill=tuple(int(v * 0.45) for v in colour))
    return body, alpha


def bottle(colour):
    alpha = Image.new("L", (SIDE, SIDE), 0)
    d = ImageDraw.Draw(alpha)
    d.rounded_rectangle((300, 330, 500, 690), radius=40, fill=255)
    d.polygon([(300, 380), (360, 250), (440, 250), (500, 380)], fill=255)
    d.rectangle((365, 150, 435, 260), fill=255)
    body = shaded((SIDE, SIDE), colour)
    ImageDraw.Draw(body).rectangle((360, 140, 440, 185), fill=(30, 30, 30))
    ImageDraw.Draw(body).rectangle((300, 450, 500, 560), fill=(235, 230, 210))
    return body, alpha


def box(colour):
    alpha = Image.new("L", (SIDE, SIDE), 0)
    front = [(200, 330), (480, 380), (480, 650), (200, 600)]
    side = [(480, 380), (620, 300), (620, 560), (480, 650)]
    top = [(200, 330), (340, 250), (620, 300), (480, 380)]
    body = Image.new("RGB", (SIDE, SIDE))
    d, b = ImageDraw.Draw(alpha), ImageDraw.Draw(body)
    for face, k in ((front, 1.0), (side, 0.65), (top, 1.25)):
        d.polygon(face, fill=255)
        b.polygon(face, fill=tuple(min(255, int(v * k)) for v in colour))
    return body, alpha


def shoe(colour):
    alpha = Image.new("L", (SIDE, SIDE), 0)
    d = ImageDraw.Draw(alpha)
    upper = [(150, 520), (200, 380), (330, 340), (420, 420), (560, 450), (660, 520), (660, 560), (150, 560)]
    d.polygon(upper, fill=255)
    d.rounded_rectangle((140, 550, 670, 600), radius=20, fill=255)
    body = shaded((SIDE, SIDE), colour)
    b = ImageDraw.Draw(body)
    b.rounded_rectangle((140, 550, 670, 600), radius=20, fill=(245, 245, 240))
    for i in range(5):
        b.line((300 + 40 * i, 390 + 8 * i, 330 + 40 * i, 430 + 8 * i), fill=(250, 250, 250), width=6)
    return body, alpha


def glass():
    """A clear tumbler: mostly the ground seen through it, a rim and two highlights."""
    alpha = Image.new("L", (SIDE, SIDE), 0)
    d = ImageDraw.Draw(alpha)
    d.polygon([(280, 220), (520, 220), (490, 620), (310, 620)], fill=255)
    return None, alpha


def cloth(seed):
    rnd = random.Random(seed)
    img = Image.new("RGB", (SIDE, SIDE), (150, 120, 95))
    d = ImageDraw.Draw(img)
    for y in range(0, SIDE, 6):
        d.line((0, y, SIDE, y), fill=(170 + rnd.randint(-12, 12), 138 + rnd.randint(-12, 12), 108), width=3)
    for x in range(0, SIDE, 6):
        d.line((x, 0, x, SIDE), fill=(125 + rnd.randint(-12, 12), 100 + rnd.randint(-12, 12), 80), width=2)
    return img.filter(ImageFilter.GaussianBlur(0.8))


def ground(fixtures, name, box):
    img = Image.open(os.path.join(fixtures, name)).convert("RGB").crop(box)
    return img.resize((SIDE, SIDE), Image.LANCZOS)


def composite(background, body, alpha, shadow=True):
    out = background.copy()
    if shadow:
        shade = alpha.filter(ImageFilter.GaussianBlur(18)).point(lambda v: int(v * 0.45))
        shade = ImageChops.offset(shade, 18, 22)
        out.paste((0, 0, 0), (0, 0), shade)
    out.paste(body, (0, 0), alpha.filter(ImageFilter.GaussianBlur(0.7)))
    return out


def main():
    fixtures, out, wanted = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    os.makedirs(out, exist_ok=True)
    chosen = lambda name: not wanted or name in wanted
    grounds = {
        "wood": lambda: ground(fixtures, "photos/2569067123_aca715a2ee_o.jpg", (0, 1500, 1400, 2225)),
        "garden": lambda: ground(fixtures, "photos/flowers.jpeg", (400, 0, 1480, 1080)),
        "street": lambda: ground(fixtures, "photos/DSCN0010.jpg", (80, 0, 560, 480)),
        "cloth": lambda: cloth(7),
    }
    cases = [
        ("mug-on-wood", mug((200, 40, 40)), "wood"),
        ("bottle-on-cloth", bottle((30, 110, 60)), "cloth"),
        ("box-on-garden", box((40, 80, 170)), "garden"),
        ("shoe-on-wood", shoe((60, 60, 70)), "wood"),
        ("mug-on-street", mug((230, 180, 40)), "street"),
        ("shoe-on-cloth", shoe((30, 70, 140)), "cloth"),
    ]
    for name, (body, alpha), where in cases:
        if not chosen(name):
            continue
        composite(grounds[where](), body, alpha).save(os.path.join(out, name + ".png"))
        alpha.save(os.path.join(out, name + ".truth.png"))
        print(name)
    # Made to fail: a white mug on a white sheet, a clear glass on the cloth.
    if chosen("white-mug-on-white"):
        white_mug(out)
    if chosen("glass-on-cloth"):
        clear_glass(out)
    if "brown-mug-on-wood" in wanted:
        body, alpha = mug((150, 100, 60))
        composite(grounds["wood"](), body, alpha).save(os.path.join(out, "brown-mug-on-wood.png"))
        alpha.save(os.path.join(out, "brown-mug-on-wood.truth.png"))
        print("brown-mug-on-wood")


def white_mug(out):
    body, alpha = mug((250, 250, 248))
    composite(Image.new("RGB", (SIDE, SIDE), (246, 246, 244)), body, alpha, shadow=False).save(os.path.join(out, "white-mug-on-white.png"))
    alpha.save(os.path.join(out, "white-mug-on-white.truth.png"))
    print("white-mug-on-white")


def clear_glass(out):
    _, alpha = glass()
    seen = cloth(7)
    through = seen.filter(ImageFilter.GaussianBlur(2)).point(lambda v: min(255, v + 12))
    rim = Image.new("L", (SIDE, SIDE), 0)
    ImageDraw.Draw(rim).line([(280, 220), (520, 220), (490, 620), (310, 620), (280, 220)], fill=160, width=4)
    glassy = seen.copy()
    glassy.paste(through, (0, 0), alpha)
    glassy.paste((235, 235, 235), (0, 0), rim)
    glassy.save(os.path.join(out, "glass-on-cloth.png"))
    alpha.save(os.path.join(out, "glass-on-cloth.truth.png"))
    print("glass-on-cloth")


if __name__ == "__main__":
    main()
