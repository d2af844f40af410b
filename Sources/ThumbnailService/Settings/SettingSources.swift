import Foundation
import MarketUploader

/// Where a setting's text comes from, first found wins: its flag, then `MARKET_IMAGES_<FLAG>` in the
/// environment, then the same name in the `--config` file, then imgproxy's name for it (environment,
/// then file), then the default. Operators compare the service with imgproxy, which is configured
/// entirely by environment variables, and systemd units, containers and Kubernetes pass those most
/// easily; the file uses the same names, read by systemd's rules (`EnvironmentFile`), so one file
/// serves both. Every value is text parsed by its setting's own parser, so a setting means the same
/// wherever it comes from, and a bad one is named as the operator wrote it.
struct SettingSources {
    /// The flags given, by setting name: a value per use (a switch's is true or false).
    private let flags: [String: [String]]
    /// The environment, less empty variables: `MARKET_IMAGES_KEY=` cannot hide the file's key behind nothing.
    private let environment: [String: String]
    private var file: (path: String, contents: EnvironmentFile)?

    init(flags: [String: [String]], environment: [String: String]) throws(ServiceSettings.Invalid) {
        self.flags = flags
        self.environment = environment.filter { !$0.value.isEmpty }
        file = nil
        guard let config = self.text(of: ServiceSetting.named("config")!) else { return }
        let display = ServerText.printable(config.text)
        guard let text = try? String(contentsOfFile: config.text, encoding: .utf8) else {
            throw ServiceSettings.Invalid("cannot read \(config.origin) \(display): give a file of MARKET_IMAGES_NAME=value lines, as systemd's EnvironmentFile takes them")
        }
        file = (display, try EnvironmentFile(parsing: text, path: display))
    }

    /// The setting's text and how it was given (`--cache`, `$MARKET_IMAGES_CACHE`, or the file's
    /// line), or nil. Secrets come only from the environment or the file.
    func text(of setting: ServiceSetting) -> (text: String, origin: String)? {
        if setting.form != .secret, let values = flags[setting.name] {
            return (values.joined(separator: ","), "--" + setting.name)
        }
        if let own = lookUp(setting.variable) { return own }
        // imgproxy's names, in imgproxy's units (nil: our default); a list takes every one given, as
        // imgproxy reads `IMGPROXY_PRESETS` and `IMGPROXY_PRESETS_PATH` together.
        let given = setting.imgproxy.compactMap { name in lookUp(name.variable).map { (name.convert($0.text) { lookUp($0)?.text }, $0.origin) } }
        guard let first = given.first else { return nil }
        guard case .list = setting.form, given.count > 1 else { return first.0.map { ($0, first.1) } }
        let texts = given.compactMap(\.0)
        return texts.isEmpty ? nil : (texts.joined(separator: ","), given.map(\.1).joined(separator: " and "))
    }

    /// Lines of the `--config` file that set nothing, each with why: a warning at start.
    var ignoredLines: [String] { file?.contents.ignored ?? [] }

    /// Warnings at start for names given that nothing reads: a misspelt `MARKET_IMAGES_CAHCE`, and
    /// imgproxy's names `serve` has no equivalent for or cannot honour (`ImgproxyFixedSettings`).
    func unknownNameWarnings() -> [String] {
        let known = Set(ServiceSetting.all.map(\.variable)).union(Self.readElsewhere)
        let unknown = given(prefix: "MARKET_IMAGES_").subtracting(known).sorted().map {
            "\($0) is not a setting of serve\(NearestName.suggestion(for: $0, among: known)) and is ignored (see market-images serve --help)"
        }
        // Values are read only for the switches compared, never echoed otherwise.
        return unknown + given(prefix: "IMGPROXY_").sorted().compactMap { ImgproxyFixedSettings.warning($0, value: lookUp($0)?.text ?? "") }
    }

    /// imgproxy's security settings serve cannot honour, each named as given with what to do
    /// instead: refused at start, since ignoring one would serve what it forbids.
    func imgproxyRefusals() -> [String] {
        given(prefix: "IMGPROXY_").sorted().compactMap { name in
            lookUp(name).flatMap { given in
                ImgproxyFixedSettings.refusal(name, value: given.text, variable: { lookUp($0)?.text }).map { "\(given.origin) \($0)" }
            }
        }
    }

    /// Variables read elsewhere (by the image pipeline), which are not settings.
    private static let readElsewhere: Set<String> = ["MARKET_IMAGES_VIPS_WARNINGS", "MARKET_IMAGES_NO_AVX2"]

    private func given(prefix: String) -> Set<String> {
        Set(environment.keys).union(file?.contents.values.keys ?? [:].keys).filter { $0.hasPrefix(prefix) }
    }

    /// A variable that is no setting of the table (the AWS credentials, the AWS tools' own names),
    /// from the environment, else the file; with where it was read.
    func variable(_ name: String) -> (text: String, origin: String)? { lookUp(name) }

    /// The variable from the environment, else the file; with where it was read.
    private func lookUp(_ variable: String) -> (text: String, origin: String)? {
        if let text = environment[variable] { return (text, "$" + variable) }
        guard let file, let text = file.contents.values[variable], !text.isEmpty, let line = file.contents.line(of: variable) else { return nil }
        return (text, "\(variable) (\(file.path) line \(line))")
    }
}
