import Foundation
import XCTest

/// Paths of the real photos in `Tests/Fixtures`.
public enum Fixture {
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

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
