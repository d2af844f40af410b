import ArgumentParser
import Foundation
import Logging
import ThumbnailService

/// `market-images serve`: the thumbnail service (the `ThumbnailService` library) from its settings.
/// The flags, their variables and their help all come from the one table of settings
/// (`ServiceSetting.all`), read by `ServiceSettings`; this is wiring and printing.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve product photos at the size a screen needs, from signed imgproxy-style URLs.",
        usage: "market-images serve [--setting <value> ...]",
        discussion: """
        URLs are /{signature}/{options}/{source}: options in imgproxy's names (see `market-images url`), \
        the source local:///path under --root, or an http(s) URL under an --allow-source prefix. The key and \
        salt are hex, from $MARKET_IMAGES_KEY and $MARKET_IMAGES_SALT or --key-file (several comma-separated \
        pairs while rotating); without them the service refuses to start unless --only-presets (unsigned \
        preset URLs, any address) or --insecure-unsigned (any URL, loopback only). http(s) sources must not be on \
        an internal address unless --allow-private-sources. SIGTERM or SIGINT stops accepting, lets requests in \
        flight finish within --grace seconds, and exits 0. GET /health is served too, and GET /metrics \
        (Prometheus) on --metrics-bind, apart from the public port.

        Every setting can also be set as MARKET_IMAGES_<SETTING> in the environment (MARKET_IMAGES_CACHE, \
        MARKET_IMAGES_ALLOW_SOURCE=a,b; switches true or false), or as the same NAME=value lines in a \
        --config file: a flag wins over the environment, which wins over the file. imgproxy's names are \
        read too, in imgproxy's units.

        SETTINGS:
        \(ServiceSettings.help)

        EXAMPLES:
          market-images serve --root ready --cache /var/cache/market-images
          market-images serve --root ready --bind 0.0.0.0:8080 --key-file key.hex
          market-images serve --root Samples --insecure-unsigned
          market-images serve --only-presets --allow-source https://img.example.com/
          market-images serve --config /etc/market-images/serve.env
        """
    )

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The settings above, as flags.", valueName: "settings"))
    var settings: [String] = []

    /// The settings are captured whole, help and version flags included, so they are answered here.
    func validate() throws {
        if settings.contains(where: { ["-h", "--help", "-help"].contains($0) }) { throw CleanExit.helpRequest(self) }
        if settings.contains("--version") { throw CleanExit.message(MarketImages.configuration.version) }
    }

    func run() async throws {
        let resolved: ServiceSettings
        do { resolved = try ServiceSettings(arguments: settings) } catch { throw ValidationError(error.description) }
        for warning in resolved.warnings { Terminal.standardError.warning(warning) }
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "market-images")
        logger.logLevel = .info
        let service = try ThumbnailService(resolved.configuration, logger: logger)
        try await service.run { what, url in Terminal.standardError.write("\(what) \(url)\n") }
    }
}
