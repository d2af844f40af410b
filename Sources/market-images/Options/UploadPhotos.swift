import ArgumentParser
import Foundation
import ImagePipeline
import MarketUploader

/// Photos for an upload, run through `prepare` into a cache first, so any camera photo works and a
/// second upload of the same photos reuses the prepared files (the cache's manifest decides).
struct UploadPhotos: ParsableArguments {
    @OptionGroup var image: ImageOptions

    @Option(help: "Where prepared images are cached (default: $XDG_CACHE_HOME/market-images or ~/.cache/market-images).")
    var cache: String?

    /// Prepares `inputs` (photo files or one product folder) and returns them as upload parts, in order.
    func prepare(_ inputs: [String], jobs: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> [UploadImage] {
        let prepared = try run(inputs, jobs: jobs)
        let report = prepared.report
        for failure in report.failed { Terminal.standardError.error("\(Terminal.display(failure.source)): \(failure.message)") }
        if let cause = report.stopCause { throw CommandFailure("\(cause.message); nothing was sent") }
        guard report.succeeded else {
            throw CommandFailure("\(report.failed.count) photo(s) could not be prepared; nothing was sent")
        }
        return try prepared.uploads()
    }

    /// Prepares what is missing or changed in the cache and reports every photo, failed ones included.
    func run(_ inputs: [String], jobs: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> PreparedPhotos {
        var job = FolderJob(inputs: inputs, outputFolder: cacheFolder(for: inputs), prepare: image.prepareOptions)
        job.jobs = jobs
        job.photosPerProductLimit = ImageRules().countRange.upperBound
        let report = try FolderProcessor(job: job).run()
        let byOutput = Dictionary((report.written + report.upToDate).map { ($0.source, $0) }, uniquingKeysWith: { $1 })
        return PreparedPhotos(report: report, outputs: ProductScanner().scan(inputs).photos.compactMap { byOutput[$0.path] })
    }

    /// One cache folder per set of inputs, so products with the same folder name never share outputs.
    func cacheFolder(for inputs: [String]) -> String {
        let environment = ProcessInfo.processInfo.environment
        let root = cache ?? environment["XDG_CACHE_HOME"].map { $0 + "/market-images" }
            ?? NSHomeDirectory() + "/.cache/market-images"
        let key = inputs.map { URL(fileURLWithPath: $0).standardizedFileURL.path }.sorted().joined(separator: "\n")
        return root + "/prepared/" + Fingerprint.hex(key)
    }
}

/// A run of `prepare` into the upload cache: its report, and the prepared photos in upload order.
struct PreparedPhotos {
    var report: FolderReport
    var outputs: [Manifest.Output]

    func path(of output: Manifest.Output) -> String {
        URL(fileURLWithPath: report.outputFolder).appendingPathComponent(output.output).path
    }

    /// The prepared files as upload parts, each read once.
    func uploads() throws -> [UploadImage] {
        try outputs.map { try UploadImage(file: URL(fileURLWithPath: path(of: $0)), filename: ($0.output as NSString).lastPathComponent) }
    }
}
