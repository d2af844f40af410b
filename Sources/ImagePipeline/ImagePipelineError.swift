import Foundation

/// Everything that can go wrong with one image, as data: the errno, the limit and the offending value
/// travel with the case, so the command line can word a remedy in terms of its flags and a server can
/// choose a status code. `description` is a neutral sentence for logs and records; it names no flag.
public enum ImagePipelineError: Error, Equatable, Sendable, CustomStringConvertible {
    case libraryUnavailable(detail: String)
    /// The source could not be opened or read (`errno`), or is not a regular file (`errno` nil).
    case sourceUnreadable(errno: Int32?)
    case emptySource
    /// No loader recognises the bytes.
    case unsupportedFormat
    /// A loader recognised the bytes but libvips marks it unsafe for untrusted input (ImageMagick, SVG, PDF…).
    case blockedFormat(loader: String)
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// A loader claimed the source and then failed: truncated or damaged data. `detail` is libvips'
    /// text, attributed to this source (see `VipsErrorLog`), possibly empty.
    case damaged(format: String, detail: String)
    /// An option value outside what the pipeline can honour, refused before any work.
    case invalidOption(name: String, value: String, allowed: String)
    case processingFailed(detail: String)
    case encodeFailed(format: OutputFormat, detail: String)
    case cannotFitBudget(maxBytes: Int, smallestBytes: Int, width: Int, height: Int, minQuality: Int)
    case outputFailed(path: String, errno: Int32)
    /// The output folder as a whole cannot take more (full disk, quota, read-only): a batch stops.
    case outputUnavailable(path: String, errno: Int32)
    case outputUnsafe(path: String)
    case outputLocked(directory: String)
    /// The caller cancelled the work: before it started, or (nobody waiting for it any more) while it ran.
    case cancelled
    /// The work ran past its time limit (`ImageWorkPool.run(timeout:)`) and was stopped.
    case timedOut(limit: Duration)
    /// Every worker is busy and the queue is full: try again shortly.
    case overloaded(queueLimit: Int)
    /// libvips could not allocate what the image needs: the photo is too large for this process's
    /// memory now, not damaged.
    case outOfMemory(detail: String)
    /// Replacing the background needs the segmentation model, which no package ships: where it was
    /// looked for.
    case backgroundModelMissing(searched: [String])
    /// The model's runtime (OpenCV's DNN, through `libMarketImagesMask.so`) could not be loaded.
    case backgroundUnavailable(detail: String)
    /// The model file is not one the runtime can use: not a regular file (a FIFO would block for
    /// ever), empty or past `BackgroundModel.maxBytes`, or not a network OpenCV can read and run.
    case backgroundModelUnusable(path: String, reason: String)
    /// The model found no product to keep, or could not tell it from its background (glass, a white
    /// product on white): the photo is named rather than cut out wrong.
    case productNotFound(detail: String)

    /// A stable name for the kind of error, for JSON reports and metrics.
    public var code: String {
        switch self {
        case .libraryUnavailable: "library-unavailable"
        case .sourceUnreadable: "unreadable"
        case .emptySource: "empty"
        case .unsupportedFormat: "unsupported-format"
        case .blockedFormat: "blocked-format"
        case .tooManyPixels: "too-many-pixels"
        case .damaged: "damaged"
        case .invalidOption: "invalid-option"
        case .processingFailed: "processing-failed"
        case .encodeFailed: "encode-failed"
        case .cannotFitBudget: "cannot-fit-budget"
        case .outputFailed: "output-failed"
        case .outputUnavailable: "output-unavailable"
        case .outputUnsafe: "output-unsafe"
        case .outputLocked: "output-locked"
        case .cancelled: "cancelled"
        case .timedOut: "timed-out"
        case .overloaded: "overloaded"
        case .outOfMemory: "out-of-memory"
        case .backgroundModelMissing: "background-model-missing"
        case .backgroundUnavailable: "background-unavailable"
        case .backgroundModelUnusable: "background-model-unusable"
        case .productNotFound: "product-not-found"
        }
    }

    public var description: String {
        switch self {
        case .libraryUnavailable(let detail): "libvips could not start (\(detail))"
        case .sourceUnreadable(let code): "cannot read the file: \(code.map(Self.text(errno:)) ?? "not a regular file")"
        case .emptySource: "the file is empty (0 bytes)"
        case .unsupportedFormat: "not a supported image: JPEG, PNG, WebP, HEIC/HEIF, AVIF, TIFF or GIF expected"
        case .blockedFormat(let loader):
            "not a supported image: JPEG, PNG, WebP, HEIC/HEIF, AVIF, TIFF or GIF expected (\(loader) is blocked as unsafe for files from elsewhere)"
        case .tooManyPixels(let width, let height, let limit):
            "\(width)×\(height) is \(width * height) pixels, over the limit of \(limit); refused before decoding"
        case .damaged(let format, let detail):
            "the \(format) data is damaged or truncated" + (detail.isEmpty ? "" : " (\(detail))")
        case .invalidOption(let name, let value, let allowed): "\(name) \(value) is out of range: \(allowed)"
        case .processingFailed(let detail): "processing failed: \(detail)"
        case .encodeFailed(let format, let detail): "\(format.rawValue.uppercased()) encoding failed: \(detail)"
        case .cannotFitBudget(let maxBytes, let smallestBytes, let width, let height, let minQuality):
            "cannot fit in \(maxBytes) bytes: still \(smallestBytes) bytes at \(width)×\(height) and quality \(minQuality)"
        case .outputFailed(let path, let code), .outputUnavailable(let path, let code):
            "cannot write \(path): \(Self.text(errno: code))"
        case .outputUnsafe(let path): "cannot write \(path): a symbolic link in the output folder leads outside it"
        case .outputLocked(let directory): "another market-images run is writing to \(directory)"
        case .cancelled: "cancelled: nobody waits for it any more"
        case .timedOut(let limit): "stopped after \(String(format: "%g", limit.inSeconds)) s, the time one image may take"
        case .overloaded(let limit): "busy: every worker is taken and \(limit) jobs are waiting"
        case .outOfMemory: "not enough memory for an image this large"
        case .backgroundModelMissing(let searched): "no background model (u2netp.onnx) at \(searched.joined(separator: " or "))"
        case .backgroundUnavailable(let detail): "the background model's runtime could not be loaded (\(detail))"
        case .backgroundModelUnusable(let path, let reason): "the background model \(path) cannot be used: \(reason)"
        case .productNotFound(let detail): "the background was not replaced: \(detail)"
        }
    }

    static func text(errno code: Int32) -> String { String(cString: strerror(code)) }

    /// `invalidOption` for a value outside `range`; nil inside it.
    static func outOfRange(_ name: String, _ value: Int, _ range: ClosedRange<Int>) -> ImagePipelineError? {
        range.contains(value) ? nil : .invalidOption(name: name, value: String(value), allowed: "\(range.lowerBound)–\(range.upperBound)")
    }
}
