import Foundation

/// One option's arguments, with the checks every option shares.
struct OptionArguments {
    let name: String
    let arguments: [String]

    /// The argument at `index`, nil when absent or empty (imgproxy skips empty arguments).
    subscript(index: Int) -> String? {
        index < arguments.count && !arguments[index].isEmpty ? arguments[index] : nil
    }

    func expect(exactly count: Int) throws(ProcessingError) {
        guard arguments.count == count else { throw invalid(arguments.joined(separator: ":"), "\(count) argument\(count == 1 ? "" : "s")") }
    }

    func expect(atMost count: Int) throws(ProcessingError) {
        guard arguments.count <= count else { throw invalid(arguments.joined(separator: ":"), "at most \(count) arguments") }
    }

    func integer(_ text: String, in range: ClosedRange<Int>) throws(ProcessingError) -> Int {
        guard let value = Int(text), range.contains(value) else { throw invalid(text, "a whole number from \(range.lowerBound) to \(range.upperBound)") }
        return value
    }

    func boolean(_ text: String) throws(ProcessingError) -> Bool {
        switch text.lowercased() {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw invalid(text, "1, t, true, 0, f or false")
        }
    }

    func choice<T: RawRepresentable & CaseIterable>(_ text: String, _: T.Type) throws(ProcessingError) -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else { throw invalid(text, T.allCases.map(\.rawValue).joined(separator: ", ")) }
        return value
    }

    func invalid(_ value: String, _ expected: String) -> ProcessingError {
        .invalidArgument(option: name, value: String(value.prefix(64)), expected: expected)
    }
}
