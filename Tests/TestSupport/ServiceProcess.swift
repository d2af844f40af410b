import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `market-images serve` (or `preview`) started as a user starts it, on a free loopback port, and
/// spoken to over real HTTP with URLSession.
public final class ServiceProcess: ServiceConnection, @unchecked Sendable {
    private let process = Process()
    /// Left when the log pipe reaches end of file: the process and anything it started are done writing.
    private let logEnded = DispatchGroup()
    /// Signalled at each chunk of the log and at its end: when the start reads the log again.
    private let logChanged = DispatchSemaphore(value: 0)
    /// Left when the process has exited.
    private let exited = DispatchGroup()

    /// Starts the service and waits until it says where it listens (or it exits: then `base` is
    /// unset and `waitForExit` tells why).
    /// `openFileLimit` starts it under `ulimit -n` that low, as a unit's `LimitNOFILE` would.
    public init(_ arguments: [String], command: String = "serve", environment: [String: String] = [:], openFileLimit: Int? = nil) throws {
        super.init()
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
        errors.fileHandleForReading.readabilityHandler = { [weak self, logEnded, logChanged] handle in
            let chunk = handle.availableData
            defer { logChanged.signal() }
            guard !chunk.isEmpty else {
                handle.readabilityHandler = nil
                logEnded.leave()
                return
            }
            self?.appendLog(chunk)
        }
        exited.enter()
        process.terminationHandler = { [exited] _ in exited.leave() }
        try process.run()
        let deadline = DispatchTime.now() + 30
        let expectsMetrics = !metricsPort.isEmpty || arguments.contains("--metrics-bind") && !arguments.contains("off")
        while true {
            // Ended before this read of it: the log holds all it will say.
            let ended = logEnded.wait(timeout: .now()) == .success
            let log = logText
            let metrics = log.range(of: #"metrics on http://127\.0\.0\.1:\d+"#, options: .regularExpression)
            if let range = log.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression), metrics != nil || !expectsMetrics {
                base = URL(string: String(log[range].dropFirst("listening on ".count)))!
                metricsBase = metrics.map { URL(string: String(log[$0].dropFirst("metrics on ".count)))! }
                token = log.range(of: #"\?token=[0-9a-f]+"#, options: .regularExpression).map { String(log[$0].dropFirst("?token=".count)) }
                return
            }
            if ended || logChanged.wait(timeout: deadline) == .timedOut { return }
        }
    }

    public override var isRunning: Bool { process.isRunning }

    /// The service's own process.
    public override var processIdentifier: Int32 { process.processIdentifier }

    /// SIGTERM, as a supervisor stops a service.
    public func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }

    /// Waits for the process to end (killing it after `timeLimit`) and returns its exit status.
    @discardableResult
    public func waitForExit(timeLimit: TimeInterval = 30) -> Int32 {
        if exited.wait(timeout: .now() + timeLimit) == .timedOut { kill(process.processIdentifier, SIGKILL) }
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
    public func startServiceProcess(_ arguments: [String], command: String = "serve", environment: [String: String] = [:],
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
