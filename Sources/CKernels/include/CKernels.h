// Our own C kernels, compiled once as a target of their own (a `static` in a header imported by Swift
// would be one copy per importing file). The JPEG decode to a fit and its vectorised Lanczos3 shrink
// live in jpeg.c and reduce.h; this is all Swift sees of them.
#ifndef MARKET_IMAGES_CKERNELS_H
#define MARKET_IMAGES_CKERNELS_H

#include <stddef.h>

/// Decodes `len` bytes of JPEG at `buf` at `scale`/8 and shrinks it by `shrink` on both axes into
/// `width` × `height` (stored orientation; never enlarged) with Lanczos3; with `to_srgb`, an embedded
/// profile is converted to sRGB; then the image is turned upright by EXIF `orientation`. Fails as
/// libvips' `fail_on=error` would, under libvips' `VipsJpeg` error domain. `out` receives a
/// `VipsImage *`: typed as `void **` so this header does not include libvips' (whose declarations
/// belong to the CVips module).
int mi_jpeg_thumbnail(const void *buf, size_t len, int scale, double shrink,
                      int width, int height, int orientation, int to_srgb, void **out);

#endif
