import Foundation
import ImagePipeline

/// Every option the URL grammar knows, defined once: its names (imgproxy's full name first, then
/// its short ones), how its arguments apply, and, for the option that owns a part of the output,
/// that part of the canonical form (which ETags and cache keys are made of). Parsing, the canonical
/// form and the "unknown option" message all read this table: a new option is one entry here.
enum OptionTable {
    struct Definition: Sendable {
        let names: [String]
        let apply: @Sendable (inout ProcessingOptions, OptionArguments, _ presets: [String: String], _ depth: Int) throws(ProcessingError) -> Void
        var canonical: (@Sendable (ProcessingOptions, OutputFormat, _ defaultQuality: Int) -> String)?
        /// Whether a URL may give it itself when the service serves presets only (`onlyPresets`).
        var withPresetsOnly = false
    }

    /// In canonical order first (the owners of the output's parts), then the options that only set
    /// others' parts or nothing that changes bytes.
    static let definitions: [Definition] = [
        Definition(names: ["resizing_type", "rt"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.resizing = try option.choice(option[0] ?? "", RenderSpec.Resizing.self)
        }, canonical: { options, _, _ in "rt:\(options.resizing.rawValue)" }),
        Definition(names: ["width", "w"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.width = try option.integer(option[0] ?? "", in: ProcessingOptions.sizeRange)
        }, canonical: { options, _, _ in "w:\(options.width)" }),
        Definition(names: ["height", "h"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.height = try option.integer(option[0] ?? "", in: ProcessingOptions.sizeRange)
        }, canonical: { options, _, _ in "h:\(options.height)" }),
        Definition(names: ["dpr"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            guard let value = Double(option[0] ?? ""), ProcessingOptions.dprRange.contains(value) else {
                throw option.invalid(option[0] ?? "", "a number from 0.01 to 8")
            }
            options.dpr = value
        }, canonical: { options, _, _ in "dpr:\(options.dpr)" }, withPresetsOnly: true),
        Definition(names: ["gravity", "g"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 3)
            options.gravity = try option.choice(option[0] ?? "", RenderSpec.Gravity.self)
            // Offsets are not supported; zero ones are what imgproxy writes by default.
            for offset in option.arguments.dropFirst() where !["", "0"].contains(offset) {
                throw option.invalid(offset, "no offset (offsets are not supported)")
            }
        }, canonical: { options, _, _ in "g:\(options.gravity.rawValue)" }),
        Definition(names: ["enlarge", "el"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.enlarge = try option.boolean(option[0] ?? "")
        }, canonical: { options, _, _ in "el:\(options.enlarge ? 1 : 0)" }),
        Definition(names: ["quality", "q"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            let value = try option.integer(option[0] ?? "", in: 0...100)
            options.quality = value == 0 ? nil : value
        }, canonical: { options, _, defaultQuality in "q:\(options.quality ?? defaultQuality)" }),
        Definition(names: ["max_bytes", "mb"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            let value = try option.integer(option[0] ?? "", in: 0...RenderSpec.bytesRange.upperBound)
            guard value == 0 || RenderSpec.bytesRange.contains(value) else {
                throw option.invalid(option[0] ?? "", "0 (off) or \(RenderSpec.bytesRange.lowerBound)–\(RenderSpec.bytesRange.upperBound)")
            }
            options.maxBytes = value == 0 ? nil : value
        }, canonical: { options, _, _ in "mb:\(options.maxBytes ?? 0)" }),
        // imgproxy Pro's autoquality, its `size` method; empty for URLs without it, so their ETags stay.
        Definition(names: ["autoquality", "aq"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 5)
            switch option[0] ?? "" {
            case "none":
                options.autoquality = nil
            case "size":
                guard let target = option[1], !target.isEmpty else { throw option.invalid("", "a byte size after size:") }
                let bytes = try option.integer(target, in: RenderSpec.bytesRange)
                // imgproxy's defaults (IMGPROXY_AUTOQUALITY_MIN and _MAX) where a quality is left out.
                func quality(_ index: Int, default value: Int) throws(ProcessingError) -> Int {
                    guard let text = option[index], !text.isEmpty else { return value }
                    return try option.integer(text, in: RenderSpec.qualityRange)
                }
                let (low, high) = (try quality(2, default: 70), try quality(3, default: 80))
                guard low <= high else { throw option.invalid("\(low):\(high)", "a minimum quality at most the maximum") }
                options.autoquality = .init(maxBytes: bytes, qualities: low...high)
            default:
                throw option.invalid(option[0] ?? "", "size or none (the perceptual methods are not supported)")
            }
        }, canonical: { options, _, _ in
            options.autoquality.map { "aq:size:\($0.maxBytes):\($0.qualities.lowerBound):\($0.qualities.upperBound)" } ?? ""
        }),
        Definition(names: ["format", "f", "ext"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.format = try ProcessingOptions.format(option[0] ?? "")
        }, canonical: { _, format, _ in "f:\(format.rawValue)" }, withPresetsOnly: true),
        Definition(names: ["framing", "fr"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            let value = try option.integer(option[0] ?? "", in: ProcessingOptions.sizeRange)
            options.framing = value == 0 ? nil : value
        }, canonical: { options, _, _ in "fr:\(options.framing ?? 0)" }),
        Definition(names: ["extend", "ex"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 2)
            options.extend = try option.boolean(option[0] ?? "")
            if let gravity = option[1], !["", "ce"].contains(gravity) { throw option.invalid(gravity, "ce (extension is centred)") }
        }, canonical: { options, _, _ in "ex:\(options.extend ? 1 : 0)" }),
        Definition(names: ["extend_aspect_ratio", "extend_ar", "exar"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 2)
            options.extendAspectRatio = try option.boolean(option[0] ?? "")
            if let gravity = option[1], !["", "ce"].contains(gravity) { throw option.invalid(gravity, "ce (extension is centred)") }
        }, canonical: { options, _, _ in "exar:\(options.extendAspectRatio ? 1 : 0)" }),
        // CSS's shorthand: one value for every side, two for vertical and horizontal, and so on.
        Definition(names: ["padding", "pd"], apply: { options, option, _, _ throws(ProcessingError) in
            guard (1...4).contains(option.arguments.count) else { throw option.invalid(option.arguments.joined(separator: ":"), "1 to 4 sizes") }
            let sides = try option.arguments.map { value throws(ProcessingError) in try option.integer(value.isEmpty ? "0" : value, in: 0...1024) }
            let (top, right) = (sides[0], sides.count > 1 ? sides[1] : sides[0])
            options.padding = [top, right, sides.count > 2 ? sides[2] : top, sides.count > 3 ? sides[3] : right]
        }, canonical: { options, _, _ in "pd:" + options.padding.map(String.init).joined(separator: ":") }),
        Definition(names: ["background", "bg"], apply: { options, option, _, _ throws(ProcessingError) in
            options.background = try ProcessingOptions.background(option)
        }, canonical: { options, _, _ in
            switch options.background {
            case .edge: "bg:auto"
            case .colour(let red, let green, let blue): "bg:\(red):\(green):\(blue)"
            }
        }),
        Definition(names: ["trim", "t"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 4)
            let threshold = try option.integer(option[0] ?? "", in: 0...255)
            guard threshold > 0 else { return options.trim = nil }
            var trim = RenderSpec.Trim(threshold: Double(threshold))
            if let colour = option[1], !colour.isEmpty {
                trim.colour = try ProcessingOptions.background(OptionArguments(name: option.name, arguments: [colour]))
            }
            if let value = option[2], !value.isEmpty { trim.equalHorizontal = try option.boolean(value) }
            if let value = option[3], !value.isEmpty { trim.equalVertical = try option.boolean(value) }
            options.trim = trim
        }, canonical: { options, _, _ in
            guard let trim = options.trim else { return "t:0" }
            let colour = switch trim.colour {
            case .edge: "auto"
            case .colour(let red, let green, let blue): "\(red).\(green).\(blue)"
            }
            return "t:\(Int(trim.threshold)):\(colour):\(trim.equalHorizontal ? 1 : 0):\(trim.equalVertical ? 1 : 0)"
        }),
        Definition(names: ["resize", "rs"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 5)
            if let type = option[0] { options.resizing = try option.choice(type, RenderSpec.Resizing.self) }
            try options.applySize(option, from: 1)
        }),
        Definition(names: ["size", "s"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 4)
            try options.applySize(option, from: 0)
        }),
        Definition(names: ["preset", "pr"], apply: { options, option, presets, depth throws(ProcessingError) in
            guard !option.arguments.isEmpty else { throw option.invalid("", "one or more preset names") }
            guard depth < ProcessingOptions.presetDepthLimit else {
                throw option.invalid(option.arguments.joined(separator: ":"), "presets nested at most \(ProcessingOptions.presetDepthLimit) deep")
            }
            for preset in option.arguments {
                guard let expansion = presets[preset] else { throw .unknownPreset(preset) }
                for inner in expansion.split(separator: "/") { try options.apply(String(inner), presets: presets, depth: depth + 1) }
            }
        }, withPresetsOnly: true),
        Definition(names: ["expires", "exp"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.expires = Date(timeIntervalSince1970: TimeInterval(try option.integer(option[0] ?? "", in: 0...Int(Int32.max) * 4)))
        }),
        // Changes the URL, and so any cache key derived from it, but not the image.
        Definition(names: ["cachebuster", "cb"], apply: { options, option, _, _ throws(ProcessingError) in
            options.cacheBuster = option.arguments.joined(separator: ":")
        }, withPresetsOnly: true),
        Definition(names: ["strip_metadata", "sm"], apply: { _, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            guard try option.boolean(option[0] ?? "") else { throw option.invalid(option[0] ?? "", "true: metadata is always stripped") }
        }),
    ]

    /// The options a URL may give itself under `onlyPresets`, with a `dpr` of the configured few
    /// (`dpr:2.002` would be one more render and cache entry per value); the cache buster changes the
    /// URL, never the image.
    static func checkAllowedWithPresetsOnly(_ segment: String, dprs: Set<Double>) throws(ProcessingError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        let name = String(parts[0])
        guard definition(named: name)?.withPresetsOnly == true else { throw .optionNotAllowed(name) }
        if name == "dpr", parts.count == 2, !(Double(parts[1]).map(dprs.contains) ?? false) {
            let allowed = dprs.sorted().map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(separator: ", ")
            throw .invalidArgument(option: "dpr", value: String(parts[1].prefix(64)), expected: "one of \(allowed) (only presets are served here)")
        }
    }

    private static let byName: [String: Definition] = Dictionary(
        definitions.flatMap { definition in definition.names.map { ($0, definition) } }, uniquingKeysWith: { first, _ in first })

    static func definition(named name: String) -> Definition? { byName[name] }

    /// "resize (rs), size (s), …": for the unknown-option message.
    static var summary: String {
        definitions.map { $0.names.count > 1 ? "\($0.names[0]) (\($0.names.dropFirst().joined(separator: ", ")))" : $0.names[0] }
            .joined(separator: ", ")
    }
}
