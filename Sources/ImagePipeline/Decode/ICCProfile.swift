import Foundation

/// Reads the human-readable name of an ICC profile ("Display P3", "Adobe RGB (1998)") so `inspect`
/// can say which colour conversion a photo needs. Only the `desc` tag is parsed.
enum ICCProfile {
    static func description(of profile: Data) -> String? {
        let bytes = [UInt8](profile)
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        guard let count = u32(128), count < 1024 else { return nil }
        for index in 0..<count {
            let entry = 132 + index * 12
            guard let signature = u32(entry), signature == 0x6465_7363, // 'desc'
                  let offset = u32(entry + 4), let size = u32(entry + 8),
                  offset + size <= bytes.count, size >= 12 else { continue }
            let tag = Array(bytes[offset..<offset + size])
            switch String(decoding: tag[0..<4], as: UTF8.self) {
            case "desc": // ICC v2: uint32 length, then ASCII with a trailing NUL.
                let length = min(tag[8..<12].reduce(0) { $0 << 8 | Int($1) }, size - 12)
                return clean(String(decoding: tag[12..<12 + length], as: UTF8.self))
            case "mluc": // ICC v4: records of (language, country, length, offset) into UTF-16BE text.
                guard size >= 28 else { return nil }
                let length = tag[20..<24].reduce(0) { $0 << 8 | Int($1) }
                let start = tag[24..<28].reduce(0) { $0 << 8 | Int($1) }
                guard start + length <= size else { return nil }
                let units = stride(from: start, to: start + length - 1, by: 2).map { UInt16(tag[$0]) << 8 | UInt16(tag[$0 + 1]) }
                return clean(String(decoding: units, as: UTF16.self))
            default:
                return nil
            }
        }
        return nil
    }

    private static func clean(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0")))
        return trimmed.isEmpty ? nil : trimmed
    }
}
