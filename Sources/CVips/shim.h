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
/// in again (a lower threshold cost time for the same peak; BENCHMARKS.md). Two arenas bound the per-thread heaps of
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

/// Opens bytes in memory lazily: only the header is parsed, no pixels are decoded. The bytes are not
/// copied: they must outlive the returned image. Files are read by the caller, never opened by name.
static inline VipsImage *mi_open_header_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", NULL);
}

/// A libvips source over a descriptor we opened (libvips duplicates it): the header is read lazily
/// from it, so reading a file's header costs its header, not the whole file, and no name is parsed.
static inline VipsSource *mi_source_from_descriptor(int descriptor) {
    return vips_source_new_from_descriptor(descriptor);
}

/// Opens a source lazily: only the header is parsed, no pixels are decoded.
static inline VipsImage *mi_open_header_source(VipsSource *source) {
    return vips_image_new_from_source(source, "", NULL);
}

/// Whether the loader type a `vips_foreign_find_load*` call named is blocked (libvips marks loaders
/// not meant for untrusted input, and `vips_block_untrusted_set` blocks them). Asking the class
/// rather than parsing "operation is blocked" out of the shared error buffer keeps the answer this
/// file's own, whatever other threads are failing at the same moment.
static inline int mi_loader_is_blocked(const char *type_name) {
    GType type = g_type_from_name(type_name);
    if (!type) return 0;
    gpointer klass = g_type_class_ref(type);
    int blocked = (VIPS_OPERATION_CLASS(klass)->flags & VIPS_OPERATION_BLOCKED) != 0;
    g_type_class_unref(klass);
    return blocked;
}

/// The short name of a loader type (`magickload` for `VipsForeignLoadMagickFile`), for messages.
static inline const char *mi_loader_nickname(const char *type_name) {
    GType type = g_type_from_name(type_name);
    if (!type) return type_name;
    gpointer klass = g_type_class_ref(type);
    const char *nickname = VIPS_OBJECT_CLASS(klass)->nickname;
    g_type_class_unref(klass);
    return nickname;
}

/// Shrink-on-load decode into a box, never enlarging, upright by EXIF orientation, failing on damage
/// instead of filling with grey. `export_profile` may be NULL: then no colour transform is made. The
/// buffer variant takes `fail_on` through the loader's option string on 8.14, or a truncated image
/// would decode as grey. `pages` above 1 decodes that many frames of an animation, each fitted into
/// the box, stacked top to bottom (`page-height`).
static inline int mi_thumbnail_buffer(const void *buf, size_t len, VipsImage **out, int width, int height,
                                      const char *export_profile, int pages) {
    char options[48];
    snprintf(options, sizeof options, pages > 1 ? "fail_on=error,n=%d" : "fail_on=error", pages);
    if (export_profile)
        return vips_thumbnail_buffer((void *)buf, len, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                                     "export_profile", export_profile, "option_string", options, NULL);
    return vips_thumbnail_buffer((void *)buf, len, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                                 "option_string", options, NULL);
}

/// Frames of one size stacked top to bottom as an animation (`page-height`), with the frame delays
/// and loop count of `timing` (the decoded source), which an animated WebP is saved with.
static inline int mi_join_frames(VipsImage **frames, int n, VipsImage *timing, VipsImage **out) {
    if (vips_arrayjoin(frames, out, n, "across", 1, NULL)) return -1;
    vips_image_set_int(*out, "page-height", vips_image_get_height(frames[0]));
    int *delays = NULL, count = 0, loop = 0;
    if (vips_image_get_typeof(timing, "delay") && !vips_image_get_array_int(timing, "delay", &delays, &count))
        vips_image_set_array_int(*out, "delay", delays, count < n ? count : n);
    if (vips_image_get_typeof(timing, "loop") && !vips_image_get_int(timing, "loop", &loop))
        vips_image_set_int(*out, "loop", loop);
    return 0;
}

/// A full decode, failing on damage: for CMYK sources, whose embedded profile `vips_thumbnail`
/// ignores on 8.14 (it converts with its built-in CMYK profile whatever the file carries).
static inline int mi_load_buffer(const void *buf, size_t len, VipsImage **out) {
    *out = vips_image_new_from_buffer(buf, len, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    return *out ? 0 : -1;
}

/// To sRGB through the image's embedded profile, or libvips' CMYK profile when it has none.
static inline int mi_icc_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "input_profile", "cmyk", NULL);
}

/// Resize of an already decoded image into a box, cropped to fill it unless `crop` is none:
/// for variants, and for shrinking to meet a byte budget. `size` decides whether it may enlarge.
static inline int mi_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height,
                                     VipsInteresting crop, VipsSize size) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", size, "crop", crop, NULL);
}

/// Resize by independent horizontal and vertical factors (lanczos3), for fills that crop at an edge
/// rather than the centre, and for `force`.
static inline int mi_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}

/// Drops every blob-typed metadata field (EXIF, XMP, IPTC, ICC and loader extras). A buffer loader
/// may attach blobs that point into the caller's bytes instead of copying them, and a later save
/// (webpsave rewrites EXIF) would read them after those bytes are gone: AddressSanitizer caught
/// exactly that. Nothing downstream needs them; outputs carry no metadata.
static inline void mi_remove_blob_fields(VipsImage *image) {
    gchar **fields = vips_image_get_fields(image);
    for (int i = 0; fields && fields[i]; i++)
        if (vips_image_get_typeof(image, fields[i]) == VIPS_TYPE_BLOB)
            vips_image_remove(image, fields[i]);
    g_strfreev(fields);
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

/// libvips' own JPEG writer, with metadata stripped and chroma subsampling pinned (4:2:0 unless
/// `full_chroma`): the old path `Benchmarks/StageTimings` times. Outputs are written by
/// `mi_jpeg_encode` (CKernels).
static inline int mi_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, int progressive, int full_chroma) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "optimize_coding", TRUE, "strip", TRUE,
                                "subsample_mode", full_chroma ? VIPS_FOREIGN_SUBSAMPLE_OFF : VIPS_FOREIGN_SUBSAMPLE_ON,
                                "interlace", progressive, NULL);
}

static inline int mi_pngsave_buffer(VipsImage *in, void **buf, size_t *len) {
    return vips_pngsave_buffer(in, buf, len, "compression", 6, "strip", TRUE, NULL);
}

/// WebP's `strip` does not remove EXIF, XMP or ICC on libvips 8.14 (it even writes an EXIF chunk for
/// an image without one), so callers strip the container afterwards; `strip` is passed for newer versions.
static inline int mi_webpsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, NULL);
}

/// GIF through cgif, libvips' own saver (never ImageMagick's): quantised to one palette a frame with
/// libimagequant, an animation (`page-height`) written with the frames' `delay` and `loop`. It writes
/// no metadata on 8.14; `strip` keeps newer versions (which can write XMP and ICC) the same.
static inline int mi_gifsave_buffer(VipsImage *in, void **buf, size_t *len) {
    return vips_gifsave_buffer(in, buf, len, "strip", TRUE, NULL);
}

/* AVIF: AV1 in a HEIF container, metadata stripped; `effort` 0 (fastest) to 9. */
static inline int mi_avifsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, int effort) {
    return vips_heifsave_buffer(in, buf, len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                                "effort", effort, "strip", TRUE, NULL);
}

/* JPEG XL as a bare codestream (no container, so no box for EXIF or XMP); `effort` 3 (fastest) to 9. */
static inline int mi_jxlsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, int effort) {
    return vips_jxlsave_buffer(in, buf, len, "Q", quality, "effort", effort, "strip", TRUE, NULL);
}

/* `in` on a `width`×`height` canvas at (x, y), the rest filled with `background` (one value per band). */
static inline int mi_embed(VipsImage *in, VipsImage **out, int x, int y, int width, int height, const double *background, int bands) {
    VipsArrayDouble *colour = vips_array_double_new(background, bands);
    int result = vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_BACKGROUND, "background", colour, NULL);
    vips_area_unref(VIPS_AREA(colour));
    return result;
}

/* The bounding box of what differs from `background` by more than `threshold`. */
static inline int mi_find_trim(VipsImage *in, int *left, int *top, int *width, int *height, double threshold,
                               const double *background, int bands) {
    VipsArrayDouble *colour = vips_array_double_new(background, bands);
    int result = vips_find_trim(in, left, top, width, height, "threshold", threshold, "background", colour, NULL);
    vips_area_unref(VIPS_AREA(colour));
    return result;
}

/* An opaque alpha band added. */
static inline int mi_add_alpha(VipsImage *in, VipsImage **out) {
    return vips_bandjoin_const1(in, out, 255, NULL);
}

static inline int mi_avg(VipsImage *in, double *out) {
    return vips_avg(in, out, NULL);
}

static inline int mi_crop(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_crop(in, out, left, top, width, height, NULL);
}

/* The most salient `width`×`height` of `in` (libvips' attention measure), for `c:…:sm`. */
static inline int mi_smartcrop(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_smartcrop(in, out, width, height, "interesting", VIPS_INTERESTING_ATTENTION, NULL);
}

/* `overlay` drawn over `base` at (x, y), by its alpha (Porter-Duff over), in sRGB. */
static inline int mi_composite_over(VipsImage *base, VipsImage *overlay, VipsImage **out, int x, int y) {
    return vips_composite2(base, overlay, out, VIPS_BLEND_MODE_OVER, "x", x, "y", y, NULL);
}

/* Each band times its factor (`bands` of them), cast back to 8 bits: a watermark's alpha at its opacity. */
static inline int mi_scale_bands(VipsImage *in, VipsImage **out, const double *factors, int bands) {
    VipsImage *scaled = NULL;
    double zeros[8] = {0};
    if (vips_linear(in, &scaled, (double *)factors, zeros, bands, NULL)) return -1;
    int result = vips_cast_uchar(scaled, out, NULL);
    g_object_unref(scaled);
    return result;
}

/* `in` repeated `across` × `down` times: a watermark tiled over an image. */
static inline int mi_replicate(VipsImage *in, VipsImage **out, int across, int down) {
    return vips_replicate(in, out, across, down, NULL);
}

/* A quarter turn clockwise `angle` times 90°, for `rotate`. */
static inline int mi_rot(VipsImage *in, VipsImage **out, VipsAngle angle) {
    return vips_rot(in, out, angle, NULL);
}

static inline int mi_flip(VipsImage *in, VipsImage **out, VipsDirection direction) {
    return vips_flip(in, out, direction, NULL);
}

/* Effects (`blur`, `sharpen`) run on premultiplied pixels when there is alpha, so a transparent
   pixel's colour does not bleed into its neighbours; cast back to the input's format. */
static inline int mi_premultiply(VipsImage *in, VipsImage **out) {
    return vips_premultiply(in, out, NULL);
}

static inline int mi_unpremultiply(VipsImage *in, VipsImage **out) {
    return vips_unpremultiply(in, out, NULL);
}

static inline int mi_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips_cast(in, out, format, NULL);
}

static inline int mi_gaussblur(VipsImage *in, VipsImage **out, double sigma) {
    return vips_gaussblur(in, out, sigma, NULL);
}

static inline int mi_sharpen(VipsImage *in, VipsImage **out, double sigma) {
    return vips_sharpen(in, out, "sigma", sigma, NULL);
}

/* Blocks of `size`×`size` pixels, each its mean: a box shrink, then a nearest-neighbour zoom back. */
static inline int mi_shrink(VipsImage *in, VipsImage **out, double factor) {
    return vips_shrink(in, out, factor, factor, NULL);
}

static inline int mi_zoom(VipsImage *in, VipsImage **out, int factor) {
    return vips_zoom(in, out, factor, factor, NULL);
}

/* `in` at the top left of a `width`×`height` canvas, the rest its mirror image: a partial block at
   the right or bottom edge averages real pixels, not a fill colour. */
static inline int mi_embed_mirror(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_embed(in, out, 0, 0, width, height, "extend", VIPS_EXTEND_MIRROR, NULL);
}

#endif
