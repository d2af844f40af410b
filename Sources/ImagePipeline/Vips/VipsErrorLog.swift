import CVips
import Foundation

/// Attributes libvips' error text to the image whose call failed.
///
/// libvips appends every error to one buffer for the whole process, and pixels are decoded on its own
/// worker threads, so neither "read the buffer after my call failed" nor thread-local capture says
/// whose text it is: with photos in parallel, a PNG was once reported with another file's "VipsJpeg:
/// Premature end of input file", and other errors lost their cause to whoever read the buffer first.
///
/// So the kind of an error is decided by the call that failed and its result, never by this text;
/// the text is only detail. Each read drains the buffer into a pool under one lock and claims only the
/// lines it can attribute: lines from the failing image's own loader or naming its file, oldest first
/// and each text once. Lines of another loader or another file stay in the pool for the image they
/// belong to (for a while), but only for calls that began before them: a line already in the pool when
/// an image was opened is never its cause. Two files of the same format failing at the same instant with different
/// texts could still swap details; the kind and the format of each error are always its own.
enum VipsErrorLog {
    /// Who is asking: the loader that claimed the image (`jpegload`, `heifload_buffer`, …), its
    /// format as people name it, and the file's name, when there is one.
    struct Source: Sendable {
        var loader: String?
        var format: String
        var fileName: String?
        /// The last line in the pool when the image was opened; older lines are someone else's.
        var since: UInt64 = VipsErrorLog.mark()
    }

    private struct Line {
        let text: String
        let domain: String
        let at: Date
        let serial: UInt64
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var pool: [Line] = []
    nonisolated(unsafe) private static var lastSerial: UInt64 = 0
    private static let keptFor: TimeInterval = 60
    private static let poolLimit = 256

    /// libvips error domains by loader. Errors from codec libraries arrive under these names.
    private static let loaderDomains: [String: Set<String>] = [
        "jpegload": ["VipsJpeg", "jpegload", "VipsForeignLoadJpeg"],
        "pngload": ["vipspng", "pngload", "spng", "libpng", "VipsForeignLoadPng"],
        "heifload": ["heif", "heifload", "VipsForeignLoadHeif"],
        "webpload": ["webp", "webpload", "VipsForeignLoadWebp"],
        "gifload": ["gifload", "gif", "VipsForeignLoadNsgif"],
        "tiffload": ["tiff", "tiffload", "tiff2vips", "VipsForeignLoadTiff"],
    ]
    private static let allLoaderDomains = Set(loaderDomains.values.joined())

    /// Takes the lines that belong to `source` (or, for a failure no loader is involved in, the lines
    /// of no loader and no file), at most three, joined for a message. Empty when none can be claimed.
    static func take(for source: Source?) -> String {
        lock.withLock {
            drainLocked()
            let ours = source.map(domains(of:)) ?? []
            // Oldest first, each text once: two files of one format failing at the same moment
            // write the same line twice, and each takes one.
            var claimed: [String] = []
            pool.removeAll { line in
                guard !claimed.contains(line.text), belongs(line, to: source, domains: ours) else { return false }
                claimed.append(line.text)
                return true
            }
            // A burst of codec warnings can fill the buffer; the first lines carry the cause.
            return claimed.prefix(3).joined(separator: "; ")
        }
    }

    /// Moves whatever the buffer holds into the pool, so warnings left by calls that succeeded
    /// neither fill libvips' fixed-size buffer nor crowd out a later failure's cause.
    static func drain() {
        lock.withLock { drainLocked() }
    }

    /// Drains the buffer and returns the newest line's serial: a call that starts now claims only
    /// lines after it.
    static func mark() -> UInt64 {
        lock.withLock {
            drainLocked()
            return lastSerial
        }
    }

    private static func drainLocked() {
        let now = Date()
        if let raw = vips_error_buffer_copy() {
            defer { g_free(raw) }
            for text in String(cString: raw).split(whereSeparator: \.isNewline) {
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                let domain = trimmed.range(of: ": ").map { String(trimmed[..<$0.lowerBound]) } ?? ""
                lastSerial += 1
                pool.append(Line(text: trimmed, domain: domain, at: now, serial: lastSerial))
            }
        }
        pool.removeAll { now.timeIntervalSince($0.at) > keptFor }
        if pool.count > poolLimit { pool.removeFirst(pool.count - poolLimit) }
    }

    private static func domains(of source: Source) -> Set<String> {
        guard let loader = source.loader else { return [] }
        let base = String(loader.prefix { $0.isLetter })
        return loaderDomains[base] ?? [base]
    }

    /// A line is this source's when it came after the source was opened and its domain is this loader's or names this file. A domain of
    /// another loader, or that looks like a file name (it has a dot or a slash), is someone else's.
    /// Lines of no loader and no file (`VipsImage: …`) are nobody's in particular, so anyone may take them.
    private static func belongs(_ line: Line, to source: Source?, domains: Set<String>) -> Bool {
        if let source, line.serial <= source.since { return false }
        if let name = source?.fileName, !name.isEmpty, line.text.contains(name) { return true }
        if domains.contains(line.domain) { return true }
        if allLoaderDomains.contains(line.domain) { return false }
        return !line.domain.contains(".") && !line.domain.contains("/")
    }
}
