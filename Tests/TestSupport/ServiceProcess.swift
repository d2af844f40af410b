import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `market-images serve` (or `preview`) started as a user starts it, on a free loopback port, and
/// spoken to over real HTTP with URLSession.
public final class ServiceProcess: @unchecked Sendable {
    public typealias Answer = LoopbackClient.Answer

    private let process = Process()
    private let lock = NSLock()
    private var log = Data()
    /// Left when the log pipe reaches end of file: the process and anything it started are done writing.
    private let logEnded = DispatchGroup()
    /// Every image answered and every signature sent, for `audit`.
    private var images: [Data] = []
    private var signatures: Set<String> = []
    public private(set) var base = URL(string: "http://127.0.0.1")!
    /// Where `serve` answers `/metrics` (its own loopback port), if it does.
    public private(set) var metricsBase: URL?

    /// Starts the service and waits until it says where it listens (or it exits: then `base` is
    /// unset and `waitForExit` tells why).
    /// `openFileLimit` starts it under `ulimit -n` that low, as a unit's `LimitNOFILE` would.
    public init(_ arguments: [String], command: String = "serve", environment: [String: String] = [:], openFileLimit: Int? = nil) throws {
        process.executableURL = CommandLineTool.executable
        // Every service gets its own metrics port too, so tests can run services side by side.
        let metricsPort = command == "serve" && !arguments.contains("--metrics-bind") ? ["--metrics-bind", "127.0.0.1:0"] : []
        process.arguments = [command, "--bind", "127.0.0.1:0"] + metricsPort + arguments
        if let openFileLimit {
            // exec keeps the process (and its pid) the service's own.
            process.arguments = ["-c", "ulimit -n \(openFileLimit) && exec \"$0\" \"$@\"", CommandLineTool.executable.path] + process.arguments!
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardError = errors
        // The preview prints its address, with the run's token, on stdout.
        process.standardOutput = command == "preview" ? errors : FileHandle.nullDevice
        logEnded.enter()
        errors.fileHandleForReading.readabilityHandler = { [weak self, logEnded] handle in
            let chunk = handle.availableData
            guard !chunk.isEmpty else {
                handle.readabilityHandler = nil
                logEnded.leave()
                return
            }
            self?.lock.withLock { self?.log.append(chunk) }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        let expectsMetrics = !metricsPort.isEmpty || arguments.contains("--metrics-bind") && !arguments.contains("off")
        while Date() < deadline, process.isRunning {
            let log = logText
            let metrics = log.range(of: #"metrics on http://127\.0\.0\.1:\d+"#, options: .regularExpression)
            if let range = log.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression), metrics != nil || !expectsMetrics {
                base = URL(string: String(log[range].dropFirst("listening on ".count)))!
                metricsBase = metrics.map { URL(string: String(log[$0].dropFirst("metrics on ".count)))! }
                token = log.range(of: #"\?token=[0-9a-f]+"#, options: .regularExpression).map { String(log[$0].dropFirst("?token=".count)) }
                return
            }
            usleep(20_000)
        }
    }

    public var isListening: Bool { base.port != nil }

    /// The preview's per-run token, from the address it printed.
    public private(set) var token: String?

    /// `path` on the service, with the preview's token for a browser that has no cookie yet.
    public func url(_ path: String) -> URL {
        guard let token else { return URL(string: base.absoluteString + path)! }
        return URL(string: base.absoluteString + path + (path.contains("?") ? "&" : "?") + "token=" + token)!
    }

    /// Everything the service wrote to stderr so far: its warnings and access log.
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

    /// Resident and peak resident memory of the process in MB, from /proc (Linux).
    public var memory: (resident: Int, peak: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    public var isRunning: Bool { process.isRunning }

    /// CPU seconds the process has used (user and system), from /proc (Linux).
    public var cpuSeconds: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
        // Fields after the command name, which is in parentheses and may hold spaces.
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// SIGTERM, as a supervisor stops a service.
    public func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }

    /// Waits for the process to end (killing it after `timeLimit`) and returns its exit status.
    @discardableResult
    public func waitForExit(timeLimit: TimeInterval = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(timeLimit)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        if logEnded.wait(timeout: .now() + 10) == .timedOut { XCTFail("the service's log stayed open 10 s after it exited") }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

extension XCTestCase {
    /// `market-images COMMAND` started as a user starts it (see `ServiceProcess`), required to be
    /// listening, and when the test ends stopped and audited (`ServiceProcess.audit`) for `secrets`.
    public func startService(_ arguments: [String], command: String = "serve", environment: [String: String] = [:],
                             secrets: [String] = [], openFileLimit: Int? = nil,
                             file: StaticString = #filePath, line: UInt = #line) throws -> ServiceProcess {
        let service = try ServiceProcess(arguments, command: command, environment: environment, openFileLimit: openFileLimit)
        XCTAssertTrue(service.isListening, service.logText, file: file, line: line)
        addTeardownBlock {
            service.terminate()
            service.waitForExit()
            service.audit(secrets: secrets, file: file, line: line)
        }
        return service
    }
}
