import Foundation
import TestSupport
import XCTest
@testable import ThumbnailService

/// `SigV4Signer` against AWS's own SigV4 test suite and against botocore's signatures for the S3
/// requests the service sends (`Tests/Fixtures/sigv4`, where each comes from).
final class S3SignatureTests: XCTestCase {
    private let suite = Fixture.path("sigv4/aws4_testsuite")

    /// Each case's canonical request, string to sign and `Authorization`, as AWS published them.
    func testTheAWSTestSuite() throws {
        let cases = try FileManager.default.contentsOfDirectory(atPath: suite).sorted()
        XCTAssertEqual(cases.count, 7)
        let signer = SigV4Signer(credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
                                 region: "us-east-1", service: "service")
        let date = Date(timeIntervalSince1970: 1_440_938_160) // 2015-08-30T12:36:00Z
        for name in cases {
            let file = { (suffix: String) in try String(contentsOfFile: "\(self.suite)/\(name)/\(name).\(suffix)", encoding: .utf8) }
            var request = try Self.parse(try file("req"))
            XCTAssertEqual(SigV4Signer.canonicalRequest(request).text, try file("creq"), name)
            // The signer adds the date itself.
            request.headers.removeAll { $0.name.lowercased() == "x-amz-date" }
            let added = signer.signingHeaders(for: request, at: date)
            XCTAssertEqual(added.first { $0.name == "x-amz-date" }?.value, "20150830T123600Z", name)
            XCTAssertEqual(added.first { $0.name == "authorization" }?.value, try file("authz"), name)
        }
    }

    /// The same S3 requests botocore (boto3's and the AWS CLI's signer) signed: the URL, with the key
    /// encoded as botocore encodes it, and every header the signature adds.
    func testBotocoreSignsTheSameS3Requests() throws {
        let fixture = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixture.path("sigv4/botocore.json")))) as? [String: Any])
        let cases = try XCTUnwrap(fixture["cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 5)
        let date = try XCTUnwrap(ISO8601DateFormatter().date(from: try XCTUnwrap(fixture["time"] as? String)))
        for test in cases {
            let name = test["name"] as? String ?? "?"
            let credentials = AWSCredentials(accessKeyID: fixture["accessKeyID"] as! String, secretAccessKey: fixture["secretAccessKey"] as! String,
                                             sessionToken: test["token"] as? String)
            let store = ObjectStore(endpoint: test["endpoint"] as? String, region: test["region"] as! String, pathStyle: test["path_style"] as! Bool,
                                    credentials: credentials, clock: { date })
            let key = try XCTUnwrap(ObjectKey(bucket: test["bucket"] as! String, key: test["key"] as! String), name)
            let headers = (test["headers"] as! [[String]]).map { (name: $0[0], value: $0[1]) }
            let request = store.signed(test["method"] as! String, key, headers: headers, body: Data((test["body"] as! String).utf8))
            let expected = try XCTUnwrap(test["expected"] as? [String: String])
            XCTAssertEqual(request.url, expected["url"], name)
            for (header, value) in expected where header != "url" {
                XCTAssertEqual(request.headers.first { $0.name == header }?.value, value, "\(name): \(header)")
            }
        }
    }

    /// A bucket's keys are bytes: nothing in one reaches another bucket, a query or a fragment.
    func testKeysStayInTheirBucket() throws {
        XCTAssertEqual(try ObjectKey(parsing: "s3://photos/a b/c?d#e%.jpg").encodedKey, "a%20b/c%3Fd%23e%25.jpg")
        for refused in ["s3://photos/../secrets/a.jpg", "s3://photos/a/./b.jpg", "s3://photos/", "s3://photos", "s3://Photos/a.jpg",
                        "s3://ph/a.jpg", "s3://photos/a\u{0}.jpg", "s3://-photos/a.jpg", "s3://a..b/c.jpg"] {
            XCTAssertNil(try? ObjectKey(parsing: refused), refused)
        }
        let store = ObjectStore(endpoint: "http://127.0.0.1:9000", region: "us-east-1", pathStyle: true, credentials: nil)
        XCTAssertEqual(store.signed("GET", try ObjectKey(parsing: "s3://photos/x/..a?b=c&d"), headers: [], body: Data()).url,
                       "http://127.0.0.1:9000/photos/x/..a%3Fb%3Dc%26d")
        XCTAssertNil(store.signed("GET", try ObjectKey(parsing: "s3://photos/a.jpg"), headers: [], body: Data()).headers.first { $0.name == "authorization" },
                     "no credentials: unsigned, for a public bucket")
    }

    /// The key's secret and a signature are never shown: not in the credentials' description, not in
    /// an error, which names the S3 code only, never the body that echoes the string signed.
    func testSecretsAreNeverShown() {
        let credentials = AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        XCTAssertFalse("\(credentials)".contains("wJalr"))
        XCTAssertFalse(String(reflecting: credentials).contains("wJalr"))
        let body = Data("<Error><Code>SignatureDoesNotMatch</Code><StringToSign>AWS4-HMAC-SHA256 secret</StringToSign><SignatureProvided>abc</SignatureProvided></Error>".utf8)
        XCTAssertEqual(ObjectStore.errorCode(body), "SignatureDoesNotMatch")
        XCTAssertEqual("\(ObjectStoreError.refused(status: 403, code: ObjectStore.errorCode(body)))".contains("StringToSign"), false)
    }

    /// A shared credentials file's profile, as the AWS tools read it.
    func testTheSharedCredentialsFile() {
        let text = """
        # comment
        [default]
        aws_access_key_id = AKIDDEFAULT
        aws_secret_access_key = secret/default
        [shop]
        aws_access_key_id=AKIDSHOP
        aws_secret_access_key=secret/shop
        aws_session_token = token
        """
        XCTAssertEqual(AWSCredentials.sharedFile(text, profile: "default"), AWSCredentials(accessKeyID: "AKIDDEFAULT", secretAccessKey: "secret/default"))
        XCTAssertEqual(AWSCredentials.sharedFile(text, profile: "shop"), AWSCredentials(accessKeyID: "AKIDSHOP", secretAccessKey: "secret/shop", sessionToken: "token"))
        XCTAssertNil(AWSCredentials.sharedFile(text, profile: "other"))
    }

    /// A suite `.req` file: the request line, `Name:value` headers, a blank line and the body.
    private static func parse(_ text: String) throws -> SigV4Signer.Request {
        let parts = text.components(separatedBy: "\n\n")
        var lines = parts[0].components(separatedBy: "\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        let target = String(requestLine[1])
        let path = String(target.prefix { $0 != "?" })
        let pairs = target.contains("?") ? target.drop { $0 != "?" }.dropFirst().split(separator: "&") : []
        let query: [(name: String, value: String)] = pairs.map { pair in
            let sides = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? String($0) }
            return (name: sides[0], value: sides.count > 1 ? sides[1] : "")
        }
        let headers: [(name: String, value: String)] = lines.map { line in
            let colon = line.firstIndex(of: ":")!
            return (name: String(line[..<colon]), value: String(line[line.index(after: colon)...]))
        }
        let body = parts.count > 1 ? parts[1] : ""
        return SigV4Signer.Request(method: String(requestLine[0]), path: SigV4Signer.uriEncode(path, keepingSlashes: true), query: query,
                                   headers: headers, payloadHash: SigV4Signer.hexSHA256(Data(body.utf8)))
    }
}
