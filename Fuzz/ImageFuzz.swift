import Foundation
import ImagePipeline

/// One input through both ways in: as a seller's file (written, loaded, uprighted, converted, resized
/// and budget-encoded) and as bytes a service received (decoded from memory and rendered), with small
/// limits so each run is quick. Errors are the expected outcome for garbage; only a crash, a hang or
/// a leak is a finding.
enum ImageFuzz {
    static let folder: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        return (base as NSString).appendingPathComponent("market-images-fuzz-\(getpid())")
    }()

    static let preparer: ImagePreparer = {
        var options = PrepareOptions()
        options.maxPixels = 4_000_000
        options.maxEdge = 256
        options.minEdge = 64
        options.maxBytes = 20_000
        return try! ImagePreparer(options: options) // fixed, valid options
    }()

    static let renderer = try! ImageRenderer(spec: RenderSpec(width: 64, height: 64, resizing: .fill, gravity: .attention,
                                                              format: .webp, maxBytes: 4_000))

    static func run(_ data: Data) {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = (folder as NSString).appendingPathComponent("input")
        guard FileManager.default.createFile(atPath: path, contents: data) else { return }
        _ = try? preparer.prepare(file: path)
        _ = try? renderer.render(.data(data), maxPixels: 4_000_000)
    }
}

/// libFuzzer's entry point: one input per call (libFuzzer brings `main`). Given files instead of a
/// corpus folder, the built fuzzer replays them: `.build-fuzz/image-fuzz crash-…`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    ImageFuzz.run(bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}
