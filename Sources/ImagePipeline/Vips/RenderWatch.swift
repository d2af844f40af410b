import CKernels

/// A render's stop signal: a deadline from when `run` starts it, and a cancel any thread may
/// send (the last client waiting for it went away). While `run` runs its body, libvips stops the
/// image it computes at the next tile boundary, our JPEG decode at the next row (or, in a progressive
/// file, at the next scan row it takes in), and the pipeline before its next operation or encode.
/// What is stopped fails; `stop` says why, so the caller reports that, not the failure.
final class RenderWatch: @unchecked Sendable {
    enum Stop: Equatable {
        case deadline
        case cancelled
    }

    private let watch: OpaquePointer?
    let timeout: Duration?

    init(timeout: Duration?) {
        self.timeout = timeout
        watch = mi_watch_new(timeout?.inSeconds ?? 0)
    }

    deinit {
        mi_watch_free(watch)
    }

    func cancel() {
        if let watch { mi_watch_cancel(watch) }
    }

    /// Why the work should stop, or nil while it may go on.
    var stop: Stop? {
        guard let watch else { return nil }
        return Self.stop(mi_watch_state(watch))
    }

    /// `body` under this watch, on the calling thread.
    func run<T>(_ body: () -> T) -> T {
        mi_watch_begin(watch)
        defer { mi_watch_end() }
        return body()
    }

    /// Throws when the calling thread's watch says stop, before each operation and each encode. The
    /// error is only a way out: the owner of the watch words it by `stop`.
    static func check() throws(ImagePipelineError) {
        if stop(mi_watch_stopped()) != nil { throw .cancelled }
    }

    /// Lets the calling thread's watch, if it has one, stop the computation of `image` (and of
    /// images made from it).
    static func watch(_ image: UnsafeMutableRawPointer) {
        mi_watch_image(image)
    }

    private static func stop(_ state: Int32) -> Stop? {
        switch state {
        case Int32(MI_WATCH_EXPIRED): .deadline
        case Int32(MI_WATCH_CANCELLED): .cancelled
        default: nil
        }
    }
}
