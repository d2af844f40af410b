import Foundation

/// A ThumbHash (<https://evanw.github.io/thumbhash/>) as an app reads it: about 25 bytes holding a
/// photo's average colour, a few cosine terms of its luminance, colour and transparency, and its
/// rough aspect ratio, so a list cell can show a blurred likeness of the photo before its thumbnail
/// arrives. The service writes one per source (`/info`'s `thumbHash`, `thumbs.json`'s
/// `placeholder.thumbHash`) in base64.
///
/// Decoding follows Evan Wallace's reference decoder (MIT) term for term, so it draws what every
/// other ThumbHash decoder draws (it is checked against PyPI's `thumbhash`). Unlike the reference,
/// which reads past the end of a short hash (JavaScript's `undefined`, Swift's crash), every byte
/// the header promises is checked here once, when the value is made: a value that exists can be
/// drawn, and a bad hash from a server is a `ThumbHashError`.
public struct ThumbHashPlaceholder: Sendable, Hashable, Codable {
    /// The hash as the encoder wrote it. Bytes after the last term are kept but never read, as
    /// the reference decoders ignore them.
    public let bytes: [UInt8]
    private let hasAlpha: Bool
    private let isLandscape: Bool
    /// Terms of luminance along the shorter side, as the header gives it (1…7).
    private let shorterTerms: Int

    /// Terms of luminance along the longer side: 7, or 5 when the hash has alpha (its bytes go to
    /// the alpha terms instead).
    private var longerTerms: Int { hasAlpha ? 5 : 7 }

    /// Checks that `bytes` hold every term their header names.
    public init(bytes: [UInt8]) throws(ThumbHashError) {
        guard bytes.count >= 5 else { throw .tooShort(count: bytes.count, needed: 5) }
        self.bytes = bytes
        hasAlpha = bytes[2] & 0x80 != 0
        isLandscape = bytes[4] & 0x80 != 0
        shorterTerms = Int(bytes[3] & 7)
        guard shorterTerms > 0 else { throw .noShape }
        let needed = firstTermByte + (termCount + 1) / 2
        guard bytes.count >= needed else { throw .tooShort(count: bytes.count, needed: needed) }
    }

    /// From the base64 text the service writes (standard alphabet, padded).
    public init(base64: String) throws(ThumbHashError) {
        guard let data = Data(base64Encoded: base64) else { throw .notBase64 }
        try self.init(bytes: [UInt8](data))
    }

    /// The base64 text, as the service writes it.
    public var base64: String { Data(bytes).base64EncodedString() }

    /// Width over height of the photo, roughly: the ratio of luminance terms along its sides (7:1
    /// at most), which is also the shape `image()` draws. The service's `/info` gives the exact one.
    public var aspectRatio: Double {
        isLandscape ? Double(longerTerms) / Double(shorterTerms) : Double(shorterTerms) / Double(longerTerms)
    }

    /// The photo's average colour, not premultiplied: a cell's background before anything is
    /// drawn, or all a tiny cell needs. As the reference's `thumbHashToAverageRGBA`.
    public var averageColour: RGBAColour {
        let (red, green, blue) = Self.rgb(l: average.l, p: average.p, q: average.q)
        return RGBAColour(red: min(max(red, 0), 1), green: min(max(green, 0), 1), blue: min(max(blue, 0), 1), alpha: average.a)
    }

    /// The placeholder's pixels, 32 on the longer side and the hash's aspect ratio, RGBA not
    /// premultiplied (as the reference's `thumbHashToRGBA`: the same values, channel for channel).
    /// Drawn scaled up to the cell with smoothing, it is the blurred likeness of the photo.
    public func image() -> PlaceholderImage {
        let header16 = Int(bytes[3]) | Int(bytes[4]) << 8
        let (lx, ly) = luminanceGrid
        // The AC terms, in the order the encoder wrote them; saturation is boosted by 1.25 to
        // make up for quantisation, as in the reference.
        var next = 0
        func channel(_ nx: Int, _ ny: Int, scale: Double) -> [Term] {
            Self.positions(nx, ny).map { position in
                defer { next += 1 }
                let nibble = bytes[firstTermByte + next >> 1] >> ((next & 1) << 2) & 15
                return Term(cx: position.cx, cy: position.cy, factor: (Double(nibble) / 7.5 - 1) * scale * 2)
            }
        }
        let luminance = channel(lx, ly, scale: Double(header24 >> 18 & 31) / 31)
        let yellowBlue = channel(3, 3, scale: Double(header16 >> 3 & 63) / 63 * 1.25)
        let redGreen = channel(3, 3, scale: Double(header16 >> 9 & 63) / 63 * 1.25)
        let alpha = hasAlpha ? channel(5, 5, scale: Double(bytes[5] >> 4) / 15) : []

        let ratio = aspectRatio
        let width = ratio > 1 ? 32 : Int((32 * ratio).rounded())
        let height = ratio > 1 ? Int((32 / ratio).rounded()) : 32
        // cos(π / side × (position + ½) × frequency) for every column and row, as the reference
        // computes them.
        let frequencies = 0..<max(lx, ly, hasAlpha ? 5 : 3)
        func cosines(_ side: Int) -> [[Double]] {
            (0..<side).map { position in frequencies.map { cos(Double.pi / Double(side) * (Double(position) + 0.5) * Double($0)) } }
        }
        let (columns, rows) = (cosines(width), cosines(height))
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                func sum(_ dc: Double, _ terms: [Term]) -> Double {
                    terms.reduce(dc) { $0 + $1.factor * columns[x][$1.cx] * rows[y][$1.cy] }
                }
                let (red, green, blue) = Self.rgb(l: sum(average.l, luminance), p: sum(average.p, yellowBlue), q: sum(average.q, redGreen))
                let i = (y * width + x) * 4
                for (offset, value) in [red, green, blue, sum(average.a, alpha)].enumerated() {
                    // Truncated, as the reference's byte arrays do.
                    rgba[i + offset] = UInt8(max(0, 255 * min(1, value)))
                }
            }
        }
        return PlaceholderImage(width: width, height: height, rgba: rgba)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(base64: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(base64)
    }

    // MARK: The layout the header gives

    /// One AC term: its frequencies across and down, and its value times 2 (the DCT's factor).
    private struct Term {
        let cx: Int
        let cy: Int
        let factor: Double
    }

    private var header24: Int { Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 }

    /// The DC terms: luminance, yellow–blue, red–green and alpha averaged over the photo.
    private var average: (l: Double, p: Double, q: Double, a: Double) {
        (Double(header24 & 63) / 63, Double(header24 >> 6 & 63) / 31.5 - 1, Double(header24 >> 12 & 63) / 31.5 - 1,
         hasAlpha ? Double(bytes[5] & 15) / 15 : 1)
    }

    /// Luminance terms across and down (at least 3 each, as the encoder keeps at least 3).
    private var luminanceGrid: (lx: Int, ly: Int) {
        (max(3, isLandscape ? longerTerms : shorterTerms), max(3, isLandscape ? shorterTerms : longerTerms))
    }

    /// The byte after the header (and after the alpha byte, when there is alpha).
    private var firstTermByte: Int { hasAlpha ? 6 : 5 }

    /// How many 4-bit AC terms follow the header: luminance, yellow–blue, red–green, then alpha.
    private var termCount: Int {
        Self.positions(luminanceGrid.lx, luminanceGrid.ly).count + 2 * Self.positions(3, 3).count + (hasAlpha ? Self.positions(5, 5).count : 0)
    }

    /// The frequencies a channel of `nx` by `ny` terms keeps, in the encoder's order: the triangle
    /// of low frequencies, less the average (0, 0), which the header holds.
    private static func positions(_ nx: Int, _ ny: Int) -> [(cx: Int, cy: Int)] {
        var positions: [(cx: Int, cy: Int)] = []
        for cy in 0..<ny {
            var cx = cy == 0 ? 1 : 0
            while cx * ny < nx * (ny - cy) {
                positions.append((cx, cy))
                cx += 1
            }
        }
        return positions
    }

    /// From luminance, yellow–blue and red–green to red, green and blue, unclamped.
    private static func rgb(l: Double, p: Double, q: Double) -> (Double, Double, Double) {
        let blue = l - 2 / 3 * p
        let red = (3 * l - blue + q) / 2
        return (red, red - q, blue)
    }
}
