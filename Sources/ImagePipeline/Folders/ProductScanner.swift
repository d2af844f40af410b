import Foundation

/// Turns command-line inputs into products and photos.
///
/// A folder whose photos sit directly in it is one product; each subfolder holding photos is a product
/// of its own; files named one by one go straight into the output folder. Photos are taken in natural
/// order, and output names are made unique so `a.HEIC` and `a.jpg` never overwrite each other.
public struct ProductScanner: Sendable {
    /// Extensions tried as photos; anything else in a folder (product.json, notes) is left alone.
    public static let photoExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "webp", "heic", "heif", "hif", "avif", "tif", "tiff", "gif",
    ]

    /// A product's fields, beside its photos (read by `Publishing`'s `ProductFile`).
    public static let productFileName = "product.json"

    /// Said of an input folder in which no photo was found.
    public static let noPhotos = "no photos found"

    public struct Scan: Sendable {
        public var products: [ProductPhotos]
        /// Inputs that could not be read at all, by the path the user gave.
        public var unreadable: [(input: String, error: ImagePipelineError)]
        public var warnings: [String]
        /// Files that look like photos (by extension or by their first bytes) and links out of their
        /// folder, which are not read, with the reason (each also in `warnings`).
        public var notRead: [(path: String, reason: String)] = []
        /// Subfolders of a folder of products with a `product.json` and no photos (each also in
        /// `warnings`): a product whose photos are missing must be named, not skipped.
        public var foldersWithoutPhotos: [String] = []

        public var skipped: [String] { notRead.map(\.path) }

        /// What is not read directly inside `folder` (a products folder's own entries, not its products').
        public func notRead(directlyIn folder: String) -> [(path: String, reason: String)] {
            let folder = URL(fileURLWithPath: folder).standardizedFileURL.path
            return notRead.filter { ($0.path as NSString).deletingLastPathComponent == folder }
        }

        public var photos: [SourcePhoto] { products.flatMap(\.photos) }

        /// The product folders found inside `root`, leaving out `root` itself (its loose photos are
        /// no product of a folder of products) and taking in those without photos, in natural order
        /// (`publish`, `preview`: they name what a folder lacks).
        public func productFolders(under root: String) -> [String] {
            let root = URL(fileURLWithPath: root).standardizedFileURL.path
            return (products.compactMap(\.folder).filter { $0 != root } + foldersWithoutPhotos)
                .sorted { inNaturalOrder(($0 as NSString).lastPathComponent, ($1 as NSString).lastPathComponent) }
        }
    }

    /// Whether a folder given as input is one product (`register`, `publish` and `preview` prepare one
    /// product folder at a time): its subfolders are then not read, as they are not two levels down.
    public var inputsAreProducts = false

    public init(inputsAreProducts: Bool = false) {
        self.inputsAreProducts = inputsAreProducts
    }

    /// Scans `inputs`. Anything given twice (the same folder, a file, a file inside a folder also
    /// given) is used once, and the output folder is never read as input, wherever it lies.
    public func scan(_ inputs: [String], excluding outputFolder: String? = nil) -> Scan {
        var scan = Scan(products: [], unreadable: [], warnings: [])
        var loose: [String] = []
        var usedProductNames: Set<String> = []
        let excluded = outputFolder.flatMap(FileStatus.realPath)
        var seenFolders: Set<String> = [], seenFiles: Set<String> = []
        func isExcluded(_ folder: String) -> Bool {
            guard let excluded, let real = FileStatus.realPath(folder) else { return false }
            return real == excluded || real.hasPrefix(excluded + "/")
        }
        /// The files not taken yet, by their real path.
        func unseen(_ files: [String], input: String) -> [String] {
            files.filter { file in
                let fresh = seenFiles.insert(FileStatus.realPath(file) ?? file).inserted
                if !fresh { scan.warnings.append("\(input): \((file as NSString).lastPathComponent) is already among the inputs; used once") }
                return fresh
            }
        }
        func addProduct(name: String, folder: String, files: [String], input: String) {
            let files = unseen(files, input: input)
            guard !files.isEmpty else { return }
            var unique = Self.safeName(name)
            var counter = 2
            while usedProductNames.contains(unique.lowercased()) { unique = "\(Self.safeName(name))-\(counter)"; counter += 1 }
            usedProductNames.insert(unique.lowercased())
            scan.products.append(ProductPhotos(name: unique, folder: folder, photos: Self.photos(files, product: unique)))
        }
        for input in inputs {
            let path = Self.absolute(input)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                scan.unreadable.append((input, .sourceUnreadable(errno: ENOENT)))
                continue
            }
            guard isDirectory.boolValue else {
                loose += unseen([path], input: input)
                continue
            }
            guard seenFolders.insert(FileStatus.realPath(path) ?? path).inserted else {
                scan.warnings.append("\(input): given more than once; used once")
                continue
            }
            guard !isExcluded(path) else {
                scan.warnings.append("\(input): is the output folder or inside it; not read as input")
                continue
            }
            guard let listing = Self.listing(path) else {
                scan.unreadable.append((input, .sourceUnreadable(errno: EACCES)))
                continue
            }
            var found = !listing.photos.isEmpty
            addProduct(name: (path as NSString).lastPathComponent, folder: path, files: listing.photos, input: input)
            skip(listing.unsupported, shownIn: input)
            // A folder of thumbnails (it has a thumbs.json) is this tool's output, not a product.
            let products = listing.folders.filter { !isExcluded($0) && !Self.holdsThumbnails($0) }
            if inputsAreProducts {
                warnAboutSubfolders(products, of: input)
            } else {
                for folder in products {
                    guard let sub = Self.listing(folder) else { continue }
                    found = found || !sub.photos.isEmpty
                    if sub.photos.isEmpty && sub.others.contains(where: { ($0 as NSString).lastPathComponent == Self.productFileName }) {
                        scan.foldersWithoutPhotos.append(folder)
                        scan.warnings.append("\((input as NSString).appendingPathComponent((folder as NSString).lastPathComponent)): no photos; not a product until it has some")
                    }
                    addProduct(name: (folder as NSString).lastPathComponent, folder: folder, files: sub.photos, input: input)
                    let shown = (input as NSString).appendingPathComponent((folder as NSString).lastPathComponent)
                    skip(sub.unsupported, shownIn: shown)
                    warnAboutSubfolders(sub.folders, of: shown)
                }
            }
            if !found { scan.warnings.append("\(input): \(Self.noPhotos)") }
        }
        /// One rule for every command: a product is the photos directly in one folder.
        func warnAboutSubfolders(_ folders: [String], of shown: String) {
            let nested = folders.filter { !(Self.listing($0)?.photos.isEmpty ?? true) }
            guard !nested.isEmpty else { return }
            let names = nested.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
            scan.warnings.append("\(shown): photos in its subfolders (\(names)) are not read; a product is one folder of photos")
        }
        func skip(_ files: [(path: String, reason: String)], shownIn shown: String) {
            for file in files {
                scan.notRead.append(file)
                scan.warnings.append("\((shown as NSString).appendingPathComponent((file.path as NSString).lastPathComponent)): \(file.reason)")
            }
        }
        if !loose.isEmpty {
            scan.products.insert(ProductPhotos(name: "", folder: nil, photos: Self.photos(loose, product: "")), at: 0)
        }
        return scan
    }

    private static func holdsThumbnails(_ folder: String) -> Bool {
        FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent(ThumbnailIndex.fileName))
    }

    private static func absolute(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.standardizedFileURL.path
    }

    /// Visible photo files, files that look like photos this tool does not read (with what they
    /// are, as the reason they are not read), and subfolders, directly inside `folder`, in natural order. A link that resolves outside
    /// `folder` is not followed but listed with its target as unsupported: what a product is, and so
    /// what `publish` uploads, is what the folder holds, for every command alike.
    private static func listing(_ folder: String) -> (photos: [String], unsupported: [(path: String, reason: String)], folders: [String], others: [String])? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        let realFolder = FileStatus.realPath(folder) ?? folder
        var photos: [String] = [], unsupported: [(String, String)] = [], folders: [String] = [], others: [String] = []
        for name in names.sorted(by: inNaturalOrder) where !name.hasPrefix(".") {
            let path = (folder as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if let target = linkOutside(realFolder, path) {
                unsupported.append((path, "is a link to \(target), outside its folder, and is not read; copy it in instead of linking to it"))
            } else if isDirectory.boolValue {
                folders.append(path)
            } else if photoExtensions.contains((name as NSString).pathExtension.lowercased()) {
                photos.append(path)
            } else if let kind = UnsupportedPhoto.kind(of: path) {
                unsupported.append((path, "\(kind) is not read (JPEG, PNG, HEIC/HEIF, WebP, AVIF, TIFF or GIF are); convert it, or move it out of the folder"))
            } else {
                others.append(path)
            }
        }
        return (photos, unsupported, folders, others)
    }

    /// Where `path` leads when it is a link that resolves outside `realFolder`; nil for anything else.
    private static func linkOutside(_ realFolder: String, _ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let target = FileStatus.realPath(path) else { return nil }
        return target.hasPrefix(realFolder + "/") ? nil : target
    }

    /// Assigns output stems: the first photo (in natural order) with a stem keeps it, later ones with the
    /// same stem (compared ignoring case, as macOS file systems do) get their source extension appended.
    static func photos(_ paths: [String], product: String) -> [SourcePhoto] {
        let ordered = paths.sorted { inNaturalOrder(($0 as NSString).lastPathComponent, ($1 as NSString).lastPathComponent) }
        var taken: Set<String> = []
        return ordered.map { path in
            let name = (path as NSString).lastPathComponent
            let stem = safeName(ImagePreparer.stem(of: path))
            var candidate = stem
            if taken.contains(candidate.lowercased()) {
                candidate = "\(stem)-\((name as NSString).pathExtension.lowercased())"
            }
            var counter = 2
            let base = candidate
            while taken.contains(candidate.lowercased()) { candidate = "\(base)-\(counter)"; counter += 1 }
            taken.insert(candidate.lowercased())
            return SourcePhoto(path: path, product: product, outputStem: candidate)
        }
    }

    /// Orders names the way a person does (`IMG_2` before `IMG_10`, case ignored), with a byte
    /// comparison breaking ties so the order is total.
    static func inNaturalOrder(_ lhs: String, _ rhs: String) -> Bool {
        switch lhs.compare(rhs, options: [.numeric, .caseInsensitive]) {
        case .orderedAscending: true
        case .orderedDescending: false
        case .orderedSame: lhs < rhs
        }
    }

    /// A name safe as one path component: no separators, no control characters, and no leading dot,
    /// so an output is never hidden, never `.` or `..`, and never mistaken for one of the run's own
    /// hidden temporaries.
    static func safeName(_ name: String) -> String {
        let cleaned = String(name.unicodeScalars.enumerated().map { index, scalar -> Character in
            scalar == "/" || scalar == "\\" || scalar.properties.generalCategory == .control || (index == 0 && scalar == ".")
                ? "_" : Character(scalar)
        })
        return cleaned.isEmpty ? "_" : cleaned
    }
}
