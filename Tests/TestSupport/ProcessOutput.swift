import Foundation

/// Runs a tool the tests use as an independent oracle (ExifTool, Chromium, Python's `thumbhash`)
/// and returns what it wrote on standard output; a failure carries what it wrote on standard error.
public enum ProcessOutput {
    public struct Failed: Error, CustomStringConvertible {
        public let status: Int32
        public let standardError: String
        public var description: String { "exit \(status): \(standardError)" }
    }

    public static func run(_ executable: String, _ arguments: [String], directory: String? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe(), errors = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(status: process.terminationStatus, standardError: String(decoding: (try? Data(contentsOf: errors)) ?? Data(), as: UTF8.self))
        }
        return data
    }
}
