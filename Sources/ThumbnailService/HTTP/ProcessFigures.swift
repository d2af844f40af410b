import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the kernel says of this process, for the standard metrics of Prometheus' client libraries
/// (`process_cpu_seconds_total`, `process_resident_memory_bytes`, …), so memory and CPU panels built
/// for any exporter work: CPU from `getrusage`, the descriptor limit from `getrlimit`, and on Linux
/// memory, open descriptors and the start from `/proc/self`. A figure the system does not give is nil
/// and left out, never a made-up zero.
struct ProcessFigures {
    var cpuSeconds: Double
    var residentBytes: Double?
    var virtualBytes: Double?
    var openFiles: Double?
    var maxFiles: Double?
    /// Seconds since the Unix epoch.
    var startTime: Double?

    static func read() -> ProcessFigures {
        var usage = rusage()
        getrusage(thisProcess, &usage)
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        var figures = ProcessFigures(cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime))
        var limit = rlimit()
        if getrlimit(files, &limit) == 0, limit.rlim_cur != rlim_t.max { figures.maxFiles = Double(limit.rlim_cur) }
        figures.openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map { Double($0.count) }
        // /proc/self/stat: the fields after the command's closing parenthesis, from field 3 on.
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK))), page = Double(sysconf(Int32(_SC_PAGESIZE)))
            if fields.count > 21, let virtual = Double(fields[20]), let resident = Double(fields[21]), let started = Double(fields[19]) {
                (figures.virtualBytes, figures.residentBytes) = (virtual, resident * page)
                figures.startTime = bootTime().map { $0 + started / ticks }
            }
        }
        return figures
    }

    // Glibc imports these as enums, Darwin as integers.
    #if os(Linux)
    private static let (thisProcess, files) = (__rusage_who_t(RUSAGE_SELF.rawValue), __rlimit_resource_t(RLIMIT_NOFILE.rawValue))
    #else
    private static let (thisProcess, files) = (RUSAGE_SELF, RLIMIT_NOFILE)
    #endif

    /// The `btime` line of `/proc/stat`: when the system started, in seconds since the epoch.
    private static func bootTime() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }) else { return nil }
        return Double(line.dropFirst(6))
    }
}
