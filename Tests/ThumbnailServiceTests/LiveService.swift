import Foundation
import ImagePipeline
import Logging
import ServiceLifecycle
import TestSupport
import XCTest
@testable import ThumbnailService

/// `serve` in the test's own process, as the command runs it: the arguments and environment resolved
/// by `ServiceSettings`, the service run by `ThumbnailService.run` with its real listeners and
/// connection handlers on loopback ports, stopped as SIGTERM stops it (its group's graceful
/// shutdown). Only the command's wiring is left to `CommandLineTests`.
final class LiveService: ServiceConnection, @unchecked Sendable {
    let configuration: ServiceConfiguration
    private let group = Locked<ServiceGroup?>(nil)
    private let stopped = Locked(false)
    private var running: Task<Int32, Never>?
    /// The test process's resident size when the service started, in MB.
    private var baseline = 0

    /// Resolves and starts the service on `127.0.0.1:0` (metrics on another free port unless the
    /// arguments say otherwise) and returns once it listens. A setting that cannot be used throws
    /// `ServiceSettings.Invalid`, as the command exits 2 with it.
    init(_ arguments: [String], environment: [String: String] = [:]) async throws {
        let metrics = arguments.contains("--metrics-bind") ? [] : ["--metrics-bind", "127.0.0.1:0"]
        let settings = try ServiceSettings(arguments: ["--bind", "127.0.0.1:0"] + metrics + arguments,
                                           environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        configuration = settings.configuration
        super.init()
        for warning in settings.warnings { appendLog(Data("warning: \(warning)\n".utf8)) }
        // The peak resident size counts from here.
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        baseline = super.memory.resident
        let service = try ThumbnailService(configuration, logger: Logger(label: "serve") { _ in LogText(self) })
        let (events, listening) = AsyncStream<(String, String)>.makeStream()
        running = Task { [group, stopped] in
            defer { stopped.withLock { $0 = true } }
            do {
                try await service.run(signals: [], onStart: { running in group.withLock { $0 = running } }) { listening.yield(($0, $1)) }
                listening.finish()
                return 0
            } catch {
                self.appendLog(Data("error: \(error)\n".utf8))
                listening.finish()
                return 1
            }
        }
        for await (what, url) in events {
            if what == "listening on" { base = URL(string: url)! } else { metricsBase = URL(string: url.replacingOccurrences(of: "/metrics", with: ""))! }
            if isListening, metricsBase != nil || configuration.metricsBind == nil { break }
        }
    }

    override var isRunning: Bool { !stopped.current }

    /// What the service added to the test process's resident size, now and at its peak, in MB: a
    /// process of its own starts at about 60 MB more (the debug build's runtime and libraries).
    override var memory: (resident: Int, peak: Int) {
        let memory = super.memory
        return (memory.resident - baseline, memory.peak - baseline)
    }

    /// Why the service would not start with these settings, as `serve` says it before exiting 2; nil
    /// when it would start.
    static func refusal(_ arguments: [String], environment: [String: String]) -> String? {
        do {
            // Free ports, unless the environment names its own.
            let ports = environment.keys.contains { $0.hasSuffix("BIND") } ? [] : ["--bind", "127.0.0.1:0", "--metrics-bind", "off"]
            let settings = try ServiceSettings(arguments: ports + arguments,
                                               environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
            _ = try ThumbnailService(settings.configuration, logger: Logger(label: "test") { _ in LogLines() })
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// As SIGTERM: stop accepting, let requests in flight finish within the grace.
    func terminate() async {
        await group.current?.triggerGracefulShutdown()
    }

    /// Waits for the service to stop and returns what the command would exit with.
    @discardableResult
    func waitForExit() async -> Int32 {
        await running?.value ?? 1
    }

    /// Each message as a line of the log, as the command's log handler writes it.
    private struct LogText: LogHandler {
        let service: LiveService
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        init(_ service: LiveService) { self.service = service }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            service.appendLog(Data("\(event.level) \(event.message)\n".utf8))
        }
    }
}

extension XCTestCase {
    /// `serve` in process (see `LiveService`), required to be listening, and when the test ends
    /// stopped and audited (`ServiceConnection.audit`) for `secrets`.
    func startService(_ arguments: [String], environment: [String: String] = [:], secrets: [String] = [],
                      file: StaticString = #filePath, line: UInt = #line) async throws -> LiveService {
        let service = try await LiveService(arguments, environment: environment)
        XCTAssertTrue(service.isListening, service.logText, file: file, line: line)
        addTeardownBlock {
            await service.terminate()
            await service.waitForExit()
            service.audit(secrets: secrets, file: file, line: line)
        }
        return service
    }
}
