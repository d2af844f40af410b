import ArgumentParser
import Configuration
import Foundation

/// Where a setting comes from, first found wins: its flag, then `MARKET_IMAGES_<FLAG>` in the environment,
/// then the same name in the `--config` file, then the default. Operators compare the service with imgproxy,
/// which is configured entirely by environment variables, and systemd units, containers and Kubernetes
/// pass those most easily; the file uses the same names, read by systemd's rules (`EnvironmentFile`),
/// so one file serves both. Every value is read as the flag's text and parsed by the flag's own parser, so a
/// setting means the same wherever it comes from, and a bad one is named as the operator wrote it.
final class SettingSources {
    private let reader: ConfigReader
    private let file: (path: String, contents: EnvironmentFile)?
    /// The variables given in the environment (an empty one counts as unset).
    private let environmentNames: Set<String>
    /// How each setting read so far was given: `--flag` or the variable, for naming it in errors.
    private var origins: [String: String] = [:]
    /// Every variable asked for, given or not, so that a misspelt one can be named.
    private var asked: Set<String> = []
    /// Variables read elsewhere (by the image pipeline), which are not settings.
    private static let readElsewhere: Set<String> = ["MARKET_IMAGES_VIPS_WARNINGS", "MARKET_IMAGES_NO_AVX2"]

    /// The key and the salt are marked secret, so swift-configuration's access log redacts them.
    private static let secrets: SecretsSpecifier<String, String> = .specific([variable("key"), variable("salt")])

    private init(file: (path: String, contents: EnvironmentFile)?) {
        // An empty variable counts as unset, so `MARKET_IMAGES_KEY=` cannot hide the file's key behind nothing.
        let environment = ProcessInfo.processInfo.environment.filter { !$0.value.isEmpty }
        environmentNames = Set(environment.keys)
        var providers: [any ConfigProvider] = [EnvironmentVariablesProvider(environmentVariables: environment, secretsSpecifier: Self.secrets)]
        if let file { providers.append(EnvironmentVariablesProvider(environmentVariables: file.contents.values, secretsSpecifier: Self.secrets)) }
        reader = ConfigReader(providers: providers)
        self.file = file
    }

    /// The process's environment alone.
    static func environment() -> SettingSources { SettingSources(file: nil) }

    /// The process's environment, then the `--config` file (or `$MARKET_IMAGES_CONFIG`) when given,
    /// read as systemd reads an `EnvironmentFile`.
    static func load(config flag: String?) throws -> SettingSources {
        let environment = environment()
        guard let path = try environment.value(flag, "config") else { return environment }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError("cannot read \(environment.origin(of: "config")) \(Terminal.display(path)): "
                + "give a file of MARKET_IMAGES_NAME=value lines, as systemd's EnvironmentFile takes them")
        }
        let sources = SettingSources(file: (path, try EnvironmentFile(parsing: text, path: Terminal.display(path))))
        sources.asked.insert(variable("config"))
        return sources
    }

    /// Lines of the `--config` file that set nothing, each with why: a warning at start.
    var ignoredLines: [String] { file?.contents.ignored ?? [] }

    /// `max-source-bytes` → `MARKET_IMAGES_MAX_SOURCE_BYTES`.
    static func variable(_ flag: String) -> String {
        "MARKET_IMAGES_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The flag's value, or the environment's or the file's parsed as the flag would be, or nil.
    func value<Value: ExpressibleByArgument>(_ flag: Value?, _ name: String) throws -> Value? {
        if let flag = given(flag, name) { return flag }
        guard let text = text(name) else { return nil }
        guard let value = Value(argument: text) else {
            throw ValidationError("\(described(name)) is \(Terminal.display(text)), not \(Self.expected(Value.self))")
        }
        return value
    }

    func value<Value: ExpressibleByArgument>(_ flag: Value?, _ name: String, default: Value) throws -> Value {
        try value(flag, name) ?? `default`
    }

    /// A switch: `--name` / `--no-name`, or true/false, yes/no, 1/0 in the environment or the file.
    func isOn(_ flag: Bool?, _ name: String) throws -> Bool {
        if let flag = given(flag, name) { return flag }
        guard let text = text(name) else { return false }
        switch text.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw ValidationError("\(described(name)) is \(Terminal.display(text)), not true or false")
        }
    }

    /// A repeatable flag's values, or the environment's or the file's, comma-separated.
    func list(_ flag: [String], _ name: String) -> [String] {
        if let flag = given(flag.isEmpty ? nil : flag, name) { return flag }
        return Self.commaSeparated(text(name))
    }

    /// Values that only ever come from the environment or the file (keys, salts), comma-separated as
    /// imgproxy takes them; never echoed.
    func secrets(_ name: String) -> [String] {
        asked.insert(Self.variable(name))
        let names = [Self.variable(name)] + ImgproxySettings.variables(for: name)
        return Self.commaSeparated(names.lazy.compactMap { self.reader.string(forKey: ConfigKey([$0]), isSecret: true) }.first)
    }

    /// Warnings for the `IMGPROXY_*` names given that `serve` does not read (`ImgproxySettings`).
    func imgproxyWarnings() -> [String] {
        // Values are read as any variable is, but only for the switches compared, never echoed otherwise.
        given(prefix: "IMGPROXY_").sorted().compactMap { name in
            ImgproxySettings.warning(name, value: reader.string(forKey: ConfigKey([name]), isSecret: true) ?? "")
        }
    }

    /// `MARKET_IMAGES_*` names in the environment or the file that no setting read: a misspelling
    /// (`MARKET_IMAGES_CAHCE`) would otherwise be ignored without a word. Call after every setting is read.
    func unknownNames() -> [String] {
        given(prefix: "MARKET_IMAGES_").subtracting(asked).subtracting(Self.readElsewhere).sorted()
    }

    /// The variables starting with `prefix` given in the environment or the file.
    private func given(prefix: String) -> Set<String> {
        environmentNames.union(file?.contents.values.keys ?? [:].keys).filter { $0.hasPrefix(prefix) }
    }

    /// How a setting was given, to name it in an error: `--cache`, or `MARKET_IMAGES_CACHE`.
    func origin(of name: String) -> String { origins[name] ?? "--" + name }

    /// The flag's value when it was given, noted as where the setting came from. The variable is
    /// asked for all the same: a flag overriding it does not make it unknown.
    private func given<Value>(_ flag: Value?, _ name: String) -> Value? {
        asked.insert(Self.variable(name))
        if flag != nil { origins[name] = "--" + name }
        return flag
    }

    private static func commaSeparated(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private func text(_ name: String) -> String? {
        asked.insert(Self.variable(name))
        // The variable's name is the key as it is: the providers' own mapping of dotted keys is not wanted.
        if let text = reader.string(forKey: ConfigKey([Self.variable(name)])) {
            origins[name] = described(name)
            return text
        }
        // imgproxy's name for the same setting, in imgproxy's units.
        for variable in ImgproxySettings.variables(for: name) {
            guard let text = reader.string(forKey: ConfigKey([variable])), case .setting(_, let convert)? = ImgproxySettings.table[variable] else { continue }
            guard let value = convert(text) else { return nil }
            origins[name] = described(variable: variable)
            return value
        }
        return nil
    }

    /// `$MARKET_IMAGES_CACHE`, or `MARKET_IMAGES_CACHE (serve.env line 4)`: where the value was read.
    private func described(_ name: String) -> String { described(variable: Self.variable(name)) }

    private func described(variable: String) -> String {
        guard !environmentNames.contains(variable), let file, let line = file.contents.line(of: variable) else { return "$" + variable }
        return "\(variable) (\(Terminal.display(file.path)) line \(line))"
    }

    private static func expected<Value>(_ type: Value.Type) -> String {
        switch type {
        case is any FixedWidthInteger.Type: "a whole number"
        case is any FloatingPoint.Type: "a number"
        default: "a value \(type) accepts"
        }
    }
}
