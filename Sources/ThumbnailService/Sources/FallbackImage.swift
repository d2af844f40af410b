import Foundation
import Hummingbird
import ImagePipeline

/// The image served in place of a source that is missing or fails (`--fallback-image`, as imgproxy's
/// `IMGPROXY_FALLBACK_IMAGE_*` and weserv's `default=`): rendered at the size and format the URL asks,
/// with the failure's status (or `--fallback-status`), a short `max-age` and no ETag, so no cache
/// keeps it as if it were the real image. A malformed URL or a refused signature still gets its 4xx.
struct FallbackImage: Sendable {
    /// The image as a source, rendered like any other (its fingerprint never names a real output).
    let source: InMemorySource
    var digest: String { source.fingerprint }
    var traits: SourceTraits { source.traits() }
    /// The status sent with it; nil keeps the failure's own.
    let status: HTTPResponse.Status?
    let maxAge: Int

    /// Failures of the source itself; a source outside `--allow-source` is not one (a typo in the
    /// configuration should stay visible).
    private static let statuses: Set<HTTPResponse.Status> = [.notFound, .contentTooLarge, .unsupportedMediaType, .unprocessableContent,
                                                             .badGateway, .gatewayTimeout]

    init(path: String, status: Int?, maxAge: Int) throws(ImagePipelineError) {
        source = try InMemorySource(path: path)
        self.status = status.map { HTTPResponse.Status(code: $0) }
        self.maxAge = maxAge
    }

    func covers(_ failure: ServiceFailure) -> Bool {
        Self.statuses.contains(failure.status) && failure.error != "source-not-allowed"
    }

    func headers(negotiated: Bool) -> HTTPFields {
        var headers = HTTPFields()
        headers[.cacheControl] = "public, max-age=\(maxAge)"
        if negotiated { headers[.vary] = "Accept" }
        return headers
    }
}
