import Foundation
import Hummingbird
import ImagePipeline
import Logging
import ThumbnailService

/// The preview's HTTP layer: its pages, the prepared photos and the static files, with everything
/// else (the thumbnails, `/health`) answered by the thumbnail service it wraps; all of it only to
/// requests that `PreviewAccess` lets in. Pages are built on every request, so a reload shows the
/// folder as it is now; their ETags make an unchanged reload a 304. One access-log line per request,
/// as `serve` writes them.
struct PreviewResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let pages: PreviewPages
    let photos: UploadPhotos
    let thumbnails: RouterResponder<BasicRequestContext>
    let access: PreviewAccess
    let logger: Logger

    /// The page's own resources only: nothing from other origins, no inline script.
    static let contentSecurityPolicy = "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'"

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        switch access.check(request) {
        case .refused(let refusal):
            logger.info("\(AccessLogLine.text(request, refusal, since: started))")
            return refusal
        case .allowed(let remember):
            var response: Response
            if let own = await ownResponse(to: request) {
                response = own
                logger.info("\(AccessLogLine.text(request, response, since: started))")
            } else {
                // The thumbnail service logs its own requests.
                response = try await thumbnails.respond(to: request, context: context)
            }
            if remember { response.headers[.setCookie] = access.setCookie }
            return response
        }
    }

    /// The preview's own pages and files; nil for what the thumbnail service answers.
    private func ownResponse(to request: Request) async -> Response? {
        let path = request.uri.path
        if request.method != .get && request.method != .head {
            return ServiceFailure(status: .methodNotAllowed, error: "method-not-allowed", detail: "only GET and HEAD").response
        } else if path == "/" {
            let grid = request.uri.queryParameters.get("view") == "grid"
            return page(await offloaded { [pages] in pages.index(grid: grid) }, request: request)
        } else if path.hasPrefix("/product/") {
            let name = String(path.dropFirst("/product/".count)).removingPercentEncoding ?? ""
            let html = await offloaded { [pages] in pages.product(named: name) }
            return html.map { page($0, request: request) } ?? Self.notFound("no product folder named \(name)")
        } else if path.hasPrefix("/prepared/") {
            return prepared(String(path.dropFirst("/prepared/".count)), request: request)
        } else if path == "/static/preview.css" {
            return page(PreviewAssets.css, type: "text/css; charset=utf-8", request: request)
        } else if path == "/static/preview.js" {
            return page(PreviewAssets.javascript, type: "text/javascript; charset=utf-8", request: request)
        }
        return nil
    }

    /// A prepared photo from the upload cache: `/prepared/{folder}/{path in the cache}`, nothing
    /// outside the cache.
    private func prepared(_ rest: String, request: Request) -> Response {
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? "" }
        guard parts.count >= 2, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("/") }),
              let folder = pages.catalogue.folders.first(where: { ($0 as NSString).lastPathComponent == parts[0] }) else {
            return Self.notFound("no such prepared photo")
        }
        let file = parts.dropFirst().reduce(URL(fileURLWithPath: photos.photoCache.folder(for: [folder]))) { $0.appendingPathComponent($1) }.path
        guard let data = FileManager.default.contents(atPath: file), let format = OutputFormat.allCases.first(where: { $0.fileExtension == (file as NSString).pathExtension }) else {
            return Self.notFound("no such prepared photo")
        }
        return answer(data, type: format.mimeType, request: request)
    }

    private func page(_ text: String, type: String = "text/html; charset=utf-8", request: Request) -> Response {
        answer(Data(text.utf8), type: type, request: request)
    }

    /// The body with a content ETag and `no-cache`: the browser keeps it, and asks each time.
    private func answer(_ data: Data, type: String, request: Request) -> Response {
        var headers = HTTPFields()
        let etag = "\"" + Fingerprint.hex(data) + "\""
        headers[.eTag] = etag
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        if HTTPAnswer.matches(request.headers[.ifNoneMatch], etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        return HTTPAnswer.body(data, type: type, headers: &headers, method: request.method)
    }

    private static func notFound(_ detail: String) -> Response {
        ServiceFailure(status: .notFound, error: "not-found", detail: detail).response
    }

    /// Preparing photos blocks; it runs on its own thread, not on the threads that serve requests.
    private func offloaded<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
