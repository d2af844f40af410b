import Foundation
import Hummingbird
import Logging
import Publishing
import ServiceLifecycle
import ThumbnailService
import UnixSignals

/// The products folder as the OpenMarket apps will show it, as a web app: a list or grid of the
/// products, a page per product with every prepared photo against the limits, and what `publish`
/// would change. Its thumbnails are the thumbnail service's, in the same process, serving the
/// products folder unsigned; everything sits behind `PreviewAccess`, so it is meant for loopback.
///
/// `market-images preview` runs it; another Hummingbird server mounts it with `addRoutes(to:)`.
public struct ProductPreview: Sendable {
    public let configuration: PreviewConfiguration
    let catalogue: PreviewCatalogue
    let pages: PreviewPages
    let thumbnails: ThumbnailService

    /// Builds the pages and the thumbnail service: unsigned, uncached by browsers, the products folder
    /// as its root, and the limits of the photos it shows: whatever `prepare` (and so `publish`)
    /// takes, not `serve`'s defaults for strangers, so a 25 MB scan that publishes also previews. Its
    /// outputs are kept on disk beside the photo cache (and in memory), so a page shown again costs
    /// no decode. Nothing is prepared yet.
    public init(_ configuration: PreviewConfiguration, bind: ServiceAddress, logger: Logger) throws {
        self.configuration = configuration
        catalogue = PreviewCatalogue(configuration)
        pages = try PreviewPages(catalogue: catalogue, maxBytes: configuration.photoCache.prepareOptions.maxBytes)
        var service = ServiceConfiguration()
        service.root = configuration.productsFolder
        service.bind = bind
        // Every route is behind PreviewAccess: only this run's own page asks.
        service.allowUnsigned = true
        service.metricsBind = nil
        service.queue = 256
        service.maxAge = 0
        service.grace = .seconds(1)
        service.limits.maxPixels = configuration.photoCache.prepareOptions.maxPixels
        service.maxSourceBytes = .max
        service.limits.maxRenderMemory = max(service.limits.maxRenderMemory, Int(ProcessInfo.processInfo.physicalMemory / 4))
        service.renderMemory = service.limits.maxRenderMemory
        // A seller's 50 MP scan takes what it takes: the page is theirs alone.
        service.limits.renderTimeout = nil
        service.cacheFolder = configuration.photoCache.root + "/preview-thumbnails"
        thumbnails = try ThumbnailService(service, logger: logger)
    }

    /// Serves `router` (with `addRoutes(to:access:)` on it) on the preview's address, with the
    /// thumbnail service's connection handlers, until one of `signals` or until the group `onStart`
    /// is given is told to stop (a test); then stops what is rendering.
    public func run(router: Router<ServiceRequestContext>, signals: [UnixSignal] = [.sigterm, .sigint],
                    onStart: @Sendable (ServiceGroup) -> Void = { _ in },
                    onListening: @escaping @Sendable (String) -> Void) async throws {
        try await thumbnails.run(router: router, signals: signals, onStart: onStart) { _, url in onListening(url) }
    }

    /// The product folders with photos, in name order.
    public var productFolders: [String] { catalogue.folders }

    /// Prepares every product as the first page load would, and says how many photos failed. The
    /// server is not read: the pages read it when they are shown.
    public func prepareAll() -> (products: Int, failedPhotos: Int) {
        let products = catalogue.products(readingServer: false).products
        return (products.count, products.reduce(0) { $0 + ($1.prepared?.report.failed.count ?? 0) })
    }

    /// The pages, the prepared photos and the thumbnail service's routes, all behind `access`, each
    /// request with one access-log line.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>, access: PreviewAccess<Context>) {
        router.add(middleware: access)
        PreviewRoutes<Context>(pages: pages, photoCache: configuration.photoCache)
            .add(to: router.group().add(middleware: thumbnails.accessLog()))
        thumbnails.addRoutes(to: router)
    }
}
