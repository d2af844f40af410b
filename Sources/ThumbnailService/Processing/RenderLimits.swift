import Foundation
import ImagePipeline

/// The service's limits and defaults for every render (`ServiceConfiguration.limits`): what is
/// refused, how long a render may run, and the quality and encoder choices of URLs that leave them
/// out. Each is a setting of `ServiceSetting.all`.
public struct RenderLimits: Sendable {
    /// Quality when the URL gives none.
    public var defaultQuality = 80
    /// A format's quality when the URL gives none, instead of `defaultQuality` (`--format-quality`,
    /// imgproxy's `IMGPROXY_FORMAT_QUALITY`, and its defaults): AVIF's and JPEG XL's scales reach
    /// JPEG's look at lower numbers.
    public var formatQuality: [OutputFormat: Int] = [.avif: 63, .jxl: 77]
    /// No output side is larger, whatever the URL asks (`--max-output-edge`).
    public var maxOutputEdge = 4096
    /// Sources with more pixels are refused from their header (`--max-pixels`).
    public var maxPixels = PrepareOptions().maxPixels
    /// A render whose estimated memory (`DecodeCost`, from the header) is larger is refused, 413
    /// (`--max-render-memory`): well under a 1 GB unit, whatever the file's format.
    public var maxRenderMemory = 256 << 20
    /// A render still running this long after a worker took it up is stopped and answered 503
    /// (`--render-timeout`, imgproxy's `IMGPROXY_TIMEOUT`); nil for none.
    public var renderTimeout: Duration? = .seconds(10)
    /// Frames of an animated GIF or WebP kept in a WebP or GIF output (`--max-animation-frames`, imgproxy's
    /// `IMGPROXY_MAX_ANIMATION_FRAMES`, whose default of 1 makes every output a still).
    public var maxAnimationFrames = 1
    /// An animated source whose frames have more pixels is refused (`--max-animation-frame-resolution`); nil: no limit but `maxPixels`.
    public var maxAnimationFramePixels: Int?
    /// The quality choice of URLs that make none (no `aq`, `q` or `fq`): `--auto-quality`, e.g.
    /// `ssimulacra2:80` (off by default). Part of their options, so of their ETags.
    public var autoQuality: ProcessingOptions.Autoquality?
    /// Outputs with more pixels are not scored for a perceptual `aq` but encoded at the quality
    /// they would have without it (`--auto-quality-max-resolution`, imgproxy's
    /// `IMGPROXY_AUTOQUALITY_MAX_RESOLUTION`, whose default is no limit): scoring holds about
    /// 112 bytes and costs 2–7 renders' CPU a pixel, so one megapixel (the list and grid sizes
    /// at 3×, with room) keeps a scored render within `maxRenderMemory`. nil: any size.
    public var autoQualityMaxPixels: Int? = 1_000_000
    /// JPEGs decoded straight to the output's scale (`--fast-decode`; see `DecodedImage.decode`).
    public var draftDecode = false
    /// AVIF for clients whose `Accept` lists it, before WebP (`--auto-avif`, imgproxy's
    /// `IMGPROXY_AUTO_AVIF`): smaller still, at more encode time.
    public var autoAVIF = false
    /// JPEG XL for clients whose `Accept` lists it (`--auto-jxl`, imgproxy's `IMGPROXY_AUTO_JXL`;
    /// Safari 17 and iOS 17 send it), before AVIF and WebP.
    public var autoJXL = false
    /// The formats an output neither the URL nor `Accept` chose is written in, in order
    /// (`--preferred-formats`, imgproxy's `IMGPROXY_PREFERRED_FORMATS` and its default): the
    /// source's own when listed, else the first that keeps its transparency and animation
    /// (`OutputPlanner.preferredFormat`).
    public var preferredFormats: [OutputFormat] = [.jpeg, .png, .gif]
    /// Progressive JPEGs (`--baseline-jpeg` off) and the AVIF and JPEG XL efforts.
    public var encoder = EncoderSettings()

    public init() {}
}
