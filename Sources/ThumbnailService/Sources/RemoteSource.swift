import Foundation
import ImagePipeline

/// A remote source as a request sees it: its record, the bytes when they came with the lookup, and
/// how the lookup went (for metrics).
struct RemoteSource: ResolvedSource {
    enum Outcome: String, Sendable { case fresh, downloaded, revalidated, stale }

    var url: SourceURL
    var record: SourceCache.Record
    var held: HeldSource?
    var outcome: Outcome
    /// Where its bytes come from when they did not come with the lookup.
    let sources: RemoteSources

    /// The URL as normalised and fetched (dot segments resolved, no fragment).
    var identity: String { url.text }
    var fingerprint: String { record.sha256 }
    var modified: Date? { nil }

    func traits() throws(ImagePipelineError) -> SourceTraits { record.traits }

    func open() async throws(ServiceFailure) -> SourceBytes {
        let bytes = try await sources.bytes(of: self)
        return SourceBytes(image: .data(bytes.data), held: bytes)
    }
}
