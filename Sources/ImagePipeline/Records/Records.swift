import Foundation

/// The manifest and the thumbnail index of one output folder, shared by the workers under one lock.
///
/// Each finished photo costs one appended journal line, whatever the folder's size; the documents
/// are written once, at the end (see `RecordJournal`). A run killed at any moment loses only the
/// photos in flight: the next run replays the journal and finds everything else current.
final class Records: @unchecked Sendable {
    private let lock = NSLock()
    private let folder: String
    /// Where the thumbnails and their index are: `folder` or a subfolder of it.
    private let thumbnailFolder: String
    private let job: FolderJob
    private let journal: RecordJournal
    private var settings: PrepareOptions?
    private var thumbnailSettings: ThumbnailOptions?
    private var variantNames: Set<String>
    private var outputs: [String: Manifest.Output]
    private var thumbnails: [String: ThumbnailIndex.Entry]
    private var failures: [String: Manifest.Failure] = [:]
    /// Whether the thumbnail index exists or must be written: a prepare-only run keeps one it finds,
    /// since pruning and apps rely on it.
    private let keepsIndex: Bool
    /// What this run made, by source path, for the report.
    private var written: Set<String> = []
    private var thumbnailed: Set<String> = []

    init(folder: String, job: FolderJob) {
        self.folder = folder
        thumbnailFolder = (folder as NSString).appendingPathComponent(job.thumbnailSubfolder)
        self.job = job
        journal = RecordJournal(folder: folder)
        let manifest = Manifest.load(from: folder)
        let index = ThumbnailIndex.load(from: thumbnailFolder)
        settings = job.prepare
        thumbnailSettings = job.thumbnails ?? index?.settings
        keepsIndex = job.thumbnails != nil || index != nil
        variantNames = (index?.variantNames ?? []).union(job.thumbnails?.variants.map(\.name) ?? [])
        outputs = Dictionary((manifest?.outputs ?? []).map { ($0.source, $0) }, uniquingKeysWith: { $1 })
        thumbnails = Dictionary((index?.sources ?? []).map { ($0.source, $0) }, uniquingKeysWith: { $1 })
        for entry in journal.replay() { apply(entry) }
        // What a killed run finished is up to date now; this run's report starts empty.
        written = []
        thumbnailed = []
    }

    /// What must be made for `photo`: outputs missing, or made from another version of the source or
    /// other settings. Checking sizes on disk catches a deleted or replaced output.
    func work(for photo: SourcePhoto, force: Bool) -> PhotoWork {
        let fingerprint = SourceFingerprint.of(photo.path)
        return lock.withLock {
            var work = PhotoWork()
            if let settings = job.prepare {
                work.prepare = force || !(outputs[photo.path].map {
                    $0.sourceFingerprint == fingerprint && $0.settingsFingerprint == settings.fingerprint
                        && hasFile($0.output, bytes: $0.bytes)
                } ?? false)
            }
            if let settings = job.thumbnails {
                work.thumbnails = force || !(thumbnails[photo.path].map {
                    $0.sourceFingerprint == fingerprint && $0.settingsFingerprint == settings.fingerprint
                        && $0.thumbnails.allSatisfy { hasFile(thumbnailPath($0.path), bytes: $0.bytes) }
                } ?? false)
            }
            return work
        }
    }

    private func hasFile(_ relative: String, bytes: Int) -> Bool {
        (try? FileStatus.of((folder as NSString).appendingPathComponent(relative)).get())?.size == bytes
    }

    /// A thumbnail's path (relative to its index) relative to the output folder.
    private func thumbnailPath(_ relative: String) -> String {
        (job.thumbnailSubfolder as NSString).appendingPathComponent(relative)
    }

    func recordOutput(_ output: Manifest.Output) throws(ImagePipelineError) {
        try record(.output(output))
    }

    func recordThumbnails(_ entry: ThumbnailIndex.Entry) throws(ImagePipelineError) {
        try record(.thumbnails(entry))
    }

    /// A failed photo loses its old entries: its old outputs no longer match it.
    func recordFailure(_ photo: SourcePhoto, _ error: ImagePipelineError) {
        lock.withLock {
            failures[photo.path] = Manifest.Failure(source: photo.path, cause: error)
            // Not journalled as such: a rerun tries a failed photo again anyway. Dropping its old
            // entries is, so a killed run cannot resurrect outputs that no longer match.
            let entry = RecordJournal.Entry.failure(source: photo.path, error: error.description, kind: error.code)
            try? journal.append(entry)
            apply(entry)
        }
    }

    /// An input that could not be read at all, kept in the manifest's failures with the others.
    func recordInputFailure(_ failure: Manifest.Failure) {
        lock.withLock { failures[failure.source] = failure }
    }

    private func record(_ entry: RecordJournal.Entry) throws(ImagePipelineError) {
        lock.lock()
        defer { lock.unlock() }
        try journal.append(entry)
        apply(entry)
    }

    private func apply(_ entry: RecordJournal.Entry) {
        switch entry {
        case .output(let output):
            outputs[output.source] = output
            written.insert(output.source)
        case .thumbnails(let entry):
            thumbnails[entry.source] = entry
            thumbnailed.insert(entry.source)
        case .failure(let source, _, _):
            if job.prepare != nil { outputs[source] = nil }
            if job.thumbnails != nil { thumbnails[source] = nil }
        }
    }

    /// Writes the documents (each only if its bytes changed) and then drops the journal.
    func save() throws(ImagePipelineError) {
        lock.lock()
        defer { lock.unlock() }
        if let settings {
            var manifest = Manifest(settings: settings)
            manifest.outputs = outputs.values.sorted { ProductScanner.inNaturalOrder($0.output, $1.output) }
            manifest.failures = failures.values.sorted { ProductScanner.inNaturalOrder($0.source, $1.source) }
            try manifest.save(to: folder)
        }
        if keepsIndex, let thumbnailSettings {
            var index = ThumbnailIndex(settings: thumbnailSettings)
            index.sources = thumbnails.values.sorted { ProductScanner.inNaturalOrder($0.source, $1.source) }
            index.variantNames = variantNames
            try AtomicFile.makeFolders(thumbnailFolder)
            try index.save(to: thumbnailFolder)
        }
        journal.remove()
    }

    /// Files this folder made that should not exist now: upload images and thumbnails of sources that
    /// are gone (deleted, or no longer among the inputs of a run over the same folders), thumbnails of
    /// variants, scales or a format no longer configured, and thumbnail-named files no entry lists.
    /// Only the kinds of output this job makes are considered.
    func orphans(keeping current: Set<String>) -> [String] {
        lock.withLock { orphansLocked(keeping: current) }
    }

    private func isGone(_ source: String, _ current: Set<String>) -> Bool {
        !current.contains(source) && !FileManager.default.fileExists(atPath: source)
    }

    private func orphansLocked(keeping current: Set<String>) -> [String] {
        var orphans: [String] = []
        let uploads = (settings != nil ? Array(outputs.values) : Manifest.load(from: folder)?.outputs ?? [])
        if job.prepare != nil {
            orphans += uploads.filter { isGone($0.source, current) }.map(\.output)
        }
        if let wanted = job.thumbnails {
            let made = Set(wanted.sizes.map { "\($0.variant)@\($0.scale)x.\(wanted.format.fileExtension)" })
            let kept = thumbnails.values.filter { !isGone($0.source, current) }.flatMap(\.thumbnails)
                .filter { made.contains("\($0.variant)@\($0.scale)x.\(($0.path as NSString).pathExtension)") }
            let protected = Set(kept.map { thumbnailPath($0.path) }).union(uploads.map(\.output))
            orphans += Self.thumbnailFiles(in: thumbnailFolder, variants: variantNames).map(thumbnailPath)
                .filter { !protected.contains($0) }
        }
        return orphans.sorted(by: ProductScanner.inNaturalOrder)
    }

    /// Removes the orphans and their entries; returns those removed and a warning for each that
    /// could not be.
    func prune(keeping current: Set<String>) -> (removed: [String], warnings: [String]) {
        lock.withLock {
            var removed: [String] = [], warnings: [String] = []
            for path in orphansLocked(keeping: current) {
                if unlink((folder as NSString).appendingPathComponent(path)) == 0 || errno == ENOENT {
                    removed.append(path)
                } else {
                    warnings.append("could not prune \(path): \(ImagePipelineError.text(errno: errno))")
                }
            }
            if job.prepare != nil { outputs = outputs.filter { !isGone($0.key, current) } }
            if job.thumbnails != nil { thumbnails = thumbnails.filter { !isGone($0.key, current) } }
            return (removed, warnings)
        }
    }

    /// Files named like thumbnails of the given variants (`stem.variant@2x.jpg`, any output format)
    /// in the folder and its product subfolders.
    private static func thumbnailFiles(in folder: String, variants: Set<String>) -> [String] {
        guard !variants.isEmpty, let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        let extensions = OutputFormat.allCases.map(\.fileExtension).joined(separator: "|")
        var files: [String] = []
        for case let relative as String in enumerator {
            if enumerator.level > 1 { enumerator.skipDescendants() }
            guard let match = relative.range(of: #"\.[^./@]+@[1-9]x\.("# + extensions + ")$", options: .regularExpression) else { continue }
            let variant = relative[match].dropFirst().prefix { $0 != "@" }
            if variants.contains(String(variant)) { files.append(relative) }
        }
        return files
    }

    /// Fills the report in input order.
    func fill(_ report: inout FolderReport, photos: [SourcePhoto]) {
        lock.withLock {
            for photo in photos {
                if let failure = failures[photo.path] {
                    report.failed.append(failure)
                    continue
                }
                if job.prepare != nil, let output = outputs[photo.path] {
                    if written.contains(photo.path) { report.written.append(output) } else { report.upToDate.append(output) }
                    report.warnings += output.warnings?.map { "\(photo.path): \($0)" } ?? []
                }
                if job.thumbnails != nil, let entry = thumbnails[photo.path] {
                    if thumbnailed.contains(photo.path) { report.thumbnailsWritten.append(entry) } else { report.thumbnailsUpToDate += 1 }
                }
            }
        }
    }
}
