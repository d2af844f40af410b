import CVips

/// Bringing a decoded image to what every output starts from: 8-bit sRGB (or grey), upright, in the box.
extension VipsImageHandle {
    /// A CMYK image to sRGB through its own embedded profile (libvips' CMYK profile when it has
    /// none), then upright and into the box: for CMYK TIFFs, loaded whole (a CMYK JPEG shrinks on
    /// load in our own decode and is converted there).
    func fromCMYK(into box: (width: Int32, height: Int32)) throws(ImagePipelineError) -> VipsImageHandle {
        try then { mi_icc_to_srgb($0, $1) }
            .then { mi_thumbnail_image($0, $1, box.width, box.height, VIPS_INTERESTING_NONE, VIPS_SIZE_DOWN) }
            .normalisedTo8BitDisplay()
    }

    /// Brings any decoded image to 8-bit sRGB, or 8-bit greyscale for grey sources, keeping alpha.
    /// 16-bit TIFF/PNG and images without a profile come out of the loader in their own space.
    func normalisedTo8BitDisplay() throws(ImagePipelineError) -> VipsImageHandle {
        let grey = interpretation == VIPS_INTERPRETATION_B_W || interpretation == VIPS_INTERPRETATION_GREY16
        let target = grey ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        var image = self
        if image.interpretation != target {
            image = try image.then { mi_colourspace($0, $1, target) }
        }
        if image.format != VIPS_FORMAT_UCHAR {
            image = try image.then { mi_cast_uchar($0, $1) }
        }
        // Loaders can report more bands than the space has (CMYK leftovers, extra alpha planes):
        // keep colour plus at most one alpha.
        let colourBands = grey ? 1 : 3
        let wanted = colourBands + (image.hasAlpha ? 1 : 0)
        if image.bands > wanted {
            image = try image.then { mi_extract_band($0, $1, 0, Int32(wanted)) }
        }
        return image
    }

    /// Mean value of each band over a rectangle.
    func meanBands(x: Int, y: Int, width: Int, height: Int) throws(ImagePipelineError) -> [Double] {
        let rectangle = try [x, y, width, height].map { value throws(ImagePipelineError) in try VipsArgument.int32(value, "crop") }
        let region = try then { mi_crop($0, $1, rectangle[0], rectangle[1], rectangle[2], rectangle[3]) }
        return try (0..<bands).map { band throws(ImagePipelineError) in
            let single = try region.then { mi_extract_band($0, $1, Int32(band), 1) }
            var mean = 0.0
            guard mi_avg(single.pointer, &mean) == 0 else { throw .processingFailed(detail: VipsErrorLog.take(for: origin)) }
            return mean
        }
    }
}
