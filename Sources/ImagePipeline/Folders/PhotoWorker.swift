import Foundation

/// Which outputs of one photo must be made this run.
struct PhotoWork: Sendable {
    var prepare = false
    var thumbnails = false
    var isEmpty: Bool { !prepare && !thumbnails }
}

/// Makes one photo's outputs from one decode, writes them and records them.
struct PhotoWorker: Sendable {
    let job: FolderJob
    let records: Records
    let folder: String

    /// What became of the photo, its own error included; throws only what stops the whole run.
    func process(_ photo: SourcePhoto, _ work: PhotoWork) throws(ImagePipelineError) -> PhotoOutcome {
        var outcome = PhotoOutcome(photo: photo)
        // Fingerprint before reading, so a photo replaced mid-run is redone next time.
        guard let fingerprint = SourceFingerprint.of(photo.path) else {
            let error = ImagePipelineError.sourceUnreadable(errno: ENOENT)
            records.recordFailure(photo, error)
            outcome.error = error
            return outcome
        }
        do {
            let decoded = try decode(photo.path, work)
            if work.prepare, let options = job.prepare {
                let image = try ImagePreparer(options: options).encode(decoded, stem: photo.outputStem)
                let relative = photo.outputPath(extension: image.format.fileExtension)
                try AtomicFile.write(image.data, to: relative, in: folder)
                let output = Manifest.Output(
                    source: photo.path, sourceFingerprint: fingerprint, settingsFingerprint: options.fingerprint,
                    output: relative, bytes: image.byteCount, width: image.width, height: image.height,
                    format: image.format, quality: image.quality, encodes: image.encodes,
                    warnings: image.warnings.isEmpty ? nil : image.warnings, look: image.look, score: image.score.map { ($0 * 10).rounded() / 10 },
                    frame: image.frame)
                try records.recordOutput(output)
                outcome.output = output
            }
            if work.thumbnails, let options = job.thumbnails {
                let made = try ThumbnailMaker(options: options).make(from: decoded, stemPath: photo.outputPath(extension: "").dropLast().description)
                for (thumbnail, data) in made {
                    try AtomicFile.write(data, to: (job.thumbnailSubfolder as NSString).appendingPathComponent(thumbnail.path), in: folder)
                }
                outcome.thumbnails = made.map(\.0)
                try records.recordThumbnails(ThumbnailIndex.Entry(
                    source: photo.path, sourceFingerprint: fingerprint, settingsFingerprint: options.fingerprint,
                    product: photo.product, thumbnails: outcome.thumbnails, placeholder: try decoded.placeholder()))
            }
        } catch {
            if case .outputUnavailable = error { throw error }
            records.recordFailure(photo, error)
            outcome.error = error
        }
        return outcome
    }

    /// One decode, as large as the largest output needs and no larger. A photo must pass the pixel
    /// limit of every output it is decoded for.
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
