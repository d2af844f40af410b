import Foundation

/// Finds secrets in text by what the text means, not by how it is spelled. A server may echo a
/// secret JSON-escaped (`\u0026` as Go writes it, `\uD83D\uDE00`, `\U0001F600`, Swift's `\u{26}`),
/// as bytes (`\xc3\xbc`, octal `\303\274`, quoted-printable `=C3=BC`), with a backslash before any
/// punctuation (Java's properties), HTML-escaped (`&amp;`, `&#38`, `&uuml;`), percent- or
/// form-encoded (also JavaScript's `%FC` and `%uD55C`), with quotes doubled (CSV, SQL), one of these
/// inside another, in another case or normalisation, misread as Latin-1, in base64, or cut short.
/// The text is decoded layer by layer, each decoded character remembering the span of the original
/// it came from; where any layer holds the secret, or a run of at least three quarters of it (an echo
/// cut short), that span of the original is replaced. What is not caught: the secret spelled backwards,
/// spaced out, wrapped across lines, split in two, or in an encoding of the server's own.
enum SecretScrubber {
    static let replacement = "<redacted>"

    /// A character of some layer of decoding, and the original's scalars it stands for. A named
    /// HTML reference this table does not know (`&uuml;`) is a `wildcard`: some character past ASCII.
    private struct Unit {
        var scalar: Unicode.Scalar
        var span: Range<Int>
        var wildcard = false
    }

    /// Decodings of decodings looked through: JSON in a form field in an HTML page, and one more.
    static let layers = 4

    static func scrub(_ text: String, secrets: [String]) -> String {
        // Each spelling also as the decoding reads it, so a secret that holds an escape of its own
        // (`\]`, `""`, `%41`) is found where the text's escapes and its own are decoded together.
        // By scalars: Swift's `String` equality would take NFC and NFD for one and keep one of them.
        var forms = Set<[UInt32]>()
        for spelling in secrets.filter({ !$0.isEmpty }).flatMap(spellings) {
            var units = spelling.unicodeScalars.enumerated().map { Unit(scalar: $1, span: $0..<$0 + 1) }
            for _ in 0...layers {
                forms.insert(units.map { fold($0.scalar).value })
                guard let next = furtherDecoded(units) else { break }
                units = next
            }
        }
        let secrets = forms.map { $0.compactMap(Unicode.Scalar.init) }
        guard !secrets.isEmpty else { return text }
        let original = Array(text.unicodeScalars)
        var layer = original.indices.map { Unit(scalar: original[$0], span: $0..<$0 + 1) }
        var hidden: [Range<Int>] = []
        for depth in 0...layers {
            let folded = layer.map { $0.wildcard ? nil : fold($0.scalar) }
            for secret in secrets { hidden += matches(of: secret, in: layer, folded: folded) }
            guard depth < layers, let next = furtherDecoded(layer) else { break }
            layer = next
        }
        guard !hidden.isEmpty else { return text }
        var result = String.UnicodeScalarView()
        var at = 0
        for span in hidden.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if span.upperBound <= at { continue }
            if span.lowerBound >= at {
                result.append(contentsOf: original[at..<span.lowerBound])
                result.append(contentsOf: replacement.unicodeScalars)
            }
            at = span.upperBound
        }
        result.append(contentsOf: original[at...])
        return String(result)
    }

    /// The secret as it may be written before any escaping: composed and decomposed, its UTF-8 read
    /// as Latin-1 or Windows-1252, and the parts of its base64 that do not depend on what stands
    /// beside it (at each of the three alignments, in both alphabets).
    private static func spellings(of secret: String) -> [String] {
        var spellings = [secret, secret.precomposedStringWithCanonicalMapping, secret.decomposedStringWithCanonicalMapping]
        let bytes = Data(secret.utf8)
        for encoding in [String.Encoding.isoLatin1, .windowsCP1252] {
            if let misread = String(data: bytes, encoding: encoding) { spellings.append(misread) }
        }
        for offset in 0..<3 {
            let encoded = (Data(repeating: 0, count: offset) + bytes).base64EncodedString()
            // Characters that mix in a byte from outside the secret: those of the padding before it,
            // and the last group unless the secret ends a group.
            let stable = encoded.dropFirst(offset == 0 ? 0 : offset + 1).dropLast((offset + bytes.count) % 3 == 0 ? 0 : 4)
            if stable.count >= 8 {
                spellings += [String(stable), stable.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")]
            }
        }
        return spellings
    }

    /// A character as it is compared: lower case, compatibility forms folded (full-width letters).
    private static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let folded = String(scalar).precomposedStringWithCompatibilityMapping.lowercased().unicodeScalars
        return folded.count == 1 ? folded.first ?? scalar : scalar
    }

    /// The spans of the original under each run of the secret in `units`: the whole of it, or (for a
    /// secret of more than 6 characters) any run of at least three quarters of it and 6, for an echo
    /// cut short. Less would take words for it: `password` in a form, for `item-password-8x`.
    /// `+` stands for a space as well, as form encoding writes it.
    /// `folded`: each unit as compared (nil for a wildcard).
    private static func matches(of secret: [Unicode.Scalar], in units: [Unit], folded: [Unicode.Scalar?]) -> [Range<Int>] {
        let shortest = secret.count <= 6 ? secret.count : max(6, (secret.count * 3 + 3) / 4)
        func same(_ index: Int, _ scalar: Unicode.Scalar) -> Bool {
            guard let unit = folded[index] else { return !scalar.isASCII }
            return unit == scalar || (unit == "+" && scalar == " ")
        }
        var spans: [Range<Int>] = []
        for start in units.indices {
            var longest = 0
            for offset in secret.indices where same(start, secret[offset]) {
                var length = 1
                while start + length < units.count, offset + length < secret.count, same(start + length, secret[offset + length]) { length += 1 }
                longest = max(longest, length)
            }
            if longest >= shortest { spans.append(units[start].span.lowerBound..<units[start + longest - 1].span.upperBound) }
        }
        return spans
    }

    /// One layer of decoding: backslash escapes, HTML character references, runs of escaped bytes
    /// (`%HH`, `\xHH`, `\ooo`, `=HH`) read as UTF-8 (or, byte by byte, as Latin-1 where they are not),
    /// JavaScript's `%uXXXX`, and doubled quotes. Characters that show nothing (zero-width spaces, soft
    /// hyphens) are dropped; anything else stands for itself.
    private static func decoded(_ units: [Unit]) -> [Unit] {
        var out: [Unit] = []
        var at = 0
        while at < units.count {
            if let (run, length) = byteRun(units, at) {
                out += run
                at += length
            } else if let (unit, length) = backslash(units, at) ?? reference(units, at) ?? percentU(units, at) ?? doubledQuote(units, at) {
                out.append(unit)
                at += length
            } else {
                if !units[at].scalar.properties.isDefaultIgnorableCodePoint { out.append(units[at]) }
                at += 1
            }
        }
        return out
    }

    /// The next layer, or nil when decoding changes nothing (no layer below it will either).
    private static func furtherDecoded(_ units: [Unit]) -> [Unit]? {
        let next = decoded(units)
        return next.map(\.scalar) == units.map(\.scalar) ? nil : next
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

    /// A UTF-16 escape at `at` (`prefix` then four hex digits), a surrogate pair as one character.
    private static func utf16(_ units: [Unit], _ at: Int, prefix: [Unicode.Scalar]) -> (Unit, Int)? {
        let width = prefix.count + 4
        guard at + width <= units.count, zip(units[at..<at + prefix.count], prefix).allSatisfy({ $0.scalar == $1 }),
              let high = hex(units, at + prefix.count..<at + width) else { return nil }
        if (0xD800..<0xDC00).contains(high), at + 2 * width <= units.count,
           zip(units[at + width..<at + width + prefix.count], prefix).allSatisfy({ $0.scalar == $1 }),
           let low = hex(units, at + width + prefix.count..<at + 2 * width), (0xDC00..<0xE000).contains(low) {
            return unit(0x10000 + (high - 0xD800) << 10 + (low - 0xDC00), units, at, 2 * width)
        }
        return unit(high, units, at, width)
    }

    /// `\uXXXX`, `\UXXXXXXXX`, `\u{…}` and `\x{…}`, `\n` and the like, and a backslash before any
    /// punctuation or space (`\"`, `\\`, `\/`, `\=`) (`\xHH` and `\ooo` are bytes: `byteRun`).
    private static func backslash(_ units: [Unit], _ at: Int) -> (Unit, Int)? {
        guard units[at].scalar == "\\", at + 1 < units.count else { return nil }
        let next = units[at + 1].scalar
        if (next == "u" || next == "x"), at + 2 < units.count, units[at + 2].scalar == "{" {
            let digits = units[(at + 3)...].prefix(8).prefix { Character($0.scalar).isHexDigit }
            guard at + 3 + digits.count < units.count, units[at + 3 + digits.count].scalar == "}", !digits.isEmpty else { return nil }
            return unit(hex(units, at + 3..<at + 3 + digits.count), units, at, digits.count + 4)
        }
        switch next {
        case "u": return utf16(units, at, prefix: ["\\", "u"])
        case "U": return unit(hex(units, at + 2..<at + 10), units, at, 10)
        case "n": return unit(0x0A, units, at, 2)
        case "t": return unit(0x09, units, at, 2)
        case "r": return unit(0x0D, units, at, 2)
        case "b": return unit(0x08, units, at, 2)
        case "f": return unit(0x0C, units, at, 2)
        default: return next.properties.isAlphabetic || ("0"..."9").contains(next) ? nil : unit(next.value, units, at, 2)
        }
    }

    /// A quote written twice inside a quoted field (CSV, SQL): one quote.
    private static func doubledQuote(_ units: [Unit], _ at: Int) -> (Unit, Int)? {
        guard at + 1 < units.count, units[at].scalar == "\"" || units[at].scalar == "'", units[at + 1].scalar == units[at].scalar else { return nil }
        return unit(units[at].scalar.value, units, at, 2)
    }

    /// JavaScript's `escape()` of a character past Latin-1: `%uD55C`.
    private static func percentU(_ units: [Unit], _ at: Int) -> (Unit, Int)? {
        units[at].scalar == "%" ? utf16(units, at, prefix: ["%", "u"]) : nil
    }

    private static let entities: [String: Unicode.Scalar] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "sol": "/", "num": "#",
                                                            "percnt": "%", "plus": "+", "equals": "=", "colon": ":", "semi": ";", "bsol": "\\",
                                                            "excl": "!", "dollar": "$", "lpar": "(", "rpar": ")", "ast": "*", "comma": ",",
                                                            "period": ".", "quest": "?", "commat": "@", "lsqb": "[", "rsqb": "]", "lbrack": "[",
                                                            "rbrack": "]", "Hat": "^", "lowbar": "_", "grave": "`", "lcub": "{", "rcub": "}",
                                                            "lbrace": "{", "rbrace": "}", "verbar": "|", "vert": "|", "tilde": "~"]

    /// `&amp;`, `&#38;`, `&#x26;`, the `;` optional after a number as browsers allow; a named one
    /// past this table is some character past ASCII.
    private static func reference(_ units: [Unit], _ at: Int) -> (Unit, Int)? {
        guard units[at].scalar == "&", at + 2 < units.count else { return nil }
        func closed(_ end: Int) -> Int { end < units.count && units[end].scalar == ";" ? end + 1 : end }
        if units[at + 1].scalar == "#" {
            let isHex = units[at + 2].scalar == "x" || units[at + 2].scalar == "X"
            let first = at + (isHex ? 3 : 2)
            let digits = units[first...].prefix(8).prefix { isHex ? Character($0.scalar).isHexDigit : ("0"..."9").contains($0.scalar) }
            guard !digits.isEmpty else { return nil }
            let value = UInt32(String(String.UnicodeScalarView(digits.map(\.scalar))), radix: isHex ? 16 : 10)
            return unit(value, units, at, closed(first + digits.count) - at)
        }
        let name = units[(at + 1)...].prefix(32).prefix { $0.scalar.properties.isAlphabetic || ("0"..."9").contains($0.scalar) }
        guard !name.isEmpty, at + 1 + name.count < units.count, units[at + 1 + name.count].scalar == ";" else { return nil }
        let length = name.count + 2
        if let scalar = entities[String(String.UnicodeScalarView(name.map(\.scalar)))] { return unit(scalar.value, units, at, length) }
        guard var wildcard = unit(0xFFFD, units, at, length) else { return nil }
        wildcard.0.wildcard = true
        return wildcard
    }

    /// One escaped byte at `at`, and how many characters it takes: `%HH`, `\xHH`, `=HH`, `\ooo`.
    private static func escapedByte(_ units: [Unit], _ at: Int) -> (UInt8, Int)? {
        let first = units[at].scalar
        if first == "%" || first == "=" { return hex(units, at + 1..<at + 3).map { (UInt8($0), 3) } }
        guard first == "\\", at + 1 < units.count else { return nil }
        if units[at + 1].scalar == "x" { return hex(units, at + 2..<at + 4).map { (UInt8($0), 4) } }
        let digits = units[(at + 1)...].prefix(3).prefix { ("0"..."7").contains($0.scalar) }
        guard !digits.isEmpty, let value = UInt8(String(String.UnicodeScalarView(digits.map(\.scalar))), radix: 8) else { return nil }
        return (value, digits.count + 1)
    }

    /// A run of escaped bytes: read as UTF-8, each character spanning its own escapes; a byte that
    /// begins no UTF-8 character is read as Latin-1 (JavaScript's `escape()` writes them so).
    private static func byteRun(_ units: [Unit], _ at: Int) -> ([Unit], Int)? {
        var bytes: [(UInt8, Range<Int>)] = []
        var end = at
        while end < units.count, let (byte, width) = escapedByte(units, end) {
            bytes.append((byte, units[end].span.lowerBound..<units[end + width - 1].span.upperBound))
            end += width
        }
        guard !bytes.isEmpty else { return nil }
        let values = bytes.map(\.0)
        var out: [Unit] = []
        var index = 0
        while index < bytes.count {
            let length = ServerText.validSequenceLength(values, index)
            let scalar = length > 0 ? String(decoding: values[index..<index + length], as: UTF8.self).unicodeScalars.first : nil
            out.append(Unit(scalar: scalar ?? Unicode.Scalar(bytes[index].0), span: bytes[index].1.lowerBound..<bytes[index + max(length, 1) - 1].1.upperBound))
            index += max(length, 1)
        }
        return (out, end - at)
    }
}
