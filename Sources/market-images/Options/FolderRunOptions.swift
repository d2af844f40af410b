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

    @Option(name: .shortAndLong, help: "Photos processed in parallel (default: number of cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Redo every photo even if its outputs are up to date.")
    var force = false

    @Flag(help: "Print a machine-readable summary on standard output.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress display.")
    var quiet = false

    func validate() throws {
        let range = FolderJob.jobsRange
        guard range.contains(jobs) else { throw ValidationError("--jobs must be \(range.lowerBound)–\(range.upperBound)") }
    }

    func job(prepare: PrepareOptions?, thumbnails: ThumbnailOptions?) -> FolderJob {
        var job = FolderJob(inputs: inputs, outputFolder: out, prepare: prepare, thumbnails: thumbnails)
        job.jobs = jobs
        job.force = force
        job.photosPerProductLimit = ImageRules().countRange.upperBound
        return job
    }

    /// Runs the job with a progress display, reports problems on stderr and results on stdout, and
    /// exits 1 when any input failed.
    func execute(_ job: FolderJob, describe: (FolderReport) -> [String]) throws {
        let stderr = Terminal.standardError
        let progress = ProgressDisplay(enabled: !quiet && !job.dryRun)
        var report = try FolderProcessor(job: job).run { event in
            switch event {
            case .planned(let pending, _): progress.start(total: pending)
            case .finished(_, let error): progress.advance(failed: error != nil)
            }
        }
        progress.finish()
        report.peakMemoryBytes = ResourceUsage.peakResidentBytes()

        for warning in report.warnings { stderr.warning(warning) }
        // The library's sentences, with what to do about them in this tool's terms.
        for index in report.failed.indices { report.failed[index].error = report.failed[index].message }
        if let cause = report.stopCause { report.stopped = "\(cause.message); \(report.notProcessed) photo(s) not processed" }
        for failure in report.failed { stderr.error("\(Terminal.display(failure.source)): \(failure.error)") }
        if let stopped = report.stopped { stderr.error("stopped: \(stopped)") }
        if json {
            try printJSON(report)
        } else {
            for line in describe(report) { Terminal.standardOutput.write(line + "\n") }
            stderr.write(Self.summary(report, job) + "\n")
        }
        if !report.succeeded { throw ExitCode.failure }
    }

    static func summary(_ report: FolderReport, _ job: FolderJob) -> String {
        var parts: [String] = []
        if job.dryRun {
            parts.append("dry run: \(report.wouldProcess.count) to process")
            if job.prune { parts.append("\(report.pruned.count) to prune") }
        } else {
            if job.prepare != nil { parts += ["\(report.written.count) written", "\(report.upToDate.count) up to date"] }
            if job.thumbnails != nil {
                parts += ["thumbnails for \(report.thumbnailsWritten.count) photos", "\(report.thumbnailsUpToDate) up to date"]
            }
            if job.prune { parts.append("\(report.pruned.count) pruned") }
        }
        if !report.failed.isEmpty { parts.append("\(report.failed.count) failed") }
        return parts.joined(separator: ", ") + " → \(Terminal.display(report.outputFolder))"
    }
}
