import Foundation

/// ExifTool (Debian `libimage-exiftool-perl`): a metadata reader independent of libvips and of our
/// own container walker, used to prove outputs carry nothing about the seller.
public enum Exiftool {
    /// Groups that describe the file and its container, not the photo or its owner.
    public static let containerGroups: Set<String> = ["ExifTool", "File", "System", "Composite", "JFIF", "PNG", "PNG-pHYs", "RIFF",
                                                      "QuickTime", "Meta", "GIF"]

    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "exiftool is not installed; run scripts/setup --tests" }
    }

    /// Words that betray metadata in a tag name, whatever group it is filed under (a WebP EXIF chunk
    /// exiftool cannot parse shows up as `RIFF:UnknownEXIF`).
    static let telltales = ["exif", "xmp", "iptc", "gps", "maker", "icc"]

    /// For each file, every tag exiftool finds outside `containerGroups`, plus any tag in them whose
    /// name has a telltale.
    public static func metadata(in paths: [String]) throws -> [String: [String]] {
        guard !paths.isEmpty else { return [:] }
        let files = try tags(in: paths, arguments: ["-G1", "-a", "-s", "-m"])
        var found: [String: [String]] = [:]
        for file in files {
            let path = file["SourceFile"] as? String ?? "?"
            found[path] = file.keys.filter { key in
                let parts = key.split(separator: ":", maxSplits: 1).map { String($0).lowercased() }
                guard parts.count == 2 else { return false }
                return !containerGroups.map { $0.lowercased() }.contains(parts[0])
                    || (parts[0] != "exiftool" && telltales.contains { parts[1].contains($0) })
            }.sorted()
        }
        return found
    }

    /// One tag's value as ExifTool prints it (`EncodingProcess`: "Progressive DCT, Huffman coding").
    public static func value(of tag: String, in path: String) throws -> String? {
        try tags(in: [path], arguments: ["-" + tag]).first?[tag].map { "\($0)" }
    }

    private static func tags(in paths: [String], arguments: [String]) throws -> [[String: Any]] {
        guard let executable = ["/usr/bin/exiftool", "/usr/local/bin/exiftool", "/opt/homebrew/bin/exiftool"]
            .first(where: FileManager.default.isExecutableFile(atPath:)) else { throw Missing() }
        let data = try ProcessOutput.run(executable, ["-json"] + arguments + paths)
        return try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    }
}
