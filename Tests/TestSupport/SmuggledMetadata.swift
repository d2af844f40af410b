import Foundation

/// Files that carry a seller's metadata where a deny-list does not look, made by Python from clean
/// JPEG, PNG and WebP files and a camera photo's EXIF (with GPS): ImageMagick's EXIF in a PNG
/// `zTXt` "Raw profile type exif", a PNG `eXIf` and `tEXt`, bytes after IEND or EOI (a second JPEG
/// with EXIF, HTML), a JPEG comment, an APP2 MPF segment holding a JPEG with EXIF, a WebP `EXIF`
/// chunk with VP8X's "has EXIF" flag cleared, and a JPEG with an ICC profile. Made outside our code,
/// so our walker is not its own oracle.
public enum SmuggledMetadata {
    public struct Shape: Sendable {
        /// File name under the folder given.
        public var name: String
        /// A word of the part the 422 must name.
        public var part: String
        /// Whether ExifTool reads GPS from the file (the attack carries the photo's position).
        public var carriesGPS: Bool
    }

    public static let shapes: [Shape] = [
        Shape(name: "png-ztxt-exif.png", part: "zTXt", carriesGPS: true),
        Shape(name: "png-exif-chunk.png", part: "eXIf", carriesGPS: true),
        Shape(name: "png-text.png", part: "tEXt", carriesGPS: false),
        Shape(name: "png-after-iend.png", part: "after the PNG", carriesGPS: false),
        Shape(name: "jpeg-comment.jpg", part: "comment", carriesGPS: false),
        Shape(name: "jpeg-after-eoi.jpg", part: "after the JPEG", carriesGPS: false),
        Shape(name: "jpeg-mpf.jpg", part: "MPF", carriesGPS: false),
        Shape(name: "jpeg-icc.jpg", part: "ICC", carriesGPS: false),
        Shape(name: "webp-exif-flag-cleared.webp", part: "EXIF", carriesGPS: true),
        Shape(name: "png-gama-long.png", part: "gAMA chunk of 14 bytes", carriesGPS: false),
        Shape(name: "webp-vp8x-long.webp", part: "VP8X chunk of 20 bytes", carriesGPS: false),
        Shape(name: "png-two-gama.png", part: "a second PNG gAMA chunk", carriesGPS: false),
        Shape(name: "png-iend-long.png", part: "IEND chunk of 10 bytes", carriesGPS: false),
    ]

    /// Writes every shape into `folder` from the clean files and the camera photo given.
    public static func make(in folder: String, jpeg: String, png: String, webp: String, camera: String) throws {
        let script = #"""
        import io, struct, sys, zlib
        from PIL import Image, ImageCms
        out, jpg, png, webp, camera = sys.argv[1], *[open(p, "rb").read() for p in sys.argv[2:6]]

        def segments(j):
            i = 2
            while j[i] == 0xFF and j[i + 1] not in (0xDA, 0xD9):
                n = struct.unpack(">H", j[i + 2:i + 4])[0]
                yield j[i + 1], j[i + 4:i + 2 + n]
                i += 2 + n

        exif = next(p for m, p in segments(camera) if m == 0xE1 and p.startswith(b"Exif\0\0"))[6:]
        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        def before_iend(p, c):
            i = p.rindex(b"IEND") - 4
            return p[:i] + c + p[i:]
        def segment(marker, data):
            return b"\xff" + bytes([marker]) + struct.pack(">H", len(data) + 2) + data
        hexed = exif.hex()
        profile = b"\nexif\n%8d\n" % len(exif) + "\n".join(hexed[i:i + 72] for i in range(0, len(hexed), 72)).encode() + b"\n"
        small = io.BytesIO()
        Image.new("RGB", (16, 16), (200, 30, 30)).save(small, "JPEG", exif=b"Exif\0\0" + exif[:60000])
        icc = io.BytesIO()
        Image.open(io.BytesIO(jpg)).save(icc, "JPEG", icc_profile=ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
        width, height = Image.open(io.BytesIO(webp)).size
        vp8x = b"VP8X" + struct.pack("<I", 10) + b"\0\0\0\0" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
        exif_chunk = b"EXIF" + struct.pack("<I", len(exif)) + exif + (b"\0" if len(exif) % 2 else b"")
        # libvips writes a VP8X chunk itself; its flags byte is cleared, so nothing says "has EXIF".
        chunks = webp[12:20] + b"\0" + webp[21:] if webp[12:16] == b"VP8X" else vp8x + webp[12:]
        body = b"WEBP" + chunks + exif_chunk
        # Text after the fields of chunks of a fixed size, their lengths and checksums made to match.
        ihdr_end = 8 + 12 + 13
        long_vp8x = b"VP8X" + struct.pack("<I", 20) + (webp[20:30] if webp[12:16] == b"VP8X" else vp8x[8:]) + b"Main St 12"
        long_body = b"WEBP" + long_vp8x + (webp[30:] if webp[12:16] == b"VP8X" else webp[12:])
        files = {
            "png-ztxt-exif.png": before_iend(png, chunk(b"zTXt", b"Raw profile type exif\0\0" + zlib.compress(profile))),
            "png-exif-chunk.png": before_iend(png, chunk(b"eXIf", exif)),
            "png-text.png": before_iend(png, chunk(b"tEXt", b"Comment\0shot at home, 12 Main St")),
            "png-after-iend.png": png + b"<html><script>alert(1)</script></html>",
            "jpeg-comment.jpg": jpg[:2] + segment(0xFE, b"shot at home, 12 Main St") + jpg[2:],
            "jpeg-after-eoi.jpg": jpg + camera,
            "jpeg-mpf.jpg": jpg[:2] + segment(0xE2, b"MPF\0" + small.getvalue()) + jpg[2:],
            "jpeg-icc.jpg": icc.getvalue(),
            "webp-exif-flag-cleared.webp": b"RIFF" + struct.pack("<I", len(body)) + body,
            "png-gama-long.png": png[:ihdr_end] + chunk(b"gAMA", struct.pack(">I", 45455) + b"Main St 12") + png[ihdr_end:],
            "webp-vp8x-long.webp": b"RIFF" + struct.pack("<I", len(long_body)) + long_body,
            "png-two-gama.png": png[:ihdr_end] + chunk(b"gAMA", struct.pack(">I", 45455)) + chunk(b"gAMA", b"Main") + png[ihdr_end:],
            "png-iend-long.png": png[:png.rindex(b"IEND") - 4] + chunk(b"IEND", b"Main St 12"),
        }
        for name, data in files.items():
            open(out + "/" + name, "wb").write(data)
        """#
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script, folder, jpeg, png, webp, camera])
    }

    /// Byte strings that betray a smuggled part in an answer: EXIF's header, XMP's namespace,
    /// ImageMagick's profile name, the comment's text, HTML, an MPF index.
    public static let telltales = ["Exif\0\0", "http://ns.adobe.com", "Raw profile", "Main St", "<html", "MPF\0", "acsp"].map { Data($0.utf8) }
}
