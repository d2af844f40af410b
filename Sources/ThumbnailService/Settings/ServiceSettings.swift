import Foundation
import ImagePipeline
import MarketUploader

/// The service's configuration from `serve`'s arguments, the environment and a `--config` file, by the
/// one table of settings (`ServiceSetting.all`): what `market-images serve` runs, and what tests and
/// other hosts resolve the same way.
public struct ServiceSettings: Sendable {
    /// A setting that cannot be used, in a sentence naming it as it was given (`--quality`,
    /// `$MARKET_IMAGES_QUALITY`, or the file's line): a usage error.
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public var configuration: ServiceConfiguration
    /// What to say at start: names nothing reads, lines of the file that set nothing.
    public var warnings: [String]

    /// Reads `arguments` (flags only: `--name VALUE`, `--name=VALUE`, `--switch`, `--no-switch`) over
    /// `environment` over the `--config` file, then checks the whole (`ServiceConfiguration.problems`).
    public init(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws(Invalid) {
        let sources = try SettingSources(flags: try Self.flags(arguments), environment: environment)
        let refusals = sources.imgproxyRefusals()
        guard refusals.isEmpty else { throw Invalid(refusals.joined(separator: "\n")) }
        var configuration = ServiceConfiguration()
        for setting in ServiceSetting.all { try Self.apply(setting, from: sources, to: &configuration) }
        configuration.keys = try Self.keys(from: sources)
        configuration.s3Credentials = try Self.awsCredentials(from: sources, environment: environment)
        guard !configuration.keys.isEmpty || configuration.allowUnsigned || configuration.onlyPresets else {
            throw Invalid("no key: set $MARKET_IMAGES_KEY and $MARKET_IMAGES_SALT (hex) or --key-file; "
                + "--only-presets serves unsigned preset URLs on any address, --insecure-unsigned any URL on loopback only")
        }
        let problems = configuration.problems
        guard problems.isEmpty else {
            throw Invalid(problems.map { problem in
                let origin = ServiceSetting.named(problem.setting).flatMap { sources.text(of: $0)?.origin } ?? "--" + problem.setting
                return "\(origin): \(problem.message)"
            }.joined(separator: "\n"))
        }
        self.configuration = configuration
        warnings = sources.unknownNameWarnings() + sources.ignoredLines + configuration.allowedSources.compactMap(ServiceSetting.partialPrefixWarning)
            + (configuration.useS3 && configuration.allowedSources.contains(ObjectKey.scheme) && configuration.s3AllowedBuckets.isEmpty
                ? ["--allow-source s3:// allows every bucket the store lets serve read (on AWS without credentials, every public bucket); "
                    + "list s3://BUCKET/ prefixes, or --s3-allowed-bucket (IMGPROXY_S3_ALLOWED_BUCKETS), to narrow it"] : [])
            + (configuration.keys.isEmpty && !configuration.onlyPresets ? ["no key: any signature is accepted (--insecure-unsigned); loopback only"] : [])
            // An s3:// cache without credentials is refused (`ServiceConfiguration.problems`); sources may be a public bucket's.
            + (configuration.useS3 && configuration.s3Credentials == nil
                ? ["s3:// sources are read unsigned, which only a public bucket allows (a private one refuses them: 502): "
                    + AWSCredentials.notFound(environment: environment)] : [])
    }

    /// What a command that builds URLs for the service needs (`url`): its presets, path prefix,
    /// signature size and keys, read from `arguments` (`--preset`, `--config`, `--key-file`, …), the
    /// environment and the file as `serve` reads them, each checked; nothing else is read or checked.
    public static func forURLs(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws(Invalid) -> ServiceConfiguration {
        let sources = try SettingSources(flags: try flags(arguments), environment: environment)
        var configuration = ServiceConfiguration()
        for name in ["preset", "path-prefix", "signature-size", "only-presets", "preset-dprs"] {
            let setting = ServiceSetting.named(name)!
            guard let origin = try apply(setting, from: sources, to: &configuration) else { continue }
            if let problem = setting.check(configuration) { throw Invalid("\(origin): \(problem)") }
        }
        configuration.keys = try keys(from: sources)
        return configuration
    }

    /// Applies `setting`'s text, if given, naming where it came from when it cannot be read; returns
    /// that origin.
    @discardableResult
    private static func apply(_ setting: ServiceSetting, from sources: SettingSources, to configuration: inout ServiceConfiguration) throws(Invalid) -> String? {
        guard let (text, origin) = sources.text(of: setting) else { return nil }
        do { try setting.apply(&configuration, text) } catch { throw Invalid("\(origin) is \(ServiceSetting.shown(text)), not \(error.expected)") }
        return origin
    }

    /// The key file's pairs if one is given, else the key and salt variables' (the resolver's own
    /// settings, which fill no field of their own).
    private static func keys(from sources: SettingSources) throws(Invalid) -> [SigningKey] {
        if let keyFile = sources.text(of: ServiceSetting.named("key-file")!) { return try keys(fromFile: keyFile.text, origin: keyFile.origin) }
        func secret(_ name: String) -> [String] { ServiceSetting.commaSeparated(sources.text(of: ServiceSetting.named(name)!)?.text ?? "") }
        return try keys(secret("key"), salts: secret("salt"))
    }

    /// The AWS tools' own variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`)
    /// from the environment or the `--config` file, else the shared credentials file; nil when
    /// neither has a key. A key without its secret, or the reverse, is a mistake named at start.
    private static func awsCredentials(from sources: SettingSources, environment: [String: String]) throws(Invalid) -> AWSCredentials? {
        let id = sources.variable("AWS_ACCESS_KEY_ID"), secret = sources.variable("AWS_SECRET_ACCESS_KEY")
        guard let id, let secret else {
            if let given = id ?? secret {
                throw Invalid("\(given.origin) is set without \(id == nil ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY"): give both, or neither to use the shared credentials file")
            }
            return AWSCredentials.fromSharedFile(environment: environment)
        }
        guard id.text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw Invalid("\(id.origin) is not an access key ID (letters and digits only)")
        }
        return AWSCredentials(accessKeyID: id.text, secretAccessKey: secret.text, sessionToken: sources.variable("AWS_SESSION_TOKEN")?.text)
    }

    /// `serve`'s flags by setting name. Anything else is a usage error: a flag no setting has, a
    /// value missing, a value where a switch takes none, an argument that is not a flag.
    static func flags(_ arguments: [String]) throws(Invalid) -> [String: [String]] {
        var flags: [String: [String]] = [:]
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else { throw Invalid("serve takes no arguments but flags; got \(ServiceSetting.shown(argument))") }
            let parts = argument.dropFirst(2).split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts.first ?? ""
            if let setting = ServiceSetting.named(name), setting.form != .secret {
                if setting.form == .toggle {
                    guard parts.count == 1 else { throw Invalid("--\(name) is a switch and takes no value (--no-\(name) turns it off)") }
                    flags[name] = ["true"]
                } else if parts.count == 2 {
                    flags[name, default: []].append(parts[1])
                } else if let value = rest.popFirst() {
                    flags[name, default: []].append(value)
                } else {
                    throw Invalid("--\(name) needs a value")
                }
            } else if name.hasPrefix("no-"), parts.count == 1, ServiceSetting.named(String(name.dropFirst(3)))?.form == .toggle {
                flags[String(name.dropFirst(3))] = ["false"]
            } else {
                let flags = ServiceSetting.all.filter { $0.form != .secret }.map { "--" + $0.name }
                throw Invalid("unknown option \(ServiceSetting.shown("--" + name))\(NearestName.suggestion(for: "--" + name, among: flags)); see market-images serve --help")
            }
        }
        // A list may be given several times; anything else once, the last use winning as flags do.
        return flags.reduce(into: [:]) { table, entry in
            if case .list = ServiceSetting.named(entry.key)?.form { table[entry.key] = entry.value } else { table[entry.key] = Array(entry.value.suffix(1)) }
        }
    }

    /// Every setting for `serve --help`: its flag and value, what it does, its default and its
    /// variables, wrapped short of 80 columns (the help's own wrapping would break its indent).
    public static var help: String {
        ServiceSetting.all.map { setting in
            let flag: String
            switch setting.form {
            case .value(let value), .list(let value): flag = "--\(setting.name) <\(value)>"
            case .toggle: flag = "--[no-]\(setting.name)"
            case .secret: flag = "(no flag)"
            }
            var text = setting.help
            let standard = setting.form == .toggle ? (setting.defaultText == "true" ? "on" : "off") : setting.defaultText
            if let shown = setting.shownDefault ?? standard { text += " Default: \(shown)." }
            text += " Also " + ([setting.variable] + setting.imgproxy.map(\.variable)).joined(separator: ", ") + "."
            return "  \(flag)\n" + wrapped(text, indent: 8, width: 76)
        }.joined(separator: "\n")
    }

    private static func wrapped(_ text: String, indent: Int, width: Int) -> String {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, indent + line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).map { String(repeating: " ", count: indent) + $0 }.joined(separator: "\n")
    }

    /// A key file: a hex key line and a hex salt line per key.
    private static func keys(fromFile path: String, origin: String) throws(Invalid) -> [SigningKey] {
        let text: String
        do { text = try SecretFile.read(path, option: origin, display: { ServerText.printable($0) }) } catch { throw Invalid(error.description) }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard lines.count >= 2, lines.count % 2 == 0 else { throw Invalid("\(origin) needs a hex key line and a hex salt line for each key") }
        return try keys(stride(from: 0, to: lines.count, by: 2).map { lines[$0] }, salts: stride(from: 1, to: lines.count, by: 2).map { lines[$0] })
    }

    /// Pairs of hex keys and salts (one key may come without a salt); empty when there is no key.
    private static func keys(_ keys: [String], salts: [String]) throws(Invalid) -> [SigningKey] {
        guard !keys.isEmpty else {
            guard salts.isEmpty else { throw Invalid("MARKET_IMAGES_SALT is set but no key: give the hex key in MARKET_IMAGES_KEY, or leave the salt out") }
            return []
        }
        guard keys.count == salts.count || (keys.count == 1 && salts.isEmpty) else {
            throw Invalid("\(keys.count) keys but \(salts.count) salts: give one salt per key (MARKET_IMAGES_SALT, comma-separated)")
        }
        return try zip(keys, salts.isEmpty ? [""] : salts).map { key, salt throws(Invalid) in
            guard let keyBytes = ThumbnailURLSigner.decodeHex(key), let saltBytes = ThumbnailURLSigner.decodeHex(salt) else {
                throw Invalid("the keys and the salts must be hex digits, an even number of them (MARKET_IMAGES_KEY, MARKET_IMAGES_SALT or --key-file)")
            }
            return SigningKey(key: Data(keyBytes), salt: Data(saltBytes))
        }
    }
}
