import CKernels
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The segmentation model's runtime, loaded only when a background is replaced: `dlopen` of our
/// small shim library (`Mask/mask.cpp`, linked against OpenCV 4.6's DNN by `scripts/build-mask`),
/// looked up in `../lib/market-images/` beside the executable as the package installs it, then in
/// the data folders beside the model, where `scripts/setup --background` builds it. A seller who never
/// asks for `--background` loads neither it nor OpenCV, and the package does not depend on them.
final class MaskRuntime: Sendable {
    #if os(macOS)
    static let libraryName = "libMarketImagesMask.dylib"
    #else
    static let libraryName = "libMarketImagesMask.so"
    #endif

    private let open: mi_mask_open_fn
    private let run: mi_mask_run_fn
    /// Each model loaded once per process, by path. The nets live as long as the process.
    private let nets = Locked<[String: OpaquePointer]>([:])

    private init(open: mi_mask_open_fn, run: mi_mask_run_fn) {
        (self.open, self.run) = (open, run)
    }

    /// The runtime, loaded on first use; the failure, said the same way, after one failed load.
    static func shared() throws(ImagePipelineError) -> MaskRuntime {
        let state = loaded.withLock { (state: inout Result<MaskRuntime, ImagePipelineError>?) in
            if let state { return state }
            let result: Result<MaskRuntime, ImagePipelineError>
            do throws(ImagePipelineError) { result = .success(try load()) } catch { result = .failure(error) }
            state = result
            return result
        }
        return try state.get()
    }

    private static let loaded = Locked<Result<MaskRuntime, ImagePipelineError>?>(nil)

    /// Where the shim library is looked for: `../lib/market-images/` from the executable (the
    /// package's /usr/lib/market-images), then the data folders (`BackgroundModel.dataFolders`).
    static var places: [String] {
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        return [executable.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib/market-images/\(libraryName)").path]
            + BackgroundModel.dataFolders.map { ($0 as NSString).appendingPathComponent(libraryName) }
    }

    private static func load() throws(ImagePipelineError) -> MaskRuntime {
        var reasons: [String] = []
        for path in places where FileManager.default.fileExists(atPath: path) {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? "\(path) could not be loaded")
                continue
            }
            guard let open = dlsym(handle, "mi_mask_open"), let run = dlsym(handle, "mi_mask_run") else {
                reasons.append("\(path) lacks mi_mask_open or mi_mask_run")
                continue
            }
            return MaskRuntime(open: unsafeBitCast(open, to: mi_mask_open_fn.self), run: unsafeBitCast(run, to: mi_mask_run_fn.self))
        }
        throw .backgroundUnavailable(detail: reasons.isEmpty ? "no \(libraryName) at \(places.joined(separator: " or "))" : reasons.joined(separator: "; "))
    }

    /// The product's mask for `rgb` (3 bytes a pixel), one byte a pixel, 255 the product, by the
    /// model at `model`; and the share of the product that the product encloses and that has the
    /// ground's colours, kept because only the colours said it was ground (`mi_mask_run`).
    func mask(model: String, rgb: UnsafeBufferPointer<UInt8>, width: Int, height: Int) throws(ImagePipelineError) -> (mask: [UInt8], groundKept: Double) {
        var error = [CChar](repeating: 0, count: 512)
        let loaded = nets.withLock { (nets: inout [String: OpaquePointer]) -> Result<OpaquePointer, ImagePipelineError> in
            if let net = nets[model] { return .success(net) }
            let opened = Result { () throws(ImagePipelineError) in
                try Self.opened(model) { (name: String) throws(ImagePipelineError) in
                    guard let net = open(name, &error, error.count) else {
                        throw .backgroundModelUnusable(path: model, reason: "OpenCV could not read it as an ONNX network (\(Self.text(error)))")
                    }
                    return net
                }
            }
            if case .success(let net) = opened { nets[model] = net }
            return opened
        }
        let net = try loaded.get()
        var mask = [UInt8](repeating: 0, count: width * height)
        var groundKept = 0.0
        let status = mask.withUnsafeMutableBufferPointer { out in
            run(net, rgb.baseAddress, Int32(width), Int32(height), Int32(BackgroundModel.side), out.baseAddress, &error, error.count, &groundKept)
        }
        guard status == 0 else { throw .backgroundModelUnusable(path: model, reason: "it did not run: \(Self.text(error))") }
        return (mask, groundKept)
    }

    /// The net `load` makes of the file at `path`, which is opened here first and must be a regular
    /// file of 1 byte to `BackgroundModel.maxBytes`: OpenCV reads whatever it is given, and a FIFO
    /// given as `--model` hung `prepare` for ever. OpenCV then reads the descriptor checked, through
    /// `/dev/fd`, not the name again.
    private static func opened(_ path: String, load: (String) throws(ImagePipelineError) -> OpaquePointer) throws(ImagePipelineError) -> OpaquePointer {
        #if canImport(Glibc)
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #else
        let descriptor = Darwin.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #endif
        guard descriptor >= 0 else { throw .backgroundModelUnusable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw .backgroundModelUnusable(path: path, reason: "it is not a regular file")
        }
        guard (1...BackgroundModel.maxBytes).contains(Int(status.st_size)) else {
            throw .backgroundModelUnusable(path: path, reason: "it holds \(status.st_size) bytes, and a model has 1 to \(BackgroundModel.maxBytes)")
        }
        return try load("/dev/fd/\(descriptor)")
    }

    /// The sentence the shim wrote into `buffer`.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
