import Foundation
import Hummingbird
import ImagePipeline
import Publishing
import ThumbnailService

/// The preview's own routes: its pages, the prepared photos and the static files. Pages are built on
/// every request, so a reload shows the folder as it is now; their ETags make an unchanged reload a
/// 304.
struct PreviewRoutes<Context: RequestContext>: Sendable {
    let pages: PreviewPages
    let photoCache: PhotoCache

    /// The page's own resources only: nothing from other origins, no inline script.
    static var contentSecurityPolicy: String {
        "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'"
    }

    func add(to routes: RouterGroup<Context>) {
        for method: HTTPRequest.Method in [.get, .head] {
            routes.on("/", method: method) { [pages] request, _ in
                let grid = request.uri.queryParameters.get("view") == "grid"
                return Self.page(await Self.offloaded { pages.index(grid: grid) }, request: request)
            }
            routes.on("/product/:name", method: method) { [pages] request, context in
                let name = context.parameters.get("name").flatMap { $0.removingPercentEncoding } ?? ""
                let html = await Self.offloaded { pages.product(named: name) }
                return html.map { Self.page($0, request: request) } ?? Self.notFound("no product folder named \(name)")
            }
            routes.on("/prepared/**", method: method) { [self] request, _ in
                prepared(String(request.uri.path.dropFirst("/prepared/".count)), request: request)
            }
            routes.on("/static/preview.css", method: method) { request, _ in
                Self.page(PreviewAssets.css, type: "text/css; charset=utf-8", request: request)
            }
            routes.on("/static/preview.js", method: method) { request, _ in
                Self.page(PreviewAssets.javascript, type: "text/javascript; charset=utf-8", request: request)
            }
        }
    }

    /// A prepared photo from the upload cache: `/prepared/{folder}/{path in the cache}`, nothing
    /// outside the cache.
    private func prepared(_ rest: String, request: Request) -> Response {
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? "" }
        guard parts.count >= 2, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("/") }),
              let folder = pages.catalogue.folders.first(where: { ($0 as NSString).lastPathComponent == parts[0] }) else {
            return Self.notFound("no such prepared photo")
        }
        let file = parts.dropFirst().reduce(URL(fileURLWithPath: photoCache.folder(for: [folder]))) { $0.appendingPathComponent($1) }.path
        guard let data = FileManager.default.contents(atPath: file), let format = OutputFormat.allCases.first(where: { $0.fileExtension == (file as NSString).pathExtension }) else {
            return Self.notFound("no such prepared photo")
        }
        return Self.answer(data, type: format.mimeType, request: request)
    }

    private static func page(_ text: String, type: String = "text/html; charset=utf-8", request: Request) -> Response {
        answer(Data(text.utf8), type: type, request: request)
    }

    /// The body with a content ETag and `no-cache`: the browser keeps it, and asks each time.
    private static func answer(_ data: Data, type: String, request: Request) -> Response {
        var headers = HTTPFields()
        let etag = "\"" + Fingerprint.hex(data) + "\""
        headers[.eTag] = etag
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
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
    private static func offloaded<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
