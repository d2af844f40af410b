import Foundation

/// PNGs made for a test (Python's standard library writes them): seeded RGB noise, the photo no
/// encoder can squeeze, so a byte budget has to shrink it; four flat quadrants, whose colours say by
/// pixels where each corner of the image went (turned, mirrored, cut); and frames for the photo
/// looks (a blank grey one, a plain studio shot); products on grounds for a listing's rules.
public enum GeneratedImage {
    public static func noise(width: Int, height: Int, seed: Int = 1, to path: String) throws {
        try write("random.Random(seed).randbytes(width * height * 3)", width: width, height: height, seed: seed, to: path)
    }

    /// The colours of `quadrants`, top left, top right, bottom left, bottom right.
    public static let quadrantColours: [[Double]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]]

    /// Red top left, green top right, blue bottom left, yellow bottom right.
    public static func quadrants(width: Int, height: Int, to path: String) throws {
        let colours = quadrantColours.map { "bytes([\($0.map { String(Int($0)) }.joined(separator: ","))])" }
        let rows = "b''.join(((\(colours[0]) if x < width // 2 else \(colours[1])) if y < height // 2 else "
            + "(\(colours[2]) if x < width // 2 else \(colours[3]))) for y in range(height) for x in range(width))"
        try write(rows, width: width, height: height, seed: 0, to: path)
    }

    /// White with thin saturated strokes, as a price tag's lettering: red ones two pixels wide
    /// across the top half, blue ones along the bottom half. 4:2:0 halves the colour resolution
    /// that such edges need.
    public static func lettering(width: Int, height: Int, to path: String) throws {
        let rows = "b''.join((bytes([220,20,30]) if (y < height // 2 and x % 6 < 2 and y % 20 < 14) else "
            + "bytes([20,40,200]) if (y >= height // 2 and y % 6 < 2 and x % 24 < 17) else bytes([255,255,255])) "
            + "for y in range(height) for x in range(width))"
        try write(rows, width: width, height: height, seed: 0, to: path)
    }

    /// A cut-out: an opaque red `inner` rectangle at (x, y) on a transparent border whose invisible
    /// pixels hold seeded noise (as editors leave them), so only the alpha says where the border is.
    public static func cutOut(width: Int, height: Int, inner: (x: Int, y: Int, width: Int, height: Int), to path: String) throws {
        let inside = "\(inner.x) <= x < \(inner.x + inner.width) and \(inner.y) <= y < \(inner.y + inner.height)"
        let rows = "b''.join((bytes([255,0,0,255]) if \(inside) else noise.randbytes(3) + bytes([0])) for y in range(height) for x in range(width))"
        try write(rows, width: width, height: height, seed: 1, alpha: true, to: path)
    }

    /// One grey level everywhere: a frame with nothing in it to be sharp.
    public static func grey(width: Int, height: Int, to path: String) throws {
        try write("bytes([128, 128, 128]) * (width * height)", width: width, height: height, seed: 0, to: path)
    }

    /// A product shot on a plain white background with little texture: a grey oval filling about
    /// half the frame's height, shaded gently from left to right, its outline sharp. So few of its
    /// pixels are edges that the 99.5th percentile of the gradient is the flat background's.
    public static func studioShot(width: Int, height: Int, to path: String) throws {
        let rows = "b''.join((bytes([140 + 40 * x // width] * 3) if ((x - width / 2) / (width / 5)) ** 2 + ((y - height / 2) / (height / 4)) ** 2 < 1 "
            + "else bytes([250, 250, 250])) for y in range(height) for x in range(width))"
        try write(rows, width: width, height: height, seed: 0, to: path)
    }

    /// A product shot as marketplaces want it or not: a shaded grey-blue ellipse (the product) in
    /// `product` (x, y, width, height) on a flat `ground` (255: pure white), with a `border` px band
    /// of `borderGrey` added around all four sides when `border` > 0.
    public static func product(width: Int, height: Int, product box: (x: Int, y: Int, width: Int, height: Int), ground: Int = 255,
                               border: Int = 0, borderGrey: Int = 30, to path: String) throws {
        let (cx, cy, rx, ry) = (Double(box.x) + Double(box.width) / 2, Double(box.y) + Double(box.height) / 2, Double(box.width) / 2, Double(box.height) / 2)
        let inside = "((x + 0.5 - \(cx)) / \(rx)) ** 2 + ((y + 0.5 - \(cy)) / \(ry)) ** 2 < 1"
        let edge = "(x < \(border) or y < \(border) or x >= width - \(border) or y >= height - \(border))"
        let rows = "b''.join((bytes([\(borderGrey)] * 3) if \(edge) else bytes([60 + 100 * x // width, 80 + 60 * y // height, 150]) if \(inside) "
            + "else bytes([\(ground)] * 3)) for y in range(height) for x in range(width))"
        try write(rows, width: width, height: height, seed: 0, to: path)
    }

    /// A PNG of `rowsExpression`'s pixels, RGB or with `alpha` RGBA; the expression may draw on
    /// `noise`, a generator seeded with `seed`.
    private static func write(_ rowsExpression: String, width: Int, height: Int, seed: Int, alpha: Bool = false, to path: String) throws {
        let script = """
        import random, struct, sys, zlib
        width, height, seed, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        channels, colour_type = (4, 6) if sys.argv[5] == "alpha" else (3, 2)
        noise = random.Random(seed)
        rows = \(rowsExpression)
        raw = b"".join(b"\\0" + rows[y * width * channels:(y + 1) * width * channels] for y in range(height))
        chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        with open(path, "wb") as out:
            out.write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0))
                      + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))
        """
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script, String(width), String(height), String(seed), path, alpha ? "alpha" : "rgb"])
    }
}
