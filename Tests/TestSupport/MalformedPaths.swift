/// Seeded garbage for the service's URL parser: valid imgproxy paths mutated by inserting pieces that
/// break parsers (`..`, `%00`, huge and negative numbers, stray separators), dropping characters,
/// cutting them short, inserting arbitrary bytes, and now and then repeating an option until the path
/// is over 10 KB. The same seed gives the same paths.
public enum MalformedPaths {
    static let valid = ["/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png",
                        "/pr:list/dpr:3/plain/local:///sku/a.jpg@webp", "/w:120/h:80/q:70/mb:9000/f:png/plain/https://x.test/a.png",
                        "/s:100:100:1/el:t/exp:9999999999/cb:v2/plain/local:///a.jpg", "/rs:fill:99999999:1/plain/local:///a.jpg"]
    static let pieces = [":", "/", "%", "%2e%2e", "%00", "@", ".", "..", "rs", "fill", "-1", "99999999999999999999", "1e9", "nan",
                         "pr", "list", "plain", "local:///", "sm", "=", "\u{0}", "é", "%3A", "::::", "g:fp:0.5:0.5", "frobnicate:1",
                         "w:-5", "rs:fill:99999999:1", "pr:pr:pr", "f:gif"]

    public static func generate(count: Int, seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            var path = Array(valid.randomElement(using: &generator)!)
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let position = Int.random(in: 0...path.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: path.insert(contentsOf: pieces.randomElement(using: &generator)!, at: position)
                case 1: if position < path.count { path.remove(at: position) }
                case 2: path = Array(path.prefix(position))
                default: path.insert(Character(UnicodeScalar(UInt8.random(in: 0...255, using: &generator))), at: position)
                }
            }
            if Int.random(in: 0..<50, using: &generator) == 0 { path += Array(String(repeating: "w:1/", count: 3000)) }
            return String(path)
        }
    }
}
