import Foundation

/// libjxl's own decoder (`djxl`, Debian's `libjxl-tools`): an oracle for JPEG XL outputs independent
/// of libvips, which reads no JPEG XL source here.
public enum Djxl {
    /// `data` decoded by `djxl` to a PNG, returned as its bytes.
    public static func png(from data: Data, in folder: String) throws -> Data {
        let name = UUID().uuidString
        let input = (folder as NSString).appendingPathComponent(name + ".jxl"), output = (folder as NSString).appendingPathComponent(name + ".png")
        try data.write(to: URL(fileURLWithPath: input))
        _ = try ProcessOutput.run("/usr/bin/djxl", [input, output])
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }
}
