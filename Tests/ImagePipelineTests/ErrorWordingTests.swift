import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// The library's errors are data with neutral sentences (a server and an app use them too); the
/// command line adds what to do in terms of its own flags.
final class ErrorWordingTests: XCTestCase {
    static let everyCase: [ImagePipelineError] = [
        .libraryUnavailable(detail: "x"), .sourceUnreadable(errno: ENOENT), .sourceUnreadable(errno: nil), .emptySource,
        .unsupportedFormat, .blockedFormat(loader: "magickload"), .tooManyPixels(width: 2, height: 2, limit: 1),
        .damaged(format: "JPEG", detail: "VipsJpeg: Premature end of input file"),
        .invalidOption(name: "max-edge", value: "0", allowed: "16–65535"), .processingFailed(detail: "x"),
        .encodeFailed(format: .webp, detail: "x"),
        .cannotFitBudget(maxBytes: 1, smallestBytes: 2, width: 3, height: 4, minQuality: 5),
        .outputFailed(path: "/x", errno: EACCES), .outputUnavailable(path: "/x", errno: ENOSPC), .outputUnsafe(path: "/x"),
        .outputLocked(directory: "/x"), .cancelled, .timedOut(limit: .milliseconds(2500)), .overloaded(queueLimit: 3),
        .backgroundModelMissing(searched: ["/x/u2netp.onnx"]), .backgroundUnavailable(detail: "x"), .backgroundModelUnusable(path: "/x", reason: "x"),
        .productNotFound(detail: "x"),
    ]

    func testLibrarySentencesNameNoFlag() {
        for error in Self.everyCase {
            XCTAssertFalse(error.description.contains("--"), error.description)
            XCTAssertFalse(error.description.isEmpty)
            XCTAssertFalse(error.code.isEmpty)
        }
        XCTAssertEqual(Set(Self.everyCase.map(\.code)).count, 22, "one code per kind")
        XCTAssertEqual(ImagePipelineError.outputUnavailable(path: "/x", errno: EROFS).description, "cannot write /x: Read-only file system")
        XCTAssertEqual(ImagePipelineError.timedOut(limit: .milliseconds(2500)).description, "stopped after 2.5 s, the time one image may take")
    }

}
