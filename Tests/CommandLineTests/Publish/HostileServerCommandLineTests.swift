import Foundation
import MarketUploader
import TestSupport
import XCTest

/// The command line against a hostile OpenMarket server, run as a seller runs it: what the terminal
/// received (bytes), what the other port received (nothing), what the record says afterwards.
final class HostileServerCommandLineTests: CommandLineTestCase {
    /// Control characters a terminal acts on: ESC, BEL and the one-byte CSI.
    private func assertNoControl(_ text: String, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        let found = text.unicodeScalars.filter { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" }
        XCTAssertTrue(found.isEmpty, "\(context) reached the terminal raw: \(text)", file: file, line: line)
    }

    func testEditAndDeleteRedirectedElsewhereChangeNothingAndSayWhichServerToUse() async throws {
        let client = try await startServer(.openmarket)
        let other = try OpenMarketTestServer(dialect: .openmarket)
        let otherURL = try await other.start()
        addTeardownBlock { await other.stop() }
        let product = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)

        await server.arm(.redirect(307, location: otherURL.absoluteString + "/api/products/\(product.id)", acting: false))
        let edit = try tool(["edit", String(product.id), "--price", "11000"])
        XCTAssertEqual(edit.status, 1, edit.stdout)
        XCTAssertFalse(edit.stdout.contains("updated product"), edit.stdout)
        XCTAssertTrue(edit.stderr.contains("redirect (307)") && edit.stderr.contains("use --server \(otherURL.absoluteString)"), edit.stderr)

        await server.arm(.redirect(308, location: otherURL.absoluteString + "/api/products/\(product.id)/archived", acting: false))
        let delete = try tool(["delete", String(product.id), "--yes"])
        XCTAssertEqual(delete.status, 1, delete.stdout)
        XCTAssertFalse(delete.stdout.contains("deleted product"), delete.stdout)

        let otherReceived = await other.requestCount
        XCTAssertEqual(otherReceived, 0, "neither the identifier nor the secret left for the other port")
        let listed = await server.products.count
        XCTAssertEqual(listed, 1)
    }

    /// `list` on a page with bad items: the good ones printed, each bad one named on stderr, exit 1
    /// (some input was bad), in the table and in `--json` alike.
    func testListNamesBadItemsShowsTheRestAndExitsOne() async throws {
        _ = try await startServer(.openmarket)
        await server.arm(.bytes(200, body: OpenMarketTestServer.pageWithBadItems))
        let table = try tool(["list"])
        XCTAssertEqual(table.status, 1, table.stderr)
        XCTAssertTrue(table.stdout.contains("Good mug") && table.stdout.contains("Mug \\xFF"), table.stdout)
        XCTAssertTrue(table.stdout.contains("page 1: 5 products") && table.stdout.contains(#"abc\u{202E}dcba"#), table.stdout)
        XCTAssertTrue(table.stderr.contains("item 2 of the page left out: id 1.5") && table.stderr.contains("product 4: its name"), table.stderr)
        await server.arm(.bytes(200, body: OpenMarketTestServer.pageWithBadItems))
        let json = try tool(["list", "--json"])
        XCTAssertEqual(json.status, 1, json.stderr)
        let listing = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((listing["products"] as? [[String: Any]])?.count, 5)
        XCTAssertEqual((listing["problems"] as? [String])?.count, 5)
    }

    /// The server lists the product and loses the answer (303 to a closed port): one register, a
    /// pending record, no "nothing was sent"; the rerun adopts the listing instead of sending again.
    func testARegisterWhoseAnswerIsLostIsListedOnceAcrossRuns() async throws {
        _ = try await startServer(.openmarket)
        _ = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        await server.arm(.redirect(303, location: "http://127.0.0.1:9/api/products/1", acting: true))
        let first = try tool(["publish", products])
        XCTAssertEqual(first.status, 1)
        XCTAssertTrue(first.stderr.contains("it is pending"), first.stderr)
        XCTAssertFalse(first.stderr.contains("nothing was sent"), first.stderr)
        let ledger = try String(contentsOfFile: products + "/.openmarket-published.json", encoding: .utf8)
        XCTAssertTrue(ledger.contains("\"pending\""), ledger)

        let rerun = try tool(["publish", products])
        XCTAssertEqual(rerun.status, 0, rerun.stdout + rerun.stderr)
        XCTAssertTrue(rerun.stdout.contains("mug: adopted product"), rerun.stdout)
        let (posts, listed) = (await server.received.filter { $0.method == "POST" }.count, await server.products.count)
        XCTAssertEqual(posts, 1, "the register was sent once")
        XCTAssertEqual(listed, 1)
    }

    /// The server answers a second folder's register with the first one's id: two folders are
    /// never recorded as one listing.
    func testAnIdTheServerAlreadyGaveIsNotRecordedTwice() async throws {
        _ = try await startServer(.openmarket)
        for name in ["a", "b"] { _ = try productFolder(name, photos: ["photos/DSCN0010.jpg"]) }
        await server.arm(.delay(seconds: 0))
        await server.arm(.status(201, body: #"{"id":101,"name":"Product b","vendor_id":7}"#))
        let run = try tool(["publish", products])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("product id 101, which is already recorded for another listing"), run.stderr)
        let ledger = try String(contentsOfFile: products + "/.openmarket-published.json", encoding: .utf8)
        XCTAssertEqual(ledger.components(separatedBy: "\"productID\" : 101").count - 1, 1, ledger)
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

    func testSecretsFromFlagsWarnAndSecretFilesMustBeTheOwnersAlone() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        let flagged = try tool(["register", folder, "--dry-run", "--secret", "typed-in-the-open"])
        XCTAssertTrue(flagged.stderr.contains("--secret on the command line can be read by every user of this machine"), flagged.stderr)

        // Outside the test's folder, which is checked for secrets at the end.
        let file = NSTemporaryDirectory() + "secret-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try (OpenMarketTestServer.vendorSecret + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        let open = try CommandLineTool.run(["register", folder, "--server", baseURL.absoluteString, "--dialect", "openmarket",
                                            "--cache", root + "/cache", "--identifier", OpenMarketTestServer.identifier, "--secret-file", file])
        XCTAssertEqual(open.status, 2, open.stderr)
        XCTAssertTrue(open.stderr.contains("can be read by other users (mode 644)") && open.stderr.contains("chmod 600"), open.stderr)
        chmod(file, 0o600)
        let registered = try CommandLineTool.run(["register", folder, "--server", baseURL.absoluteString, "--dialect", "openmarket",
                                                  "--cache", root + "/cache", "--identifier", OpenMarketTestServer.identifier, "--secret-file", file])
        XCTAssertEqual(registered.status, 0, registered.stderr)
        XCTAssertFalse(registered.stderr.contains("warning"), registered.stderr)
        let listed = await server.products.count
        XCTAssertEqual(listed, 1, "the secret from the file was the right one")
    }

    /// A sparse 1.5 GB `product.json` is refused by its size, not read.
    func testAHugeProductFileIsRefusedBeforeItIsRead() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        XCTAssertEqual(truncate(folder + "/product.json", 1_610_612_736), 0)
        let started = Date()
        let run = try tool(["publish", products, "--dry-run"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdout.contains("is 1,610,612,736 bytes; a product.json is at most 1,048,576")
                      || run.stderr.contains("is 1,610,612,736 bytes; a product.json is at most 1,048,576"), run.stdout + run.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        // The end-of-test scan for secrets reads every file whole.
        try FileManager.default.removeItem(atPath: folder + "/product.json")
    }
}
