import Foundation

/// Runs the built `market-images` executable as a user would, for the CLI tests of both test targets.
public enum CommandLineTool {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
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

    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Drain stderr concurrently so a child that fills one pipe cannot block on the other.
        let stderrData = LockedData()
        let reader = Thread { stderrData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !stderrData.isSet { usleep(1000) }
        return Result(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                      stderr: String(decoding: stderrData.value, as: UTF8.self))
    }
}

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}
