import Foundation

/// Runs `prepare` over folders: scan, skip what is current, process the rest in parallel, write each
/// output atomically and record it in the manifest as soon as it exists.
///
/// One bad photo never stops the others: its error is recorded by file name and the run goes on.
public struct FolderProcessor: Sendable {
    public let job: FolderJob

    public init(job: FolderJob) {
        self.job = job
    }

    public func run(onEvent: @escaping @Sendable (FolderEvent) -> Void = { _ in }) throws(ImagePipelineError) -> FolderReport {
        try VipsRuntime.ensureStarted()
        let folder = URL(fileURLWithPath: job.outputFolder).standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .outputFailed(path: folder, reason: AtomicFile.reason(error))
        }
        let lock = try OutputLock(folder: folder)
        defer { withExtendedLifetime(lock) {} }
        AtomicFile.removeLeftovers(in: folder)

        let scan = ProductScanner().scan(job.inputs)
        var report = FolderReport(outputFolder: folder)
        report.warnings = scan.warnings
        if let limit = job.photosPerProductLimit {
            report.warnings += scan.products.filter { $0.photos.count > limit }.map {
                "\($0.name.isEmpty ? "(loose photos)" : $0.name): \($0.photos.count) photos; the server takes at most \(limit) per product"
            }
        }
        report.failed = scan.unreadable.map { Manifest.Failure(source: $0.input, error: $0.reason) }

        let previous = Manifest.load(from: folder)
        let previousBySource = Dictionary((previous?.outputs ?? []).map { ($0.source, $0) }, uniquingKeysWith: { $1 })
        let settings = job.options.fingerprint
        let photos = scan.photos
        var pending: [Int] = []
        var outcomes = [Outcome?](repeating: nil, count: photos.count)
        for (index, photo) in photos.enumerated() {
            if !job.force, let entry = previousBySource[photo.path],
               entry.settingsFingerprint == settings,
               entry.sourceFingerprint == SourceFingerprint.of(photo.path),
               Self.fileSize((folder as NSString).appendingPathComponent(entry.output)) == entry.bytes {
                outcomes[index] = .upToDate(entry)
            } else {
                pending.append(index)
            }
        }
        onEvent(.planned(pending: pending.count, upToDate: photos.count - pending.count))

        let state = RunState(manifest: previous ?? Manifest(settings: job.options), settings: job.options,
                             outcomes: outcomes, pending: pending)
        let preparer = ImagePreparer(options: job.options)
        let workers = max(1, min(job.jobs, pending.count))
        VipsRuntime.setThreadsPerImage(ProcessInfo.processInfo.activeProcessorCount / workers)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let index = state.nextPending() {
                let photo = photos[index]
                let outcome = process(photo, preparer: preparer, settings: settings, folder: folder)
                state.record(outcome, at: index, photo: photo, folder: folder)
                onEvent(.finished(photo, error: outcome.error))
            }
        }
        try state.saveManifest(to: folder)

        for (photo, outcome) in zip(photos, state.outcomes) {
            switch outcome {
            case .written(let entry)?: report.written.append(entry)
            case .upToDate(let entry)?: report.upToDate.append(entry)
            case .failed(let error)?: report.failed.append(Manifest.Failure(source: photo.path, error: error))
            case nil: break
            }
            report.warnings += outcome?.entry?.warnings?.map { "\(photo.path): \($0)" } ?? []
        }
        return report
    }

    private func process(_ photo: SourcePhoto, preparer: ImagePreparer, settings: String, folder: String) -> Outcome {
        // Fingerprint before reading, so a photo replaced mid-run is redone next time.
        guard let fingerprint = SourceFingerprint.of(photo.path) else {
            return .failed("the file disappeared or cannot be read")
        }
        do {
            let image = try preparer.encode(try preparer.decode(file: photo.path), stem: photo.outputStem)
            let relative = photo.outputPath(extension: image.format.fileExtension)
            try AtomicFile.write(image.data, to: (folder as NSString).appendingPathComponent(relative))
            return .written(Manifest.Output(
                source: photo.path, sourceFingerprint: fingerprint, settingsFingerprint: settings, output: relative,
                bytes: image.byteCount, width: image.width, height: image.height, format: image.format,
                quality: image.quality, encodes: image.encodes, warnings: image.warnings.isEmpty ? nil : image.warnings))
        } catch {
            return .failed(error.description)
        }
    }

    private static func fileSize(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    enum Outcome: Sendable {
        case written(Manifest.Output)
        case upToDate(Manifest.Output)
        case failed(String)

        var error: String? { if case .failed(let message) = self { message } else { nil } }
        var entry: Manifest.Output? {
            switch self {
            case .written(let entry), .upToDate(let entry): entry
            case .failed: nil
            }
        }
    }
}

/// The mutable part of a run, shared by the workers under one lock.
private final class RunState: @unchecked Sendable {
    private let lock = NSLock()
    private var manifest: Manifest
    private let pending: [Int]
    private var cursor = 0
    private(set) var outcomes: [FolderProcessor.Outcome?]

    init(manifest: Manifest, settings: PrepareOptions, outcomes: [FolderProcessor.Outcome?], pending: [Int]) {
        self.pending = pending
        self.manifest = manifest
        self.manifest.settings = settings
        self.manifest.failures = []
        self.outcomes = outcomes
    }

    func nextPending() -> Int? {
        lock.withLock {
            guard cursor < pending.count else { return nil }
            defer { cursor += 1 }
            return pending[cursor]
        }
    }

    /// Records a photo's outcome and persists the manifest at once, so a rerun after a kill redoes
    /// only what was in flight. A failed photo loses its old entry: its old output no longer matches it.
    func record(_ outcome: FolderProcessor.Outcome, at index: Int, photo: SourcePhoto, folder: String) {
        lock.withLock {
            outcomes[index] = outcome
            manifest.outputs.removeAll { $0.source == photo.path }
            switch outcome {
            case .written(let entry), .upToDate(let entry): manifest.outputs.append(entry)
            case .failed(let error): manifest.failures.append(Manifest.Failure(source: photo.path, error: error))
            }
            // A manifest that cannot be written now is written again after the next photo, and the
            // final save reports the error.
            try? manifest.save(to: folder)
        }
    }

    func saveManifest(to folder: String) throws(ImagePipelineError) {
        lock.lock()
        defer { lock.unlock() }
        manifest.outputs.sort { NaturalOrder.areInIncreasingOrder($0.output, $1.output) }
        try manifest.save(to: folder)
    }
}
