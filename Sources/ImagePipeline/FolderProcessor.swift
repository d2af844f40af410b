import Foundation

/// Runs a `FolderJob`: scan, skip what is current, process the rest in parallel — one decode per
/// photo for all of its outputs — write each file atomically and record it as soon as it exists.
///
/// One bad photo never stops the others: its error is recorded by file name and the run goes on. Only
/// an output folder that can take nothing more (full disk, quota, read-only) stops the run, once, with
/// what was finished kept and recorded for the rerun.
public struct FolderProcessor: Sendable {
    public let job: FolderJob

    public init(job: FolderJob) {
        self.job = job
    }

    public func run(onEvent: @escaping @Sendable (FolderEvent) -> Void = { _ in }) throws(ImagePipelineError) -> FolderReport {
        try VipsRuntime.ensureStarted()
        let started = Date()
        let folder = URL(fileURLWithPath: job.outputFolder).standardizedFileURL.path
        if !job.dryRun { try AtomicFile.makeFolders(folder) }
        let lock = job.dryRun ? nil : try OutputLock(folder: folder)
        defer { withExtendedLifetime(lock) {} }
        if !job.dryRun { AtomicFile.removeLeftovers(in: folder) }

        let scan = ProductScanner().scan(job.inputs)
        var report = FolderReport(outputFolder: folder)
        report.warnings = scan.warnings
        if let limit = job.photosPerProductLimit {
            report.warnings += scan.products.filter { $0.photos.count > limit }.map {
                "\($0.name.isEmpty ? "(loose photos)" : $0.name): \($0.photos.count) photos; the server takes at most \(limit) per product"
            }
        }
        report.failed = scan.unreadable.map { Manifest.Failure(source: $0.input, error: $0.reason) }

        let records = Records(folder: folder, job: job)
        let photos = scan.photos
        let work = photos.map { records.work(for: $0, force: job.force) }
        let pending = work.indices.filter { !work[$0].isEmpty }
        onEvent(.planned(pending: pending.count, upToDate: photos.count - pending.count))

        if job.dryRun {
            report.wouldProcess = pending.map { photos[$0].path }
            if job.prune { report.pruned = records.orphans(keeping: Set(photos.map(\.path))) }
            report.elapsedSeconds = Date().timeIntervalSince(started)
            return report
        }

        let workers = max(1, min(job.jobs, pending.count))
        VipsRuntime.setThreadsPerImage(ProcessInfo.processInfo.activeProcessorCount / workers)
        let queue = WorkQueue(pending)
        let maker = PhotoWorker(job: job, records: records, folder: folder)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let index = queue.next() {
                let photo = photos[index]
                do throws(ImagePipelineError) {
                    let failure = try maker.process(photo, work[index])
                    onEvent(.finished(photo, error: failure))
                } catch {
                    queue.stop(because: error)
                }
            }
        }
        if job.prune, queue.stoppedBecause == nil { report.pruned = records.prune(keeping: Set(photos.map(\.path))) }
        do {
            try records.save()
        } catch {
            // When the disk is full the records may not fit either; the stop already says why.
            if queue.stoppedBecause == nil { throw error }
        }
        records.fill(&report, photos: photos)
        if let error = queue.stoppedBecause {
            let finished = Set(report.written.map(\.source) + report.thumbnailsWritten.map(\.source) + report.failed.map(\.source))
            let left = pending.filter { !finished.contains(photos[$0].path) }.count
            report.stopped = "\(error.description); \(left) photo(s) not processed"
        }
        report.elapsedSeconds = Date().timeIntervalSince(started)
        return report
    }
}

/// Which outputs of one photo must be made this run.
struct PhotoWork: Sendable {
    var prepare = false
    var thumbnails = false
    var isEmpty: Bool { !prepare && !thumbnails }
}

/// Hands out indices to worker threads, until the work is done or a folder-wide error stops it.
private final class WorkQueue: @unchecked Sendable {
    private let lock = NSLock()
    private let items: [Int]
    private var cursor = 0
    private var stopError: ImagePipelineError?

    init(_ items: [Int]) { self.items = items }

    func next() -> Int? {
        lock.withLock {
            guard stopError == nil, cursor < items.count else { return nil }
            defer { cursor += 1 }
            return items[cursor]
        }
    }

    func stop(because error: ImagePipelineError) {
        lock.withLock { stopError = stopError ?? error }
    }

    var stoppedBecause: ImagePipelineError? { lock.withLock { stopError } }
}

/// Makes one photo's outputs.
private struct PhotoWorker: Sendable {
    let job: FolderJob
    let records: Records
    let folder: String

    /// Returns the photo's own error message when it failed; throws only what stops the whole run.
    func process(_ photo: SourcePhoto, _ work: PhotoWork) throws(ImagePipelineError) -> String? {
        // Fingerprint before reading, so a photo replaced mid-run is redone next time.
        guard let fingerprint = SourceFingerprint.of(photo.path) else {
            records.recordFailure(photo, "the file disappeared or cannot be read")
            return "the file disappeared or cannot be read"
        }
        do {
            let decoded = try decode(photo.path, work)
            if work.prepare, let options = job.prepare {
                let preparer = ImagePreparer(options: options)
                let sized = decoded.longEdge > options.maxEdge ? try decoded.fitting(edge: options.maxEdge) : decoded
                let image = try preparer.encode(sized, stem: photo.outputStem)
                let relative = photo.outputPath(extension: image.format.fileExtension)
                try AtomicFile.write(image.data, to: relative, in: folder)
                records.recordOutput(Manifest.Output(
                    source: photo.path, sourceFingerprint: fingerprint, settingsFingerprint: options.fingerprint,
                    output: relative, bytes: image.byteCount, width: image.width, height: image.height,
                    format: image.format, quality: image.quality, encodes: image.encodes,
                    warnings: image.warnings.isEmpty ? nil : image.warnings))
            }
            if work.thumbnails, let options = job.thumbnails {
                let made = try ThumbnailMaker(options: options).make(from: decoded, stemPath: photo.outputPath(extension: "").dropLast().description)
                for (thumbnail, data) in made {
                    try AtomicFile.write(data, to: thumbnail.path, in: folder)
                }
                records.recordThumbnails(ThumbnailIndex.Entry(
                    source: photo.path, sourceFingerprint: fingerprint, settingsFingerprint: options.fingerprint,
                    product: photo.product, thumbnails: made.map(\.0)))
            }
            return nil
        } catch {
            if case .outputUnavailable = error { throw error }
            records.recordFailure(photo, error.description)
            return error.description
        }
    }

    /// One decode, as large as the largest output needs and no larger.
    private func decode(_ path: String, _ work: PhotoWork) throws(ImagePipelineError) -> DecodedImage {
        let maxPixels = min(work.prepare ? job.prepare?.maxPixels ?? .max : .max,
                            work.thumbnails ? job.thumbnails?.maxPixels ?? .max : .max)
        let prepareBox = job.prepare.map { ($0.maxEdge, $0.maxEdge) }
        return try DecodedImage.decode(file: path, maxPixels: maxPixels) { header in
            let boxes = [work.prepare ? prepareBox : nil,
                         work.thumbnails ? job.thumbnails?.decodeBox(uprightWidth: header.uprightWidth, uprightHeight: header.uprightHeight) : nil]
            // Of the boxes needed, the one that keeps the most pixels serves them all.
            return boxes.compactMap { $0 }.max {
                Self.scale(into: $0, header) < Self.scale(into: $1, header)
            } ?? (header.uprightWidth, header.uprightHeight)
        }
    }

    private static func scale(into box: (width: Int, height: Int), _ header: ImageHeader) -> Double {
        min(Double(box.width) / Double(header.uprightWidth), Double(box.height) / Double(header.uprightHeight), 1)
    }
}
