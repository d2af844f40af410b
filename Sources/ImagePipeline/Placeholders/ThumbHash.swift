import Foundation

/// ThumbHash (<https://evanw.github.io/thumbhash/>): a photo in about 25 bytes, its colours, rough
/// shape and aspect ratio, for an app to draw while the thumbnail loads. Apps decode it with any
/// ThumbHash decoder; this is the encoder, written from the published algorithm: the average colour,
/// then a few DCT terms of luminance (L), yellow–blue (P), red–green (Q) and alpha, quantised.
public enum ThumbHash {
    /// The largest side an input may have (the algorithm's own limit; more detail is wasted).
    public static let maxSide = 100

    /// `rgba`: `width`×`height` pixels, 4 bytes each, not premultiplied.
    public static func encode(width w: Int, height h: Int, rgba: [UInt8]) -> [UInt8] {
        precondition(w > 0 && h > 0 && w <= maxSide && h <= maxSide && rgba.count == w * h * 4)
        var (averageR, averageG, averageB, averageA) = (0.0, 0.0, 0.0, 0.0)
        for i in 0..<(w * h) {
            let alpha = Double(rgba[i * 4 + 3]) / 255
            averageR += alpha / 255 * Double(rgba[i * 4])
            averageG += alpha / 255 * Double(rgba[i * 4 + 1])
            averageB += alpha / 255 * Double(rgba[i * 4 + 2])
            averageA += alpha
        }
        if averageA > 0 { (averageR, averageG, averageB) = (averageR / averageA, averageG / averageA, averageB / averageA) }

        let hasAlpha = averageA < Double(w * h)
        let luminanceLimit = hasAlpha ? 5.0 : 7.0
        let longest = Double(max(w, h))
        let lx = max(1, Int((luminanceLimit * Double(w) / longest).rounded()))
        let ly = max(1, Int((luminanceLimit * Double(h) / longest).rounded()))
        var l = [Double](repeating: 0, count: w * h), p = l, q = l, a = l
        // Colours composited over the average, then to L, P, Q.
        for i in 0..<(w * h) {
            let alpha = Double(rgba[i * 4 + 3]) / 255
            let r = averageR * (1 - alpha) + alpha / 255 * Double(rgba[i * 4])
            let g = averageG * (1 - alpha) + alpha / 255 * Double(rgba[i * 4 + 1])
            let b = averageB * (1 - alpha) + alpha / 255 * Double(rgba[i * 4 + 2])
            (l[i], p[i], q[i], a[i]) = ((r + g + b) / 3, (r + g) / 2 - b, r - g, alpha)
        }

        /// The DC term and the AC terms (normalised to 0…1 by their largest magnitude, `scale`), in
        /// the triangle of low frequencies the format keeps.
        func encodeChannel(_ channel: [Double], _ nx: Int, _ ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
            var dc = 0.0, ac: [Double] = [], scale = 0.0
            var fx = [Double](repeating: 0, count: w)
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                    var f = 0.0
                    for y in 0..<h {
                        let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                        for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                    }
                    f /= Double(w * h)
                    if cx > 0 || cy > 0 {
                        ac.append(f)
                        scale = max(scale, abs(f))
                    } else {
                        dc = f
                    }
                    cx += 1
                }
            }
            if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
            return (dc, ac, scale)
        }
        let lc = encodeChannel(l, max(3, lx), max(3, ly))
        let pc = encodeChannel(p, 3, 3)
        let qc = encodeChannel(q, 3, 3)
        let ac = hasAlpha ? encodeChannel(a, 5, 5) : (dc: 0, ac: [], scale: 0)

        let round = { (value: Double) in Int(value.rounded()) }
        let isLandscape = w > h
        let header24 = round(63 * lc.dc) | round(31.5 + 31.5 * pc.dc) << 6 | round(31.5 + 31.5 * qc.dc) << 12
            | round(31 * lc.scale) << 18 | (hasAlpha ? 1 : 0) << 23
        let header16 = (isLandscape ? ly : lx) | round(63 * pc.scale) << 3 | round(63 * qc.scale) << 9 | (isLandscape ? 1 : 0) << 15
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16 & 255),
                             UInt8(header16 & 255), UInt8(header16 >> 8 & 255)]
        if hasAlpha { hash.append(UInt8(round(15 * ac.dc) | round(15 * ac.scale) << 4)) }
        let start = hash.count
        var index = 0
        for factors in hasAlpha ? [lc.ac, pc.ac, qc.ac, ac.ac] : [lc.ac, pc.ac, qc.ac] {
            for factor in factors {
                let byte = start + index >> 1
                if byte >= hash.count { hash.append(0) }
                hash[byte] |= UInt8(round(15 * factor) << ((index & 1) << 2))
                index += 1
            }
        }
        return hash
    }
}
