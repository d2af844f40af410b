import Foundation

/// Runs a `FolderJob`: scan, skip what is current, process the rest in parallel — one decode per
/// photo for all of its outputs — write each file atomically and record it as soon as it exists.
///
/// One bad photo never stops the others: its error is recorded by file name and the run goes on. Only
/// an output folder that can take nothing more (full disk, quota, read-only) stops the run, once, with
/// what was finished kept and recorded for the rerun.
public struct FolderProcessor: Sendable {
    public let job: FolderJob

    /// Refuses a job whose settings are out of range (see `FolderJob.problems`) before any work.
    public init(job: FolderJob) throws(ImagePipelineError) {
        if let problem = job.problems.first { throw problem }
        self.job = job
    }

    /// Processes on `pool`, or on a pool of `job.jobs` workers made for this run.
    public func run(on pool: ImageWorkPool? = nil, onEvent: @escaping @Sendable (FolderEvent) -> Void = { _ in }) throws(ImagePipelineError) -> FolderReport {
        try VipsRuntime.ensureStarted()
        let started = Date()
        let folder = URL(fileURLWithPath: job.outputFolder).standardizedFileURL.path
        let scan = ProductScanner(inputsAreProducts: job.inputsAreProducts).scan(job.inputs, excluding: folder)
        var report = FolderReport(outputFolder: folder)
        report.warnings = scan.warnings
        report.skipped = scan.skipped
        if let limit = job.photosPerProductLimit {
            report.warnings += scan.products.filter { $0.photos.count > limit }.map {
                "\($0.name.isEmpty ? "(loose photos)" : $0.name): \($0.photos.count) photos; the server takes at most \(limit) per product"
            }
        }
        report.failed = scan.unreadable.map { Manifest.Failure(source: $0.input, cause: $0.error) }
        // Nothing to read and nothing made before: no output folder appears for a typo.
        if scan.photos.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            report.elapsedSeconds = Date().timeIntervalSince(started)
            return report
        }
        let created = !FileManager.default.fileExists(atPath: folder)
        if !job.dryRun { try AtomicFile.makeFolders(folder) }
        let lock = job.dryRun ? nil : try OutputLock(folder: folder)
        defer { withExtendedLifetime(lock) {} }
        let thumbnailFolder = (folder as NSString).appendingPathComponent(job.thumbnailSubfolder)
        if !job.dryRun {
            AtomicFile.removeLeftovers(in: folder)
            if thumbnailFolder != folder { AtomicFile.removeLeftovers(in: thumbnailFolder) }
        }
        if job.thumbnails != nil { report.thumbnailFolder = thumbnailFolder }

        let records = Records(folder: folder, job: job)
        for failure in report.failed { records.recordInputFailure(failure) }
        let photos = scan.photos
        let work = photos.map { records.work(for: $0, force: job.force) }
        let pending = work.indices.filter { !work[$0].isEmpty }
        onEvent(.planned(pending: pending.count, upToDate: photos.count - pending.count))

        if job.dryRun {
            report.wouldProcess = pending.map { photos[$0].path }
            let orphans = records.orphans(keeping: Set(photos.map(\.path)))
            if job.prune { report.pruned = orphans } else { report.orphans = orphans }
            report.elapsedSeconds = Date().timeIntervalSince(started)
            return report
        }

        // The first error that stops the run; workers check it before each photo.
        let stop = Locked<ImagePipelineError?>(nil)
        let worker = PhotoWorker(job: job, records: records, folder: folder)
        let workers = pool ?? ImageWorkPool(workers: min(job.jobs, max(1, pending.count)))
        // One worker takes the photos in the folder's order; several take the slowest first.
        let order = workers.workers > 1 ? PhotoCost.slowestFirst(pending, of: photos) : pending
        workers.forEach(order.count) { position in
            guard stop.current == nil else { return }
            let photo = photos[order[position]]
            do throws(ImagePipelineError) {
                onEvent(.finished(try worker.process(photo, work[order[position]])))
            } catch {
                stop.withLock { $0 = $0 ?? error }
            }
        }
        let current = Set(photos.map(\.path))
        if job.prune, stop.current == nil {
            let pruned = records.prune(keeping: current)
            report.pruned = pruned.removed
            report.warnings += pruned.warnings
        } else if !job.prune {
            report.orphans = records.orphans(keeping: current)
        }
        do {
            try records.save()
        } catch {
            // When the disk is full the records may not fit either; the journal keeps them for the
            // rerun, and the stop already says why.
            if stop.current == nil { throw error }
        }
        records.fill(&report, photos: photos)
        report.duplicates = PhotoDuplicates.of(scan.products, prepared: report.written + report.upToDate, in: folder)
        // Every photo failed and nothing was there before: no output folder holding only records.
        if created, stop.current == nil, report.written.isEmpty, report.upToDate.isEmpty, report.thumbnailsWritten.isEmpty {
            try? FileManager.default.removeItem(atPath: folder)
        }
        if let error = stop.current {
            let finished = Set(report.written.map(\.source) + report.thumbnailsWritten.map(\.source) + report.failed.map(\.source))
            report.notProcessed = pending.filter { !finished.contains(photos[$0].path) }.count
            report.stopCause = error
            report.stopped = "\(error.description); \(report.notProcessed) of the photos not processed"
        }
        report.elapsedSeconds = Date().timeIntervalSince(started)
        return report
    }
}
