/// Finds secrets in text by what the text means, not by how it is spelled: a server may echo a
/// secret JSON-escaped (`\u0026`, as Go's and Python's encoders write it), HTML-escaped (`&amp;`,
/// `&#x26;`), percent- or form-encoded, or one of these inside another. The text is decoded layer
/// by layer, each decoded character remembering the span of the original it came from; a secret
/// found at any layer has that span of the original replaced. Any escape of any character is
/// therefore caught, where a list of the secret's spellings catches only the ones listed.
enum SecretScrubber {
    static let replacement = "<redacted>"

    /// A character of some layer of decoding, and the original's scalars it stands for.
    private struct Unit {
        var scalar: Unicode.Scalar
        var span: Range<Int>
    }

    static func scrub(_ text: String, secrets: [String]) -> String {
        let secrets = secrets.filter { !$0.isEmpty }.map { Array($0.unicodeScalars) }
        guard !secrets.isEmpty else { return text }
        let original = Array(text.unicodeScalars)
        var layer = original.indices.map { Unit(scalar: original[$0], span: $0..<$0 + 1) }
        var hidden: [Range<Int>] = []
        // Three layers: the text, its decoding, and a decoding of that (JSON in a percent-encoded form).
        for depth in 0..<3 {
            for secret in secrets { hidden += matches(of: secret, in: layer) }
            guard depth < 2 else { break }
            let next = decoded(layer)
            if next.count == layer.count { break }
            layer = next
        }
        guard !hidden.isEmpty else { return text }
        var result = String.UnicodeScalarView()
        var at = 0
        for span in hidden.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if span.lowerBound >= at {
                result.append(contentsOf: original[at..<span.lowerBound])
                result.append(contentsOf: replacement.unicodeScalars)
            }
            at = max(at, span.upperBound)
        }
        result.append(contentsOf: original[at...])
        return String(result)
    }

    /// The spans of the original under each place `secret` appears; `+` stands for a space as well,
    /// as form encoding writes it.
    private static func matches(of secret: [Unicode.Scalar], in units: [Unit]) -> [Range<Int>] {
        guard units.count >= secret.count else { return [] }
        return (0...(units.count - secret.count)).compactMap { start in
            let window = units[start..<start + secret.count]
            let same = zip(window, secret).allSatisfy { unit, scalar in unit.scalar == scalar || (unit.scalar == "+" && scalar == " ") }
            return same ? units[start].span.lowerBound..<units[start + secret.count - 1].span.upperBound : nil
        }
    }

    /// One layer of decoding: JSON and C-style backslash escapes, HTML character references, and
    /// runs of percent-escapes read as UTF-8. Anything else stands for itself.
    private static func decoded(_ units: [Unit]) -> [Unit] {
        var out: [Unit] = []
        var at = 0
        while at < units.count {
            if let (unit, length) = backslash(units, at) ?? reference(units, at) {
                out.append(unit)
                at += length
            } else if let (run, length) = percentRun(units, at) {
                out += run
                at += length
            } else {
                out.append(units[at])
                at += 1
            }
        }
        return out
    }

    private static func hex(_ units: [Unit], _ range: Range<Int>) -> UInt32? {
        guard range.upperBound <= units.count else { return nil }
        var value: UInt32 = 0
        for unit in units[range] {
            guard let digit = Character(unit.scalar).hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private static func unit(_ value: UInt32?, _ units: [Unit], _ start: Int, _ length: Int) -> (Unit, Int)? {
        guard let value, let scalar = Unicode.Scalar(value) else { return nil }
        return (Unit(scalar: scalar, span: units[start].span.lowerBound..<units[start + length - 1].span.upperBound), length)
    }

    /// `\uXXXX` (a surrogate pair as one character), `\xHH`, `\"`, `\\`, `\/`, `\n` and the like.
    private static func backslash(_ units: [Unit], _ at: Int) -> (Unit, Int)? {
        guard units[at].scalar == "\\", at + 1 < units.count else { return nil }
        switch units[at + 1].scalar {
        case "u":
            guard let high = hex(units, at + 2..<at + 6) else { return nil }
            if (0xD800..<0xDC00).contains(high), at + 12 <= units.count, units[at + 6].scalar == "\\", units[at + 7].scalar == "u",
               let low = hex(units, at + 8..<at + 12), (0xDC00..<0xE000).contains(low) {
                return unit(0x10000 + (high - 0xD800) << 10 + (low - 0xDC00), units, at, 12)
            }
            return unit(high, units, at, 6)
        case "x": return unit(hex(units, at + 2..<at + 4), units, at, 4)
        default:
            let simple: [Unicode.Scalar: Unicode.Scalar] = ["\"": "\"", "\\": "\\", "/": "/", "'": "'", "n": "\n", "t": "\t", "r": "\r", "b": "\u{08}", "f": "\u{0C}"]
            return simple[units[at + 1].scalar].flatMap { unit($0.value, units, at, 2) }
        }
    }

    private static let entities: [String: Unicode.Scalar] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "sol": "/", "num": "#",
                                                            "percnt": "%", "plus": "+", "equals": "=", "colon": ":", "semi": ";", "bsol": "\\"]

    /// `&amp;`, `&#38;`, `&#x26;` (the `;` may be missing after a number, as browsers allow).
    private static func reference(_ units: [Unit], _ at: Int) -> (Unit, Int)? {
        guard units[at].scalar == "&" else { return nil }
        let body = units[(at + 1)...].prefix(12).prefix { $0.scalar != ";" && $0.scalar != "&" && $0.scalar != " " }
        let name = String(String.UnicodeScalarView(body.map(\.scalar)))
        let closed = at + 1 + body.count < units.count && units[at + 1 + body.count].scalar == ";"
        let length = 1 + body.count + (closed ? 1 : 0)
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            return UInt32(name.dropFirst(2), radix: 16).flatMap { unit($0, units, at, length) }
        }
        if name.hasPrefix("#") { return UInt32(name.dropFirst()).flatMap { unit($0, units, at, length) } }
        guard closed, let scalar = entities[name] else { return nil }
        return unit(scalar.value, units, at, length)
    }

    /// A run of `%HH` read as UTF-8, each character spanning its own escapes; nil when the run is
    /// not UTF-8 (the escapes then stand for themselves).
    private static func percentRun(_ units: [Unit], _ at: Int) -> ([Unit], Int)? {
        var bytes: [(UInt8, Range<Int>)] = []
        var end = at
        while end + 2 < units.count, units[end].scalar == "%", let byte = hex(units, end + 1..<end + 3) {
            bytes.append((UInt8(byte), units[end].span.lowerBound..<units[end + 2].span.upperBound))
            end += 3
        }
        let text = String(decoding: bytes.map(\.0), as: UTF8.self)
        guard !bytes.isEmpty, text.utf8.elementsEqual(bytes.map(\.0)) else { return nil }
        var out: [Unit] = []
        var byte = 0
        for scalar in text.unicodeScalars {
            let width = String(scalar).utf8.count
            out.append(Unit(scalar: scalar, span: bytes[byte].1.lowerBound..<bytes[byte + width - 1].1.upperBound))
            byte += width
        }
        return (out, end - at)
    }
}
