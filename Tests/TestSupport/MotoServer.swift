import Foundation
import XCTest

/// moto's S3 API server (PyPI `moto[server]`, `moto_server`: a real S3 implementation in Python,
/// with its own HTTP stack and S3 semantics) on a free loopback port, started for one test and
/// killed at its end, and botocore (the AWS CLI's and boto3's client) to put objects in it as any
/// other S3 client would. Missing, it skips the test on a developer's machine and fails it in CI
/// (`CI=true`), where `scripts/setup --tests` installs it.
///
/// With `checksSignatures`, moto checks every request's signature (`INITIAL_NO_AUTH_ACTION_COUNT`:
/// only the first three actions, which make an IAM user allowed `s3:*` and its access key, go
/// unchecked), so a request signed wrongly, or with another secret, is refused 403
/// `SignatureDoesNotMatch` as S3 refuses it. moto 5.2's check encodes some bytes of a key (`+`, `%`,
/// `=`) and an encoded `/` in a query differently from AWS, and refuses botocore's own requests for
/// them, so a test of such keys runs without it.
public final class MotoServer: @unchecked Sendable {
    public let endpoint: String
    /// The IAM user's key moto made: the only one it accepts.
    public private(set) var accessKeyID = "", secretAccessKey = ""
    private let process = Process()

    /// Starts moto and makes its user, its key and `buckets`.
    public init(buckets: [String], checksSignatures: Bool = true) throws {
        guard let executable = Self.executable("moto_server") else {
            let message = "moto_server is not installed; run scripts/setup --tests (PyPI moto[server])"
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw Missing(description: message) }
            throw XCTSkip(message)
        }
        let port = try LoopbackClient.freePort()
        endpoint = "http://127.0.0.1:\(port)"
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-H", "127.0.0.1", "-p", String(port)]
        if checksSignatures { process.environment = ProcessInfo.processInfo.environment.merging(["INITIAL_NO_AUTH_ACTION_COUNT": "3"]) { $1 } }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready when its port takes a connection: moto binds only once its app is loaded.
        let deadline = ContinuousClock.now + .seconds(30)
        while !Self.accepts(port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                stop()
                throw Missing(description: "moto_server did not listen on \(endpoint) within 30 s")
            }
            usleep(20_000)
        }
        let key = try botocore("""
            import json
            iam = botocore.session.get_session().create_client('iam', endpoint_url=c.meta.endpoint_url, region_name='us-east-1',
                aws_access_key_id='unchecked', aws_secret_access_key='unchecked')
            iam.create_user(UserName='market-images')
            iam.put_user_policy(UserName='market-images', PolicyName='s3', PolicyDocument=json.dumps(
                {'Version': '2012-10-17', 'Statement': [{'Effect': 'Allow', 'Action': 's3:*', 'Resource': '*'}]}))
            key = iam.create_access_key(UserName='market-images')['AccessKey']
            print(key['AccessKeyId'])
            print(key['SecretAccessKey'])
            """, [])
        let lines = String(decoding: key, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count == 2 else { throw Missing(description: "moto made no access key: \(lines)") }
        (accessKeyID, secretAccessKey) = (lines[0], lines[1])
        try botocore("for name in sys.argv[1:]: c.create_bucket(Bucket=name)", buckets)
    }

    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// Kills the server (SIGKILL: moto's werkzeug server does not stop at SIGTERM) and waits for it.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// Puts each object (key: bytes) in `bucket` with botocore (`put_object`, as boto3 or
    /// `aws s3 cp` uploads), in one run of it.
    public func put(_ objects: [String: Data], bucket: String, contentType: String = "image/jpeg") throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("moto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var arguments = [bucket, contentType]
        for (index, (key, data)) in objects.sorted(by: { $0.key < $1.key }).enumerated() {
            let file = folder.appendingPathComponent(String(index))
            try data.write(to: file)
            arguments += [key, file.path]
        }
        try botocore("""
            for key, path in zip(sys.argv[3::2], sys.argv[4::2]):
                c.put_object(Bucket=sys.argv[1], Key=key, Body=open(path, 'rb').read(), ContentType=sys.argv[2])
            """, arguments)
    }

    /// The keys in `bucket` (under `prefix`), listed with botocore.
    public func keys(in bucket: String, prefix: String = "") throws -> [String] {
        let output = try botocore("print('\\n'.join(o['Key'] for o in c.list_objects_v2(Bucket=sys.argv[1], Prefix=sys.argv[2]).get('Contents', [])))", [bucket, prefix])
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @discardableResult
    private func botocore(_ statement: String, _ arguments: [String]) throws -> Data {
        let script = """
        import sys, botocore.session
        c = botocore.session.get_session().create_client('s3', endpoint_url='\(endpoint)', region_name='us-east-1',
            aws_access_key_id='\(accessKeyID)', aws_secret_access_key='\(secretAccessKey)')
        \(statement)
        """
        return try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script] + arguments)
    }

    /// On `PATH`, or where `pip install --user` puts scripts (`scripts/setup` falls back to it).
    private static func executable(_ name: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin").split(separator: ":").map(String.init)
        return (path + [NSHomeDirectory() + "/.local/bin"]).map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile(atPath:))
    }

    private static func accepts(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
