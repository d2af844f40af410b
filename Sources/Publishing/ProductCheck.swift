import Foundation
import ImagePipeline
import MarketUploader

/// One product folder checked whole before anything is sent: its fields, its photos prepared, and
/// everything wrong with them at once, so a seller fixes a folder in one pass instead of one problem
/// per run. `publish` blocks a folder on its problems and `preview` lists them, from this one check.
public struct ProductCheck: Sendable {
    /// What may pass with a warning instead of blocking the folder.
    public struct Leniency: Sendable {
        /// Photos too small or too narrow (`PhotoShape`) are warnings (`--allow-small`).
        public var allowOddShapes = false
        /// Photos that look blurry, dark or blown out (`PhotoLook`), or break the listing's
        /// marketplace rules (`Marketplace`, with `--listing`), block the folder (`--strict`).
        public var strictLooks = false

        public init(allowOddShapes: Bool = false, strictLooks: Bool = false) {
            (self.allowOddShapes, self.strictLooks) = (allowOddShapes, strictLooks)
        }
    }

    /// What `product.json` sets well (nil without a usable file).
    public var fields: ProductChange?
    /// The product to send, when every required field is there.
    public var draft: ProductDraft?
    public var prepared: PreparedPhotos?
    /// What is wrong with the fields: `product.json`'s keys, missing fields, the server's rules.
    public var fieldProblems: [String] = []
    /// Photos that could not be prepared (each with its reason), or why preparing stopped.
    public var photoFailures: [String] = []
    /// Photos too small or too narrow to show a product, unless odd shapes are allowed.
    public var shapeProblems: [String] = []
    /// Photos that look blurry, too dark or blown out, with `strictLooks` (otherwise warnings).
    public var lookProblems: [String] = []
    /// Photos that break the marketplace's rules (`--listing`), with `strictLooks` (otherwise warnings).
    public var listingProblems: [String] = []
    /// What is wrong with the prepared set for the server: no photos, their count, bytes and types.
    public var photoProblems: [String] = []
    /// What is allowed but worth a look: photos not read or in subfolders, a deep sale, photos that
    /// look bad or alike, odd shapes when allowed.
    public var warnings: [String] = []
    /// The prepared photos as upload parts, when nothing blocks.
    public var images: [UploadImage] = []
    /// Why the photos could not be prepared at all (the cache unusable, the run stopped), as thrown.
    public var preparationError: (any Error)?

    /// Everything that blocks the folder.
    public var problems: [String] { fieldProblems + photoFailures + shapeProblems + lookProblems + listingProblems + photoProblems }

    /// Each prepared photo as compared for near-duplicates across products.
    public var photos: [PhotoDuplicates.Photo] {
        guard let prepared else { return [] }
        return prepared.outputs.map { PhotoDuplicates.Photo($0, in: prepared.report.outputFolder) }
    }

    /// Reads and prepares `folder` (into `photos`' cache) for `dialect`'s server and its image
    /// `rules`, its fields under `overrides` (a register's flags). `describe` words errors as the
    /// caller does.
    public init(folder: String, photos: PhotoCache, dialect: Dialect, rules: ImageRules = ImageRules(), leniency: Leniency = Leniency(),
                overrides: ProductChange = ProductChange(), jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                describe: (any Error) -> String, onPhotoEvent: @escaping @Sendable (FolderEvent) -> Void = { _ in }) {
        let file = ProductFile.read(in: folder)
        fields = file.fields
        if let problem = file.problem { fieldProblems.append(describe(problem)) }
        if file.problem == nil {
            do {
                draft = try ProductFile.draft(file: fields, folder: folder, overrides: overrides)
            } catch {
                fieldProblems.append(describe(error))
            }
        }
        // The rules apply to what is there, even with a field missing.
        fieldProblems += draft?.problems(for: dialect) ?? fields?.problems(for: dialect) ?? []
        warnings += draft?.warnings ?? []
        do {
            let prepared = try photos.prepare([folder], jobs: jobs, onEvent: onPhotoEvent)
            self.prepared = prepared
            check(prepared, folder: folder, minEdge: photos.prepareOptions.shrinkFloor, marketplace: photos.prepareOptions.marketplace, rules: rules,
                  leniency: leniency, describe: describe)
        } catch {
            preparationError = error
            photoFailures.append(describe(error))
        }
    }

    private mutating func check(_ prepared: PreparedPhotos, folder: String, minEdge: Int, marketplace: Marketplace?, rules: ImageRules, leniency: Leniency,
                                describe: (any Error) -> String) {
        warnings += prepared.warnings(of: folder)
        if let cause = prepared.report.stopCause { photoFailures.append(cause.description) }
        photoFailures += prepared.failures
        let named = { (output: Manifest.Output, problem: String) in "\((output.source as NSString).lastPathComponent): \(problem)" }
        let shapes = prepared.outputs.flatMap { output in PhotoShape.problems(width: output.width, height: output.height, minEdge: minEdge).map { named(output, $0) } }
        let looks = prepared.outputs.flatMap { output in (output.look?.problems ?? []).map { named(output, $0) } }
        // Each blocks when not allowed, and is then not also a warning.
        if !leniency.allowOddShapes { shapeProblems = shapes }
        // A photo's listing problems are among its warnings as prepared; measured again from its frame, so a
        // cached photo says them too.
        let listings = prepared.outputs.flatMap { output in
            output.frame.map { frame in (marketplace?.problems(frame) ?? []).map { named(output, $0) } } ?? []
        }
        if leniency.strictLooks { (lookProblems, listingProblems) = (looks, listings) }
        warnings.removeAll { shapeProblems.contains($0) || lookProblems.contains($0) || listingProblems.contains($0) }
        if prepared.outputs.isEmpty && photoFailures.isEmpty {
            photoProblems.append("no photos: a product needs 1 to 5 JPEG, PNG, HEIC, WebP, AVIF, GIF or TIFF photos")
            warnings.removeAll { $0 == ProductScanner.noPhotos }
        }
        guard photoFailures.isEmpty, !prepared.outputs.isEmpty else { return }
        do {
            images = unique(zip(try prepared.uploads(), prepared.outputs).map { $0 }, duplicates: prepared.report.duplicates)
            photoProblems += rules.violations(images)
        } catch {
            photoProblems.append(describe(error))
        }
    }

    /// The uploads without repeats: the same photo under two names is uploaded once, and a photo
    /// that looks like another (a near-duplicate) is named; both said as warnings. Which repeats
    /// which is the prepare run's (`FolderReport.duplicates`).
    private mutating func unique(_ photos: [(UploadImage, Manifest.Output)], duplicates: [PhotoDuplicate]) -> [UploadImage] {
        warnings += duplicates.map { $0.sentence(naming: Self.name($0.source)) + ($0.kind == .copy ? "; only \(Self.name($0.original)) is uploaded" : "") }
        let copies = Set(duplicates.filter { $0.kind == .copy }.map(\.source))
        return photos.filter { !copies.contains($0.1.source) }.map(\.0)
    }

    /// Warnings for this folder's photos that look like photos of the folders `seen` before
    /// (`IMG_2.jpg looks like mug/IMG_1.jpg`); this folder is then among them, as `name`.
    public func lookalikes(after seen: inout PhotoDuplicates, as name: String) -> [String] {
        seen.across(product: name, photos).map { $0.sentence(naming: Self.name($0.source)) }
    }

    /// A photo as the folder's warnings name it: its file name.
    private static func name(_ source: String) -> String { (source as NSString).lastPathComponent }
}
