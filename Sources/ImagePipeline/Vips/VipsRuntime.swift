import CVips
import Foundation

/// Process-wide libvips setup. libvips must be initialised once, from one thread, before any other
/// call; `ensureStarted()` is cheap and idempotent, so every entry point calls it.
public enum VipsRuntime {
    private static let started: Result<Void, ImagePipelineError> = {
        guard mi_init(CommandLine.arguments.first ?? "market-images") == 0 else {
            return .failure(.libraryUnavailable(detail: VipsErrorLog.take(for: nil)))
        }
        // The operation cache keys loads by file name and does not revalidate on 8.14: a photo
        // replaced on disk would come back stale, and batch work gains nothing from it.
        vips_cache_set_max(0)
        // Loaders not meant for hostile input (ImageMagick, FITS, matrix, ...) must never see a seller's file.
        vips_block_untrusted_set(1)
        // JPEG XL is marked untrusted on 8.14, its saver too. The saver only sees our pixels; the
        // loader only our own outputs read back to score them, since every source passes the
        // allow-list (`ImageHeader`), which has no JPEG XL, before a loader opens it.
        vips_operation_block_set("VipsForeignSaveJxl", 0)
        vips_operation_block_set("VipsForeignLoadJxl", 0)
        if ProcessInfo.processInfo.environment["MARKET_IMAGES_VIPS_WARNINGS"] == nil {
            mi_silence_warnings()
        }
        return .success(())
    }()

    /// Process-wide allocator settings for batch image work; call once at start, before threads.
    /// They more than halve peak memory on a folder of photos, at the same speed (BENCHMARKS.md).
    public static func tuneAllocatorForBatchWork() {
        mi_tune_allocator()
    }

    static func ensureStarted() throws(ImagePipelineError) {
        try started.get()
    }

    /// What libvips holds now in its own allocations, the most it has held, and how many blocks:
    /// imgproxy's `vips_*` metrics.
    public static var trackedMemory: (bytes: Int, highWater: Int, allocations: Int) {
        (Int(vips_tracked_get_mem()), Int(vips_tracked_get_mem_highwater()), Int(vips_tracked_get_allocs()))
    }

    /// How many threads libvips may use inside one image. The setting is process-wide in libvips, so
    /// only `ImageWorkPool` sets it, from its worker count.
    static func setThreadsPerImage(_ threads: Int) {
        vips_concurrency_set(Int32(clamping: max(1, threads)))
    }
}
