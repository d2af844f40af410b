"""The Pillow anchor for `prepare`: what a careful Python script does with the same job.

Per photo: draft (JPEG DCT scaling) + exif_transpose + conversion to sRGB from an embedded profile +
white behind transparency + thumbnail into a 2048 box + a bisection on quality for <= 300000 bytes,
saving without metadata. Usage: pillow_prepare.py INPUT_DIR OUTPUT_DIR [--progressive]
(progressive JPEGs, as market-images writes by default: peers.sh; run.sh keeps baseline)
"""
import io
import sys
from pathlib import Path

from PIL import Image, ImageCms, ImageOps
import pillow_heif

pillow_heif.register_heif_opener()
BOX, BUDGET = 2048, 300_000
SRGB = ImageCms.createProfile("sRGB")


def load(path):
    image = Image.open(path)
    image.draft("RGB", (BOX, BOX))
    image = ImageOps.exif_transpose(image)
    profile = image.info.get("icc_profile")
    if profile and image.mode in ("RGB", "RGBA", "CMYK"):
        source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
        image = ImageCms.profileToProfile(image, source, SRGB, outputMode="RGB")
    if image.mode in ("RGBA", "LA", "P"):
        image = image.convert("RGBA")
        flat = Image.new("RGB", image.size, (255, 255, 255))
        flat.paste(image, mask=image.split()[-1])
        image = flat
    elif image.mode != "RGB":
        image = image.convert("RGB")
    image.thumbnail((BOX, BOX), Image.LANCZOS)
    return image


PROGRESSIVE = "--progressive" in sys.argv[3:]


def encode(image, quality):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality, optimize=True, subsampling=2, progressive=PROGRESSIVE)
    return buffer.getvalue()


def fit(image):
    """Bisection over quality 1-95: the highest quality that fits the budget."""
    low, high, best = 1, 95, None
    while low <= high:
        quality = (low + high) // 2
        data = encode(image, quality)
        if len(data) <= BUDGET:
            best, low = data, quality + 1
        else:
            high = quality - 1
    return best if best is not None else encode(image, 1)


def main():
    source, target = Path(sys.argv[1]), Path(sys.argv[2])
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        if path.is_file():
            (target / (path.stem + ".jpg")).write_bytes(fit(load(path)))


if __name__ == "__main__":
    main()
