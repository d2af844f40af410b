import Foundation
import ImagePipeline

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

    /// A decimal number in `range` (not 0 itself with `exclusiveOfZero`).
    func number(_ text: String, in range: ClosedRange<Double>, exclusiveOfZero: Bool = false) throws(ProcessingError) -> Double {
        guard let value = Double(text), value.isFinite, range.contains(value), !(exclusiveOfZero && value == 0) else {
            throw invalid(text, "a number \(exclusiveOfZero ? "above" : "from") \(String(format: "%g", range.lowerBound)) to \(String(format: "%g", range.upperBound))")
        }
        return value
    }

    /// The number at `index` in `range`, or nil when it is left out (imgproxy's default then).
    func number(at index: Int, in range: ClosedRange<Double>) throws(ProcessingError) -> Double? {
        guard let text = self[index] else { return nil }
        return try number(text, in: range)
    }

    /// `type:x:y` from position `start`: a gravity and its offsets (`fp:x:y`: the point, 0–1 each).
    func gravity(from start: Int) throws(ProcessingError) -> (RenderSpec.Gravity, RenderSpec.Offset) {
        guard arguments.count <= start + 3 else { throw invalid(arguments.joined(separator: ":"), "a gravity and at most two offsets") }
        let gravity = try choice(self[start] ?? "", RenderSpec.Gravity.self)
        let range: ClosedRange<Double> = gravity == .focusPoint ? 0...1 : -65_535...65_535
        let unset = gravity == .focusPoint ? 0.5 : 0
        let (x, y) = (try number(at: start + 1, in: range) ?? unset, try number(at: start + 2, in: range) ?? unset)
        if gravity == .attention, x != 0 || y != 0 { throw invalid("\(x):\(y)", "no offsets with sm") }
        return (gravity, RenderSpec.Offset(x: x, y: y))
    }

    /// An imgproxy switch whose effect market-images always has (or never can): any boolean is
    /// accepted, so a URL written for imgproxy is served.
    func acceptedSwitch() throws(ProcessingError) {
        try expect(exactly: 1)
        _ = try boolean(self[0] ?? "")
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
