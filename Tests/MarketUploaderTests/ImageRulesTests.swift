import Foundation
import MarketUploader
import XCTest

final class ImageRulesTests: XCTestCase {
    private func fixture(_ name: String) throws -> Data {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: root.appendingPathComponent("Fixtures").appendingPathComponent(name))
    }

    func testAcceptsJPEGAndPNGUnderTheLimitWithMatchingNames() throws {
        let rules = ImageRules()
        XCTAssertEqual(rules.violations(filename: "a.jpg", data: try fixture("photos/DSCN0010.jpg")), [])
        XCTAssertEqual(rules.violations(filename: "a.JPEG", data: try fixture("photos/flowers.jpeg")), [])
        XCTAssertEqual(rules.violations(filename: "flag.png", data: try fixture("alpha/Flag_of_the_Netherlands-alpha.png")), [])
    }

    func testJudgesFormatByContentNotName() throws {
        let rules = ImageRules()
        let heic = rules.violations(filename: "IMG_0001.jpg", data: try fixture("photos/iphone_13_pro_max.HEIC"))
        XCTAssertTrue(heic.contains { $0.contains("not a JPEG or PNG by its content") }, "\(heic)")
        let text = rules.violations(filename: "x.jpg", data: try fixture("hostile/not-an-image.jpg"))
        XCTAssertEqual(text.count, 1)
    }

    func testExtensionMustMatchContent() throws {
        let rules = ImageRules()
        let png = try fixture("alpha/Flag_of_the_Netherlands-alpha.png")
        XCTAssertEqual(rules.violations(filename: "flag.jpg", data: png).count, 1)
        XCTAssertEqual(rules.violations(filename: "flag", data: png).first?.contains("(no extension)"), true)
    }

    func testOverTheByteLimitIsReportedWithTheFix() throws {
        let rules = ImageRules()
        let problems = rules.violations(filename: "jolla.jpg", data: try fixture("photos/jolla.jpg"))
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].contains("811904 bytes") && problems[0].contains("market-images prepare"), problems[0])
    }
}
