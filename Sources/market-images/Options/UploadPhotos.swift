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

    /// The submission `make` builds from the photo cache; when photos could not be prepared, each is
    /// named on stderr, with what to do, before the error.
    func submission(_ make: (PhotoCache) throws -> ProductSubmission) throws -> ProductSubmission {
        do {
            return try make(photoCache)
        } catch PublishingError.photosFailed(let failures) {
            name(failures)
            throw CommandFailure("\(count(failures.count, "photo")) could not be prepared; nothing was sent")
        } catch PublishingError.preparationStopped(let cause, let failures) {
            name(failures)
            throw CommandFailure("\(cause.message); nothing was sent")
        }
    }

    private func name(_ failures: [Manifest.Failure]) {
        for failure in failures { Terminal.standardError.error("\(Terminal.display(failure.source)): \(failure.message)") }
    }
}
