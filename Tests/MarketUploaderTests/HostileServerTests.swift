import Foundation
@testable import MarketUploader
import TestSupport
import XCTest

/// The client against a server that misbehaves on purpose: redirects to another port, answers that
/// never end or trickle, a register listed and then answered with a redirect to nowhere, escape
/// sequences and echoed secrets in its messages, odd ids. What the other port received is checked,
/// not only what the client said.
final class HostileServerTests: UploaderTestCase {
    /// Another server on loopback: where a redirect points. It must receive nothing.
    private func otherServer() async throws -> (OpenMarketTestServer, URL) {
        let other = try OpenMarketTestServer(dialect: .openmarket)
        let url = try await other.start()
        addTeardownBlock { await other.stop() }
        return (other, url)
    }

    func testRequestsThatChangeTheServerNeverFollowARedirect() async throws {
        var client = try await startServer(.openmarket)
        client.retries = 0
        let (other, otherURL) = try await otherServer()
        let image = try Self.jpeg()
        let product = try await client.register(Self.draft, images: [image], credentials: Self.vendor)
        let sends: [(String, @Sendable (OpenMarketClient) async throws(OpenMarketError) -> Void)] = [
            ("register", { (client) async throws(OpenMarketError) in _ = try await client.register(Self.draft, images: [image], credentials: Self.vendor) }),
            ("edit", { (client) async throws(OpenMarketError) in _ = try await client.edit(id: product.id, ProductChange(price: 11000), credentials: Self.vendor) }),
            ("delete", { (client) async throws(OpenMarketError) in try await client.delete(id: product.id, credentials: Self.vendor) }),
        ]
        for status in [301, 302, 303, 307, 308] {
            for (name, send) in sends {
                let location = otherURL.appendingPathComponent("api/products/\(product.id)").absoluteString
                await server.arm(.redirect(status, location: location, acting: false))
                do {
                    try await send(client)
                    XCTFail("\(name) after \(status) must fail")
                } catch {
                    guard case .redirected(status, _, location) = error else { return XCTFail("\(name) \(status): \(error)") }
                    XCTAssertTrue(error.mayHaveBeenActedOn)
                    XCTAssertTrue(error.description.contains("redirect (\(status)) to \(location)"), error.description)
                }
            }
        }
        let otherReceived = await other.requestCount
        XCTAssertEqual(otherReceived, 0, "no request, and so no credential, reached the other port")
        let stored = await server.products[product.id]
        XCTAssertEqual(stored?.fields["price"], "12000.0", "no redirected edit was carried out")
    }

    func testAReadFollowsARedirectOnTheSameServerOnly() async throws {
        var client = try await startServer(.openmarket)
        client.retries = 0
        let (other, otherURL) = try await otherServer()
        let product = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
        await server.arm(.redirect(301, location: "/api/products/\(product.id)", acting: false))
        let read = try await client.product(id: product.id)
        XCTAssertEqual(read.id, product.id, "a same-server redirect of a read is followed")

        await server.arm(.redirect(302, location: otherURL.appendingPathComponent("api/products/1").absoluteString, acting: false))
        do {
            _ = try await client.product(id: product.id)
            XCTFail("a read redirected to another port must fail")
        } catch {
            guard case .redirected(302, _, _) = error else { return XCTFail("\(error)") }
        }
        let otherReceived = await other.requestCount
        XCTAssertEqual(otherReceived, 0)
    }

    /// https → http on the same host is another origin; the far side here is a recording transport.
    func testAReadIsNeverRedirectedFromHTTPSToHTTP() async throws {
        let transport = RedirectingTransport(location: "http://openmarket.test/api/products/1")
        var client = OpenMarketClient(baseURL: URL(string: "https://openmarket.test")!, dialect: .openmarket, transport: transport)
        client.retries = 0
        do {
            _ = try await client.product(id: 1)
            XCTFail("must not follow https → http")
        } catch {
            guard case .redirected(302, "https://openmarket.test/api/products/1", "http://openmarket.test/api/products/1") = error else { return XCTFail("\(error)") }
        }
        let asked = await transport.urls
        XCTAssertEqual(asked, ["https://openmarket.test/api/products/1"])
    }

    /// The server lists the product and answers `303` to a closed port: the register reached it once,
    /// is never sent again, and is reported as possibly listed, not as "nothing was sent".
    func testARegisterWhoseAnswerIsLostIsNeverSentAgain() async throws {
        let client = try await startServer(.openmarket)
        let image = try Self.jpeg()
        await server.arm(.redirect(303, location: "http://127.0.0.1:9/api/products/1", acting: true))
        do {
            _ = try await client.register(Self.draft, images: [image], credentials: Self.vendor)
            XCTFail("must fail")
        } catch {
            XCTAssertTrue(error.mayHaveBeenActedOn)
            XCTAssertFalse(error.description.contains("nothing was sent"), error.description)
        }
        let (requests, listed) = (await server.requestCount, await server.products.count)
        XCTAssertEqual(requests, 1, "sent once")
        XCTAssertEqual(listed, 1)
    }

    func testAnEndlessAnswerIsCutAtTheLimit() async throws {
        let endless = try StreamingAnswerServer(.endless)
        var client = OpenMarketClient(baseURL: endless.url, dialect: .openmarket)
        (client.retries, client.timeout, client.maxAnswerBytes) = (0, 20, 1 << 20)
        let started = ContinuousClock.now
        do {
            _ = try await client.product(id: 1)
            XCTFail("must fail")
        } catch {
            XCTAssertEqual(error, .answerTooLarge(limit: 1 << 20))
            XCTAssertTrue(error.description.contains("passed 1,048,576 bytes"), error.description)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "cut at the limit, not at the 20 s deadline")
        try await waitUntil("the server saw the client leave") { endless.clientLeftAt != nil }
        // Reading stops once the cancel lands, tens of milliseconds at loopback's GB/s (what is read
        // meanwhile is dropped, not kept: the tool's peak memory is measured in the command-line test).
        XCTAssertLessThan(endless.bytesWritten, 256 << 20, "reading stopped long before the sender's 1 GiB")
    }

    func testATricklingAnswerIsCutAtTheDeadline() async throws {
        let trickle = try StreamingAnswerServer(.trickle(interval: 0.05))
        var client = OpenMarketClient(baseURL: trickle.url, dialect: .openmarket)
        (client.retries, client.timeout) = (0, 1.5)
        let started = ContinuousClock.now
        do {
            _ = try await client.product(id: 1)
            XCTFail("must fail")
        } catch {
            XCTAssertEqual(error, .timedOut(seconds: 1.5))
        }
        let elapsed = ContinuousClock.now - started
        XCTAssertGreaterThanOrEqual(elapsed, .seconds(1.5))
        XCTAssertLessThan(elapsed, .seconds(5), "the deadline covers the body, not only the wait for the first byte")
        try await waitUntil("the server saw the client leave") { trickle.clientLeftAt != nil }
    }

    func testEchoedSecretsAreRedactedInEverySpelling() async throws {
        var client = try await startServer(.openmarket)
        client.retries = 0
        let secret = #"Sup3r"Secret/Key w"#
        let credentials = Credentials.vendor(identifier: OpenMarketTestServer.identifier, secret: Secret(secret))
        await server.arm(.echo(400))
        do {
            try await client.delete(id: 1, credentials: credentials)
            XCTFail("must fail")
        } catch {
            let received = await server.lastRequest
            let body = String(decoding: received?.body ?? Data(), as: UTF8.self)
            XCTAssertTrue(body.contains(#"Sup3r\"Secret"#), "the server did receive the JSON-escaped spelling: \(body)")
            XCTAssertFalse(error.description.contains("Sup3r"), error.description)
            XCTAssertTrue(error.description.contains("<redacted>"), error.description)
        }
        let text = "raw \(secret), json Sup3r\\\"Secret\\/Key w, percent Sup3r%22Secret%2FKey%20w, form Sup3r%22Secret%2FKey+w"
        XCTAssertEqual(credentials.redact(text), "raw <redacted>, json <redacted>, percent <redacted>, form <redacted>")
    }

    /// Redaction by meaning: a secret of every character class (letters, digits, every ASCII
    /// punctuation mark, a space, Hangul, an emoji outside the BMP) echoed as Python's `json.dumps`,
    /// Go's HTML-safe encoder (`\u0026`), every character `\u`-escaped (upper- and lower-case hex),
    /// HTML's named (PHP's `htmlentities` too), decimal (with and without `;`) and hex references,
    /// percent- and form-encoding, JavaScript's `escape()`, Python's bytes and `ascii()` reprs, octal
    /// bytes, Java's properties, Perl's and Swift's braced escapes, doubled quotes, quoted-printable, NFD,
    /// UTF-8 misread as Latin-1 and Windows-1252, upper case, full-width, zero-width spaces between
    /// the characters, base64 of a Basic credential, JSON three times over, JSON inside a form field,
    /// and cut short: by a real server to the client, never reaches the error. Python writes every
    /// spelling, so our decoder is not its own oracle.
    func testEchoedSecretsAreRedactedHoweverTheyAreEscaped() async throws {
        let secret = "aZ9 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~한글🔑"
        let script = #"""
        import base64, html, html.entities, json, quopri, re, sys, unicodedata, urllib.parse
        s = sys.argv[1]
        units = [int.from_bytes(b[i:i + 2], "big") for b in [s.encode("utf-16-be")] for i in range(0, len(b), 2)]
        every = "".join("\\u%04x" % u for u in units)
        go = json.dumps(s, ensure_ascii=False)[1:-1].replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        names = html.entities.codepoint2name
        def js_escape(c):
            if re.match(r"[A-Za-z0-9@*_+\-./]", c): return c
            if ord(c) < 256: return "%%%02X" % ord(c)
            return "".join("%%u%04X" % int.from_bytes(c.encode("utf-16-be")[i:i + 2], "big") for i in range(0, len(c.encode("utf-16-be")), 2))
        exact = [json.dumps(s)[1:-1], go, every, every.upper().replace("\\U", "\\u"),
                 html.escape(s), "".join("&#%d;" % ord(c) for c in s), "".join("&#x%X;" % ord(c) for c in s), "".join("&#%d" % ord(c) for c in s),
                 "".join("&%s;" % names[ord(c)] if ord(c) in names else c for c in s),
                 urllib.parse.quote(s, safe=""), re.sub("%[0-9A-F]{2}", lambda m: m.group(0).lower(), urllib.parse.quote(s, safe="")),
                 urllib.parse.quote_plus(s), "".join(js_escape(c) for c in s), repr(s.encode())[2:-1], ascii(s)[1:-1],
                 unicodedata.normalize("NFD", s), s.encode().decode("latin-1"), s.encode().decode("cp1252"), s.upper(),
                 "".join(chr(ord(c) + 0xFEE0) if 0x21 <= ord(c) <= 0x7E else c for c in s), "\u200b".join(s),
                 s[:-1], "".join("\\%03o" % b for b in s.encode()), "".join("\\" + c if not c.isalnum() else c for c in s),
                 "".join("\\x{%x}" % ord(c) for c in s), "".join("\\u{%X}" % ord(c) for c in s), s.replace('"', '""'), s.replace("'", "''"),
                 quopri.encodestring(s.encode(), quotetabs=True).decode().strip()]
        partial = [json.dumps(json.dumps(json.dumps(s)))[1:-1], urllib.parse.quote_plus(json.dumps({"secret": s})), base64.b64encode(("vendor-7:" + s).encode()).decode(), s[:len(s) * 3 // 4 + 1] + "…"]
        for spelling in exact: print("exact\t" + spelling)
        for spelling in partial: print("part\t" + spelling)
        """#
        let lines = String(decoding: try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script, secret]), as: UTF8.self)
            .split(separator: "\n").map { $0.split(separator: "\t", maxSplits: 1).map(String.init) }
        XCTAssertEqual(lines.count, 33)
        let credentials = Credentials.vendor(identifier: OpenMarketTestServer.identifier, secret: Secret(secret))
        var client = try await startServer(.openmarket)
        client.retries = 0
        for line in lines {
            let (kind, spelling) = (line[0], line.count > 1 ? line[1] : "")
            let redacted = credentials.redact("before \(spelling) after")
            XCTAssertTrue(redacted.hasPrefix("before ") && redacted.hasSuffix(" after") && redacted.contains("<redacted>"), redacted)
            XCTAssertTrue(kind == "part" || redacted == "before <redacted> after", redacted)
            let body = try JSONSerialization.data(withJSONObject: ["code": 400, "message": "secret was " + spelling])
            await server.arm(.status(400, body: String(decoding: body, as: UTF8.self)))
            do {
                try await client.delete(id: 1, credentials: credentials)
                XCTFail("must fail")
            } catch {
                XCTAssertTrue(error.description.contains("<redacted>"), "\(spelling): \(error.description)")
                for text in [error.description, redacted] {
                    for fragment in ["aZ9", "한글", "%ED%95%9C", "\\ud55c", "&#", "%5Cud55c", "+,-./:;"] {
                        XCTAssertFalse(text.lowercased().contains(fragment.lowercased()), "\(spelling): \(text)")
                    }
                }
            }
        }
        XCTAssertEqual(credentials.redact("a hunter2 b, aZ9, 한 글"), "a hunter2 b, aZ9, 한 글", "text without the secret, or with only a little of it, is left as it is")
    }

    /// A product page with items that are no products (ids 1.5 and 2^63 − 1) and names that are not
    /// valid Unicode as sent: the good products are kept, each bad item is named with its problem,
    /// and each name is shown as it was sent.
    func testAListPageSurvivesABadItem() async throws {
        let client = try await startServer(.openmarket)
        await server.arm(.bytes(200, body: OpenMarketTestServer.pageWithBadItems))
        let page = try await client.products(page: 1)
        XCTAssertEqual(page.products.map(\.id), [1, 4, 5, 6, 7])
        XCTAssertEqual(page.products.map(\.name), ["Good mug", #"Mug \xFF"#, #"Mug \uD800 blue"#, #"Mug\x01blue"#, "abc\u{202E}dcba"])
        let unreadable = " held text that is not valid Unicode, shown as sent"
        XCTAssertEqual(page.problems, ["item 2 of the page left out: id 1.5 is not a product id (a whole number of at most 15 digits)",
                                       "item 3 of the page left out: id 9223372036854775807 is not a product id (a whole number of at most 15 digits)",
                                       #"product 4: its name (\xFF)"# + unreadable, #"product 5: its name (\uD800)"# + unreadable,
                                       #"product 6: its name (\x01)"# + unreadable])
        XCTAssertEqual(ServerText.printable(page.products[4].name), #"abc\u{202E}dcba"#, "a right-to-left override is shown as an escape")
    }

    func testServerTextCannotDriveTheTerminal() async throws {
        var client = try await startServer(.openmarket)
        client.retries = 0
        await server.arm(.status(400, body: #"{"code":400,"message":"\u001b]0;owned\u0007\u001b[2Jbad\u009b31m"}"#))
        do {
            _ = try await client.product(id: 1)
            XCTFail("must fail")
        } catch {
            XCTAssertEqual(error, .rejected(status: 400, message: #"\u{1B}]0;owned\u{07}\u{1B}[2Jbad\u{009B}31m"#))
        }
        await server.arm(.status(200, body: "\u{1B}[2J not json"))
        do {
            _ = try await client.product(id: 1)
            XCTFail("must fail")
        } catch {
            XCTAssertFalse(error.description.unicodeScalars.contains { $0.properties.generalCategory == .control }, error.description)
        }
    }

    func testARegisterAnsweredWithAnIdThatIsNoProductIsUnderstoodAsPossiblyListed() async throws {
        var client = try await startServer(.openmarket)
        client.retries = 0
        let image = try Self.jpeg()
        await server.arm(.status(201, body: #"{"id":-5,"name":"Ceramic mug"}"#))
        do {
            _ = try await client.register(Self.draft, images: [image], credentials: Self.vendor)
            XCTFail("must fail")
        } catch {
            XCTAssertEqual(error, .invalidResponse("the server answered product id -5; ids are positive"))
            XCTAssertTrue(error.mayHaveBeenActedOn)
        }
    }
}

/// Answers every request with `302` to `location`, and keeps the URLs it was asked for.
private actor RedirectingTransport: HTTPTransport {
    let location: String
    private(set) var urls: [String] = []

    init(location: String) { self.location = location }

    func send(_ request: OpenMarketRequest, limits: ExchangeLimits) async throws(TransportError) -> HTTPResponse {
        urls.append(request.url.absoluteString)
        return HTTPResponse(status: 302, headers: ["Location": location], body: Data())
    }
}
