import Foundation
import ImagePipeline
import Hummingbird
import Logging

/// One access-log line per request (`AccessLogLine`, the signature elided on image URLs), requests
/// counted by status and in flight. A middleware, so it sees every request its routes answer,
/// refusals included, and on the service's own router every request at all (a method no route
/// has: 200 pipelined PROPFINDs were once answered and never logged); a server mounting the service puts its own routes behind it too
/// (`ThumbnailService.accessLog()`).
public struct AccessLog<Context: RequestContext>: RouterMiddleware {
    let metrics: ServiceMetrics
    let logger: Logger
    /// Image URLs carry a signature in their first segment; a mounting server's own paths do not.
    var elidesSignatures = true
    /// The service's path prefix (`/img`), before the signature.
    var pathPrefix = ""

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        metrics.inFlight(1)
        defer { metrics.inFlight(-1) }
        let outcome = CacheOutcome()
        let response: Response
        do {
            response = try await CacheOutcome.$current.withValue(outcome) { try await next(request, context) }
        } catch let error as any HTTPResponseError {
            // The router's own answers (no route for a method such as PROPFIND) are thrown: logged too.
            response = try error.response(from: request, context: context)
        }
        metrics.request(status: Int(response.status.code), duration: ContinuousClock.now - started)
        logger.info("\(AccessLogLine.text(request, response, since: started, outcome: outcome.text, path: elidesSignatures ? Self.elidingSignature(request.uri.path, under: pathPrefix) : nil))")
        return response
    }

    /// `/…/pr:list/…`, `/info/…/pr:list/…`: logs never carry a full signature. The first segment
    /// that is not empty or a dot segment is the one elided (`//SIGNATURE/…` and `/../SIGNATURE/…`
    /// are refused, but still logged), after `info/` for an info URL; a lone segment other than the
    /// service's own route may be one too. Under a path prefix, what follows the prefix; a path not
    /// under it is only `/…`, since a signature may be anywhere in it (`//img/SIG/…`, `/SIG/…`).
    static func elidingSignature(_ path: String, under prefix: String = "") -> String {
        if !prefix.isEmpty {
            if path.hasPrefix(prefix + "/") { return prefix + elidingSignature(String(path.dropFirst(prefix.count))) }
            return path == "/health" ? path : "/…"
        }
        if path == "/health" { return path }
        // Segment by segment from the front, since the signature is nearly always the first: splitting
        // and joining the whole path was 3% of a cache hit.
        var segments = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).dropFirst()
        var skipInfo = segments.first?.hasPrefix("info/") ?? false
        while let rest = segments.first {
            let pair = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            let segment = pair[0]
            if skipInfo || segment.isEmpty || segment == "." || segment == ".." {
                skipInfo = false
                segments = pair.dropFirst()
                continue
            }
            return String(path[..<segment.startIndex]) + "…" + path[segment.endIndex...]
        }
        return path
    }
}
