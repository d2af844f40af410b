import Foundation

/// The manifest and the thumbnail index of one output folder, shared by the workers under one lock.
///
/// Each finished photo is written to disk at once, so a run killed at any moment loses only the
/// photos in flight: the next run finds everything else current.
final class Records: @unchecked Sendable {
    private let lock = NSLock()
    private let folder: String
    private let job: FolderJob
    private var manifest: Manifest?
    private var index: ThumbnailIndex?
    private let previousOutputs: [String: Manifest.Output]
    private let previousThumbnails: [String: ThumbnailIndex.Entry]
    /// What happened this run, by source path, for the report.
    private var failures: [String: String] = [:]
    private var written: Set<String> = []
    private var thumbnailed: Set<String> = []

    init(folder: String, job: FolderJob) {
        self.folder = folder
        self.job = job
        manifest = job.prepare.map { settings in
            var manifest = Manifest.load(from: folder) ?? Manifest(settings: settings)
            manifest.settings = settings
            manifest.failures = []
            return manifest
        }
        // The index is kept even by a prepare-only run: pruning and apps rely on it.
        let loadedIndex = ThumbnailIndex.load(from: folder)
        index = job.thumbnails.map { settings in
            var index = loadedIndex ?? ThumbnailIndex(settings: settings)
            index.settings = settings
            index.variantNames.formUnion(settings.variants.map(\.name))
            return index
        } ?? loadedIndex
        previousOutputs = Dictionary((manifest?.outputs ?? []).map { ($0.source, $0) }, uniquingKeysWith: { $1 })
        previousThumbnails = Dictionary((index?.sources ?? []).map { ($0.source, $0) }, uniquingKeysWith: { $1 })
    }

    /// What must be made for `photo`: outputs missing, or made from another version of the source or
    /// other settings. Checking sizes on disk catches a deleted or replaced output.
    func work(for photo: SourcePhoto, force: Bool) -> PhotoWork {
        let fingerprint = SourceFingerprint.of(photo.path)
        var work = PhotoWork()
        if let settings = job.prepare {
            let entry = previousOutputs[photo.path]
            work.prepare = force || !(entry.map {
                $0.sourceFingerprint == fingerprint && $0.settingsFingerprint == settings.fingerprint && hasFile($0.output, bytes: $0.bytes)
            } ?? false)
        }
        if let settings = job.thumbnails {
            let entry = previousThumbnails[photo.path]
            work.thumbnails = force || !(entry.map {
                $0.sourceFingerprint == fingerprint && $0.settingsFingerprint == settings.fingerprint
                    && $0.thumbnails.allSatisfy { hasFile($0.path, bytes: $0.bytes) }
            } ?? false)
        }
        return work
    }

    private func hasFile(_ relative: String, bytes: Int) -> Bool {
        var info = stat()
        return stat((folder as NSString).appendingPathComponent(relative), &info) == 0 && Int(info.st_size) == bytes
    }

    func recordOutput(_ output: Manifest.Output) {
        update {
            manifest?.outputs.removeAll { $0.source == output.source }
            manifest?.outputs.append(output)
            written.insert(output.source)
        }
    }

    func recordThumbnails(_ entry: ThumbnailIndex.Entry) {
        update {
            index?.sources.removeAll { $0.source == entry.source }
            index?.sources.append(entry)
            thumbnailed.insert(entry.source)
        }
    }

    /// A failed photo loses its old entries: its old outputs no longer match it.
    func recordFailure(_ photo: SourcePhoto, _ error: String) {
        update {
            failures[photo.path] = error
            if job.prepare != nil {
                manifest?.outputs.removeAll { $0.source == photo.path }
                manifest?.failures.append(Manifest.Failure(source: photo.path, error: error))
            }
            if job.thumbnails != nil { index?.sources.removeAll { $0.source == photo.path } }
        }
    }

    private func update(_ change: () -> Void) {
        lock.withLock {
            change()
            // A record that cannot be written now is written again after the next photo, and the
            // final save reports the error.
            try? saveLocked()
        }
    }

    func save() throws(ImagePipelineError) {
        lock.lock()
        defer { lock.unlock() }
        manifest?.outputs.sort { NaturalOrder.areInIncreasingOrder($0.output, $1.output) }
        index?.sources.sort { NaturalOrder.areInIncreasingOrder($0.source, $1.source) }
        try saveLocked()
    }

    private func saveLocked() throws(ImagePipelineError) {
        if job.prepare != nil { try manifest?.save(to: folder) }
        if job.thumbnails != nil || job.prune { try index?.save(to: folder) }
    }

    /// Thumbnail files that should not exist: those of sources that are gone (deleted, or no longer
    /// among the inputs of a run over the same folders), and thumbnail-named files no entry lists
    /// (variants dropped from the settings). Upload images in the manifest are never touched.
    func orphans(keeping current: Set<String>) -> [String] {
        lock.withLock {
            let gone = (index?.sources ?? []).filter { !current.contains($0.source) && !FileManager.default.fileExists(atPath: $0.source) }
            let goneSources = Set(gone.map(\.source))
            let listed = Set((index?.sources ?? []).filter { !goneSources.contains($0.source) }.flatMap { $0.thumbnails.map(\.path) })
            let protected = listed.union((manifest ?? Manifest.load(from: folder))?.outputs.map(\.output) ?? [])
            let onDisk = Self.thumbnailFiles(in: folder, variants: index?.variantNames ?? [])
            return onDisk.filter { !protected.contains($0) }.sorted(by: NaturalOrder.areInIncreasingOrder)
        }
    }

    func prune(keeping current: Set<String>) -> [String] {
        let orphans = orphans(keeping: current)
        lock.withLock {
            for path in orphans { unlink((folder as NSString).appendingPathComponent(path)) }
            index?.sources.removeAll { !current.contains($0.source) && !FileManager.default.fileExists(atPath: $0.source) }
        }
        return orphans
    }

    /// Files named like thumbnails of the given variants (`stem.variant@2x.jpg`) in the folder and
    /// its product subfolders.
    private static func thumbnailFiles(in folder: String, variants: Set<String>) -> [String] {
        guard !variants.isEmpty, let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        for case let relative as String in enumerator {
            if enumerator.level > 1 { enumerator.skipDescendants() }
            guard let match = relative.range(of: #"\.[A-Za-z0-9_-]+@[1-9]x\.(jpg|webp)$"#, options: .regularExpression) else { continue }
            let variant = relative[match].dropFirst().prefix { $0 != "@" }
            if variants.contains(String(variant)) { files.append(relative) }
        }
        return files
    }

    /// Fills the report in input order.
    func fill(_ report: inout FolderReport, photos: [SourcePhoto]) {
        lock.withLock {
            let outputs = Dictionary((manifest?.outputs ?? []).map { ($0.source, $0) }, uniquingKeysWith: { $1 })
            let thumbnails = Dictionary((index?.sources ?? []).map { ($0.source, $0) }, uniquingKeysWith: { $1 })
            for photo in photos {
                if let error = failures[photo.path] {
                    report.failed.append(Manifest.Failure(source: photo.path, error: error))
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
