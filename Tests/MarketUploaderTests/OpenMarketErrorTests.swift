import Foundation
import TestSupport
@testable import MarketUploader
import XCTest

/// `MarketUploader` runs inside iOS apps: its errors say what happened and name no command-line flag.
final class OpenMarketErrorTests: XCTestCase {
    func testSentencesNameNoFlag() throws {
        let errors: [OpenMarketError] = [
            .invalid(["a"]), .unsupported("b"), .unauthorized(status: 401, message: "c"), .notFound(message: "d"),
            .payloadTooLarge(message: "e"), .rejected(status: 400, message: "f"), .serverError(status: 500, message: "g"),
            .transport(message: "h", requestReachedServer: true), .transport(message: "h", requestReachedServer: false),
            .timedOut(seconds: 3), .answerTooLarge(limit: 10), .redirected(status: 307, from: "http://a/x", to: "http://b/x"), .invalidResponse("i"),
        ]
        for error in errors { XCTAssertFalse(error.description.contains("--"), error.description) }
        let builder = RequestBuilder(baseURL: Dialect.openmarket.defaultBaseURL, dialect: .openmarket)
        XCTAssertThrowsError(try builder.register(UploaderTestCase.draft, images: [], credentials: .password(Secret("pw")))) { error in
            XCTAssertFalse("\(error)".contains("--"), "\(error)")
        }
        XCTAssertThrowsError(try RequestBuilder(baseURL: Dialect.openmarket.defaultBaseURL, dialect: .openmarket).checkImagesCanChange()) { error in
            XCTAssertFalse("\(error)".contains("--"), "\(error)")
        }
    }
}
