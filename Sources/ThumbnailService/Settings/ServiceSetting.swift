import Foundation
import MarketUploader

/// One setting of the thumbnail service, defined once (`ServiceSetting.all`): its flag, its
/// `MARKET_IMAGES_*` and `IMGPROXY_*` names, how its text is parsed into a `ServiceConfiguration`,
/// its bounds, its default, whether it changes an output's bytes, and its help. `serve`'s flags, the
/// environment and the `--config` file (`ServiceSettings`), `ServiceConfiguration.problems`, the ETag
/// and `deploy/serve.env` all follow from the table.
public struct ServiceSetting: Sendable {
    /// How the setting is written.
    public enum Form: Sendable, Equatable {
        /// `--name VALUE`; the value named so in help.
        case value(String)
        /// `--name` / `--no-name`; true or false in the environment.
        case toggle
        /// `--name VALUE`, repeatable; comma-separated in the environment.
        case list(String)
        /// Only from the environment or the file, never a flag, never echoed (the key and the salt).
        case secret
    }

    /// An imgproxy variable for the same setting (or one imgproxy's AWS SDK reads, `AWS_REGION`), and
    /// how its value becomes ours (its units; nil: our default), reading the variables `reads` names
    /// with it where imgproxy spreads one setting over several (`IMGPROXY_CACHE_USE=s3` and its bucket).
    public struct ImgproxyName: Sendable {
        public let variable: String
        let reads: [String]
        let convert: @Sendable (_ value: String, _ variable: (String) -> String?) -> String?
    }

    /// A value that cannot be parsed: `expected` says what it should be ("a whole number").
    struct Unreadable: Error {
        let expected: String
    }

    /// The flag's name without dashes, e.g. `max-source-bytes`.
    public let name: String
    public let form: Form
    public let help: String
    public let imgproxy: [ImgproxyName]
    /// How the value reaches an output's bytes, and so its ETag.
    public enum OutputEffect: Sendable, Equatable {
        /// It changes no byte (what is refused, how many work, where it listens).
        case none
        /// It fills in the options of URLs that leave them out (the default quality, `--auto-quality`),
        /// so it is in their ETag as part of those options' canonical form.
        case viaOptions
        /// It changes bytes by itself, so it is part of every ETag.
        case inETag
    }

    public let output: OutputEffect
    /// The value's text into the configuration (a list's items joined by commas).
    let apply: @Sendable (inout ServiceConfiguration, String) throws(Unreadable) -> Void
    /// The configuration's value as this setting's text (nil: unset), for defaults and ETags.
    let text: @Sendable (ServiceConfiguration) -> String?
    /// What is wrong with the configuration's value, or nil (the bounds; `ServiceConfiguration.problems`).
    let check: @Sendable (ServiceConfiguration) -> String?
    /// Said in help instead of the default configuration's value ("the number of cores").
    var shownDefault: String?

    /// `max-source-bytes` → `MARKET_IMAGES_MAX_SOURCE_BYTES`.
    public var variable: String { Self.variable(name) }

    static func variable(_ name: String) -> String {
        "MARKET_IMAGES_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The default, as the setting's text: what help and `deploy/serve.env` show.
    public var defaultText: String? { text(ServiceConfiguration()) }
}

// The factories the table is written with: one per kind of value.
extension ServiceSetting {
    typealias Path<Value> = WritableKeyPath<ServiceConfiguration, Value> & Sendable

    static func imgproxy(_ variables: String..., convert: @escaping @Sendable (String) -> String? = { $0 }) -> [ImgproxyName] {
        variables.map { ImgproxyName(variable: $0, reads: [], convert: { value, _ in convert(value) }) }
    }

    /// imgproxy's `variable`, whose value with those of `reads` (given to `compose` by name) is ours.
    static func imgproxy(_ variable: String, reading reads: [String],
                         compose: @escaping @Sendable (_ value: String, _ variable: (String) -> String?) -> String?) -> [ImgproxyName] {
        [ImgproxyName(variable: variable, reads: reads, convert: compose)]
    }

    /// A whole number in `range`.
    static func number(_ name: String, _ path: Path<Int>, _ range: ClosedRange<Int>, _ bounds: String, valueName: String = "n",
                       imgproxy: [ImgproxyName] = [], output: OutputEffect = .none, help: String) -> ServiceSetting {
        ServiceSetting(name: name, form: .value(valueName), help: help, imgproxy: imgproxy, output: output,
                       apply: { configuration, text throws(Unreadable) in configuration[keyPath: path] = try wholeNumber(text) },
                       text: { String($0[keyPath: path]) },
                       check: { range.contains($0[keyPath: path]) ? nil : bounds })
    }

    /// A whole number in `range`, or unset.
    static func optionalNumber(_ name: String, _ path: Path<Int?>, _ range: @escaping @Sendable (ServiceConfiguration) -> ClosedRange<Int>,
                               _ bounds: @escaping @Sendable (ServiceConfiguration) -> String, valueName: String = "n",
                               imgproxy: [ImgproxyName] = [], help: String) -> ServiceSetting {
        ServiceSetting(name: name, form: .value(valueName), help: help, imgproxy: imgproxy, output: .none,
                       apply: { configuration, text throws(Unreadable) in configuration[keyPath: path] = try wholeNumber(text) },
                       text: { $0[keyPath: path].map(String.init) },
                       check: { configuration in configuration[keyPath: path].map { range(configuration).contains($0) } ?? true ? nil : bounds(configuration) })
    }

    /// Seconds, as a `Duration`, in `range`; fractions too (`0.5`), for a test or a fast network.
    static func seconds(_ name: String, _ path: Path<Duration>, _ range: ClosedRange<Double>, _ bounds: String,
                        imgproxy: [ImgproxyName] = [], help: String) -> ServiceSetting {
        ServiceSetting(name: name, form: .value("seconds"), help: help, imgproxy: imgproxy, output: .none,
                       apply: { configuration, text throws(Unreadable) in configuration[keyPath: path] = try duration(text) },
                       text: { secondsText($0[keyPath: path]) },
                       check: { range.contains(seconds($0[keyPath: path])) ? nil : bounds })
    }

    static func duration(_ text: String) throws(Unreadable) -> Duration {
        // Decimal digits only: Double would also read hex (0x10) and exponents.
        guard text.wholeMatch(of: /-?[0-9]{1,9}(\.[0-9]{1,9})?/) != nil, let value = Double(text) else {
            throw Unreadable(expected: "a number of seconds, e.g. 5 or 0.5")
        }
        return .nanoseconds(Int64((value * 1e9).rounded()))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func secondsText(_ duration: Duration) -> String { String(format: "%g", seconds(duration)) }

    /// A switch.
    static func toggle(_ name: String, _ path: Path<Bool>, inverted: Bool = false, imgproxy: [ImgproxyName] = [],
                       output: OutputEffect = .none, help: String) -> ServiceSetting {
        ServiceSetting(name: name, form: .toggle, help: help, imgproxy: imgproxy, output: output,
                       apply: { configuration, text throws(Unreadable) in
                           guard let on = switchValue(text) else { throw Unreadable(expected: "true or false") }
                           configuration[keyPath: path] = on != inverted
                       },
                       text: { String($0[keyPath: path] != inverted) },
                       check: { _ in nil })
    }

    /// Text (a path, most often), or unset; `check` judges it.
    static func text(_ name: String, _ path: Path<String?>, valueName: String, imgproxy: [ImgproxyName] = [],
                     check: @escaping @Sendable (String) -> String? = { _ in nil }, help: String) -> ServiceSetting {
        ServiceSetting(name: name, form: .value(valueName), help: help, imgproxy: imgproxy, output: .none,
                       apply: { configuration, text throws(Unreadable) in configuration[keyPath: path] = text },
                       text: { $0[keyPath: path] }, check: { $0[keyPath: path].flatMap(check) })
    }

    /// Any value `parse` reads, written back by `write`.
    static func parsed<Value>(_ name: String, _ path: Path<Value>, form: Form, expected: String, imgproxy: [ImgproxyName] = [],
                              output: OutputEffect = .none, parse: @escaping @Sendable (String) -> Value?,
                              write: @escaping @Sendable (Value) -> String?, check: @escaping @Sendable (ServiceConfiguration) -> String? = { _ in nil },
                              help: String) -> ServiceSetting {
        ServiceSetting(name: name, form: form, help: help, imgproxy: imgproxy, output: output,
                       apply: { configuration, text throws(Unreadable) in
                           guard let value = parse(text) else { throw Unreadable(expected: expected) }
                           configuration[keyPath: path] = value
                       },
                       text: { write($0[keyPath: path]) }, check: check)
    }

    /// A setting read by the resolver itself (the key material, the file of settings): no field of its own.
    static func resolverOnly(_ name: String, form: Form, imgproxy: [ImgproxyName] = [], help: String) -> ServiceSetting {
        ServiceSetting(name: name, form: form, help: help, imgproxy: imgproxy, output: .none,
                       apply: { _, _ in }, text: { _ in nil }, check: { _ in nil })
    }

    static func wholeNumber(_ text: String) throws(Unreadable) -> Int {
        guard let value = Int(text) else { throw Unreadable(expected: "a whole number") }
        return value
    }

    /// true/false, yes/no, on/off, 1/0 (and imgproxy's t/f), in any case.
    static func switchValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "t", "yes", "on", "1": true
        case "false", "f", "no", "off", "0": false
        default: nil
        }
    }

    static func commaSeparated(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Text safe to show in an error: control characters escaped.
    static func shown(_ text: String) -> String { "\"" + ServerText.printable(text) + "\"" }
}
