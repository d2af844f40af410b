extension RenderSpec.Gravity {
    /// Where an area of `inner` size sits in an `outer` image, as imgproxy places crops: at the named
    /// edge or corner (centred otherwise), moved by `offset` (pixels when at least 1, scaled by
    /// `pixelScale`; a fraction of the side when less; east and south offsets move inwards), or
    /// centred on the focus point; kept inside the image, or with `overhang` at least a pixel of it
    /// inside. Not for `.attention`, which libvips places by what it finds.
    func position(of inner: (width: Int, height: Int), in outer: (width: Int, height: Int),
                  offset: RenderSpec.Offset, pixelScale: Double = 1, overhang: Bool = false) -> (x: Int, y: Int) {
        let spare = (width: outer.width - inner.width, height: outer.height - inner.height)
        var x: Int, y: Int
        if self == .focusPoint {
            x = Int((Double(outer.width) * offset.x).rounded()) - inner.width / 2
            y = Int((Double(outer.height) * offset.y).rounded()) - inner.height / 2
        } else {
            let dx = RenderSpec.Offset.pixels(offset.x, along: outer.width, scale: pixelScale)
            let dy = RenderSpec.Offset.pixels(offset.y, along: outer.height, scale: pixelScale)
            x = rawValue.hasSuffix("we") ? dx : rawValue.hasSuffix("ea") ? spare.width - dx : spare.width / 2 + dx
            y = rawValue.hasPrefix("no") ? dy : rawValue.hasPrefix("so") ? spare.height - dy : spare.height / 2 + dy
        }
        if overhang { return (min(max(1 - inner.width, x), outer.width - 1), min(max(1 - inner.height, y), outer.height - 1)) }
        return (min(max(0, x), max(0, spare.width)), min(max(0, y), max(0, spare.height)))
    }
}
