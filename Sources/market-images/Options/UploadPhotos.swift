import ArgumentParser
import Foundation
import ImagePipeline
import MarketUploader
import Publishing

/// The flags of the photo cache uploads are prepared into (`Publishing.PhotoCache`), and the
/// printing of what failed.
struct UploadPhotos: ParsableArguments {
    @OptionGroup var image: ImageOptions

    @Option(help: "Where prepared images are cached (default: $XDG_CACHE_HOME/market-images or ~/.cache/market-images).")
    var cache: String?

    var photoCache: PhotoCache { PhotoCache(prepareOptions: image.prepareOptions, root: cache) }

    /// Prepares `inputs` (photo files or one product folder) and returns them as upload parts, in
    /// order; each photo that failed is named on stderr first.
    func prepare(_ inputs: [String], jobs: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> [UploadImage] {
        let prepared = try photoCache.prepare(inputs, jobs: jobs)
        for failure in prepared.report.failed { Terminal.standardError.error("\(Terminal.display(failure.source)): \(failure.message)") }
        do {
            return try prepared.uploads()
        } catch PublishingError.photosFailed(let failures) {
            throw CommandFailure("\(count(failures.count, "photo")) could not be prepared; nothing was sent")
        } catch PublishingError.preparationStopped {
            throw CommandFailure("\(prepared.report.stopCause?.message ?? "preparing stopped"); nothing was sent")
        }
    }
}
