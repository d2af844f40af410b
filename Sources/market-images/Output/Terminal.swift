import Foundation
import MarketUploader

/// Where human-facing text goes. Progress and colour appear only on a terminal, and colour never when
/// `NO_COLOR` is set (https://no-color.org).
struct Terminal: @unchecked Sendable {
    let handle: FileHandle
    let isInteractive: Bool
    let usesColour: Bool

    static let standardError = Terminal(handle: .standardError, descriptor: STDERR_FILENO)
    static let standardOutput = Terminal(handle: .standardOutput, descriptor: STDOUT_FILENO)

    private init(handle: FileHandle, descriptor: Int32) {
        self.handle = handle
        isInteractive = isatty(descriptor) == 1
        let noColour = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        usesColour = isInteractive && !noColour && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    func write(_ text: String) {
        handle.write(Data(text.utf8))
    }

    func styled(_ text: String, _ code: String) -> String {
        usesColour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func error(_ message: String) { write(styled("error:", "1;31") + " " + message + "\n") }
    func warning(_ message: String) { write(styled("warning:", "1;33") + " " + message + "\n") }

    /// A path as the user would type it: relative to the current folder when it is inside it, with
    /// control characters escaped, so a file named "x\nerror: …" cannot forge lines of output.
    static func display(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        let relative = path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
        return relative.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }.joined()
    }
}

/// Prints `value` as pretty JSON on standard output: the machine-readable result of a command.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    Terminal.standardOutput.write(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
}

/// "1 photo", "3 photos".
func count(_ number: Int, _ noun: String) -> String { NumberText.count(number, noun) }
