import Foundation
import XCTest

/// Paths of the real photos in `Tests/Fixtures`.
public enum Fixture {
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// What a link out of a products folder could reach, made at `outside`: a photo that is not a
    /// product's (`id-card.jpg`) and a whole product folder (`private/`, a photo and its product.json).
    public static func plantLinkTargets(outside: String) throws {
        try FileManager.default.createDirectory(atPath: outside + "/private", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path("photos/jolla.jpg"), toPath: outside + "/id-card.jpg")
        try FileManager.default.copyItem(atPath: path("photos/jolla.jpg"), toPath: outside + "/private/IMG_1.jpg")
        try #"{"name":"Private","description":"Not a product at all.","price":1000,"stock":1}"#.write(toFile: outside + "/private/product.json", atomically: true, encoding: .utf8)
    }

    /// Twelve photos of every kind a folder run meets (large JPEGs, PNG with alpha, all eight EXIF
    /// orientations): the runs that are killed, raced or starved of disk.
    public static let runPhotos = ["photos/flowers.jpeg", "photos/DSCN0010.jpg", "photos/2569067123_aca715a2ee_o.jpg",
                                   "alpha/alpha-layer-1-fill.png"] + (1...8).map { "orientation/Landscape_\($0).jpg" }

    public static let orientations = (1...8).map { path("orientation/Landscape_\($0).jpg") }
    /// Every fixture a seller could legitimately upload, in every format the pipeline reads.
    public static let photos = [
        "photos/DSCN0010.jpg", "photos/flowers.jpeg", "photos/iphone_13_pro_max.HEIC", "photos/jolla.jpg",
        "photos/2569067123_aca715a2ee_o.jpg", "color/Channel_digital_image_CMYK_color.jpg",
        "color/Channel_digital_image_CMYK_color_no_profile.jpg", "color/concert.jpg", "color/tifftag-photoshop.tiff",
        "alpha/Flag_of_the_Netherlands-alpha.png", "alpha/alpha-layer-1-fill.png", "alpha/16-bit-grey-alpha.png",
        "alpha/5_webp_a.webp", "generated/tiff8.tif", "generated/photo.avif", "generated/animated.gif",
    ].map(path) + orientations
}

/// A fresh folder per test, removed afterwards.
public func temporaryFolder(_ test: XCTestCase) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("market-images-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url.path
}

/// A fresh input and output folder per test, and a way to lay photos out as a seller would.
open class FolderTestCase: XCTestCase {
    public var root = ""
    public var input: String { root + "/in" }
    public var output: String { root + "/out" }

    open override func setUpWithError() throws {
        root = try temporaryFolder(self)
    }

    /// Copies each fixture into `input` under its own file name, side by side.
    public func copyFlat(_ fixtures: [String]) throws {
        for fixture in fixtures { try copy(fixture, to: (fixture as NSString).lastPathComponent) }
    }

    /// Copies a fixture to `input/relative`, creating product folders on the way.
    public func copy(_ fixture: String, to relative: String) throws {
        let destination = input + "/" + relative
        try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path(fixture), toPath: destination)
    }

    /// A small tmpfs as the output folder; skipped where mounting is not allowed (not root).
    public func mountedFolder(size: String, readOnly: Bool = false) throws -> String {
        let mountPoint = root + "/mnt"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let options = "size=\(size)" + (readOnly ? ",ro" : "")
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", options, "tmpfs", mountPoint]
        mount.standardError = FileHandle.nullDevice
        try mount.run()
        mount.waitUntilExit()
        try XCTSkipUnless(mount.terminationStatus == 0, "mounting a tmpfs needs root (CI runs as root)")
        addTeardownBlock {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = ["-l", mountPoint]
            try? unmount.run()
            unmount.waitUntilExit()
        }
        return mountPoint
    }
}
