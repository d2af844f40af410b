import Foundation
import MarketUploader
import TestSupport
import XCTest

/// The command line against a hostile OpenMarket server, run as a seller runs it: what the terminal
/// received (bytes), how much memory the tool took, and how long it waited.
final class HostileServerCommandLineTests: CommandLineTestCase {
    /// Control characters a terminal acts on: ESC, BEL and the one-byte CSI.
    private func assertNoControl(_ text: String, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        let found = text.unicodeScalars.filter { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" }
        XCTAssertTrue(found.isEmpty, "\(context) reached the terminal raw: \(text)", file: file, line: line)
    }

    func testAnEndlessOrTricklingAnswerIsCutWithAClearError() async throws {
        let endless = try StreamingAnswerServer(.endless)
        let started = Date()
        // GNU time reports the tool's peak resident memory on its last line of stderr.
        let timed = Process()
        timed.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        timed.arguments = ["-f", "peak-kb=%M", CommandLineTool.executable.path, "show", "1", "--server", endless.url.absoluteString,
                           "--dialect", "openmarket", "--timeout", "30"]
        let errors = Pipe()
        (timed.standardError, timed.standardOutput) = (errors, FileHandle.nullDevice)
        try timed.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        timed.waitUntilExit()
        XCTAssertEqual(timed.terminationStatus, 1, stderr)
        XCTAssertTrue(stderr.contains("answer passed 4,194,304 bytes and was cut"), stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "cut at the limit, not at the deadline")
        let peak = try XCTUnwrap(stderr.components(separatedBy: "peak-kb=").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        // The client keeps 4 MiB at most and reads no faster than it handles what it read (it grew
        // without end before: gigabytes in seconds). The tool itself takes about 50 MB.
        XCTAssertLessThan(peak, 120_000, "peak memory in KB while the server sent \(endless.bytesWritten) bytes")

        let trickle = try StreamingAnswerServer(.trickle(interval: 0.1))
        let slowStart = Date()
        let slow = try CommandLineTool.run(["show", "1", "--server", trickle.url.absoluteString, "--dialect", "openmarket", "--timeout", "2"], timeLimit: 60)
        XCTAssertEqual(slow.status, 1)
        XCTAssertTrue(slow.stderr.contains("no complete answer within 2 s"), slow.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(slowStart), 15, "the deadline covers the whole answer")
    }

    /// A server whose `bargain_price` is stale (another client's edit it did not follow): `show` and
    /// `list` give what the API defines a buyer pays, price − discounted_price, and name the disagreement.
    func testAStaleBargainPriceIsNamedAndTheDefinitionShown() async throws {
        _ = try await startServer(.openmarket)
        let product = #"{"id":7,"name":"Lamp","description":"A brass lamp.","price":12000,"bargain_price":10800,"discounted_price":3000,"#
            + #""currency":"KRW","stock":1,"images":[]}"#
        let named = "warning: product 7: the server's bargain_price ₩10,800 is not price − discounted_price (₩12,000 − ₩3,000 = ₩9,000)"
        await server.arm(.status(200, body: product))
        let show = try tool(["show", "7"])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("price: ₩9,000 (was ₩12,000)"), show.stdout)
        XCTAssertTrue(show.stderr.contains(named), show.stderr)
        await server.arm(.status(200, body: #"{"pageNo":1,"itemsPerPage":20,"totalCount":1,"hasNext":false,"pages":[\#(product)]}"#))
        let list = try tool(["list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("₩9,000 (was ₩12,000)"), list.stdout)
        XCTAssertTrue(list.stderr.contains(named), list.stderr)
    }

    func testServerTextCannotDriveTheTerminalButJSONKeepsIt() async throws {
        _ = try await startServer(.openmarket)
        let escapes = #"\u001b]0;owned\u0007\u001b[2J\u009b31m"#
        let product = #"{"id":7,"name":"Mug\#(escapes)","description":"Nice\#(escapes)","price":9000,"bargain_price":9000,"discounted_price":0,"#
            + #""currency":"KRW\#(escapes)","stock":1,"thumbnail":"http://x/t.jpg\#(escapes)","images":[{"id":1,"url":"http://x/1.jpg\#(escapes)"}]}"#
        await server.arm(.status(200, body: product))
        let show = try tool(["show", "7"])
        XCTAssertEqual(show.status, 0, show.stderr)
        assertNoControl(show.stdout, "show")
        XCTAssertTrue(show.stdout.contains(#"\u{1B}[2J"#), show.stdout)

        await server.arm(.status(200, body: #"{"pageNo":1,"itemsPerPage":20,"totalCount":1,"hasNext":false,"pages":[\#(product)]}"#))
        let list = try tool(["list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        assertNoControl(list.stdout, "list")

        await server.arm(.status(200, body: product))
        let json = try tool(["show", "7", "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(decoded?["currency"] as? String, "KRW\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31m", "--json keeps the value, escaped as JSON")

        await server.arm(.status(400, body: #"{"code":400,"message":"bad\#(escapes)"}"#))
        let refused = try tool(["show", "7"])
        XCTAssertEqual(refused.status, 1)
        assertNoControl(refused.stderr, "an error message")
        await server.arm(.status(200, body: "\u{1B}[2J<html>"))
        let garbage = try tool(["show", "7"])
        assertNoControl(garbage.stderr, "the snippet of an answer that is not JSON")
    }
}
