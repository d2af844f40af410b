import Foundation

/// Everything that can go wrong with one image, phrased for the person who has to fix it.
public enum ImagePipelineError: Error, Equatable, Sendable, CustomStringConvertible {
    case libraryUnavailable(String)
    case fileUnreadable(reason: String)
    case emptyFile
    case notAnImage(detail: String)
    case tooManyPixels(width: Int, height: Int, limit: Int)
    case decodeFailed(String)
    case processingFailed(String)
    case encodeFailed(String)
    case cannotFitBudget(maxBytes: Int, smallestBytes: Int, width: Int, height: Int, minQuality: Int)
    case outputFailed(path: String, reason: String)
    /// The output folder as a whole cannot take more (full disk, quota, read-only): the run stops.
    case outputUnavailable(path: String, reason: String)
    case outputLocked(directory: String)

    public var description: String {
        switch self {
        case .libraryUnavailable(let detail):
            return "libvips could not start (\(detail)); install libvips (Debian: apt-get install libvips-dev)"
        case .fileUnreadable(let reason):
            return "cannot read the file: \(reason)"
        case .emptyFile:
            return "the file is empty (0 bytes); copy the photo again from its source"
        case .notAnImage(let detail):
            let suffix = detail.isEmpty ? "" : " (\(detail))"
            return "not a supported image: JPEG, PNG, WebP, HEIC/HEIF, AVIF, TIFF or GIF expected\(suffix)"
        case .tooManyPixels(let width, let height, let limit):
            return "\(width)×\(height) is \(width * height) pixels, over the limit of \(limit); "
                + "refused before decoding. If the image is genuine, raise --max-pixels"
        case .decodeFailed(let detail):
            let cause = detail.isEmpty ? "" : " (\(detail))"
            return "the image data is damaged or truncated\(cause); re-export or copy the photo again"
        case .processingFailed(let detail):
            return "processing failed: \(detail)"
        case .encodeFailed(let detail):
            return "encoding failed: \(detail)"
        case .cannotFitBudget(let maxBytes, let smallestBytes, let width, let height, let minQuality):
            return "cannot fit in \(maxBytes) bytes: still \(smallestBytes) bytes at \(width)×\(height) "
                + "and quality \(minQuality); raise --max-bytes or lower --min-quality"
        case .outputFailed(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .outputUnavailable(let path, let reason):
            let remedy = reason == String(cString: strerror(EROFS)) ? "choose another --out" : "free some space or choose another --out"
            return "cannot write \(path): \(reason); \(remedy), then run again (finished photos are kept)"
        case .outputLocked(let directory):
            return "another market-images run is writing to \(directory); wait for it to finish"
        }
    }
}
