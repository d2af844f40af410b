import CKernels

/// SSIMULACRA2, the perceptual metric (`CKernels/ssimulacra2.c`): how an encoded image looks against
/// the pixels it was encoded from. 90 and above is visually lossless, 80 indistinguishable side by
/// side, 70 high quality. Transparency is judged as it is shown on white.
public enum Ssimulacra2 {
    /// The score of `distorted` against `reference`, which must have its size (at least 8 × 8).
    public static func score(_ reference: DecodedImage, _ distorted: DecodedImage) throws(ImagePipelineError) -> Double {
        try Reference(reference).score(distorted)
    }

    /// Pixels prepared once to score many encodes of them against (a quality search's attempts):
    /// the reference's half of the work is done here, once.
    final class Reference {
        private let prepared: OpaquePointer
        let width: Int, height: Int

        init(_ image: DecodedImage) throws(ImagePipelineError) {
            guard image.width >= 8, image.height >= 8 else {
                throw .processingFailed(detail: "SSIMULACRA2 needs an image of at least 8×8; got \(image.width)×\(image.height)")
            }
            (width, height) = (image.width, image.height)
            let (w, h) = (Int32(width), Int32(height))
            guard let prepared = try image.flattened().withSRGBBytes(alpha: false, { mi_ssimulacra2_prepare($0.baseAddress, w, h) }) else {
                throw .outOfMemory(detail: "SSIMULACRA2 of a \(width)×\(height) image")
            }
            self.prepared = prepared
        }

        deinit { mi_ssimulacra2_free(prepared) }

        /// The score of `image`, of the reference's size.
        func score(_ image: DecodedImage) throws(ImagePipelineError) -> Double {
            guard image.width == width, image.height == height else {
                throw .processingFailed(detail: "SSIMULACRA2 compares images of one size; got \(width)×\(height) and \(image.width)×\(image.height)")
            }
            let score = try image.flattened().withSRGBBytes(alpha: false) { mi_ssimulacra2_compare(prepared, $0.baseAddress) }
            guard score.isFinite else { throw .outOfMemory(detail: "SSIMULACRA2 of a \(width)×\(height) image") }
            return score
        }
    }
}
