import Foundation
import ImagePipeline

/// A file under the served root, opened: its bytes are read from the descriptor that was checked.
struct LocalSource: ResolvedSource {
    let file: LocalSourceRoot.File

    var identity: String { file.name }
    var fingerprint: String { file.fingerprint }
    var modified: Date? { file.modified }

    func hasAlpha() throws(ImagePipelineError) -> Bool {
        try ImageHeader.read(.opened(file.file)).hasAlpha
    }

    func open() async throws(ServiceFailure) -> SourceBytes {
        SourceBytes(image: .opened(file.file), held: nil)
    }
}
