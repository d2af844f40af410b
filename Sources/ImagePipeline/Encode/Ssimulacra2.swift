import CKernels

/// SSIMULACRA2, the perceptual metric (`CKernels/ssimulacra2.c`): how an encoded image looks against
/// the pixels it was encoded from. 90 and above is visually lossless, 80 indistinguishable side by
/// side, 70 high quality. Transparency is judged as it is shown on white.
public enum Ssimulacra2 {
    /// The score of `distorted` against `reference`, which must have its size (at least 8 × 8).
    public static func score(_ reference: DecodedImage, _ distorted: DecodedImage) throws(ImagePipelineError) -> Double {
        guard reference.width == distorted.width, reference.height == distorted.height, reference.width >= 8, reference.height >= 8 else {
            throw .processingFailed(detail: "SSIMULACRA2 compares images of one size, at least 8×8; got \(reference.width)×\(reference.height) "
                + "and \(distorted.width)×\(distorted.height)")
        }
        let (flatReference, flatDistorted) = (try reference.flattened(), try distorted.flattened())
        let (width, height) = (Int32(reference.width), Int32(reference.height))
        let first = try flatReference.withSRGBBytes(alpha: false) { Array($0) }
        let score = try flatDistorted.withSRGBBytes(alpha: false) { second in
            first.withUnsafeBufferPointer { mi_ssimulacra2($0.baseAddress, second.baseAddress, width, height) }
        }
        guard score.isFinite else { throw .outOfMemory(detail: "SSIMULACRA2 of a \(width)×\(height) image") }
        return score
    }
}
