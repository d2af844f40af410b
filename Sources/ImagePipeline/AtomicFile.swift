import Foundation

/// Writes files so that a reader, or a run killed at any moment, sees either the old file or the
/// complete new one: bytes go to a hidden temporary file in the same folder, then `rename(2)` swaps it
/// in. Temporaries a killed run left behind carry `tempMarker` and are removed by the next run.
enum AtomicFile {
    static let tempMarker = ".market-images-tmp-"

    static func write(_ data: Data, to path: String) throws(ImagePipelineError) {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temp = (folder as NSString).appendingPathComponent(
            ".\(name)\(tempMarker)\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: temp))
        } catch {
            unlink(temp)
            throw .outputFailed(path: path, reason: Self.reason(error))
        }
        guard rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw .outputFailed(path: path, reason: reason)
        }
    }

    /// Removes temporaries left by killed runs in `folder` and its product subfolders.
    static func removeLeftovers(in folder: String) {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: folder) else { return }
        for case let relative as String in enumerator {
            if (relative as NSString).lastPathComponent.contains(tempMarker) {
                try? manager.removeItem(atPath: (folder as NSString).appendingPathComponent(relative))
            }
            if enumerator.level > 1 { enumerator.skipDescendants() }
        }
    }

    /// The POSIX reason behind a Foundation error ("No space left on device"), not a Cocoa error code.
    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }
}
