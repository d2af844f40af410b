import Foundation

/// Which kinds of metadata a file carries. A seller's photo must leave with none of these.
public struct MetadataPresence: Sendable, Equatable, Codable {
    public var exif: Bool
    public var gps: Bool
    public var xmp: Bool
    public var iptc: Bool
    public var icc: Bool

    public var isEmpty: Bool { !(exif || gps || xmp || iptc || icc) }

    init(fieldNames: [String]) {
        exif = fieldNames.contains { $0 == "exif-data" || $0.hasPrefix("exif-ifd") }
        // libvips names tags by IFD; IFD 3 is the GPS directory.
        gps = fieldNames.contains { $0.hasPrefix("exif-ifd3-") }
        xmp = fieldNames.contains("xmp-data")
        iptc = fieldNames.contains("iptc-data")
        icc = fieldNames.contains("icc-profile-data")
    }

    public var names: [String] {
        [(exif, "EXIF"), (gps, "GPS"), (xmp, "XMP"), (iptc, "IPTC"), (icc, "ICC profile")]
            .filter(\.0).map(\.1)
    }
}
