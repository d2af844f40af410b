import Foundation

/// Seeded RGB noise as a PNG (Python's standard library writes it): the photo no encoder can
/// squeeze, so a byte budget has to shrink it.
public enum NoiseImage {
    public static func png(width: Int, height: Int, seed: Int = 1, to path: String) throws {
        let script = """
        import random, struct, sys, zlib
        width, height, seed, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        rows = random.Random(seed).randbytes(width * height * 3)
        raw = b"".join(b"\\0" + rows[y * width * 3:(y + 1) * width * 3] for y in range(height))
        chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        with open(path, "wb") as out:
            out.write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                      + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))
        """
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script, String(width), String(height), String(seed), path])
    }
}
