import Foundation
import ImagePipeline

/// A file under the served root, opened: its bytes are read from the descriptor that was checked.
struct LocalSource: ResolvedSource {
    let file: LocalSourceRoot.File
    let metrics: ServiceMetrics?

    var identity: String { file.name }
    var fingerprint: String { file.fingerprint }
    var modified: Date? { file.modified }

    func traits() throws(ImagePipelineError) -> SourceTraits {
        SourceTraits(try ImageHeader.read(.opened(file.file)))
    }

    /// Counted as read when opened for a decode: the whole file is read from here.
    func open() async throws(ServiceFailure) -> SourceBytes {
        metrics?.sourceBytes(file.file.size, kind: "local")
        return SourceBytes(image: .opened(file.file), held: nil)
    }
}
