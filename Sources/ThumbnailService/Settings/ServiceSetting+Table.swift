import Foundation
import ImagePipeline
import MarketUploader

extension ServiceSetting {
    /// Every setting of the service, in the order `serve --help` lists them. imgproxy's names are
    /// read as synonyms in imgproxy's units; a `MARKET_IMAGES_*` name or the flag wins when both are given.
    public static let all: [ServiceSetting] = [
        resolverOnly("config", form: .value("file"),
                     help: "A file of MARKET_IMAGES_NAME=value lines (systemd's EnvironmentFile format), below flags and the environment."),
        text("root", \.root, valueName: "folder", imgproxy: imgproxy("IMGPROXY_LOCAL_FILESYSTEM_ROOT"),
             check: { FileManager.default.isDirectory($0) ? nil : "\($0) is not a folder" },
             help: "The folder local:/// sources are served from (optional with --allow-source)."),
        parsed("allow-source", \.allowedSources, form: .list("prefix"), expected: "URL prefixes", imgproxy: imgproxy("IMGPROXY_ALLOWED_SOURCES"),
               parse: commaSeparated, write: { $0.isEmpty ? nil : $0.joined(separator: ",") }, check: allowedSourceProblem,
               help: "A URL prefix sources may come from, e.g. https://images.example.com/ (a * matches within one host label or path segment), or local:// ones narrowing --root; repeatable."),
        toggle("allow-private-sources", \.allowPrivateSources, imgproxy: imgproxy("IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES"),
               help: "Allow sources on loopback, private and link-local addresses (refused by default)."),
        number("max-source-bytes", \.maxSourceBytes, 1...Int.max, "must be positive", valueName: "bytes",
               imgproxy: imgproxy("IMGPROXY_MAX_SRC_FILE_SIZE", convert: zeroIsDefault),
               help: "Largest source download in bytes; the download stops as soon as it is exceeded."),
        seconds("download-timeout", \.downloadTimeout, 0.1...600, "takes 0.1 to 600 seconds", imgproxy: imgproxy("IMGPROXY_DOWNLOAD_TIMEOUT"),
                help: "Seconds a source download may take."),
        number("max-downloads", \.maxDownloads, 1...1024, "takes 1 to 1024",
               help: "Remote sources (http(s) and s3://) held at once, downloading or waiting for a worker (one per source however many sizes are asked); more are answered 503."),
        optionalNumber("max-downloads-per-origin", \.maxDownloadsPerOrigin, { 1...max(1, $0.maxDownloads) }, { "takes 1 to --max-downloads (\($0.maxDownloads))" },
                       help: "Downloads from one origin at once, so a slow origin cannot take every slot; more are answered 503.")
            .defaulting(to: "half of --max-downloads"),
        number("source-ttl", \.sourceTTL, 0...Int.max, "must be 0 or more (0 revalidates every request)", valueName: "seconds",
               help: "With --cache, seconds a downloaded source is used without asking its origin (0: revalidate on every request)."),
        number("source-stale-if-error", \.sourceStaleIfError, 0...Int.max, "must be 0 or more", valueName: "seconds",
               help: "Seconds past --source-ttl a source's copy is still served while its origin fails."),
        number("source-cache-size", \.sourceCacheSize, 1...Int.max, "must be positive", valueName: "bytes",
               help: "Largest size of the source cache (CACHE/sources) in bytes."),
        toggle("use-s3", \.useS3, imgproxy: imgproxy("IMGPROXY_USE_S3"),
               help: "Serve s3://BUCKET/KEY sources from the buckets --allow-source names (s3://BUCKET/, or s3:// for every bucket the store holds), signed with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the shared credentials file); without either, unsigned, as a warning at start says."),
        parsed("s3-allowed-bucket", \.s3AllowedBuckets, form: .list("bucket"), expected: "bucket names", imgproxy: imgproxy("IMGPROXY_S3_ALLOWED_BUCKETS"),
               parse: commaSeparated, write: { $0.isEmpty ? nil : $0.joined(separator: ",") }, check: { bucketListProblem($0, \.s3AllowedBuckets) },
               help: "With --use-s3, one of the only buckets s3:// sources may come from, within --allow-source's s3:// prefixes; repeatable."),
        parsed("s3-denied-bucket", \.s3DeniedBuckets, form: .list("bucket"), expected: "bucket names", imgproxy: imgproxy("IMGPROXY_S3_DENIED_BUCKETS"),
               parse: commaSeparated, write: { $0.isEmpty ? nil : $0.joined(separator: ",") }, check: { bucketListProblem($0, \.s3DeniedBuckets) },
               help: "With --use-s3, a bucket no s3:// source comes from, whatever --allow-source allows; repeatable."),
        text("s3-endpoint", \.s3Endpoint, valueName: "url", imgproxy: imgproxy("IMGPROXY_S3_ENDPOINT", "IMGPROXY_CACHE_S3_ENDPOINT"), check: ObjectStore.endpointProblem,
             help: "The S3 API of s3:// sources and an s3:// --cache, e.g. http://127.0.0.1:9000 (MinIO): the operator's own, so it may be on a private address.")
            .defaulting(to: "AWS's, https://s3.REGION.amazonaws.com"),
        // imgproxy's AWS SDK reads AWS_REGION, then AWS_DEFAULT_REGION, when IMGPROXY_S3_REGION is unset.
        parsed("s3-region", \.s3Region, form: .value("region"), expected: "an AWS region name, e.g. eu-central-1",
               imgproxy: imgproxy("IMGPROXY_S3_REGION", "IMGPROXY_CACHE_S3_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"),
               parse: { $0.wholeMatch(of: /[a-z0-9-]{1,64}/) == nil ? nil : $0 }, write: { $0 },
               help: "The region requests to the S3 API are signed for (and AWS's endpoint is in); unset, AWS_REGION, then AWS_DEFAULT_REGION, as imgproxy's AWS SDK reads them."),
        toggle("s3-path-style", \.s3PathStyle, imgproxy: imgproxy("IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE"),
               help: "With --s3-endpoint, ask for ENDPOINT/BUCKET/KEY rather than BUCKET.ENDPOINT/KEY (AWS's own endpoint always takes the latter)."),
        text("fallback-image", \.fallbackImage, valueName: "file", imgproxy: imgproxy("IMGPROXY_FALLBACK_IMAGE_PATH"), check: unreadableFile,
             help: "An image served, at the size asked, when a source is missing or fails."),
        optionalNumber("fallback-status", \.fallbackStatus, { _ in 200...599 }, { _ in "takes an HTTP status, 200 to 599" }, valueName: "status",
                       imgproxy: imgproxy("IMGPROXY_FALLBACK_IMAGE_HTTP_CODE", convert: zeroIsDefault),
                       help: "The status sent with the fallback image.")
            .defaulting(to: "the failure's own, e.g. 404"),
        number("fallback-max-age", \.fallbackMaxAge, 0...Int.max, "must be 0 or more", valueName: "seconds", imgproxy: imgproxy("IMGPROXY_FALLBACK_IMAGE_TTL"),
               help: "max-age of a fallback answer, in seconds."),
        text("watermark", \.watermark, valueName: "image", imgproxy: imgproxy("IMGPROXY_WATERMARK_PATH", "IMGPROXY_WATERMARK_URL"),
             check: { $0.contains("://") ? nil : unreadableFile($0) },
             help: "The watermark a URL's wm draws when it names none (wmu): a file, or a local:/// or allowed http(s) source."),
        parsed("watermark-opacity", \.watermarkOpacity, form: .value("0-1"), expected: "a number", imgproxy: imgproxy("IMGPROXY_WATERMARK_OPACITY"),
               output: .inETag, parse: { Double($0) }, write: { String(format: "%g", $0) },
               check: { (0...1).contains($0.watermarkOpacity) ? nil : "takes 0 to 1" },
               help: "Every watermark's opacity is multiplied by this, 0 to 1."),
        parsed("bind", \.bind, form: .value("host:port"), expected: "HOST:PORT, e.g. 127.0.0.1:8080", imgproxy: imgproxy("IMGPROXY_BIND"),
               parse: ServiceAddress.init, write: \.description,
               help: "Address and port to listen on; port 0: any free port, printed at start."),
        resolverOnly("key", form: .secret, imgproxy: imgproxy("IMGPROXY_KEY"),
                     help: "Hex keys of signed URLs, comma-separated while rotating (the first signs; serve accepts any)."),
        resolverOnly("salt", form: .secret, imgproxy: imgproxy("IMGPROXY_SALT"), help: "Hex salts, one per key."),
        resolverOnly("key-file", form: .value("file"),
                     help: "A file with a hex key line and a hex salt line per key (the first signs; serve accepts any); mode 600."),
        toggle("insecure-unsigned", \.allowUnsigned, help: "Accept any signature (no key). Loopback addresses only."),
        toggle("only-presets", \.onlyPresets, imgproxy: imgproxy("IMGPROXY_ONLY_PRESETS"),
               help: "URLs may name only presets, a dpr of --preset-dprs and a format; then no key is needed on any address (apps need not hold one)."),
        parsed("preset-dprs", \.presetDPRs, form: .value("list"), expected: "numbers separated by commas, e.g. 1,2,3",
               parse: { text in
                   let values = commaSeparated(text).map(Double.init)
                   return values.isEmpty || values.contains(nil) ? nil : values.compactMap { $0 }
               },
               write: { $0.map { String(format: "%g", $0) }.joined(separator: ",") },
               check: { !$0.presetDPRs.isEmpty && $0.presetDPRs.allSatisfy(ProcessingOptions.dprRange.contains) ? nil : "takes one or more of 0.01 to 8, comma-separated" },
               help: "With --only-presets, the dpr values a URL may give, comma-separated; any other is 400."),
        text("path-prefix", \.pathPrefix, valueName: "path", imgproxy: imgproxy("IMGPROXY_PATH_PREFIX"), check: pathPrefixProblem,
             help: "URLs lie under this path, e.g. /img: /img/SIGNATURE/OPTIONS/SOURCE, signed without it; /img/health answers too."),
        number("signature-size", \.signatureSize, 1...32, "takes 1 to 32 (bytes of the HMAC)", imgproxy: imgproxy("IMGPROXY_SIGNATURE_SIZE"),
               help: "Bytes of the HMAC a signature carries, 1–32."),
        // imgproxy Pro's result cache: IMGPROXY_CACHE_USE=s3 with its bucket, or fs with its folder, under a path prefix.
        text("cache", \.cacheFolder, valueName: "folder",
             imgproxy: imgproxy("IMGPROXY_CACHE_USE", reading: ImgproxyFixedSettings.cacheKinds.values.map(\.variable).sorted() + ["IMGPROXY_CACHE_PATH_PREFIX"]) { use, variable in
                 let kind = use.lowercased()
                 guard let place = ImgproxyFixedSettings.cacheKinds[kind].flatMap({ variable($0.variable) }) else { return nil }
                 let prefix = (variable("IMGPROXY_CACHE_PATH_PREFIX") ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                 if kind == "s3" { return "s3://\(place)/" + prefix }
                 return prefix.isEmpty ? place : (place as NSString).appendingPathComponent(prefix)
             },
             check: cacheProblem,
             help: "A folder for finished outputs, or s3://BUCKET/PREFIX: a bucket every instance shares (through --s3-endpoint, with the AWS credentials).")
            .defaulting(to: "no disk cache"),
        seconds("cache-timeout", \.cacheTimeout, 0.01...60, "takes 0.01 to 60 seconds",
                help: "With an s3:// --cache, seconds a read or a write of the bucket may take; past it the request is answered without the cache."),
        number("cache-size", \.cacheSize, 1...Int.max, "must be positive", valueName: "bytes", help: "Largest size of the disk cache in bytes."),
        number("memory-cache", \.memoryCache, 0...Int.max, "must be 0 or more", valueName: "bytes",
               help: "With --cache, bytes of the most recent outputs also kept in memory (0: none)."),
        number("workers", \.workers, 1...256, "takes 1 to 256", imgproxy: imgproxy("IMGPROXY_WORKERS"), help: "Images processed at once.")
            .defaulting(to: "the number of cores"),
        // imgproxy's 0 is no limit; here 0 is no waiting (a free worker still takes a request).
        number("queue", \.queue, 0...100_000, "takes 0 to 100000", imgproxy: imgproxy("IMGPROXY_REQUESTS_QUEUE_SIZE", convert: { $0 == "0" ? "100000" : $0 }),
               help: "Requests that may wait for a worker; more are answered 503 with Retry-After."),
        number("max-output-edge", \.limits.maxOutputEdge, 16...16_384, "takes 16 to 16384", valueName: "pixels",
               imgproxy: imgproxy("IMGPROXY_MAX_RESULT_DIMENSION", convert: zeroIsDefault), output: .inETag,
               help: "No output side is larger than this, whatever the URL asks."),
        number("max-pixels", \.limits.maxPixels, 1...Int.max, "must be positive", valueName: "pixels",
               imgproxy: imgproxy("IMGPROXY_MAX_SRC_RESOLUTION", convert: megapixels),
               help: "Refuse sources with more pixels than this, read from the header before decoding."),
        number("max-animation-frames", \.limits.maxAnimationFrames, 1...10_000, "takes 1 (stills only) to 10000",
               imgproxy: imgproxy("IMGPROXY_MAX_ANIMATION_FRAMES"), output: .inETag,
               help: "Frames of an animated GIF or WebP kept in a WebP or GIF output; 1 makes every output a still."),
        optionalNumber("max-animation-frame-resolution", \.limits.maxAnimationFramePixels, { _ in 1...Int.max }, { _ in "must be positive" }, valueName: "pixels",
                       imgproxy: imgproxy("IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION", convert: { $0 == "0" ? nil : megapixels($0) }),
                       help: "Refuse animated sources whose frames have more pixels than this.")
            .defaulting(to: "only --max-pixels, all frames kept counted"),
        number("max-render-memory", \.limits.maxRenderMemory, 16 << 20...Int.max, "takes at least 16777216 (16 MB)", valueName: "bytes",
               help: "A render whose memory, estimated from the source's header before decoding, would be larger is refused 413."),
        number("render-memory", \.renderMemory, 1...Int.max, "must be positive", valueName: "bytes",
               help: "Bytes all renders at once may hold, by their estimates; more wait."),
        parsed("render-timeout", \.limits.renderTimeout, form: .value("seconds"), expected: "a number of seconds", imgproxy: imgproxy("IMGPROXY_TIMEOUT"),
               parse: { try? duration($0) }, write: { $0.map(secondsText) },
               check: { $0.limits.renderTimeout.map { (0.1...600).contains(seconds($0)) } ?? true ? nil : "takes 0.1 to 600 seconds" },
               help: "Seconds a render may run once a worker takes it up; then it is stopped and answered 503."),
        number("quality", \.limits.defaultQuality, 1...100, "takes 1 to 100", valueName: "q", imgproxy: imgproxy("IMGPROXY_QUALITY"), output: .viaOptions,
               help: "Quality when the URL gives none."),
        parsed("format-quality", \.limits.formatQuality, form: .value("list"), expected: "FORMAT=QUALITY pairs (jpeg, png, webp, avif, jxl), e.g. webp=79,avif=63",
               imgproxy: imgproxy("IMGPROXY_FORMAT_QUALITY"), output: .viaOptions, parse: formatQualities,
               write: { $0.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: ",") },
               check: { $0.limits.formatQuality.values.allSatisfy((1...100).contains) ? nil : "takes FORMAT=QUALITY pairs, each quality 1 to 100" },
               help: "A format's quality when the URL gives none, FORMAT=QUALITY comma-separated, e.g. webp=79,avif=63."),
        parsed("auto-quality", \.limits.autoQuality, form: .value("method"), expected: "ssimulacra2:SCORE[:MIN:MAX] or size:BYTES[:MIN:MAX]",
               output: .viaOptions, parse: { text in (try? ProcessingOptions.autoquality(parsing: text)).map { .some($0) } },
               write: { $0.map(autoqualityText) },
               help: "The quality choice of URLs that make none (no aq, q or fq): ssimulacra2:SCORE[:MIN:MAX], the smallest quality that looks that good, or size:BYTES[:MIN:MAX].")
            .defaulting(to: "off"),
        parsed("auto-quality-max-resolution", \.limits.autoQualityMaxPixels, form: .value("pixels"), expected: "a whole number",
               imgproxy: imgproxy("IMGPROXY_AUTOQUALITY_MAX_RESOLUTION", convert: megapixels), output: .inETag,
               parse: { Int($0).map { $0 == 0 ? nil : $0 } }, write: { String($0 ?? 0) },
               check: { $0.limits.autoQualityMaxPixels.map { $0 > 0 } ?? true ? nil : "takes 0 (no limit) or more pixels" },
               help: "Outputs with more pixels than this are not scored for aq:ssimulacra2 but encoded at the quality they would have without it; 0: no limit."),
        toggle("allow-security-options", \.allowSecurityOptions, imgproxy: imgproxy("IMGPROXY_ALLOW_SECURITY_OPTIONS"),
               help: "URLs may give imgproxy's security options (msr, msfs, mrd, maf, mafr), which only ever lower this service's limits."),
        toggle("fast-decode", \.limits.draftDecode, output: .inETag,
               help: "Decode JPEGs straight to the output's scale, as thumbor does: faster (BENCHMARKS.md, stages section), softer and blockier."),
        toggle("baseline-jpeg", \.limits.encoder.progressive, inverted: true, imgproxy: imgproxy("IMGPROXY_JPEG_PROGRESSIVE", convert: inverted),
               output: .inETag, help: "Baseline JPEGs instead of progressive (progressive is a few percent smaller and shows while it loads)."),
        number("avif-effort", \.limits.encoder.avifEffort, EncoderSettings.avifEffortRange, "takes 0 (fastest) to 9",
               imgproxy: imgproxy("IMGPROXY_AVIF_SPEED", convert: { Int($0).map { String(9 - $0) } ?? $0 }), output: .inETag,
               help: "AV1 effort for AVIF, 0 (fastest) to 9: higher is smaller and far slower, BENCHMARKS.md."),
        toggle("auto-avif", \.limits.autoAVIF, imgproxy: imgproxy("IMGPROXY_AUTO_AVIF", "IMGPROXY_ENABLE_AVIF_DETECTION"),
               help: "Answer AVIF to clients whose Accept lists image/avif (before WebP) when the URL names no format; smaller, slower to encode."),
        // libvips 8.14 takes 3 to 9; imgproxy's 1 and 2 are the fastest there is here.
        number("jxl-effort", \.limits.encoder.jxlEffort, EncoderSettings.jxlEffortRange, "takes 3 (fastest) to 9",
               imgproxy: imgproxy("IMGPROXY_JXL_EFFORT", convert: { Int($0).map { String(max($0, 3)) } ?? $0 }), output: .inETag,
               help: "libjxl's effort for JPEG XL, 3 (fastest) to 9."),
        toggle("auto-jxl", \.limits.autoJXL, imgproxy: imgproxy("IMGPROXY_AUTO_JXL"),
               help: "Answer JPEG XL to clients whose Accept lists image/jxl (Safari 17, iOS 17), before AVIF and WebP, when the URL names no format."),
        parsed("preferred-formats", \.limits.preferredFormats, form: .value("list"), expected: "formats written here, comma-separated (\(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))), e.g. jpeg,png,gif",
               imgproxy: imgproxy("IMGPROXY_PREFERRED_FORMATS"), output: .inETag,
               parse: { text in
                   let formats = commaSeparated(text).map(OutputFormat.init(name:))
                   return formats.isEmpty || formats.contains(nil) ? nil : formats.compactMap { $0 }
               },
               write: { $0.map(\.rawValue).joined(separator: ",") },
               help: "Formats of outputs neither the URL nor Accept chose, in order: the source's own if listed, else the first that keeps its transparency and animation."),
        parsed("preset", \.presets, form: .list("name=options"), expected: "NAME=OPTIONS",
               imgproxy: imgproxy("IMGPROXY_PRESETS") + imgproxy("IMGPROXY_PRESETS_PATH", convert: presetsFile),
               parse: presetTable, write: { $0.isEmpty ? nil : $0.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",") }, check: presetProblem,
               help: "A preset NAME=OPTIONS, e.g. card=rs:fill:300:200/g:sm; repeatable."),
        number("max-age", \.maxAge, 0...Int.max, "must be 0 or more", valueName: "seconds", imgproxy: imgproxy("IMGPROXY_TTL"),
               help: "Cache-Control max-age of images, in seconds."),
        seconds("grace", \.grace, 0...1e9, "must be 0 or more", imgproxy: imgproxy("IMGPROXY_GRACEFUL_STOP_TIMEOUT"),
                help: "Seconds that requests in flight get to finish after SIGTERM."),
        seconds("idle-timeout", \.idleTimeout, 0.1...3600, "takes 0.1 to 3600 seconds", imgproxy: imgproxy("IMGPROXY_KEEP_ALIVE_TIMEOUT"),
                help: "Seconds a connection may go without a complete request (idle, or sending one slowly) before it is closed."),
        optionalNumber("max-connections", \.maxConnections, { _ in 1...max(1, ServiceConfiguration.openFileLimit - 64) }, { _ in
                           let files = ServiceConfiguration.openFileLimit
                           return "must be 1 to \(max(1, files - 64)) (the open-file limit, ulimit -n, is \(files), and requests need descriptors of their own); "
                               + "raise the limit (LimitNOFILE= in a systemd unit) or lower --max-connections"
                       }, imgproxy: imgproxy("IMGPROXY_MAX_CLIENTS", convert: zeroIsDefault),
                       help: "Connections held open at most; at the cap, the one idle longest is closed for a new one.")
            .defaulting(to: "4096, or half the open-file limit if lower"),
        parsed("metrics-bind", \.metricsBind, form: .value("host:port"), expected: "HOST:PORT, e.g. 127.0.0.1:9464, or off",
               imgproxy: imgproxy("IMGPROXY_PROMETHEUS_BIND"),
               parse: { $0 == "off" ? .some(nil) : ServiceAddress($0).map { .some($0) } }, write: { $0?.description ?? "off" },
               help: "Address and port of GET /metrics (Prometheus), apart from the public port; off for none."),
        text("metrics-namespace", \.metricsNamespace, valueName: "prefix", imgproxy: imgproxy("IMGPROXY_PROMETHEUS_NAMESPACE"),
             check: { $0.wholeMatch(of: /[A-Za-z_][A-Za-z0-9_]*/) == nil || $0 == "market_images" ? "takes letters, digits and _, not market_images (the service's own names)" : nil },
             help: "The prefix of the metrics under imgproxy's names, e.g. imgproxy: imgproxy_requests_total (the service's own are market_images_*).")
            .defaulting(to: "none"),
    ]

    /// The setting named `name` (a flag's name without dashes).
    public static func named(_ name: String) -> ServiceSetting? { all.first { $0.name == name } }

    /// The settings that change output bytes by themselves, for the ETag: each one not at its
    /// default, so tags made before a setting existed hold.
    static func outputIdentity(of configuration: ServiceConfiguration) -> [String] {
        all.filter { $0.output == .inETag }.compactMap { setting in
            let text = setting.text(configuration)
            return text == setting.defaultText ? nil : "\(setting.name)=\(text ?? "")"
        }
    }

    /// Shown as the default in help instead of the default configuration's value.
    func defaulting(to text: String) -> ServiceSetting {
        var setting = self
        setting.shownDefault = text
        return setting
    }
}

// Parsers and imgproxy conversions the table uses.
extension ServiceSetting {
    /// imgproxy's 0 for "no limit" or "the failure's own": our default.
    static func zeroIsDefault(_ text: String) -> String? { text == "0" ? nil : text }

    /// Megapixels, as imgproxy counts a source's resolution, → pixels.
    static func megapixels(_ text: String) -> String? {
        Double(text).map { String(Int(($0 * 1_000_000).rounded())) } ?? text
    }

    static func inverted(_ text: String) -> String? { switchValue(text).map { String(!$0) } ?? text }

    static func unreadableFile(_ path: String) -> String? {
        FileManager.default.isReadableFile(atPath: path) ? nil : "\(path) cannot be read"
    }

    /// `jpeg=70,avif=40`, imgproxy's `IMGPROXY_FORMAT_QUALITY`.
    static func formatQualities(_ text: String) -> [OutputFormat: Int]? {
        var table: [OutputFormat: Int] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let quality = Int(parts[1]), let format = OutputFormat(name: parts[0]) else { return nil }
            table[format] = quality
        }
        return table
    }

    /// `card=rs:fill:300:200,tile=…`: each NAME=OPTIONS.
    static func presetTable(_ text: String) -> [String: String]? {
        var table: [String: String] = [:]
        for item in commaSeparated(text) {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { return nil }
            table[parts[0]] = parts[1]
        }
        return table
    }

    /// imgproxy's presets file (`IMGPROXY_PRESETS_PATH`): a preset a line, `#` comments; a file that
    /// cannot be read stays its path, which no preset table parses, so it is named.
    static func presetsFile(_ path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return path }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }.joined(separator: ",")
    }

    static func autoqualityText(_ value: ProcessingOptions.Autoquality) -> String {
        let range = "\(value.qualities.lowerBound):\(value.qualities.upperBound)"
        switch value.method {
        case .size(let bytes): return "size:\(bytes):\(range)"
        case .ssimulacra2(let score): return "ssimulacra2:\(String(format: "%g", score)):\(range):\(String(format: "%g", value.allowedError))"
        }
    }

    /// Each preset's options must parse as a URL's would.
    static func presetProblem(_ configuration: ServiceConfiguration) -> String? {
        for (name, options) in configuration.presets.sorted(by: { $0.key < $1.key }) {
            do { _ = try ImageRequestPath.parse("/" + options + "/plain/local:///x.jpg", presets: configuration.presetTable, allowSecurityOptions: true) } catch {
                return "\(name): \(error)"
            }
        }
        return nil
    }

    /// A folder, or `s3://BUCKET/PREFIX` (whose credentials `ServiceConfiguration.problems` checks).
    static func cacheProblem(_ cache: String) -> String? {
        guard cache.contains("://"), BucketCache.location(cache) == nil else { return nil }
        return "takes a folder or s3://BUCKET/PREFIX (a bucket name of a-z, 0-9, . and -; a prefix without . or .. segments); got \(cache)"
    }

    /// `/img`, `/a/b`: segments of characters that need no escaping in a URL's path.
    static func pathPrefixProblem(_ path: String) -> String? {
        path.wholeMatch(of: /(\/[A-Za-z0-9._~-]+)+/) == nil || path.split(separator: "/").contains { $0 == "." || $0 == ".." }
            ? "takes a path like /img: segments of letters, digits and . _ ~ -, no / at the end" : nil
    }

    /// Each of a bucket list's names must be a bucket's (compared exactly, as imgproxy does), and the
    /// list needs s3:// sources on.
    static func bucketListProblem(_ configuration: ServiceConfiguration, _ list: KeyPath<ServiceConfiguration, [String]>) -> String? {
        let names = configuration[keyPath: list]
        if let bad = names.first(where: { !ObjectKey.isBucketName($0) }) {
            return "takes bucket names of a-z, 0-9, . and - (3 to 63 characters); got \(shown(bad))"
        }
        return names.isEmpty || configuration.useS3 ? nil : "needs s3:// sources on (--use-s3, IMGPROXY_USE_S3=true)"
    }

    /// The warning for a prefix that ends inside a name (`local:///sku`): it allows every name that
    /// begins so (`local:///sku-private/…`), as imgproxy's prefixes do, which is rarely what was meant.
    static func partialPrefixWarning(_ prefix: String) -> String? {
        guard !prefix.hasSuffix("/"), !prefix.hasSuffix("?"), prefix != LocalSourceRoot.scheme else { return nil }
        return "--allow-source \(ServerText.printable(prefix)) allows every name that begins so (\(ServerText.printable(prefix))-private/…, too); "
            + "end it with / to allow only that folder"
    }

    /// Each prefix must be an http(s) URL prefix, or `local://` one with a root to serve, and not on a
    /// private address unless allowed: refused at start rather than on every request, where each
    /// would be "not under an allowed prefix".
    static func allowedSourceProblem(_ configuration: ServiceConfiguration) -> String? {
        let problems = configuration.allowedSources.compactMap { text -> String? in
            if text.hasPrefix(LocalSourceRoot.scheme) {
                guard LocalSourceRoot.relativePath(text + (text.hasSuffix("/") ? "x" : "")) != nil || text == LocalSourceRoot.scheme else {
                    return "takes local:// or a local:/// path prefix such as local:///catalog/ (no . or .. segments); got \(text)"
                }
                return configuration.root == nil ? "\(text) needs a folder to serve it from (--root, IMGPROXY_LOCAL_FILESYSTEM_ROOT)" : nil
            }
            if text.hasPrefix(ObjectKey.scheme) {
                guard text == ObjectKey.scheme || SourceURL(s3Prefix: text) != nil else {
                    return "takes s3:// (every bucket), s3://BUCKET/ or s3://BUCKET/FOLDER/: a bucket name of a-z, 0-9, . and - (a * in it matches within one .-separated part, "
                        + "s3://photos-*/), then the beginning of keys as written (no *, ? or #, no . or .. segments); got \(text)"
                }
                return configuration.useS3 ? nil : "\(text) needs s3:// sources on (--use-s3, IMGPROXY_USE_S3=true)"
            }
            guard let prefix = SourceURL(prefix: text) else {
                return "takes an http(s) URL prefix ending its host with /, e.g. https://images.example.com/ (* matches within a host's label or a path's segment), "
                    + "s3://BUCKET/ with --use-s3, or local://; got \(text)"
            }
            guard !configuration.allowPrivateSources, !prefix.host.contains("*"),
                  let address = SourceAddress.resolve(prefix.host)?.first(where: { !SourceAddress.isGlobal($0) }) else { return nil }
            return "\(text) is on a private address (\(address)); add --allow-private-sources to fetch from it"
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}
