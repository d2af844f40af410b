import Foundation
import ImagePipeline
import MarketUploader

/// A run of `prepare` into the photo cache: its report, and the prepared photos in upload order.
public struct PreparedPhotos: Sendable {
    public var report: FolderReport
    public var outputs: [Manifest.Output]

    /// The run's warnings (each photo's among them) as the product folder's own: `IMG_3.jp2: …`, not
    /// the full path, since whoever shows them names the folder already.
    public func warnings(of folder: String) -> [String] {
        report.warnings.map { warning in
            for prefix in [folder + "/", folder + ": "] where warning.hasPrefix(prefix) { return String(warning.dropFirst(prefix.count)) }
            return warning
        }
    }

    public func path(of output: Manifest.Output) -> String {
        URL(fileURLWithPath: report.outputFolder).appendingPathComponent(output.output).path
    }

    /// Each photo that could not be prepared: `IMG_3.jpg: <why>`.
    public var failures: [String] { report.failed.map(\.named) }

    /// The prepared files as upload parts, each read once; nothing when a photo failed or the run
    /// stopped, since an upload must carry the whole set.
    public func uploads() throws -> [UploadImage] {
        if let cause = report.stopCause { throw PublishingError.preparationStopped(cause, failures: report.failed) }
        guard report.succeeded else { throw PublishingError.photosFailed(report.failed) }
        return try outputs.map { try UploadImage(file: URL(fileURLWithPath: path(of: $0)), filename: ($0.output as NSString).lastPathComponent) }
    }
}
