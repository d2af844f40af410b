import CVips
import Foundation

/// Owns one reference to a `VipsImage`. libvips images are immutable once built, so a handle may be
/// read from any thread; `deinit` drops the reference, so no error path can leak one. `origin` says
/// which source the pixels come from, so a failure anywhere downstream takes that source's error text.
final class VipsImageHandle: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<VipsImage>
    let origin: VipsErrorLog.Source?

    init(taking pointer: UnsafeMutablePointer<VipsImage>, origin: VipsErrorLog.Source?) {
        self.pointer = pointer
        self.origin = origin
    }

    deinit {
        g_object_unref(pointer)
    }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var format: VipsBandFormat { vips_image_get_format(pointer) }
    var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    /// One colour band (greyscale), with or without alpha.
    var isGrey: Bool { bands - (hasAlpha ? 1 : 0) == 1 }

    /// Runs one libvips operation that produces an image, turning its status into a typed error.
    static func make(
        origin: VipsErrorLog.Source?,
        _ failure: (String) -> ImagePipelineError,
        _ operation: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) throws(ImagePipelineError) -> Int32
    ) throws(ImagePipelineError) -> VipsImageHandle {
        try RenderWatch.check()
        var out: UnsafeMutablePointer<VipsImage>?
        let status = try operation(&out)
        guard status == 0, let out else {
            if let out { g_object_unref(out) }
            throw failure(VipsErrorLog.take(for: origin))
        }
        RenderWatch.watch(out)
        return VipsImageHandle(taking: out, origin: origin)
    }

    /// Applies an operation to this image.
    func then(
        _ failure: (String) -> ImagePipelineError = { .processingFailed(detail: $0) },
        _ operation: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) throws(ImagePipelineError) -> Int32
    ) throws(ImagePipelineError) -> VipsImageHandle {
        try Self.make(origin: origin, failure) { out throws(ImagePipelineError) in try operation(pointer, out) }
    }

    /// Computes every pixel into memory. libvips pipelines are lazy: decode errors (a truncated file)
    /// surface here, and later encodes of the result never decode the source again. An allocation
    /// that failed is `outOfMemory` whatever the step; anything else is the source `damaged`.
    func materialized() throws(ImagePipelineError) -> VipsImageHandle {
        guard let copy = vips_image_copy_memory(pointer) else {
            let detail = VipsErrorLog.take(for: origin)
            if detail.contains("out of memory") || detail.contains("memory area too large") { throw .outOfMemory(detail: detail) }
            throw .damaged(format: origin?.format ?? "image", detail: detail)
        }
        return VipsImageHandle(taking: copy, origin: origin)
    }

    /// Runs a saver that fills a g_malloc'ed buffer and copies it into `Data`.
    func save(
        failure: (String) -> ImagePipelineError,
        _ operation: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>) -> Int32
    ) throws(ImagePipelineError) -> Data {
        try RenderWatch.check()
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard operation(pointer, &buffer, &length) == 0, let buffer else {
            throw failure(VipsErrorLog.take(for: origin))
        }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// Names of every metadata field attached to the image (EXIF tags, ICC, XMP, ...).
    var fieldNames: [String] {
        guard let fields = vips_image_get_fields(pointer) else { return [] }
        defer { g_strfreev(fields) }
        var names: [String] = []
        var cursor = fields
        while let name = cursor.pointee {
            names.append(String(cString: name))
            cursor += 1
        }
        return names
    }

    func string(_ field: String) -> String? {
        guard vips_image_get_typeof(pointer, field) != 0 else { return nil }
        var value: UnsafePointer<CChar>?
        guard vips_image_get_string(pointer, field, &value) == 0, let value else { return nil }
        return String(cString: value)
    }

    func int(_ field: String) -> Int? {
        guard vips_image_get_typeof(pointer, field) != 0 else { return nil }
        var value: Int32 = 0
        guard vips_image_get_int(pointer, field, &value) == 0 else { return nil }
        return Int(value)
    }

    func blob(_ field: String) -> Data? {
        guard vips_image_get_typeof(pointer, field) != 0 else { return nil }
        var data: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_blob(pointer, field, &data, &length) == 0, let data else { return nil }
        return Data(bytes: data, count: length)
    }
}
