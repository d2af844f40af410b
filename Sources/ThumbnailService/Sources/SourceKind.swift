import Foundation
import ImagePipeline

/// One kind of source a URL may name (`local:///…`, `https://…`): which names it answers for, and
/// how it finds one, with its own security rules and limits. The request handler asks each kind in
/// turn and never looks inside: a new kind (`s3://`) is one new type here, given to the service.
protocol SourceKind: Sendable {
    /// Whether `name` (the decoded source from the URL) is this kind's to resolve.
    func claims(_ name: String) -> Bool
    /// The source, known well enough for an ETag, or the failure with the status it deserves.
    func resolve(_ name: String) async throws(ServiceFailure) -> any ResolvedSource
}

/// A source found: what an ETag and the format need, without its pixels. Its bytes are read only
/// when something is rendered from it (`open`).
protocol ResolvedSource: Sendable {
    /// The source's one name, for ETags and cache keys: every spelling of it in a URL
    /// (`local:///a//b.jpg`, a fragment) is this, so it is one output, not one per spelling.
    var identity: String { get }
    /// Names the source's content: a changed photo is a new ETag.
    var fingerprint: String { get }
    /// Sent as `Last-Modified`, when the source knows it.
    var modified: Date? { get }
    /// Its format, transparency and animation, which decide the output's format for clients whose
    /// `Accept` chooses none (`OutputPlanner`); may read its header.
    func traits() throws(ImagePipelineError) -> SourceTraits
    /// The bytes to decode, and whatever must stay held while they are (a download's slot).
    func open() async throws(ServiceFailure) -> SourceBytes
}

/// A source's bytes as the renderer reads them, with what keeps them (and their slot) alive.
struct SourceBytes: Sendable {
    var image: ImageSource
    var held: (any Sendable)?
}
