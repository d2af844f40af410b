// A JPEG decoded straight to the size a fit needs: libjpeg's DCT scaling (the scale the caller picks),
// then the Lanczos3 shrink of reduce.h applied to rows as the decoder hands them over, so the decoded
// image never exists at full height. `vips_thumbnail` does the same in principle, through a per-image
// pipeline (threads, regions, a line cache) and a scalar horizontal reduce, which on a 2K JPEG fitted
// into 512 px cost as much as the decode itself. The caller uses this for every RGB or greyscale JPEG
// (CMYK goes through libvips and its profile handling).

#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include <vips/vips.h>
#include "reduce.h"
#include "CKernels.h"

/// Everything a decode owns, in one place so the error path (a longjmp out of libjpeg) frees it all.
typedef struct {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr errors;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    /// The thread's watch said stop (see watch.c), not the data.
    int stopped;
    mi_filter rows;
    uint8_t *ring, *vertical, *pixels;
    const uint8_t **lines;
    JOCTET *icc;
    unsigned int icc_length;
} mi_jpeg_decode;

static void mi_jpeg_exit(j_common_ptr cinfo) {
    longjmp(((mi_jpeg_decode *)cinfo->client_data)->jump, 1);
}

/// libvips' fail_on=error, which the rest of the pipeline decodes with: running out of data fails
/// (libjpeg's file and memory sources only warn, then pretend the image ended, which decodes as grey),
/// as do a hundred warnings; a single odd marker does not.
static void mi_jpeg_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF || ++cinfo->err->num_warnings >= 100) cinfo->err->error_exit(cinfo);
}

/// Called by libjpeg for every scan row it consumes or hands over, including the whole-file pass a
/// progressive JPEG makes before its first row: where a deadline or a cancel can stop the decode.
static void mi_jpeg_progress(j_common_ptr cinfo) {
    mi_jpeg_decode *d = (mi_jpeg_decode *)cinfo->client_data;
    if (mi_watch_stopped()) {
        d->stopped = 1;
        longjmp(d->jump, 1);
    }
}

static void mi_jpeg_release(mi_jpeg_decode *d) {
    jpeg_destroy_decompress(&d->cinfo);
    mi_filter_free(&d->rows);
    free(d->ring);
    free(d->vertical);
    free(d->pixels);
    free(d->lines);
    free(d->icc);
    free(d);
}

static void mi_free_pixels(VipsImage *image, void *pixels) {
    (void)image;
    free(pixels);
}

/// Rows of the DCT-scaled image into `d->vertical`, shrunk to `height` rows as they arrive: a ring of
/// as many rows as the filter has taps is all that is held.
static void mi_jpeg_read_rows(mi_jpeg_decode *d, size_t line, int height, double shrink) {
    struct jpeg_decompress_struct *cinfo = &d->cinfo;
    int rows = (int)cinfo->output_height;
    if (height == rows) {
        for (int y = 0; y < rows; y++) {
            JSAMPROW row = d->vertical + (size_t)y * line;
            jpeg_read_scanlines(cinfo, &row, 1);
        }
        return;
    }
    if (mi_filter_make(&d->rows, rows, height, shrink, cinfo->image_height * cinfo->scale_num / 8.0) ||
        !(d->ring = malloc(line * (size_t)d->rows.taps)) || !(d->lines = malloc(sizeof(uint8_t *) * (size_t)(d->rows.taps + 1))))
        ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    int taps = d->rows.taps, decoded = 0;
    for (int y = 0; y < height; y++) {
        for (; decoded < d->rows.first[y] + taps; decoded++) {
            JSAMPROW row = d->ring + (size_t)(decoded % taps) * line;
            jpeg_read_scanlines(cinfo, &row, 1);
        }
        for (int k = 0; k <= taps; k++) d->lines[k] = d->ring + (size_t)((d->rows.first[y] + (k < taps ? k : k - 1)) % taps) * line;
        mi_reduce_line(d->lines, &d->rows, y, d->vertical + (size_t)y * line, line);
    }
}

/// Decodes `len` bytes of JPEG at `buf` at `scale`/8 and shrinks it
/// by `shrink` on both axes into `width` × `height` (stored orientation; never enlarged) with Lanczos3.
/// With `to_srgb`, an embedded profile is converted to sRGB; then the image is turned upright by EXIF
/// `orientation`.
int mi_jpeg_thumbnail(const void *buf, size_t len, int scale, double shrink,
                      int width, int height, int orientation, int to_srgb, void **out_image) {
    VipsImage **out = (VipsImage **)out_image;
    mi_jpeg_decode *d = calloc(1, sizeof(mi_jpeg_decode));
    if (!d) {
        vips_error("VipsJpeg", "out of memory");
        return -1;
    }
    d->cinfo.err = jpeg_std_error(&d->errors);
    d->cinfo.client_data = d;
    d->errors.error_exit = mi_jpeg_exit;
    d->errors.emit_message = mi_jpeg_message;
    if (setjmp(d->jump)) {
        char message[JMSG_LENGTH_MAX] = "Premature end of input file";
        if (d->stopped) snprintf(message, sizeof message, "decode stopped");
        else if (d->errors.msg_code != JWRN_JPEG_EOF) d->errors.format_message((j_common_ptr)&d->cinfo, message);
        vips_error("VipsJpeg", "%s", message);
        mi_jpeg_release(d);
        return -1;
    }
    jpeg_create_decompress(&d->cinfo);
    d->progress.progress_monitor = mi_jpeg_progress;
    d->cinfo.progress = &d->progress;
    jpeg_mem_src(&d->cinfo, (const unsigned char *)buf, (unsigned long)len);
    if (to_srgb) jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&d->cinfo, TRUE);
    d->cinfo.scale_num = (unsigned int)scale;
    d->cinfo.scale_denom = 8;
    jpeg_start_decompress(&d->cinfo);
    int bands = d->cinfo.output_components, decoded_width = (int)d->cinfo.output_width;
    int cmyk = bands == 4 && d->cinfo.out_color_space == JCS_CMYK;
    if (bands != 1 && bands != 3 && !cmyk) ERREXIT(&d->cinfo, JERR_CONVERSION_NOTIMPL);
    if (width > decoded_width) width = decoded_width;
    if (height > (int)d->cinfo.output_height) height = (int)d->cinfo.output_height;
    size_t line = (size_t)decoded_width * (size_t)bands;
    if (!(d->vertical = malloc(line * (size_t)height))) ERREXIT(&d->cinfo, JERR_OUT_OF_MEMORY);
    mi_jpeg_read_rows(d, line, height, shrink);
    if (width == decoded_width) {
        d->pixels = d->vertical;
        d->vertical = NULL;
    } else if (!(d->pixels = mi_reduce_horizontally(&d->vertical, decoded_width, height, bands, width, shrink,
                                                      d->cinfo.image_width * d->cinfo.scale_num / 8.0))) {
        ERREXIT(&d->cinfo, JERR_OUT_OF_MEMORY);
    }
    if (to_srgb || cmyk) jpeg_read_icc_profile(&d->cinfo, &d->icc, &d->icc_length);
    // Photoshop's CMYK JPEGs (an Adobe marker) store ink inverted, as libvips' loader also undoes.
    // After the shrink, which commutes with it: its weights sum to one.
    if (cmyk && d->cinfo.saw_Adobe_marker) {
        size_t count = (size_t)width * (size_t)height * 4;
        for (size_t i = 0; i < count; i++) d->pixels[i] = (uint8_t)(255 - d->pixels[i]);
    }

    VipsImage *image = vips_image_new_from_memory(d->pixels, (size_t)width * (size_t)height * (size_t)bands,
                                                  width, height, bands, VIPS_FORMAT_UCHAR);
    if (!image) {
        mi_jpeg_release(d);
        return -1;
    }
    g_signal_connect(image, "postclose", G_CALLBACK(mi_free_pixels), d->pixels);
    d->pixels = NULL;
    image->Type = bands == 1 ? VIPS_INTERPRETATION_B_W : cmyk ? VIPS_INTERPRETATION_CMYK : VIPS_INTERPRETATION_sRGB;
    if (d->icc) vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, d->icc, d->icc_length);
    int converted = d->icc != NULL || cmyk;
    mi_jpeg_release(d);

    VipsImage *next;
    if (converted) {
        // CMYK without a profile of its own goes through libvips' CMYK profile, as a full load would.
        int failed = cmyk ? vips_icc_transform(image, &next, "srgb", "embedded", TRUE, "input_profile", "cmyk", NULL)
                          : vips_icc_transform(image, &next, "srgb", "embedded", TRUE, NULL);
        g_object_unref(image);
        if (failed) return -1;
        image = next;
    }
    if (orientation > 1) {
        vips_image_set_int(image, VIPS_META_ORIENTATION, orientation);
        int failed = vips_autorot(image, &next, NULL);
        g_object_unref(image);
        if (failed) return -1;
        image = next;
    }
    *out = image;
    return 0;
}
