import Foundation
import ImagePipeline

/// What a thumbnail-service URL asks for, in imgproxy's option names (`rs:fill:240:240`, `g:sm`,
/// `dpr:3`, `q:80`, `mb:20000`, `f:webp`, `pr:list`, …). Options apply left to right, a later one
/// overriding an earlier one, and a preset expands where it stands, as in imgproxy. Unlike imgproxy,
/// anything malformed or unknown is an error naming the option (the service answers 400), and values
/// are bounded where they are parsed, so no number reaches libvips unchecked.
public struct ProcessingOptions: Sendable, Equatable {
    /// The box in points; `dpr` scales it to pixels. 0 leaves a side free.
    public var width = 0
    public var height = 0
    public var resizing = RenderSpec.Resizing.fit
    public var gravity = RenderSpec.Gravity.centre
    public var enlarge = false
    public var dpr = 1.0
    /// nil: the service's default.
    public var quality: Int?
    public var maxBytes: Int?
    /// nil: negotiated from the request's `Accept`.
    public var format: OutputFormat?
    public var expires: Date?
    /// Changes the URL, and so any cache key derived from it, but not the image.
    public var cacheBuster = ""
    /// `framing`/`fr` (a market-images extension): cut a square of this many pixels first and fit
    /// the output from it, as `thumbs` does; the `list` and `grid` presets set it.
    public var framing: Int?

    public init() {}

    public static let dprRange = 0.01...8.0
    static let sizeRange = 0...65_535
    static let presetDepthLimit = 4

    /// The thumbnail variants and the upload image as presets: `pr:list/dpr:3` asks for the 240 px
    /// square `thumbs` calls `list@3x`, `pr:upload` for what `prepare` makes by default.
    public static let standardPresets: [String: String] = {
        var presets = ["upload": "rs:fit:\(PrepareOptions().maxEdge):\(PrepareOptions().maxEdge)/mb:\(PrepareOptions().maxBytes)/f:jpg/q:\(PrepareOptions().maxQuality)"]
        // Exactly what `thumbs` makes with its defaults: same crop, same master square, same quality,
        // so `pr:list/dpr:3/f:jpg` is byte for byte `list@3x.jpg`.
        let thumbnails = ThumbnailOptions()
        let master = thumbnails.sizes.first?.pixels ?? 600
        for variant in thumbnails.variants {
            presets[variant.name] = "rs:fill-down:\(variant.points):\(variant.points)/g:\(thumbnails.crop == .attention ? "sm" : "ce")"
                + "/fr:\(master)/q:\(thumbnails.quality)"
        }
        return presets
    }()

    /// Applies one `name:arg:…` segment.
    mutating func apply(_ segment: String, presets: [String: String], depth: Int = 0) throws(ProcessingError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0], arguments = Array(parts.dropFirst())
        let option = Option(name: name, arguments: arguments)
        switch name {
        case "resize", "rs":
            try option.expect(atMost: 5)
            if let type = option[0] { resizing = try option.choice(type, RenderSpec.Resizing.self) }
            try applySize(option, from: 1)
        case "size", "s":
            try option.expect(atMost: 4)
            try applySize(option, from: 0)
        case "resizing_type", "rt":
            try option.expect(exactly: 1)
            resizing = try option.choice(option[0] ?? "", RenderSpec.Resizing.self)
        case "width", "w":
            try option.expect(exactly: 1)
            width = try option.integer(option[0] ?? "", in: Self.sizeRange)
        case "height", "h":
            try option.expect(exactly: 1)
            height = try option.integer(option[0] ?? "", in: Self.sizeRange)
        case "dpr":
            try option.expect(exactly: 1)
            guard let value = Double(option[0] ?? ""), Self.dprRange.contains(value) else {
                throw option.invalid(option[0] ?? "", "a number from 0.01 to 8")
            }
            dpr = value
        case "enlarge", "el":
            try option.expect(exactly: 1)
            enlarge = try option.boolean(option[0] ?? "")
        case "gravity", "g":
            try option.expect(atMost: 3)
            gravity = try option.choice(option[0] ?? "", RenderSpec.Gravity.self)
            // Offsets are not supported; zero ones are what imgproxy writes by default.
            for offset in arguments.dropFirst() where !["", "0"].contains(offset) {
                throw option.invalid(offset, "no offset (offsets are not supported)")
            }
        case "quality", "q":
            try option.expect(exactly: 1)
            let value = try option.integer(option[0] ?? "", in: 0...100)
            quality = value == 0 ? nil : value
        case "max_bytes", "mb":
            try option.expect(exactly: 1)
            let value = try option.integer(option[0] ?? "", in: 0...RenderSpec.bytesRange.upperBound)
            guard value == 0 || RenderSpec.bytesRange.contains(value) else {
                throw option.invalid(option[0] ?? "", "0 (off) or \(RenderSpec.bytesRange.lowerBound)–\(RenderSpec.bytesRange.upperBound)")
            }
            maxBytes = value == 0 ? nil : value
        case "format", "f", "ext":
            try option.expect(exactly: 1)
            format = try Self.format(option[0] ?? "")
        case "preset", "pr":
            guard !arguments.isEmpty else { throw option.invalid("", "one or more preset names") }
            guard depth < Self.presetDepthLimit else { throw option.invalid(segment, "presets nested at most \(Self.presetDepthLimit) deep") }
            for preset in arguments {
                guard let expansion = presets[preset] else { throw .unknownPreset(preset) }
                for inner in expansion.split(separator: "/") { try apply(String(inner), presets: presets, depth: depth + 1) }
            }
        case "expires", "exp":
            try option.expect(exactly: 1)
            expires = Date(timeIntervalSince1970: TimeInterval(try option.integer(option[0] ?? "", in: 0...Int(Int32.max) * 4)))
        case "framing", "fr":
            try option.expect(exactly: 1)
            let value = try option.integer(option[0] ?? "", in: Self.sizeRange)
            framing = value == 0 ? nil : value
        case "cachebuster", "cb":
            cacheBuster = arguments.joined(separator: ":")
        case "strip_metadata", "sm":
            try option.expect(exactly: 1)
            guard try option.boolean(option[0] ?? "") else { throw option.invalid(option[0] ?? "", "true: metadata is always stripped") }
        default:
            throw .unknownOption(name)
        }
    }

    /// `w:h:enlarge:extend` from position `start` of a meta-option; empty arguments are skipped.
    private mutating func applySize(_ option: Option, from start: Int) throws(ProcessingError) {
        if let value = option[start] { width = try option.integer(value, in: Self.sizeRange) }
        if let value = option[start + 1] { height = try option.integer(value, in: Self.sizeRange) }
        if let value = option[start + 2] { enlarge = try option.boolean(value) }
        if let value = option[start + 3], try option.boolean(value) { throw option.invalid(value, "false (extend is not supported)") }
    }

    static func format(_ name: String) throws(ProcessingError) -> OutputFormat {
        switch name.lowercased() {
        case "jpg", "jpeg": .jpeg
        case "png": .png
        case "webp": .webp
        default: throw .invalidArgument(option: "format", value: name, expected: "jpg, png or webp")
        }
    }

    /// The output as the renderer takes it, once the format is settled: the box scaled by `dpr` and
    /// bounded by the service's largest edge, which also bounds outputs the URL leaves unsized.
    public func spec(format: OutputFormat, defaultQuality: Int, maxOutputEdge: Int) throws(ProcessingError) -> RenderSpec {
        func pixels(_ points: Int, _ name: String) throws(ProcessingError) -> Int {
            let value = (Double(points) * dpr).rounded()
            // A fit never enlarges past the source, so a box beyond the limit is the limit (imgproxy
            // clamps too); a crop or a forced size beyond it would change the shape, so it is refused.
            if resizing == .fit, !enlarge, value > Double(maxOutputEdge) { return maxOutputEdge }
            guard value <= Double(maxOutputEdge) else {
                throw .invalidArgument(option: name, value: "\(points) at dpr \(dpr)", expected: "at most \(maxOutputEdge) pixels")
            }
            return Int(value)
        }
        var spec = RenderSpec(width: try pixels(width, "width"), height: try pixels(height, "height"), resizing: resizing,
                              gravity: gravity, enlarge: enlarge, format: format, quality: quality ?? defaultQuality, maxBytes: maxBytes)
        spec.maxEdge = maxOutputEdge
        if let framing {
            guard framing <= maxOutputEdge else {
                throw .invalidArgument(option: "framing", value: String(framing), expected: "at most \(maxOutputEdge) pixels")
            }
            spec.framing = framing
        }
        return spec
    }

    /// Everything that decides the output's bytes, in one stable string: for cache keys and ETags.
    public func canonical(format: OutputFormat, defaultQuality: Int) -> String {
        "rt:\(resizing.rawValue)/w:\(width)/h:\(height)/dpr:\(dpr)/g:\(gravity.rawValue)/el:\(enlarge ? 1 : 0)"
            + "/q:\(quality ?? defaultQuality)/mb:\(maxBytes ?? 0)/f:\(format.rawValue)/fr:\(framing ?? 0)"
    }
}

/// One option's arguments, with the checks every option shares.
private struct Option {
    let name: String
    let arguments: [String]

    /// The argument at `index`, nil when absent or empty (imgproxy skips empty arguments).
    subscript(index: Int) -> String? {
        index < arguments.count && !arguments[index].isEmpty ? arguments[index] : nil
    }

    func expect(exactly count: Int) throws(ProcessingError) {
        guard arguments.count == count else { throw invalid(arguments.joined(separator: ":"), "\(count) argument\(count == 1 ? "" : "s")") }
    }

    func expect(atMost count: Int) throws(ProcessingError) {
        guard arguments.count <= count else { throw invalid(arguments.joined(separator: ":"), "at most \(count) arguments") }
    }

    func integer(_ text: String, in range: ClosedRange<Int>) throws(ProcessingError) -> Int {
        guard let value = Int(text), range.contains(value) else { throw invalid(text, "a whole number from \(range.lowerBound) to \(range.upperBound)") }
        return value
    }

    func boolean(_ text: String) throws(ProcessingError) -> Bool {
        switch text.lowercased() {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw invalid(text, "1, t, true, 0, f or false")
        }
    }

    func choice<T: RawRepresentable & CaseIterable>(_ text: String, _: T.Type) throws(ProcessingError) -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else { throw invalid(text, T.allCases.map(\.rawValue).joined(separator: ", ")) }
        return value
    }

    func invalid(_ value: String, _ expected: String) -> ProcessingError {
        .invalidArgument(option: name, value: String(value.prefix(64)), expected: expected)
    }
}
