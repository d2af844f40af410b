import Foundation
import ImagePipeline

/// The thumbnail service's URL path parser, fed arbitrary bytes as a request path: every input must
/// parse or throw a `ProcessingError`, and a parsed one must give a spec or a typed error. Only a crash,
/// a hang or a leak is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let path = String(decoding: UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : count), as: UTF8.self)
    if let request = try? ImageRequestPath.parse(path) {
        _ = try? request.options.spec(format: .jpeg, defaultQuality: 80, maxOutputEdge: 4096)
    }
    return 0
}
