import Foundation
import XCTest

/// Runs the built `market-images` executable as a user would, for the CLI tests of both test targets.
public enum CommandLineTool {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// The signal that ended the process (a crash, or the test's own kill), if any.
        public var signal: Int32?
        /// True when the process outlived its time limit and was killed.
        public var timedOut = false
    }

    /// The executable built next to the test bundle.
    public static let executable: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        return candidates.map { $0.appendingPathComponent("market-images") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// Runs to completion, or kills the process after `timeLimit` seconds (a hang is a failure too).
    /// Unless `--show-secrets` was asked for, no test secret may appear in anything it printed.
    public static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil,
                           timeLimit: TimeInterval = 300, file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        let running = try Running(arguments: arguments, environment: environment, input: input)
        let deadline = DispatchWorkItem { [running] in running.kill(timedOut: true) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: deadline)
        defer { deadline.cancel() }
        let result = running.wait()
        if !arguments.contains("--show-secrets") {
            TestSecrets.assertAbsent(in: result.stdout + result.stderr, arguments.joined(separator: " "), file: file, line: line)
        }
        return result
    }

    /// Starts the tool and returns at once, for tests that kill it or race two runs.
    public static func launch(_ arguments: [String], environment: [String: String] = [:]) throws -> Running {
        try Running(arguments: arguments, environment: environment)
    }

    public final class Running: @unchecked Sendable {
        private let process = Process()
        private let stdoutData = LockedData(), stderrData = LockedData()
        private let killed = LockedData()
        /// Left once both pipes reached end of file.
        private let drained = DispatchGroup()

        init(arguments: [String], environment: [String: String], input: String? = nil) throws {
            process.executableURL = CommandLineTool.executable
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let stdin = Pipe()
            process.standardInput = input == nil ? FileHandle.nullDevice : stdin
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            if let input {
                stdin.fileHandleForWriting.write(Data(input.utf8))
                try stdin.fileHandleForWriting.close()
            }
            // Drain both pipes concurrently so a child that fills one cannot block on the other.
            for (pipe, sink) in [(out, stdoutData), (err, stderrData)] {
                drained.enter()
                Thread { [drained] in
                    sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
                    drained.leave()
                }.start()
            }
        }

        public var processIdentifier: Int32 { process.processIdentifier }
        public var hasExited: Bool { !process.isRunning }

        /// SIGKILL: no handler runs, nothing is flushed or cleaned up, as when a laptop dies.
        public func kill(timedOut: Bool = false) {
            guard process.isRunning else { return }
            if timedOut { killed.set(Data([1])) }
            Foundation.kill(process.processIdentifier, SIGKILL)
        }

        public func wait() -> Result {
            process.waitUntilExit()
            // A child's own children may hold the pipes open; what they print after a minute is not waited for.
            if drained.wait(timeout: .now() + 60) == .timedOut { XCTFail("the tool's output pipes stayed open 60 s after it exited") }
            let signalled = process.terminationReason == .uncaughtSignal
            return Result(status: process.terminationStatus,
                          stdout: String(decoding: stdoutData.value, as: UTF8.self),
                          stderr: String(decoding: stderrData.value, as: UTF8.self),
                          signal: signalled ? process.terminationStatus : nil, timedOut: killed.isSet)
        }
    }
}

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}
