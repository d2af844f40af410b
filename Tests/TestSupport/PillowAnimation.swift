import Foundation

/// Animations made and read back by Pillow, an oracle independent of libvips: a GIF of flat frames,
/// and what each frame of a file is (its size, its duration, its centre pixel).
public enum PillowAnimation {
    public struct Frame: Equatable, Sendable {
        public var size: [Int]
        public var duration: Int?
        public var centre: [Int]
    }

    /// A looping GIF of `width`×`height` flat frames of `colours` (RGB), each shown `durations` ms.
    public static func gif(width: Int, height: Int, colours: [[Int]], durations: [Int], to path: String) throws {
        let script = """
        import json, sys
        from PIL import Image
        colours, durations = json.loads(sys.argv[2]), json.loads(sys.argv[3])
        frames = [Image.new("RGB", (int(sys.argv[4]), int(sys.argv[5])), tuple(c)) for c in colours]
        frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=durations, loop=0)
        """
        func json(_ value: Any) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self) }
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script, path, try json(colours), try json(durations), String(width), String(height)])
    }

    /// Every frame of the file at `path`, as Pillow decodes it.
    public static func frames(of path: String) throws -> [Frame] {
        let script = """
        import json, sys
        from PIL import Image, ImageSequence
        image = Image.open(sys.argv[1])
        frames = []
        for frame in ImageSequence.Iterator(image):
            rgb = frame.convert("RGB")
            frames.append({"size": list(rgb.size), "duration": frame.info.get("duration"),
                           "centre": list(rgb.getpixel((rgb.width // 2, rgb.height // 2)))})
        print(json.dumps(frames))
        """
        let output = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script, path])
        let decoded = try JSONSerialization.jsonObject(with: output) as? [[String: Any]] ?? []
        return decoded.map { Frame(size: $0["size"] as? [Int] ?? [], duration: $0["duration"] as? Int, centre: $0["centre"] as? [Int] ?? []) }
    }
}
