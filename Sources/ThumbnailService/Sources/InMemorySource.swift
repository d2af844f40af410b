import Foundation
import ImagePipeline

/// An image the service holds itself (the fallback image, a watermark file), as a source rendered
/// like any other; its fingerprint is its bytes' digest, and it names no real output.
struct InMemorySource: ResolvedSource {
    let data: Data
    var identity: String { "" }
    let fingerprint: String
    /// Read from its header once, when it was loaded.
    private let known: SourceTraits
    var modified: Date? { nil }

    /// The bytes of a file read once, checked to be an image the pipeline reads.
    init(path: String) throws(ImagePipelineError) {
        data = try OpenFile(path: path).read()
        known = SourceTraits(try ImageHeader.read(.data(data)))
        fingerprint = Fingerprint.hex(data)
    }

    func traits() -> SourceTraits { known }

    func open() async throws(ServiceFailure) -> SourceBytes { SourceBytes(image: .data(data), held: nil) }
}
