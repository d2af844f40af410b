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
        /// imgproxy's security options: a URL may give them only where the service allows it
        /// (`--allow-security-options`, imgproxy's `IMGPROXY_ALLOW_SECURITY_OPTIONS`).
        var isSecurityOption = false
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
            (options.gravity, options.gravityOffset) = try option.gravity(from: 0)
        }, canonical: { options, _, _ in
            "g:\(options.gravity.rawValue)" + (options.gravityOffset == RenderSpec.Offset() ? "" : ":\(options.gravityOffset.x):\(options.gravityOffset.y)")
        }),
        Definition(names: ["crop", "c"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 5)
            let (width, height) = (try option.number(option[0] ?? "0", in: 0...65_535), try option.number(option[1] ?? "0", in: 0...65_535))
            guard width > 0 || height > 0 else { return options.crop = nil }
            var crop = RenderSpec.Crop(width: width, height: height)
            if option[2] != nil { (crop.gravity, crop.offset) = try option.gravity(from: 2) }
            options.crop = crop
        }, canonical: { options, _, _ in
            guard let crop = options.crop else { return "" }
            let offset = crop.gravity == nil ? "" : ":\(crop.gravity?.rawValue ?? ""):\(crop.offset.x):\(crop.offset.y)"
            return "c:\(crop.width):\(crop.height)" + offset
        }),
        Definition(names: ["min-width", "min_width", "mw"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.minWidth = try option.integer(option[0] ?? "", in: ProcessingOptions.sizeRange)
        }, canonical: { options, _, _ in options.minWidth == 0 ? "" : "mw:\(options.minWidth)" }),
        Definition(names: ["min-height", "min_height", "mh"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.minHeight = try option.integer(option[0] ?? "", in: ProcessingOptions.sizeRange)
        }, canonical: { options, _, _ in options.minHeight == 0 ? "" : "mh:\(options.minHeight)" }),
        Definition(names: ["zoom", "z"], apply: { options, option, _, _ throws(ProcessingError) in
            guard (1...2).contains(option.arguments.count) else { throw option.invalid(option.arguments.joined(separator: ":"), "one factor, or x:y") }
            let factors = try option.arguments.map { value throws(ProcessingError) in try option.number(value, in: 0...64, exclusiveOfZero: true) }
            options.zoom = RenderSpec.Offset(x: factors[0], y: factors.last ?? factors[0])
        }, canonical: { options, _, _ in options.zoom == RenderSpec.Offset(x: 1, y: 1) ? "" : "z:\(options.zoom.x):\(options.zoom.y)" }),
        Definition(names: ["rotate", "rot"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            let degrees = try option.integer(option[0] ?? "", in: -3600...3600)
            guard degrees % 90 == 0 else { throw option.invalid(option[0] ?? "", "a multiple of 90 degrees") }
            options.rotation = (degrees % 360 + 360) % 360
        }, canonical: { options, _, _ in options.rotation == 0 ? "" : "rot:\(options.rotation)" }),
        Definition(names: ["flip", "fl"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 2)
            options.flipHorizontal = try option[0].map(option.boolean) ?? false
            options.flipVertical = try option[1].map(option.boolean) ?? false
        }, canonical: { options, _, _ in
            options.flipHorizontal || options.flipVertical ? "fl:\(options.flipHorizontal ? 1 : 0):\(options.flipVertical ? 1 : 0)" : ""
        }),
        Definition(names: ["blur", "bl"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.blur = try option.number(option[0] ?? "", in: 0...ProcessingOptions.sigmaLimit)
        }, canonical: { options, _, _ in options.blur == 0 ? "" : "bl:\(options.blur)" }),
        Definition(names: ["sharpen", "sh"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.sharpen = try option.number(option[0] ?? "", in: 0...ProcessingOptions.sigmaLimit)
        }, canonical: { options, _, _ in options.sharpen == 0 ? "" : "sh:\(options.sharpen)" }),
        Definition(names: ["pixelate", "pix"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.pixelate = try option.integer(option[0] ?? "", in: ProcessingOptions.sizeRange)
        }, canonical: { options, _, _ in options.pixelate <= 1 ? "" : "pix:\(options.pixelate)" }),
        Definition(names: ["enlarge", "el"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.enlarge = try option.boolean(option[0] ?? "")
        }, canonical: { options, _, _ in "el:\(options.enlarge ? 1 : 0)" }),
        Definition(names: ["quality", "q"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            let value = try option.integer(option[0] ?? "", in: 0...100)
            options.quality = value == 0 ? nil : value
        }, canonical: { options, format, defaultQuality in "q:\(options.quality(for: format, default: defaultQuality))" }),
        // Only the quality it resolves to counts: `q:`'s part says it.
        Definition(names: ["format_quality", "fq"], apply: { options, option, _, _ throws(ProcessingError) in
            guard option.arguments.count % 2 == 0 else { throw option.invalid(option.arguments.joined(separator: ":"), "format:quality pairs") }
            for index in stride(from: 0, to: option.arguments.count, by: 2) {
                let format = try ProcessingOptions.format(option.arguments[index])
                options.formatQuality[format] = try option.integer(option.arguments[index + 1], in: 0...100)
                if options.formatQuality[format] == 0 { options.formatQuality[format] = nil }
            }
        }),
        Definition(names: ["max_bytes", "mb"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            let value = try option.integer(option[0] ?? "", in: 0...RenderSpec.bytesRange.upperBound)
            guard value == 0 || RenderSpec.bytesRange.contains(value) else {
                throw option.invalid(option[0] ?? "", "0 (off) or \(RenderSpec.bytesRange.lowerBound)–\(RenderSpec.bytesRange.upperBound)")
            }
            options.maxBytes = value == 0 ? nil : value
        }, canonical: { options, _, _ in "mb:\(options.maxBytes ?? 0)" }),
        // imgproxy Pro's autoquality: its `size` method, and `ssimulacra2` (ours, a perceptual target);
        // empty for URLs without it, so their ETags stay.
        Definition(names: ["autoquality", "aq"], apply: { options, option, _, _ throws(ProcessingError) in
            options.autoquality = try ProcessingOptions.autoquality(option)
        }, canonical: { options, _, _ in
            guard let autoquality = options.autoquality else { return "" }
            let qualities = "\(autoquality.qualities.lowerBound):\(autoquality.qualities.upperBound)"
            switch autoquality.method {
            case .size(let bytes): return "aq:size:\(bytes):" + qualities
            case .ssimulacra2(let score): return "aq:ssimulacra2:\(score):\(qualities):\(autoquality.allowedError)"
            }
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
            options.padding = RenderSpec.Padding(top: top, right: right, bottom: sides.count > 2 ? sides[2] : top, left: sides.count > 3 ? sides[3] : right)
        }, canonical: { options, _, _ in "pd:" + [options.padding.top, options.padding.right, options.padding.bottom, options.padding.left].map(String.init).joined(separator: ":") }),
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
        Definition(names: ["watermark", "wm"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 5)
            let opacity = try option.number(option[0] ?? "", in: 0...1)
            guard opacity > 0 else { return options.watermark = nil }
            let placement: RenderSpec.Watermark.Placement
            switch option[1] ?? "ce" {
            case "re": placement = .replicate
            case let name:
                let gravity = try option.choice(name, RenderSpec.Gravity.self)
                guard gravity != .attention, gravity != .focusPoint else { throw option.invalid(name, "a compass gravity (ce, no, so, ea, we, noea, nowe, soea, sowe) or re") }
                placement = .gravity(gravity)
            }
            let offset = RenderSpec.Offset(x: try option.number(at: 2, in: -65_535...65_535) ?? 0, y: try option.number(at: 3, in: -65_535...65_535) ?? 0)
            options.watermark = .init(opacity: opacity, placement: placement, offset: offset,
                                      scale: try option.number(at: 4, in: 0...10) ?? 0)
        }, canonical: { options, _, _ in
            guard let mark = options.watermark else { return "" }
            let position = switch mark.placement {
            case .replicate: "re"
            case .gravity(let gravity): gravity.rawValue
            }
            return "wm:\(mark.opacity):\(position):\(mark.offset.x):\(mark.offset.y):\(mark.scale)"
        }),
        Definition(names: ["watermark_url", "wmu"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            guard let encoded = option[0] else { return options.watermarkSource = nil }
            guard let data = Base64URL.decode(encoded), let source = String(data: data, encoding: .utf8), !source.isEmpty else {
                throw option.invalid(encoded, "a base64url-encoded source URL")
            }
            options.watermarkSource = source
        }, canonical: { options, _, _ in options.watermark != nil ? options.watermarkSource.map { "wmu:" + $0 } ?? "" : "" }),
        Definition(names: ["raw"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.raw = try option.boolean(option[0] ?? "")
        }, canonical: { options, _, _ in options.raw ? "raw:1" : "" }),
        Definition(names: ["skip_processing", "skp"], apply: { options, option, _, _ throws(ProcessingError) in
            options.skipProcessing = Set(try option.arguments.filter { !$0.isEmpty }.map { name throws(ProcessingError) in try ProcessingOptions.format(name) })
        }, canonical: { options, _, _ in
            options.skipProcessing.isEmpty ? "" : "skp:" + options.skipProcessing.map(\.rawValue).sorted().joined(separator: ":")
        }),
        securityLimit(["max_src_resolution", "msr"], \.sourcePixels) { option throws(ProcessingError) in
            Int(try option.number(option[0] ?? "", in: 0...1_000_000, exclusiveOfZero: true) * 1_000_000)
        },
        securityLimit(["max_src_file_size", "msfs"], \.sourceBytes) { option throws(ProcessingError) in
            try option.integer(option[0] ?? "", in: 1...Int(Int32.max))
        },
        securityLimit(["max_result_dimension", "mrd"], \.resultDimension) { option throws(ProcessingError) in
            try option.integer(option[0] ?? "", in: 1...ProcessingOptions.sizeRange.upperBound)
        },
        securityLimit(["max_animation_frames", "maf"], \.animationFrames) { option throws(ProcessingError) in
            try option.integer(option[0] ?? "", in: 1...100_000)
        },
        securityLimit(["max_animation_frame_resolution", "mafr"], \.animationFramePixels) { option throws(ProcessingError) in
            Int(try option.number(option[0] ?? "", in: 0...1_000_000, exclusiveOfZero: true) * 1_000_000)
        },
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
        Definition(names: ["filename", "fn"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(atMost: 2)
            options.filename = try ContentDisposition.filename(option)
        }),
        Definition(names: ["return_attachment", "att"], apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.returnAttachment = try option.boolean(option[0] ?? "")
        }),
        // Accepted with what market-images always does (README, "Moving from imgproxy"): outputs are
        // turned upright by EXIF (`ar`), in sRGB with no profile (`scp`), 8 bits a channel (`ph`), from
        // the main image (`eth`), without any metadata, the copyright included (`kcr`).
        Definition(names: ["auto_rotate", "ar"], apply: { _, option, _, _ throws(ProcessingError) in try option.acceptedSwitch() }),
        Definition(names: ["strip_color_profile", "scp"], apply: { _, option, _, _ throws(ProcessingError) in try option.acceptedSwitch() }),
        Definition(names: ["preserve_hdr", "ph"], apply: { _, option, _, _ throws(ProcessingError) in try option.acceptedSwitch() }),
        Definition(names: ["enforce_thumbnail", "eth"], apply: { _, option, _, _ throws(ProcessingError) in try option.acceptedSwitch() }),
        Definition(names: ["keep_copyright", "kcr"], apply: { _, option, _, _ throws(ProcessingError) in try option.acceptedSwitch() }),
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

    /// Whether the segment names presets (`pr:…`, `preset:…`).
    static func isPreset(_ segment: String) -> Bool {
        definition(named: String(segment.prefix { $0 != ":" }))?.names.first == "preset"
    }

    /// One of imgproxy's security options: one value, in the limit's unit once parsed (megapixels are
    /// pixels here), in the canonical form under its short name when given.
    private static func securityLimit(_ names: [String], _ limit: WritableKeyPath<ProcessingOptions.RequestLimits, Int?> & Sendable,
                                      _ value: @escaping @Sendable (OptionArguments) throws(ProcessingError) -> Int) -> Definition {
        Definition(names: names, apply: { options, option, _, _ throws(ProcessingError) in
            try option.expect(exactly: 1)
            options.limits[keyPath: limit] = try value(option)
        }, canonical: { options, _, _ in options.limits[keyPath: limit].map { "\(names.last ?? ""):\($0)" } ?? "" }, isSecurityOption: true)
    }

    /// Refuses one of imgproxy's security options given in a URL.
    static func checkNotSecurityOption(_ segment: String) throws(ProcessingError) {
        let name = String(segment.prefix { $0 != ":" })
        if definition(named: name)?.isSecurityOption == true { throw .securityOptionNotAllowed(name) }
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
