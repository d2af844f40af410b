import Foundation

/// The thumbnail URL for a cell, as an app builds it: an image the OpenMarket server returned (its
/// `images[].url` or `thumbnail`), a preset of the service (`list`, `grid`) and the screen's scale.
/// Unsigned for a service started with `--only-presets`, where an app needs no key; signed when
/// given a signer (a service of one's own, with the key kept server-side or in a build secret).
public struct ThumbnailURLBuilder: Sendable {
    /// The thumbnail service, e.g. `https://img.example.com`.
    public var service: URL
    public var signer: ThumbnailURLSigner?

    public init(service: URL, signer: ThumbnailURLSigner? = nil) {
        self.service = service
        self.signer = signer
    }

    /// `format` (`jpg`, `webp`, …) fixes the format instead of leaving it to the `Accept` header;
    /// `cacheBuster` changes the URL, and so what every cache keys on, but not the image (for a photo
    /// replaced under the same name); `adjustments` add a turn, a blur, a watermark, qualities.
    public func url(for image: URL, preset: String, scale: Int, format: String? = nil, cacheBuster: String? = nil,
                    adjustments: ThumbnailAdjustments = ThumbnailAdjustments()) -> URL? {
        url(source: image.absoluteString, preset: preset, scale: scale, format: format, cacheBuster: cacheBuster, adjustments: adjustments)
    }

    /// The info URL of an image (`/info/…`, imgproxy's form): JSON with its upright size, aspect
    /// ratio, dominant colour and ThumbHash, for a cell to draw before the thumbnail arrives;
    /// `ImageInfo` decodes the answer, and its `thumbHash` draws the placeholder.
    public func infoURL(for image: URL) -> URL? {
        var base = service.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let source = image.absoluteString
        return URL(string: base + "/info" + (signer?.signedPath(options: [], source: source) ?? "/insecure" + ThumbnailURLSigner.path(options: [], source: source)))
    }

    /// The same for any source the service takes (`local:///…` included).
    public func url(source: String, preset: String, scale: Int, format: String? = nil, cacheBuster: String? = nil,
                    adjustments: ThumbnailAdjustments = ThumbnailAdjustments()) -> URL? {
        let options = ["pr:\(preset)", "dpr:\(min(max(scale, 1), 4))"] + adjustments.options + (cacheBuster.map { ["cb:\($0)"] } ?? [])
        if let signer { return signer.url(base: service, options: options, source: source, format: format) }
        var base = service.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/insecure" + ThumbnailURLSigner.path(options: options, source: source, format: format))
    }
}
