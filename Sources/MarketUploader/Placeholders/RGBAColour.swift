import Foundation

/// A colour as an app's drawing code takes it: sRGB components and alpha from 0 to 1, not
/// premultiplied, ready for `UIColor(red:green:blue:alpha:)` or SwiftUI's
/// `Color(red:green:blue:opacity:)`. Read from the `#rrggbb` text the service writes (`/info`'s
/// `dominantColour`), so no app parses hex itself; a ThumbHash's average colour is one too.
public struct RGBAColour: Sendable, Hashable, Codable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    /// `#rrggbb`, or `#rrggbbaa` with alpha, in either case; nil for anything else.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.first == UInt8(ascii: "#"), digits.count == 7 || digits.count == 9 else { return nil }
        // Digit by digit: `UInt8("+f", radix: 16)` is 15, so pairs would let `#+f8000` through.
        let nibbles = digits.dropFirst().compactMap { Int(String(UnicodeScalar($0)), radix: 16) }
        guard nibbles.count == digits.count - 1 else { return nil }
        let levels = stride(from: 0, to: nibbles.count, by: 2).map { Double(nibbles[$0] << 4 | nibbles[$0 + 1]) / 255 }
        self.init(red: levels[0], green: levels[1], blue: levels[2], alpha: levels.count == 4 ? levels[3] : 1)
    }

    /// `#rrggbb` (lower case, each component to the nearest of 256 levels), with `aa` after it only
    /// when the colour is not opaque: the form the service writes.
    public var hex: String {
        let components = alpha < 1 ? [red, green, blue, alpha] : [red, green, blue]
        return "#" + components.map { String(format: "%02x", Int((min(max($0, 0), 1) * 255).rounded())) }.joined()
    }

    public var description: String { hex }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let colour = RGBAColour(hex: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not a #rrggbb colour")
        }
        self = colour
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
