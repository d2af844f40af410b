"""Costly sources, generated: what decode-cost.sh and worst-cases.sh measure. Pillow writes them."""
import struct
from PIL import Image, ImageFile

# Progressive saves of large images need the whole file in one block.
ImageFile.MAXBLOCK = 1 << 28


def screen_gif(side, path):
    """A 1×1 frame in the far corner of a side² screen: 35 bytes."""
    corner = struct.pack("<HH", side - 1, side - 1)
    body = struct.pack("<HH", side, side) + bytes([0, 0, 0, 0x2C]) + corner + bytes([1, 0, 1, 0, 0x80, 0, 0, 0, 255, 255, 255, 2, 2, 0x44, 1, 0, 0x3B])
    open(path, "wb").write(b"GIF89a" + body)


def gradient(side, mode):
    """A side² gradient in `mode` (RGB or CMYK), each band turned a quarter from the last."""
    g = Image.linear_gradient("L").resize((side, side))
    return Image.merge(mode, [g, g.rotate(90), g.rotate(180), g.rotate(270)][: len(mode)])
