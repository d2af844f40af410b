import Foundation
import XCTest

/// A running service as its clients see it, whether started as a process (`ServiceProcess`) or in
/// the test's own process (the libraries' tests): real HTTP on loopback, its log, its metrics, and
/// what must hold for every service a test started (`audit`).
open class ServiceConnection: @unchecked Sendable {
    public typealias Answer = LoopbackClient.Answer

    private let lock = NSLock()
    private var log = Data()
    /// Every image answered and every signature sent, for `audit`.
    private var images: [Data] = []
    private var signatures: Set<String> = []
    public var base = URL(string: "http://127.0.0.1")!
    /// Where `serve` answers `/metrics` (its own loopback port), if it does.
    public var metricsBase: URL?
    /// The preview's per-run token, from the address it printed.
    public var token: String?

    public init() {}

    public var isListening: Bool { base.port != nil }

    /// Adds to the log, as the service writes it (warnings and access-log lines).
    public func appendLog(_ data: Data) {
        lock.withLock { log.append(data) }
    }

    /// `path` on the service, with the preview's token for a browser that has no cookie yet.
    public func url(_ path: String) -> URL {
        guard let token else { return URL(string: base.absoluteString + path)! }
        return URL(string: base.absoluteString + path + (path.contains("?") ? "&" : "?") + "token=" + token)!
    }

    /// Everything the service wrote to its log so far: its warnings and access log.
    public var logText: String { lock.withLock { String(decoding: log, as: UTF8.self) } }

    public func get(_ path: String, headers: [String: String] = [:], timeout: TimeInterval = 30) async throws -> Answer {
        let cookie = token.map { ["Cookie": "market_images_preview=\($0)"] } ?? [:]
        let answer = try await LoopbackClient(base: base).get(path, headers: cookie.merging(headers) { $1 }, timeout: timeout)
        let signature = String(path.dropFirst().prefix { $0 != "/" })
        lock.withLock {
            if answer.header("Content-Type")?.hasPrefix("image/") == true { images.append(answer.body) }
            if signature.count >= 40 { signatures.insert(signature) }
        }
        return answer
    }

    /// The Prometheus text from the metrics port.
    public func metrics() async throws -> String {
        let base = try XCTUnwrap(metricsBase, "the service serves no metrics")
        return String(decoding: try await LoopbackClient(base: base).get("/metrics").body, as: UTF8.self)
    }

    /// Returns once at least `count` requests are in the service's hands, as its own in-flight gauge
    /// says (false after `timeLimit`): orders a test by the service's state, not by a sleep.
    @discardableResult
    public func waitUntilInFlight(atLeast count: Int, timeLimit: TimeInterval = 30) async -> Bool {
        await waitUntilMetric("market_images_requests_in_flight", atLeast: Double(count), timeLimit: timeLimit)
    }

    /// Returns once the sample `series` (a metric's name, with its labels if it has any) is at least
    /// `value` on the metrics port (false after `timeLimit`).
    @discardableResult
    public func waitUntilMetric(_ series: String, atLeast value: Double, timeLimit: TimeInterval = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(timeLimit)
        while Date() < deadline {
            let text = (try? await metrics()) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            if let sample = line.flatMap({ Double($0.split(separator: " ")[1]) }), sample >= value { return true }
            await Task.yield()
        }
        return false
    }

    /// What must hold for every service a test started, checked when it is stopped: no image it
    /// answered carries metadata (read back with ExifTool), and its log holds none of `secrets` (the
    /// key, the salt) nor any full signature a client sent.
    public func audit(secrets: [String], file: StaticString = #filePath, line: UInt = #line) {
        let (images, signatures) = lock.withLock { (self.images, self.signatures) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let paths = images.enumerated().map { folder + "/\($0.offset)" }
        for (path, image) in zip(paths, images) { _ = FileManager.default.createFile(atPath: path, contents: image) }
        do {
            for (path, tags) in try Exiftool.metadata(in: paths) where !tags.isEmpty {
                XCTFail("a response carried metadata: \(tags) in \(path)", file: file, line: line)
            }
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        let log = logText
        for secret in secrets where !secret.isEmpty && log.contains(secret) { XCTFail("the key or salt is in the log", file: file, line: line) }
        for signature in signatures where log.contains(signature) { XCTFail("a full signature is in the log", file: file, line: line) }
    }

    /// The lines of the log (warnings and access log) that contain `text`.
    public func logLines(containing text: String) -> [String] {
        logText.split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    /// Whether the service is still running (overridden by each way of starting one).
    open var isRunning: Bool { isListening }

    /// The process the service runs in: the test's own unless it was started as a process.
    open var processIdentifier: Int32 { getpid() }

    /// Resident and peak resident memory of the service's process in MB, from /proc (Linux).
    open var memory: (resident: Int, peak: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(processIdentifier)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// CPU seconds the service's process has used (user and system), from /proc (Linux).
    public var cpuSeconds: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8)) ?? ""
        // Fields after the command name, which is in parentheses and may hold spaces.
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
