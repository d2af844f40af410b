/// Conversions at the C boundary. libvips takes `int` sizes; a Swift `Int` that does not fit must be
/// an error, never a trap: behind a URL option a trap is a one-request denial of service.
enum VipsArgument {
    static func int32(_ value: Int, _ name: String) throws(ImagePipelineError) -> Int32 {
        guard let converted = Int32(exactly: value) else {
            throw .invalidOption(name: name, value: String(value), allowed: "at most \(Int32.max)")
        }
        return converted
    }
}
