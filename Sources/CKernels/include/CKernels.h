// Our own C kernels, compiled once as a target of their own (a `static` in a header imported by Swift
// would be one copy per importing file). The JPEG decode to a fit and its vectorised Lanczos3 shrink
// live in jpeg.c and reduce.h; this is all Swift sees of them.
#ifndef MARKET_IMAGES_CKERNELS_H
#define MARKET_IMAGES_CKERNELS_H

#include <stddef.h>

/// Decodes `len` bytes of JPEG at `buf` at `scale`/8 and shrinks it by `shrink` on both axes into
/// `width` × `height` (stored orientation; never enlarged) with Lanczos3; with `to_srgb`, an embedded
/// profile is converted to sRGB (a CMYK JPEG always is, through libvips' CMYK profile when it has
/// none); then the image is turned upright by EXIF `orientation`. Fails as
/// libvips' `fail_on=error` would, under libvips' `VipsJpeg` error domain. `out` receives a
/// `VipsImage *`: typed as `void **` so this header does not include libvips' (whose declarations
/// belong to the CVips module).
int mi_jpeg_thumbnail(const void *buf, size_t len, int scale, double shrink,
                      int width, int height, int orientation, int to_srgb, void **out);

/// JPEG of `image` (a `VipsImage *` of 8-bit grey or RGB pixels) at `quality` with libjpeg-turbo, 4:2:0
/// unless `full_chroma`, optimised Huffman codes, no metadata; `progressive` in nine scans of spectral
/// selection (jpeg_encode.c says why). `out` receives a buffer to release with `free`. Fails under
/// libvips' error buffer.
int mi_jpeg_encode(void *image, int quality, int progressive, int full_chroma, unsigned char **out, unsigned long *length);

/// What a photo looks like to a buyer, measured on 8-bit sRGB pixels (`rgb`, 3 bytes a pixel,
/// `width` × `height`, transparency already flattened): see `mi_photo_look`.
typedef struct {
    /// How wide its sharpest edges are, in pixels at `working_edge` on the long side (a photo no
    /// larger is judged at its own size): the blur a Gaussian of this sigma would give, from the ratio
    /// of the strongest gradients to the strongest second derivatives (0 for none).
    double blur_width;
    /// The 99.5th percentile of the luminance gradient, in levels per pixel: below a few, the photo
    /// has no edges to judge sharpness by.
    double edge_strength;
    /// The 99.95th percentile of the luminance gradient, in levels per pixel: the strongest edges
    /// even where they are few, as a product's outline on a plain background. Below a few, the photo
    /// has no sharp detail at all (a heavy blur, a blank frame).
    double detail_strength;
    /// Luminance (0–255) that 1%, 50% and 99% of pixels are at or below.
    int shadows, median, highlights;
    /// Share of pixels with a channel at 251 or more and another at 235 or less: highlights clipped
    /// into a tint, as overexposure does (pure white, a white background, is not counted).
    double tinted_clipping;
    /// 64-bit difference hash: the luminance of 9 × 8 cells, each bit whether a cell is brighter
    /// than the one to its left, row by row from the most significant bit.
    unsigned long long hash;
} mi_photo_look_t;

/// Measures `rgb` into `out`: the exposure and clipping on every pixel; sharpness and the hash on a
/// box shrink by the largest whole factor that keeps the long edge at least `working_edge`. Returns
/// 0, or -1 for an image under 3 × 3 pixels or out of memory.
int mi_photo_look(const unsigned char *rgb, int width, int height, int working_edge, mi_photo_look_t *out);

/// How a photo sits in its frame, measured on 8-bit sRGB pixels (3 bytes a pixel, transparency
/// already flattened onto white): what marketplaces' photo rules are about. See frame.c.
typedef struct {
    /// Share of the frame's edge band (the outermost 2% of the short side, at least 2 px) whose
    /// pixels are white: every channel at `MI_FRAME_WHITE` or more.
    double white_edge;
    /// Share of that band at exactly 255 on every channel: pure white.
    double pure_white_edge;
    /// The product's bounding box: rows and columns with enough pixels darker than the background
    /// (`MI_FRAME_PRODUCT` on some channel); x1, y1 exclusive. All 0 when no pixel is.
    int x0, y0, x1, y1;
    /// Thickness in pixels of a uniform band on all four sides whose inner neighbour line differs
    /// from it over most of its length: an added border. 0 when there is none.
    int border;
    /// The border's mean colour.
    int border_rgb[3];
} mi_photo_frame_t;

/// A pixel whose every channel is at least this is white (JPEG round trips of 255 land at 253–255;
/// a seller's "white" sweep lit well reads 250 or more).
#define MI_FRAME_WHITE 250
/// A pixel with any channel under this is part of the product when the edges are white.
#define MI_FRAME_PRODUCT 240

/// The product's box in `rgb` (3 bytes a pixel): the rows and columns with at least 0.2% of their
/// pixels (2 at least) darker than `MI_FRAME_PRODUCT` on some channel, as x0, y0, x1, y1 (x1, y1
/// exclusive; all 0 when none). Returns 0, or -1 when out of memory.
int mi_product_box(const unsigned char *rgb, int width, int height, int box[4]);

/// Measures `rgb` into `out`. Returns 0, or -1 for an image under 8 × 8 pixels or out of memory.
int mi_photo_frame(const unsigned char *rgb, int width, int height, mi_photo_frame_t *out);

/// A product cut out of its photo by a mask and put on white: see background.c.
typedef struct {
    /// The product's bounding box as it shows on white: `mi_product_box` of `out`, as
    /// `mi_photo_frame` reads it (x1, y1 exclusive); all 0 for none.
    int x0, y0, x1, y1;
    /// Share of the frame the mask holds as product (128 or more).
    double product;
    /// Share of the mask's non-background pixels (64 or more) that it is unsure of (64–191): high
    /// when the model cannot tell the product from its ground (glass, white on white).
    double unsure;
    /// Share of the product (128 or more) under unsure regions (32–223) too thick to be its edge,
    /// inside its box: a part the mask half lost, as a dark cap on a dark cloth.
    double doubtful;
} mi_cutout_t;

/// `rgb` (3 bytes a pixel) with everything `mask` (one byte a pixel, 255 product) calls background
/// made white, into `out`: the mask's soft edge is steepened (160 → 0, 224 → opaque) so no band of the
/// old ground stays around the product. Measures the cut into `cut`. Returns 0, or -1 under 8 × 8
/// or out of memory.
int mi_white_background(const unsigned char *rgb, const unsigned char *mask, int width, int height, unsigned char *out, mi_cutout_t *cut);

/// The background model's C API as libMarketImagesMask.so exports it (Sources/CBackgroundMask), which
/// the pipeline looks up with dlsym so that neither it nor OpenCV is loaded unless asked for.
typedef struct mi_mask_net mi_mask_net;
typedef mi_mask_net *(*mi_mask_open_fn)(const char *path, char *error, size_t error_length);
typedef int (*mi_mask_run_fn)(mi_mask_net *net, const unsigned char *rgb, int width, int height, int side, unsigned char *mask,
                              char *error, size_t error_length, double *ground_kept);
typedef void (*mi_mask_close_fn)(mi_mask_net *net);

/// A render's stop signal: a deadline on the monotonic clock and a flag any thread may set. Owned by
/// the caller; see watch.c.
typedef struct mi_watch mi_watch;

enum { MI_WATCH_RUNNING = 0, MI_WATCH_EXPIRED = 1, MI_WATCH_CANCELLED = 2 };

/// A watch whose deadline is `seconds` after `mi_watch_begin` (none when `seconds` ≤ 0); NULL when out
/// of memory.
mi_watch *mi_watch_new(double seconds);
void mi_watch_free(mi_watch *watch);
/// Asks the work under `watch` to stop: from any thread.
void mi_watch_cancel(mi_watch *watch);
/// `MI_WATCH_RUNNING`, `MI_WATCH_EXPIRED` or `MI_WATCH_CANCELLED`.
int mi_watch_state(const mi_watch *watch);
/// Puts the calling thread's work under `watch` until `mi_watch_end`, and starts its deadline.
void mi_watch_begin(mi_watch *watch);
void mi_watch_end(void);
/// The state of the calling thread's watch (`MI_WATCH_RUNNING` without one).
int mi_watch_stopped(void);
/// Lets the watch of whichever thread computes `image` (a `VipsImage *`), or an image made from it,
/// stop that computation between tiles; nothing on a thread without a watch.
void mi_watch_image(void *image);

/// SSIMULACRA2 of `distorted` against `reference`, both `width` × `height` 8-bit sRGB, 3 bytes a
/// pixel (see ssimulacra2.c): 100 for identical images, 90 visually lossless, 70 high quality. NAN
/// for images under 8 pixels on a side, or when memory runs out.
double mi_ssimulacra2(const unsigned char *reference, const unsigned char *distorted, int width, int height);

/// A reference prepared once for many comparisons (a quality search scores every attempt against
/// the same pixels): its pyramid, blurred means and blurred squares, 9 float planes and a third.
typedef struct mi_ssimulacra2_reference mi_ssimulacra2_reference;
/// NULL for an image under 8 pixels on a side, or when memory runs out.
mi_ssimulacra2_reference *mi_ssimulacra2_prepare(const unsigned char *rgb, int width, int height);
/// `distorted`, of the reference's size, against it; NAN when memory runs out or `reference` is NULL.
double mi_ssimulacra2_compare(const mi_ssimulacra2_reference *reference, const unsigned char *distorted);
void mi_ssimulacra2_free(mi_ssimulacra2_reference *reference);

#endif
