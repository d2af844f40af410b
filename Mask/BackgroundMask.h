// The product's mask from U²-Net-p, run by OpenCV's DNN: a C API over a small C++ file, built as its
// own shared library (libMarketImagesMask.so) that market-images loads with dlopen only when a photo's
// background is replaced, so a seller who never asks loads neither it nor OpenCV.
#ifndef MARKET_IMAGES_BACKGROUND_MASK_H
#define MARKET_IMAGES_BACKGROUND_MASK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A loaded model; one forward pass at a time (the calls lock it).
typedef struct mi_mask_net mi_mask_net;

/// Loads the ONNX model at `path`; NULL with a sentence in `error` when it cannot.
mi_mask_net *mi_mask_open(const char *path, char *error, size_t error_length);

/// The product's mask for `rgb` (8-bit sRGB, 3 bytes a pixel, `width` × `height`) into `mask`
/// (`width` × `height` bytes, 255 the product): the model at its size (`side` × `side`, 320 for
/// U²-Net-p), its map min–max normalised and upsampled; where the map is unsure (its blurred edge,
/// a thin part it half missed), each pixel's colour between the nearby ground's and the product's
/// decides, so the cut follows the product's outline and no band of the old background stays.
/// Ground the product encloses (a mug handle's hole) is cut where its colours are the ground's and
/// the edge already found some of it; where only the colours say so, it is kept and its share of the
/// product put in `ground_kept` (0 when none; may be NULL), for the caller to name the photo.
/// Returns 0, or -1 with a sentence in `error`. `ground_kept` comes last so that a runtime built
/// before it, which ignores it, is still called safely (the caller's 0 stays).
int mi_mask_run(mi_mask_net *net, const unsigned char *rgb, int width, int height, int side, unsigned char *mask,
                char *error, size_t error_length, double *ground_kept);

void mi_mask_close(mi_mask_net *net);

/// The loader's view of these (CKernels.h: `mi_mask_open_fn` and the others) is checked against
/// them in mask.cpp, so the two cannot drift apart.

#ifdef __cplusplus
}
#endif

#endif
