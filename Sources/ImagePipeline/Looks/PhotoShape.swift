/// The listing rules for a photo's shape, defined once: `prepare` warns with them, `preview` lists
/// them under what to fix, `publish` blocks a product that breaks them (unless `--allow-small`), and
/// `inspect` explains them. The server accepts any shape; these catch the wrong file.
public enum PhotoShape {
    /// The apps show product photos in square cells, cropped to fill (the 80-point list row, the
    /// 200-point grid): a photo wider or taller than 3:1 shows a third of itself or less there, so a
    /// panorama or a strip is almost certainly not the photo meant for the listing.
    public static let widestRatio = 3

    /// What is wrong with a `width`×`height` photo for a listing, each a sentence; empty when nothing.
    /// `minEdge`: below this long edge a photo is too small to show a product (`--min-edge`).
    public static func problems(width: Int, height: Int, minEdge: Int) -> [String] {
        let long = max(width, height), short = max(1, min(width, height))
        if long < minEdge {
            return ["only \(width)×\(height) pixels, too small to show a product (under \(minEdge) on its long side); use the original photo"]
        }
        if long > short * widestRatio {
            let ratio = Double(long) / Double(short)
            return ["\(width)×\(height) is \(ratio < 10 ? String(format: "%.1f", ratio) : String(Int(ratio.rounded()))):1, beyond the "
                + "\(widestRatio):1 a square cell can show (a third of it or less); check this is the right photo"]
        }
        return []
    }
}
