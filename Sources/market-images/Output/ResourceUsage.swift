import Foundation

/// This process's own peak memory, for `--json` summaries and benchmarks.
enum ResourceUsage {
    /// Peak resident set size in bytes. On Linux this reads VmHWM: `getrusage` there reports the peak of
    /// the process that forked this one when that was larger (the value survives `exec`), which would
    /// credit a small tool with its launcher's memory.
    static func peakResidentBytes() -> Int? {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
        #else
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss)
        #endif
    }
}
