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

    /// Writes `text` with every control character but newline and tab escaped: whatever a server's
    /// answer or a file name put in it cannot move the cursor, clear the screen or retitle the
    /// window. Our own styling goes through `emit`.
    func write(_ text: String) {
        emit(ServerText.printable(text, keeping: ["\n", "\t"]))
    }

    /// Writes our own bytes as they are: colour and the progress line's escape sequences.
    func emit(_ raw: String) {
        handle.write(Data(raw.utf8))
    }

    func styled(_ text: String, _ code: String) -> String {
        usesColour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func error(_ message: String) { labelled(styled("error:", "1;31"), message) }
    func warning(_ message: String) { labelled(styled("warning:", "1;33"), message) }

    private func labelled(_ label: String, _ message: String) {
        emit(label + " " + ServerText.printable(message + "\n", keeping: ["\n", "\t"]))
    }

    /// A path as the user would type it: relative to the current folder when it is inside it, with
    /// control characters escaped, so a file named "x\nerror: …" cannot forge lines of output.
    static func display(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return ServerText.printable(path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path)
    }
}

/// Prints `value` as pretty JSON on standard output: the machine-readable result of a command. Values
/// are kept as they are; the control characters JSON may carry raw (DEL and C1, such as the one-byte
/// CSI) are written as `\u` escapes too, so the text is the same JSON and safe on a terminal.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let text = String(decoding: try encoder.encode(value), as: UTF8.self).unicodeScalars.map { scalar in
        (0x7F...0x9F).contains(scalar.value) ? String(format: "\\u%04x", scalar.value) : String(scalar)
    }.joined()
    Terminal.standardOutput.emit(text + "\n")
}

/// "1 photo", "3 photos".
func count(_ number: Int, _ noun: String) -> String { NumberText.count(number, noun) }
