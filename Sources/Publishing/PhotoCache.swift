import Foundation
import ImagePipeline
import MarketUploader

/// Where photos are prepared before they are uploaded: `prepare` into a cache folder per set of
/// inputs, so any camera photo works and a second upload of the same photos reuses the prepared
/// files (the cache's manifest decides). Prints nothing: progress goes to `onEvent`.
public struct PhotoCache: Sendable {
    public var prepareOptions: PrepareOptions
    /// The cache's root: `$XDG_CACHE_HOME/market-images` or `~/.cache/market-images` by default.
    public var root: String

    public init(prepareOptions: PrepareOptions, root: String? = nil) {
        self.prepareOptions = prepareOptions
        let environment = ProcessInfo.processInfo.environment
        self.root = root ?? environment["XDG_CACHE_HOME"].map { $0 + "/market-images" } ?? NSHomeDirectory() + "/.cache/market-images"
    }

    /// One cache folder per set of inputs, so products with the same folder name never share outputs.
    public func folder(for inputs: [String]) -> String {
        let key = inputs.map { URL(fileURLWithPath: $0).standardizedFileURL.path }.sorted().joined(separator: "\n")
        return root + "/prepared/" + Fingerprint.hex(key)
    }

    /// Prepares what is missing or changed in the cache and reports every photo, failed ones included.
    public func prepare(_ inputs: [String], jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                        onEvent: @escaping @Sendable (FolderEvent) -> Void = { _ in }) throws(ImagePipelineError) -> PreparedPhotos {
        var job = FolderJob(inputs: inputs, outputFolder: folder(for: inputs), prepare: prepareOptions)
        job.jobs = jobs
        job.photosPerProductLimit = ImageRules().countRange.upperBound
        // A product folder's photos are the ones directly in it: what `prepare` of the products
        // folder reads, what preview shows and what is uploaded are the same set.
        job.inputsAreProducts = true
        let report = try FolderProcessor(job: job).run(onEvent: onEvent)
        let byOutput = Dictionary((report.written + report.upToDate).map { ($0.source, $0) }, uniquingKeysWith: { $1 })
        return PreparedPhotos(report: report, outputs: ProductScanner(inputsAreProducts: true).scan(inputs).photos.compactMap { byOutput[$0.path] })
    }

    /// The prepared photos of `inputs` as upload parts, in order; any photo that failed stops it.
    public func uploads(_ inputs: [String], onEvent: @escaping @Sendable (FolderEvent) -> Void = { _ in }) throws -> [UploadImage] {
        try prepare(inputs, onEvent: onEvent).uploads()
    }
}
