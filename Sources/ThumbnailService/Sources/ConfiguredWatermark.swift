import ImagePipeline

/// The service's own watermark (`--watermark`, imgproxy's `IMGPROXY_WATERMARK_PATH` and `_URL`),
/// drawn where a URL asks for `wm` without a `wmu` of its own: a file read once at start, or a
/// source name (`local:///…`, an allowed `https://…`) resolved per request as any source is, so
/// it is cached, revalidated and its changes make new ETags.
enum ConfiguredWatermark: Sendable {
    case image(InMemorySource)
    case source(String)

    init(_ setting: String) throws(ImagePipelineError) {
        self = setting.contains("://") ? .source(setting) : .image(try InMemorySource(path: setting))
    }
}
