import Foundation

/// Runs a tool the tests use as an independent oracle (ExifTool, Chromium) and returns what it wrote
/// on standard output; its standard error is dropped.
enum ProcessOutput {
    static func run(_ executable: String, _ arguments: [String], directory: String? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}
