import ArgumentParser
import Foundation
import ImagePipeline
import ThumbnailService
import MarketUploader

/// `market-images url`: prints the signed URL an app would use for a photo on the thumbnail service.
struct URLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Print a signed thumbnail-service URL for a source and processing options.",
        discussion: """
        Options use imgproxy's names (rs:fill:240:240, g:sm, dpr:3, q:80, mb:20000, pr:list, …) and are \
        checked before the URL is printed. The key and salt are hex, from $MARKET_IMAGES_KEY and \
        $MARKET_IMAGES_SALT or --key-file (two lines: key, then salt); they are never printed.

        With - as the source, standard input is read: the JSON that `list --json` or `show --json` \
        prints (one URL per product image, in order), or one source per line. A line that cannot be a \
        source (local:///PATH, an http(s) URL or s3://BUCKET/KEY) is named on stderr and the exit status is 1. --info \
        prints the service's /info URL (the source's size and format as JSON) instead.

        The service's own presets, path prefix and signature size come from --preset and the file \
        serve reads (--config, or the same MARKET_IMAGES_* and IMGPROXY_* variables), so URLs match it.

        EXAMPLES:
          market-images url local:///sku-123/IMG_0001.jpg pr:list dpr:3
          market-images url local:///sku-123/IMG_0001.jpg rs:fit:512:512 q:80 \\
              --format webp --base https://img.example.com
          market-images list --json | market-images url - pr:list dpr:3
          market-images url - pr:list dpr:3 < image-urls.txt
          market-images url local:///sku-123/IMG_0001.jpg pr:list --root photos/
          market-images url --info https://image-host.example/1/0.jpg
          market-images url --config serve.env local:///sku-123/IMG_1.jpg pr:tile
        """
    )

    @Argument(help: "The source: local:///path under the service's --root, an http(s) URL or s3://BUCKET/KEY; - reads list/show --json output or one per line from standard input.")
    var source: String

    @Argument(help: "Processing options, e.g. pr:list dpr:3.")
    var options: [String] = []

    @Option(help: "Output format: jpg, png, webp, avif, jxl or gif (default: negotiated by the service).")
    var format: String?

    @Option(help: "The service's base URL; without it the path alone is printed.")
    var base: String?

    @Flag(help: "Put the source in the URL as plain text instead of base64url.")
    var plain = false

    @Flag(help: "Print the /info URL: the source's width, height and format as JSON.")
    var info = false

    @Option(help: ArgumentHelp("The service's --root: each local:/// source gets cb:<digest of the file>, so a replaced photo gets a new URL.",
                               valueName: "folder"))
    var root: String?

    @Option(help: "A file with a hex key line and a hex salt line per key (the first signs); mode 600.")
    var keyFile: String?

    @Option(name: .customLong("preset"), help: ArgumentHelp("A preset of the service's, as serve's --preset; repeatable.", valueName: "name=options"))
    var presets: [String] = []

    @Option(help: ArgumentHelp("serve's settings file: its presets, path prefix, signature size and key are used.", valueName: "file"))
    var config: String?

    private var encoding: ThumbnailURLSigner.SourceEncoding { plain ? .plain : .base64 }

    func validate() throws {
        // The options are checked once; sources read from standard input are checked one by one.
        if source != "-", let problem = SourceName.problem(with: source) { throw ValidationError("\(Terminal.display(source)): \(problem)") }
        let service = try self.service()
        do { try check(source == "-" ? "local:///x.jpg" : source, service) } catch { throw ValidationError(error.description) }
        if let base, URL(string: base)?.host == nil { throw ValidationError("--base must be a URL, e.g. https://img.example.com") }
    }

    /// Security options pass: whether a service takes them is its own setting (`--allow-security-options`).
    private func check(_ source: String, _ service: ServiceConfiguration) throws(ProcessingError) {
        _ = try ImageRequestPath.parse(ThumbnailURLSigner.path(options: options, source: source, format: format, encoding: encoding),
                                       presets: service.presetTable, onlyPresets: service.onlyPresets, dprs: Set(service.presetDPRs),
                                       allowSecurityOptions: true, info: info)
    }

    /// The service's settings that shape its URLs, read as `serve` reads them.
    private func service() throws -> ServiceConfiguration {
        let arguments = presets.flatMap { ["--preset", $0] } + (config.map { ["--config", $0] } ?? []) + (keyFile.map { ["--key-file", $0] } ?? [])
        do { return try ServiceSettings.forURLs(arguments: arguments) } catch { throw ValidationError(error.description) }
    }

    func run() throws {
        let service = try self.service()
        let signer = service.keys.first.map { ThumbnailURLSigner(key: $0.key, salt: $0.salt, signatureSize: service.signatureSize) }
        if signer == nil {
            Terminal.standardError.warning("no key: the URL is unsigned and works only on a service started with --only-presets or --insecure-unsigned")
        }
        var prefix = base ?? ""
        while prefix.hasSuffix("/") { prefix.removeLast() }
        prefix += service.pathPrefix ?? ""
        let sources = source == "-" ? try Self.standardInputSources() : [(source, "")]
        var failed = 0
        for (source, place) in sources {
            let problem: String?
            do {
                try check(source, service)
                problem = SourceName.problem(with: source)
            } catch {
                problem = error.description
            }
            if let problem {
                Terminal.standardError.error("\(place)\(Terminal.display(source)): \(problem)")
                failed += 1
                continue
            }
            var options = self.options
            if let root, source.hasPrefix("local:///") {
                let relative = String(source.dropFirst("local:///".count))
                let file = (root as NSString).appendingPathComponent(relative.removingPercentEncoding ?? relative)
                guard let data = FileManager.default.contents(atPath: file) else {
                    Terminal.standardError.error("\(place)\(Terminal.display(file)): cannot be read for its cb; check --root")
                    failed += 1
                    continue
                }
                options.append("cb:" + ThumbnailURLSigner.cacheBuster(for: data))
            }
            let path = signer?.signedPath(options: options, source: source, format: format, encoding: encoding)
                ?? "/insecure" + ThumbnailURLSigner.path(options: options, source: source, format: format, encoding: encoding)
            Terminal.standardOutput.write(prefix + (info ? "/info" : "") + path + "\n")
        }
        if failed > 0 { throw ExitCode.failure }
    }

    /// Each source on standard input and where it was, for naming a bad one ("line 3: ", "product
    /// 12 image 2: "): the image URLs of `list --json` or `show --json` output, or one source per line.
    private static func standardInputSources() throws -> [(String, String)] {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self)
        guard let first = text.first(where: { !$0.isWhitespace }), first == "{" || first == "[" else {
            return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { number, line in
                let source = line.trimmingCharacters(in: .whitespacesAndNewlines)
                return source.isEmpty ? nil : (source, "line \(number + 1): ")
            }
        }
        struct Page: Decodable { var products: [ProductResponse] }
        let decoder = JSONDecoder()
        guard let products = (try? decoder.decode(Page.self, from: data).products) ?? (try? decoder.decode(ProductResponse.self, from: data)).map({ [$0] })
                ?? (try? decoder.decode([ProductResponse].self, from: data)) else {
            Terminal.standardError.error("standard input is JSON, but not what `list --json` or `show --json` prints")
            throw ExitCode.failure
        }
        return products.flatMap { product in
            product.images.enumerated().map { ($1.url, "product \(product.id) image \($0 + 1): ") }
        }
    }
}
