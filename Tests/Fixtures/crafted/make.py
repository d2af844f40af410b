#!/usr/bin/env python3
"""Makes the crafted hostile files in this folder (Python standard library only; deterministic).

Run from anywhere: python3 Tests/Fixtures/crafted/make.py. The files are committed; this script is how
they were made and how to make more. Truncations and random bytes behind magic numbers are made by
the tests themselves (GeneratedHostileInputTests), since they need no crafting.
"""
import struct
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent


def png(width, height, bit_depth, colour_type, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    compressor = zlib.compressobj(9)
    idat = b"".join(compressor.compress(row) for row in rows) + compressor.flush()
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def png_bomb(side):
    """A 1-bit greyscale PNG of zeros: a few tens of KB that decode to `side`² pixels."""
    row = b"\x00" * (1 + (side + 7) // 8)
    return png(side, side, 1, 0, (row for _ in range(side)))


def strip(width, height):
    """An RGB gradient strip: valid, but absurdly thin."""
    rows = []
    for y in range(height):
        rows.append(b"\x00" + bytes((x * 7 + y) % 256 for x in range(width * 3)))
    return png(width, height, 8, 2, rows)


def jpeg_segments(data):
    """(marker, payload) pairs up to start-of-scan, then the rest of the file as one blob."""
    assert data[:2] == b"\xff\xd8"
    offset, segments = 2, []
    while True:
        marker = data[offset + 1]
        if marker == 0xDA:
            return segments, data[offset:]
        length = struct.unpack(">H", data[offset + 2:offset + 4])[0]
        segments.append((marker, data[offset + 4:offset + 2 + length]))
        offset += 2 + length


def jpeg(segments, scan):
    out = b"\xff\xd8"
    for marker, payload in segments:
        out += bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload
    return out + scan


def with_exif(base, tiff):
    """`base` with its own APP1 segments replaced by an Exif segment holding `tiff`."""
    segments, scan = jpeg_segments(base)
    kept = [s for s in segments if s[0] != 0xE1]
    return jpeg([kept[0], (0xE1, b"Exif\x00\x00" + tiff)] + kept[1:], scan)


def ifd(entries, next_offset):
    """A little-endian TIFF IFD: entries are (tag, type, count, value-or-offset)."""
    out = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        out += struct.pack("<HHII", tag, kind, count, value)
    return out + struct.pack("<I", next_offset)


def zero_size_jpeg(base):
    segments, scan = jpeg_segments(base)
    patched = []
    for marker, payload in segments:
        if marker in (0xC0, 0xC1, 0xC2):  # start of frame: precision, height, width
            payload = payload[:1] + b"\x00\x00\x00\x00" + payload[5:]
        patched.append((marker, payload))
    return jpeg(patched, scan)


def gif(width, height, frames):
    """A GIF of `frames` 4×4 frames. LZW with a clear code before every pixel pair keeps the code
    width at 3 bits, so no compressor is needed."""
    out = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x81, 0, 0)  # 4-colour global palette
    out += bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255])
    out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"  # loop forever
    for index in range(frames):
        pixels = [(index + p) % 4 for p in range(16)]
        codes = []
        for p in range(0, 16, 2):
            codes += [4, pixels[p], pixels[p + 1]]
        codes.append(5)
        bits, count, data = 0, 0, bytearray()
        for code in codes:
            bits |= code << count
            count += 3
            while count >= 8:
                data.append(bits & 0xFF)
                bits >>= 8
                count -= 8
        if count:
            data.append(bits & 0xFF)
        x, y = (index * 4) % max(width - 3, 1), 0
        out += b"\x21\xf9\x04\x04\x01\x00\x00\x00"  # graphic control: 10 ms
        out += b"\x2c" + struct.pack("<HHHHB", x, y, 4, 4, 0)
        out += b"\x02" + bytes([len(data)]) + bytes(data) + b"\x00"
    return out + b"\x3b"


def zero_size_gif():
    return (b"GIF89a" + struct.pack("<HHBBB", 0, 0, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
            + b"\x2c" + struct.pack("<HHHHB", 0, 0, 0, 0, 0) + b"\x02\x02\x44\x01\x00\x3b")


def main():
    base = (FIXTURES / "orientation" / "Landscape_1.jpg").read_bytes()
    files = {
        "png-bomb-16000.png": png_bomb(16000),
        "png-bomb-20000.png": png_bomb(20000),
        "strip-1x20000.png": strip(1, 20000),
        "strip-20000x1.png": strip(20000, 1),
        "zero-size.png": png(0, 0, 8, 2, [b"\x00"]),
        "zero-size.gif": zero_size_gif(),
        "zero-size.jpg": zero_size_jpeg(base),
        "gif-3000-frames.gif": gif(64, 4, 3000),
        # IFD0 claims 65535 entries in a segment that holds one.
        "exif-huge-count.jpg": with_exif(base, b"II*\x00" + struct.pack("<I", 8)
                                         + struct.pack("<H", 0xFFFF) + struct.pack("<HHII", 0x0112, 3, 1, 6)),
        # IFD0 (orientation 6) names itself as the next IFD, and its Exif sub-IFD pointer is IFD0 too.
        "exif-loop.jpg": with_exif(base, b"II*\x00" + struct.pack("<I", 8)
                                   + ifd([(0x0112, 3, 1, 6), (0x8769, 4, 1, 8)], 8)),
        # Values and IFDs far outside the segment, and a 4-billion-element tag.
        "exif-offsets-out-of-range.jpg": with_exif(base, b"II*\x00" + struct.pack("<I", 8)
                                                   + ifd([(0x010F, 2, 0xFFFFFFFF, 0xFFFFFFF0),
                                                          (0x8825, 4, 1, 0x7FFFFFFF),
                                                          (0x0112, 3, 1, 3)], 0xFFFFFF00)),
    }
    for name, data in files.items():
        (HERE / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
