import ArgumentParser
import Foundation
import ImagePipeline
import MarketUploader

struct Prepare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make upload-ready images from photo folders.",
        discussion: """
        A folder whose photos sit directly in it is one product; a folder of subfolders is one product \
        per subfolder (photos/sku-123/*.HEIC → OUT/sku-123/*.jpg); photos named one by one go straight \
        into OUT. Each photo is made upright, converted to sRGB, stripped of all metadata (EXIF, GPS, \
        XMP, IPTC), fitted inside --max-edge and encoded at the highest quality that fits --max-bytes.

        OUT/manifest.json records every output. A rerun redoes only photos that changed or whose \
        settings changed; --force redoes everything. Sources are never modified, outputs are written \
        atomically, and a run that was killed completes on the next run.

        EXAMPLES:
          market-images prepare ~/Pictures/listing --out ready
          market-images prepare products/ --out ready --max-bytes 250000 --json
          market-images prepare IMG_0001.HEIC IMG_0002.HEIC --out ready --format png
        """
    )

    @Argument(help: "Photo files, product folders, or folders of product folders.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output folder (created if missing).")
    var out: String

    @OptionGroup var image: ImageOptions

    @Option(name: .shortAndLong, help: "Photos processed in parallel (default: number of cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Redo every photo even if its output is up to date.")
    var force = false

    @Flag(help: "Print a machine-readable summary on standard output.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress display.")
    var quiet = false

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        let stderr = Terminal.standardError
        let progress = ProgressDisplay(enabled: !quiet)
        let job = FolderJob(inputs: inputs, outputFolder: out, options: image.prepareOptions, jobs: jobs, force: force,
                            photosPerProductLimit: ImageRules().countRange.upperBound)
        let report = try FolderProcessor(job: job).run { event in
            switch event {
            case .planned(let pending, _): progress.start(total: pending)
            case .finished(_, let error): progress.advance(failed: error != nil)
            }
        }
        progress.finish()

        for warning in report.warnings { stderr.warning(warning) }
        for failure in report.failed { stderr.error("\(Terminal.display(failure.source)): \(failure.error)") }
        if json {
            try printJSON(report)
        } else {
            for output in report.written { Terminal.standardOutput.write(Self.describe(output) + "\n") }
            stderr.write(Self.summary(report) + "\n")
        }
        if !report.succeeded { throw ExitCode.failure }
    }

    static func describe(_ output: Manifest.Output) -> String {
        let quality = output.quality.map { "Q\($0)" } ?? output.format.rawValue.uppercased()
        return "\(output.output)  \(output.width)×\(output.height)  \(quality)  \(output.bytes) bytes  (\(output.encodes) encode\(output.encodes == 1 ? "" : "s"))"
    }

    static func summary(_ report: FolderReport) -> String {
        var parts = ["\(report.written.count) written", "\(report.upToDate.count) up to date"]
        if !report.failed.isEmpty { parts.append("\(report.failed.count) failed") }
        return parts.joined(separator: ", ") + " → \(Terminal.display(report.outputFolder))"
    }
}
