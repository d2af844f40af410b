import Foundation
import ImagePipeline
import MarketUploader

/// One product folder checked whole before anything is sent: its fields, its photos prepared, and
/// everything wrong with them at once, so a seller fixes a folder in one pass instead of one problem
/// per run. `publish` blocks a folder on its problems and `preview` lists them, from this one check.
public struct ProductCheck: Sendable {
    /// What `product.json` sets well (nil without a usable file).
    public var fields: ProductChange?
    /// The product to send, when every required field is there.
    public var draft: ProductDraft?
    public var prepared: PreparedPhotos?
    /// What is wrong with the fields: `product.json`'s keys, missing fields, the server's rules.
    public var fieldProblems: [String] = []
    /// Photos that could not be prepared (each with its reason), or why preparing stopped.
    public var photoFailures: [String] = []
    /// Photos too small or too narrow to show a product (`PhotoShape`), unless odd shapes are allowed.
    public var shapeProblems: [String] = []
    /// What is wrong with the prepared set for the server: no photos, their count, bytes and types.
    public var photoProblems: [String] = []
    /// What is allowed but worth a look: photos not read or in subfolders, a deep sale, odd shapes
    /// when allowed.
    public var warnings: [String] = []
    /// The prepared photos as upload parts, when nothing blocks.
    public var images: [UploadImage] = []

    /// Everything that blocks the folder.
    public var problems: [String] { fieldProblems + photoFailures + shapeProblems + photoProblems }

    /// Reads and prepares `folder` (into `photos`' cache) for `dialect`'s server and its image
    /// `rules`. `describe` words errors as the caller does.
    public init(folder: String, photos: PhotoCache, dialect: Dialect, rules: ImageRules = ImageRules(), allowOddShapes: Bool = false,
                jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                describe: (any Error) -> String, onPhotoEvent: @escaping @Sendable (FolderEvent) -> Void = { _ in }) {
        let file = ProductFile.read(in: folder)
        fields = file.fields
        if let problem = file.problem { fieldProblems.append(describe(problem)) }
        if file.problem == nil {
            do {
                draft = try ProductFile.draft(file: fields, folder: folder, overrides: ProductChange())
            } catch {
                fieldProblems.append(describe(error))
            }
        }
        // The rules apply to what is there, even with a field missing.
        fieldProblems += draft?.problems(for: dialect) ?? fields?.problems(for: dialect) ?? []
        warnings += draft?.warnings ?? []
        do {
            prepared = try photos.prepare([folder], jobs: jobs, onEvent: onPhotoEvent)
        } catch {
            photoFailures.append(describe(error))
        }
        guard let prepared else { return }
        warnings += prepared.warnings(of: folder)
        if let cause = prepared.report.stopCause { photoFailures.append(cause.description) }
        photoFailures += prepared.report.failed.map { "\(($0.source as NSString).lastPathComponent): \($0.cause?.description ?? $0.error)" }
        let shapes = prepared.outputs.flatMap { output in
            PhotoShape.problems(width: output.width, height: output.height, minEdge: photos.prepareOptions.shrinkFloor)
                .map { "\((output.source as NSString).lastPathComponent): \($0)" }
        }
        if !allowOddShapes {
            shapeProblems = shapes
            warnings.removeAll { shapes.contains($0) }
        }
        if prepared.outputs.isEmpty && photoFailures.isEmpty {
            photoProblems.append("no photos: a product needs 1 to 5 JPEG, PNG, HEIC, WebP, AVIF, GIF or TIFF photos")
            warnings.removeAll { $0 == ProductScanner.noPhotos }
        }
        guard photoFailures.isEmpty, !prepared.outputs.isEmpty else { return }
        do {
            // The same photo under two names is one photo: uploaded once, and the seller told.
            var firstWithBytes: [Data: String] = [:]
            images = try zip(prepared.uploads(), prepared.outputs).filter { image, output in
                let name = (output.source as NSString).lastPathComponent
                guard let first = firstWithBytes[image.data] else {
                    firstWithBytes[image.data] = name
                    return true
                }
                warnings.append("\(name) is the same photo as \(first); uploaded once")
                return false
            }.map(\.0)
            photoProblems += rules.violations(images)
        } catch {
            photoProblems.append(describe(error))
        }
    }
}
