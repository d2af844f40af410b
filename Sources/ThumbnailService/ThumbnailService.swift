import Foundation
import Hummingbird
import ImagePipeline
import NIOCore
import Logging
import ServiceLifecycle
import UnixSignals

/// The thumbnail service as a library: photos under a root or from allowed origins, at the size,
/// crop and format a screen asks for in an imgproxy-style signed URL, cached, on a bounded pool.
///
/// `market-images serve` runs it standalone (`run`); another Hummingbird server mounts its routes
/// on its own router (`addRoutes(to:)`), as `preview` does, and tests drive it in process.
public struct ThumbnailService: Sendable {
    public let configuration: ServiceConfiguration
    let handler: ImageRequestHandler
    let metrics: ServiceMetrics
    let connections: ConnectionLimit
    let departures = ClientDepartures()
    let logger: Logger

    /// Checks the configuration (see `ServiceConfiguration.problems`) and builds every part; nothing
    /// listens yet.
    public init(_ configuration: ServiceConfiguration, logger: Logger) throws(ServiceConfiguration.Problem) {
        let configuration = try configuration.validated()
        self.configuration = configuration
        self.logger = logger
        logger.info("thumbnail service accepts \(configuration.accepts)")
        let metrics = ServiceMetrics(namespace: configuration.metricsNamespace)
        self.metrics = metrics
        connections = ConnectionLimit(maximum: configuration.connectionLimit)
        let fallback: FallbackImage?
        do {
            fallback = try configuration.fallbackImage.map { path throws(ImagePipelineError) in
                try FallbackImage(path: path, status: configuration.fallbackStatus, maxAge: configuration.fallbackMaxAge)
            }
        } catch {
            throw ServiceConfiguration.Problem(setting: "fallback-image", message: error.description)
        }
        let watermark: ConfiguredWatermark?
        do { watermark = try configuration.watermark.map(ConfiguredWatermark.init) } catch {
            throw ServiceConfiguration.Problem(setting: "watermark", message: error.description)
        }
        // One store for s3:// sources and an s3:// cache: the operator's endpoint, region and key.
        let store = ObjectStore(endpoint: configuration.s3Endpoint, region: configuration.s3Region, pathStyle: configuration.s3PathStyle,
                                credentials: configuration.s3Credentials, transport: configuration.objectStoreTransport)
        let bucket = configuration.cacheFolder.flatMap(BucketCache.location).map { location in
            BucketCache(store: store, bucket: location.bucket, prefix: location.prefix, timeout: configuration.cacheTimeout,
                        health: StoreHealth(probeInterval: configuration.storeProbeInterval, clock: configuration.clock, logger: logger),
                        metrics: metrics, logger: logger, maxObjectBytes: BucketCache.maxObjectBytes(memoryCache: configuration.memoryCache))
        }
        let storeUses = (configuration.useS3 ? ["s3:// sources"] : []) + (bucket.map { ["the output cache in \($0.location)"] } ?? [])
        if !storeUses.isEmpty { logger.info("\(storeUses.joined(separator: " and ")) through \(store.summary)") }
        let folder = bucket == nil ? configuration.cacheFolder : nil
        do {
            let disk = try folder.map { folder throws(ImagePipelineError) in
                try DiskCache(folder: folder, sizeLimit: configuration.cacheSize, clock: configuration.clock)
            }
            // With a bucket, source records are kept in memory and the bucket (`RemoteSources.shared`).
            let sourceCache = try folder.map { folder throws(ImagePipelineError) in
                try SourceCache(folder: folder + "/sources", sizeLimit: configuration.sourceCacheSize, clock: configuration.clock)
            } ?? (bucket == nil ? nil : SourceCache(memoryOnly: ()))
            let local = try configuration.root.map { root throws(ImagePipelineError) in
                var local = try LocalSourceRoot(root, maxBytes: configuration.maxSourceBytes)
                local.metrics = metrics
                local.allowedPrefixes = configuration.allowedSources.filter { $0.hasPrefix(LocalSourceRoot.scheme) }
                return local
            }
            let origin = OriginClient(prefixes: configuration.allowedSources.compactMap { SourceURL(prefix: $0) },
                                      allowInternal: configuration.allowPrivateSources, maxBytes: configuration.maxSourceBytes,
                                      timeout: TimeAmount(configuration.downloadTimeout))
            let slots = SourceSlots(limit: configuration.maxDownloads)
            let remotes = ([origin] + (configuration.useS3 ? [Self.s3Origin(configuration, store: store)] : [])).map { (origin: any SourceOrigin) in
                RemoteSources(origin: origin, slots: slots,
                              maxDownloadsPerOrigin: configuration.maxDownloadsPerOrigin ?? max(1, configuration.maxDownloads / 2), cache: sourceCache, shared: bucket,
                              freshness: SourceFreshness(ttl: Double(configuration.sourceTTL), staleIfError: Double(configuration.sourceStaleIfError)),
                              clock: configuration.clock, metrics: metrics)
            }
            handler = ImageRequestHandler(
                rules: URLRules(presets: configuration.presetTable, onlyPresets: configuration.onlyPresets,
                                presetDPRs: Set(configuration.presetDPRs), allowSecurityOptions: configuration.allowSecurityOptions,
                                pathPrefix: configuration.pathPrefix),
                maxAge: configuration.maxAge,
                signature: SignatureCheck(keys: configuration.keys, size: configuration.signatureSize),
                sources: (local.map { [$0] } ?? []) + remotes,
                planner: OutputPlanner(configuration),
                pool: ImageWorkPool(workers: configuration.workers, queueLimit: configuration.queue),
                memory: MemoryBudget(limit: configuration.renderMemory),
                caches: OutputCaches(disk: disk, memory: (disk != nil || bucket != nil) && configuration.memoryCache > 0 ? MemoryCache(sizeLimit: configuration.memoryCache) : nil,
                                     bucket: bucket, logger: logger),
                metrics: metrics, fallback: fallback, watermark: watermark, watermarkOpacity: configuration.watermarkOpacity)
        } catch {
            throw ServiceConfiguration.Problem(setting: configuration.cacheFolder.map { _ in "cache" } ?? "root", message: error.description)
        }
    }

    /// `s3://` sources from the buckets `--allow-source` and the bucket lists allow, within the download's limits.
    private static func s3Origin(_ configuration: ServiceConfiguration, store: ObjectStore) -> S3Origin {
        S3Origin(store: store, rule: S3SourceRule(configuration),
                 maxBytes: configuration.maxSourceBytes, timeout: configuration.downloadTimeout)
    }

    /// `GET /health` (under the path prefix too), and every other GET or HEAD as an image URL, with
    /// one access-log line each. On a router of the caller's, after its own routes: the image route
    /// catches every path but `/`, which is the caller's; `answersRoot` is for a router that is the
    /// service's alone (`serve`'s): it takes `/` too (the router's own 404 has no body and none of the
    /// service's headers), and the access log wraps the whole router, so a request no route takes
    /// (`PROPFIND`) is logged and counted as well.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>, answersRoot: Bool = false) {
        let log = AccessLog<Context>(metrics: metrics, logger: logger, pathPrefix: configuration.pathPrefix ?? "")
        let routes = answersRoot ? router.add(middleware: log).group() : router.group().add(middleware: log)
        for health in Set(["/health", (configuration.pathPrefix ?? "") + "/health"]) {
            routes.get(RouterPath(health)) { request, _ in HTTPAnswer.text("ok\n", method: request.method) }
            routes.head(RouterPath(health)) { request, _ in HTTPAnswer.text("ok\n", method: request.method) }
        }
        let handler = self.handler, shutdown = ShutdownGrace(grace: configuration.grace), departures = self.departures, metrics = self.metrics
        // The router does not fall back from `/img/health`'s branch to `**`: the prefix gets its own.
        let paths: [RouterPath] = ["**"] + (configuration.pathPrefix.map { [RouterPath($0 + "/**")] } ?? []) + (answersRoot ? ["/"] : [])
        for method: HTTPRequest.Method in [.get, .head, .post, .put, .delete, .patch, .options] {
            for path in paths {
                routes.on(path, method: method) { request, context -> Response in
                    let channel = (context as? any ConnectionRequestContext)?.channel
                    return await shutdown.answer {
                        await departures.whileConnected(channel) {
                            do throws(ServiceFailure) {
                                let (response, outcome) = try await handler.respond(to: request)
                                CacheOutcome.current?.text = outcome
                                return response
                            } catch {
                                if let type = error.imgproxyErrorType { metrics.error(type) }
                                return error.response
                            }
                        }
                    }
                }
            }
        }
    }

    /// The access log the service's own routes sit behind, for a mounting server's routes: the same
    /// line per request, counted in the same metrics.
    public func accessLog<Context: RequestContext>() -> AccessLog<Context> {
        AccessLog(metrics: metrics, logger: logger, elidesSignatures: false)
    }

    /// The service's listener on `configuration.bind`, not yet running, with the connection handlers
    /// every listener of the service has: the connection cap, HTTP/1.0 closing, the request deadline,
    /// and client departures (a render whose every client left is stopped). `router` is a host's own,
    /// with the service's routes mounted (`addRoutes(to:)`) beside its own, as the preview does; by
    /// default the service's routes alone. `onListening` gets the URL once the port is bound.
    public func buildApplication(router: Router<ServiceRequestContext>? = nil,
                                 onListening: @escaping @Sendable (String) -> Void) -> some ApplicationProtocol {
        let router = router ?? {
            let router = Router(context: ServiceRequestContext.self)
            addRoutes(to: router, answersRoot: true)
            return router
        }()
        return configuration.bind.application(router.buildResponder(), idleTimeout: configuration.idleTimeout, limit: connections,
                                              departures: departures, malformed: { [metrics, logger] error in
                                                  metrics.request(status: 400, duration: .zero)
                                                  logger.info("\(AccessLogLine.refused(error))")
                                              }, logger: logger, onListening: onListening)
    }

    /// Serves `buildApplication(router:)` (and metrics on `metricsBind`) until one of `signals`, or
    /// until the group `onStart` is given is told to stop (a test, a host with its own lifecycle);
    /// then lets requests in flight finish within `grace`, and stops the renders left.
    /// `onListening` gets each listener's URL.
    public func run(router: Router<ServiceRequestContext>? = nil, signals: [UnixSignal] = [.sigterm, .sigint],
                    onStart: @Sendable (ServiceGroup) -> Void = { _ in },
                    onListening: @escaping @Sendable (_ what: String, _ url: String) -> Void) async throws {
        var services: [any Service] = [ListenFailure.Guarded(listener: buildApplication(router: router) { onListening("listening on", $0) },
                                                             setting: "bind", address: configuration.bind)]
        if let metricsBind = configuration.metricsBind {
            let responder = MetricsResponder(metrics: metrics, pool: handler.pool, cache: handler.caches.disk, connections: connections)
            let listener = metricsBind.application(responder, idleTimeout: configuration.idleTimeout, logger: logger) { onListening("metrics on", $0 + "/metrics") }
            services.append(ListenFailure.Guarded(listener: listener, setting: "metrics-bind", address: metricsBind))
        }
        var group = ServiceGroupConfiguration(services: services.map { .init(service: $0) }, gracefulShutdownSignals: signals, logger: logger)
        group.maximumGracefulShutdownDuration = configuration.grace + ShutdownGrace.stopMargin
        let running = ServiceGroup(configuration: group)
        onStart(running)
        try await running.run()
        await stopRendering()
    }

    /// Stops what is still rendering and waits for the workers to be free, at most `limit`: for a
    /// host about to exit (`run` does it itself), since exiting while a decoder runs can crash.
    public func stopRendering(within limit: Duration = .seconds(5)) async {
        await handler.pool.stopAll(within: limit)
    }

    /// Prometheus text, as the metrics listener answers it.
    public func renderMetrics() -> String {
        MetricsResponder(metrics: metrics, pool: handler.pool, cache: handler.caches.disk, connections: connections).render()
    }
}
