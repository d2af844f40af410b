import ArgumentParser
import Foundation
import ImagePipeline
import MarketUploader

/// Options and behaviour shared by the commands that process folders (`prepare`, `thumbs`).
struct FolderRunOptions: ParsableArguments {
    @Argument(help: "Photo files, product folders, or folders of product folders.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output folder (created if missing).")
    var out: String

    @Option(name: .shortAndLong, help: "Photos processed in parallel (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "Redo every photo even if its outputs are up to date.")
    var force = false

    @Flag(help: "Remove outputs of photos that are gone and of settings no longer used.")
    var prune = false

    @Flag(help: "Print a machine-readable summary on standard output.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress display.")
    var quiet = false

    func validate() throws {
        let range = FolderJob.jobsRange
        if let jobs, !range.contains(jobs) { throw ValidationError("--jobs must be \(range.lowerBound)–\(range.upperBound)") }
        if let mistake = OutputFolderMistake.check(output: out, inputs: inputs) { throw ValidationError(mistake.message) }
    }

    func job(prepare: PrepareOptions?, thumbnails: ThumbnailOptions?) -> FolderJob {
        var job = FolderJob(inputs: inputs, outputFolder: out, prepare: prepare, thumbnails: thumbnails)
        if let jobs { job.jobs = jobs }
        job.force = force
        job.prune = prune
        // The server's limit concerns upload images, not thumbnails.
        if prepare != nil { job.photosPerProductLimit = ImageRules().countRange.upperBound }
        return job
    }

    /// Runs the job with a progress display and reports as photos finish: each result on stdout and
    /// each failure on stderr at once (not at the end, so a pipe sees them stream), then warnings and
    /// a summary. Exits 1 when any input failed.
    func execute(_ job: FolderJob) throws {
        let stderr = Terminal.standardError, stdout = Terminal.standardOutput
        let progress = ProgressDisplay(enabled: !quiet && !job.dryRun)
        let json = self.json
        // Sources whose failure was already printed as it happened.
        let reported = Locked(Set<String>())
        var report = try FolderProcessor(job: job).run { event in
            switch event {
            case .planned(let pending, _):
                progress.start(total: pending)
            case .finished(let outcome):
                if let error = outcome.error {
                    reported.withLock { _ = $0.insert(outcome.photo.path) }
                    progress.advance(failed: true) { stderr.error("\(Terminal.display(outcome.photo.path)): \(error.message)") }
                } else if !json {
                    let lines = Self.lines(outcome, thumbnailSubfolder: job.thumbnailSubfolder)
                    progress.advance(failed: false) { for line in lines { stdout.write(line + "\n") } }
                } else {
                    progress.advance(failed: false)
                }
            }
        }
        progress.finish()
        report.peakMemoryBytes = ResourceUsage.peakResidentBytes()

        // The library's sentences, with what to do about them in this tool's terms.
        for index in report.failed.indices { report.failed[index].error = report.failed[index].message }
        if let cause = report.stopCause { report.stopped = "\(cause.message); \(report.notProcessed) photo(s) not processed" }
        // Inputs that could not be read at all never reached a worker: report them here.
        for failure in report.failed where !reported.current.contains(failure.source) {
            stderr.error("\(Terminal.display(failure.source)): \(failure.error)")
        }
        for warning in report.warnings { stderr.warning(Terminal.display(warning)) }
        for duplicate in report.duplicates { stderr.warning(Terminal.display(duplicate.sentence(naming: duplicate.source))) }
        if !report.orphans.isEmpty {
            stderr.warning("\(count(report.orphans.count, "file")) of photos or settings no longer used remain in "
                + "\(Terminal.display(report.outputFolder)); --prune removes them")
        }
        if let stopped = report.stopped { stderr.error("stopped: \(stopped)") }
        if json {
            try printJSON(report)
        } else {
            if job.dryRun {
                for source in report.wouldProcess { stdout.write("would process \(Terminal.display(source))\n") }
                for path in report.pruned { stdout.write("would prune \(Terminal.display(path))\n") }
            } else {
                for path in report.pruned { stdout.write("pruned \(Terminal.display(path))\n") }
            }
            stderr.write(Self.summary(report, job) + "\n")
        }
        if !report.succeeded { throw ExitCode.failure }
    }

    /// A line per file written for one photo, paths relative to the output folder.
    static func lines(_ outcome: PhotoOutcome, thumbnailSubfolder: String) -> [String] {
        var lines: [String] = []
        if let output = outcome.output {
            let quality = output.quality.map { "Q\($0)" } ?? output.format.rawValue.uppercased()
            lines.append("\(Terminal.display(output.output))  \(output.width)×\(output.height)  \(quality)  \(output.bytes) bytes  "
                + "(\(count(output.encodes, "encode")))")
        }
        for thumbnail in outcome.thumbnails {
            let path = (thumbnailSubfolder as NSString).appendingPathComponent(thumbnail.path)
            lines.append("\(Terminal.display(path))  \(thumbnail.width)×\(thumbnail.height)  \(thumbnail.bytes) bytes")
        }
        return lines
    }

    static func summary(_ report: FolderReport, _ job: FolderJob) -> String {
        var parts: [String] = []
        if job.dryRun {
            parts.append("dry run: \(count(report.wouldProcess.count, "photo")) to process")
            if job.prune { parts.append("\(count(report.pruned.count, "file")) to prune") }
        } else {
            if job.prepare != nil { parts += ["\(report.written.count) written", "\(report.upToDate.count) up to date"] }
            if job.thumbnails != nil {
                parts += ["thumbnails for \(count(report.thumbnailsWritten.count, "photo"))", "\(report.thumbnailsUpToDate) up to date"]
            }
            if job.prune { parts.append("\(report.pruned.count) pruned") }
        }
        if !report.failed.isEmpty { parts.append("\(report.failed.count) failed") }
        return parts.joined(separator: ", ") + " → \(Terminal.display(report.outputFolder))"
    }
}
