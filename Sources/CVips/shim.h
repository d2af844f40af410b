// Fixed-argument wrappers for the variadic libvips calls the pipeline uses.
//
// Swift cannot call C variadic functions, and a system-library target ships no .c files, so every
// wrapper is `static inline`. Each one spells out the options the pipeline depends on, so the choices
// that decide correctness (size=down, fail_on, pinned chroma subsampling, strip) are visible here.
#ifndef MARKET_IMAGES_CVIPS_SHIM_H
#define MARKET_IMAGES_CVIPS_SHIM_H

#include <vips/vips.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static inline int mi_init(const char *argv0) {
    return VIPS_INIT(argv0);
}

/// Keeps glibc's allocator from hoarding freed image buffers: a fixed 4 MB mmap threshold returns
/// every decoded image to the system on free (glibc otherwise raises the threshold after the first
/// large free, and later images stay resident in heaps), while libvips' strip and tile buffers,
/// which are smaller and churn constantly, are reused from the heap instead of being page-faulted
/// in again (1 MB cost 8% more time for the same peak). Two arenas bound the per-thread heaps of
/// libvips' workers. A no-op on other C libraries.
static inline void mi_tune_allocator(void) {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 22);
    mallopt(M_ARENA_MAX, 2);
#endif
}

static inline void mi_discard_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/// libvips reports recoverable problems through g_log; left alone they land on stderr in the middle
/// of a progress line. Failures still reach the caller through the error buffer.
static inline void mi_silence_warnings(void) {
    g_log_set_handler("VIPS",
                      G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG,
                      mi_discard_log, NULL);
}

/// Opens a file lazily: only the header is parsed, no pixels are decoded.
static inline VipsImage *mi_open_header(const char *filename) {
    return vips_image_new_from_file(filename, NULL);
}

/// Shrink-on-load decode into a box, never enlarging, upright by EXIF orientation.
/// `export_profile` may be NULL: then no colour transform is made.
static inline int mi_thumbnail(const char *filename, VipsImage **out, int width, int height,
                               VipsInteresting crop, const char *export_profile, VipsFailOn fail_on) {
    if (export_profile)
        return vips_thumbnail(filename, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                              "crop", crop, "export_profile", export_profile, "fail_on", fail_on, NULL);
    return vips_thumbnail(filename, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                          "crop", crop, "fail_on", fail_on, NULL);
}

/// Resize of an already decoded image, for variants and for shrinking to meet a byte budget.
static inline int mi_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height,
                                     VipsInteresting crop) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                                "crop", crop, NULL);
}

static inline int mi_flatten(VipsImage *in, VipsImage **out, double background, double max_alpha) {
    VipsArrayDouble *bg = vips_array_double_newv(1, background);
    int result = vips_flatten(in, out, "background", bg, "max_alpha", max_alpha, NULL);
    vips_area_unref(VIPS_AREA(bg));
    return result;
}

static inline int mi_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

static inline int mi_cast_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast_uchar(in, out, NULL);
}

static inline int mi_extract_band(VipsImage *in, VipsImage **out, int band, int n) {
    return vips_extract_band(in, out, band, "n", n, NULL);
}

/// JPEG with metadata stripped and chroma subsampling pinned on: libjpeg's automatic switch-off at
/// Q >= 90 doubles the size between two neighbouring qualities and breaks any byte-budget search.
static inline int mi_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "optimize_coding", TRUE, "strip", TRUE,
                                "subsample_mode", VIPS_FOREIGN_SUBSAMPLE_ON, NULL);
}

static inline int mi_pngsave_buffer(VipsImage *in, void **buf, size_t *len) {
    return vips_pngsave_buffer(in, buf, len, "compression", 6, "strip", TRUE, NULL);
}

/// WebP's `strip` does not remove EXIF, XMP or ICC on libvips 8.14 (it even writes an EXIF chunk for
/// an image without one), so callers strip the container afterwards; `strip` is passed for newer versions.
static inline int mi_webpsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, NULL);
}

static inline int mi_avg(VipsImage *in, double *out) {
    return vips_avg(in, out, NULL);
}

static inline int mi_crop(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_crop(in, out, left, top, width, height, NULL);
}

#endif
