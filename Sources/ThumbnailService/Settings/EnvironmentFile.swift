import Foundation
import MarketUploader

/// A `--config` file read exactly as systemd reads an `EnvironmentFile` (systemd.exec(5), and its
/// parser in `env-file.c`), so one file configures the service the same under systemd and by hand:
/// `NAME=value` lines; `#` and `;` start comment lines; whitespace around names and values is dropped;
/// a value may be in single quotes (verbatim) or double quotes (`\"`, `\\`, `` \` `` and `\$`
/// unescaped, other backslashes kept), and a backslash at the end of a line continues it. Where systemd
/// would ignore a line with only a note in its journal, this is louder: `export NAME=value` (a shell's
/// habit, which systemd does not read) is an error naming the line, and any other name that is not a
/// variable's, or a quoted value over several lines (an unclosed quote takes the next lines), is a warning.
struct EnvironmentFile {
    struct Assignment: Equatable {
        var name: String
        var value: String
        var line: Int
    }

    var assignments: [Assignment] = []
    /// Lines systemd would ignore, or reads otherwise than they look (a quote left open), each with why.
    var ignored: [String] = []

    /// The last assignment of each name wins, as in systemd.
    var values: [String: String] { Dictionary(assignments.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }) }

    func line(of name: String) -> Int? { assignments.last { $0.name == name }?.line }

    init(parsing text: String, path: String) throws(ServiceSettings.Invalid) {
        for (name, value, line) in Self.pairs(text) {
            if name.hasPrefix("export") && name.dropFirst("export".count).first?.isWhitespace == true {
                let variable = name.dropFirst("export".count).trimmingCharacters(in: .whitespaces)
                throw ServiceSettings.Invalid("\(path) line \(line): systemd's EnvironmentFile does not read \"export\"; write \(variable)=… without it")
            }
            guard Self.isVariableName(name) else {
                ignored.append("\(path) line \(line): \(ServerText.printable(name)) is not a variable name; systemd ignores the line, and so does serve")
                continue
            }
            if value.contains("\n") {
                // systemd keeps a quoted value's line breaks; an unclosed quote takes the lines after it as its value.
                let lines = value.split(separator: "\n", omittingEmptySubsequences: false).count
                ignored.append("\(path) line \(line): the quoted value of \(name) runs over \(lines) lines, to line \(line + lines - 1), "
                    + "as systemd reads it; close its quote on line \(line) if those lines are settings of their own")
            }
            assignments.append(Assignment(name: name, value: value, line: line))
        }
    }

    private static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    private enum State { case preKey, key, preValue, value, valueEscape, single, double, doubleEscape, comment, commentEscape }

    /// systemd's state machine: each name, value and the line the assignment starts on.
    private static func pairs(_ text: String) -> [(String, String, Int)] {
        var pairs: [(String, String, Int)] = []
        var state = State.preKey, key = "", value = "", line = 1, start = 1
        // Where an unquoted value's trailing whitespace starts (an escaped space is kept), to drop it.
        var valueTrail: String.Index?
        func push() {
            // A name holds no escapes: its trailing blanks simply go.
            while let last = key.last, last == " " || last == "\t" { key.removeLast() }
            if state == .value, let valueTrail { value = String(value[..<valueTrail]) }
            pairs.append((key, value, start))
            (key, value, valueTrail) = ("", "", nil)
        }
        let whitespace: Set<Character> = [" ", "\t", "\n", "\r"], newline: Set<Character> = ["\n", "\r"]
        for character in text.unicodeScalars.map(Character.init) {
            defer { if character == "\n" { line += 1 } }
            switch state {
            case .preKey:
                if character == "#" || character == ";" {
                    state = .comment
                } else if !whitespace.contains(character) {
                    (state, key, start) = (.key, String(character), line)
                }
            case .key:
                if newline.contains(character) {
                    (state, key) = (.preKey, "")
                } else if character == "=" {
                    (state, valueTrail) = (.preValue, nil)
                } else {
                    key.append(character)
                }
            case .preValue:
                if newline.contains(character) {
                    push()
                    state = .preKey
                } else if character == "'" {
                    state = .single
                } else if character == "\"" {
                    state = .double
                } else if character == "\\" {
                    state = .valueEscape
                } else if !whitespace.contains(character) {
                    state = .value
                    value.append(character)
                }
            case .value:
                if newline.contains(character) {
                    push()
                    state = .preKey
                } else if character == "\\" {
                    (state, valueTrail) = (.valueEscape, nil)
                } else {
                    if !whitespace.contains(character) { valueTrail = nil } else if valueTrail == nil { valueTrail = value.endIndex }
                    value.append(character)
                }
            case .valueEscape:
                state = .value
                if !newline.contains(character) { value.append(character) }
            case .single:
                if character == "'" { state = .preValue } else { value.append(character) }
            case .double:
                if character == "\"" { state = .preValue } else if character == "\\" { state = .doubleEscape } else { value.append(character) }
            case .doubleEscape:
                state = .double
                if "\"\\`$".contains(character) {
                    value.append(character)
                } else if character != "\n" {
                    value += "\\" + String(character)
                }
            case .comment:
                if character == "\\" {
                    state = .commentEscape
                } else if newline.contains(character) {
                    state = .preKey
                }
            case .commentEscape:
                state = newline.contains(character) ? .preKey : .comment
            }
        }
        switch state {
        case .value, .preValue, .valueEscape, .single, .double, .doubleEscape:
            push()
        case .preKey, .key, .comment, .commentEscape:
            break
        }
        return pairs
    }
}
