// JPEG written with libjpeg-turbo from the 8-bit grey or RGB pixels of a libvips image: what libvips'
// jpegsave wrote for us (the same quantisation tables for a quality, 4:2:0 or 4:4:4, optimised Huffman
// codes, no metadata but the JFIF header), except the progressive scans. libjpeg's standard
// progression is ten scans with successive approximation, each entropy-coded twice for the optimised
// codes: 2.3 times a baseline encode at 512 px for 3.7% fewer bytes. Nine scans of spectral selection
// alone, each band with codes of its own, make no more bytes (fewer at 240 and 512 px, the same at
// 2048) at about the cost of a baseline encode with optimised codes (BENCHMARKS.md, the encode). The
// decoded pixels are the same either way: a progressive file only orders the same coefficients
// differently.

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
#include <jerror.h>
#include <vips/vips.h>
#include "CKernels.h"

/// DC of all components first (a preview of 8 × 8 blocks), then the luma's lowest frequencies, the
/// chroma's, the rest of the chroma, and the luma's higher bands: each band its own Huffman codes.
static const jpeg_scan_info mi_colour_scans[] = {
    {3, {0, 1, 2}, 0, 0, 0, 0}, {1, {0}, 1, 2, 0, 0}, {1, {0}, 3, 5, 0, 0},
    {1, {2}, 1, 2, 0, 0}, {1, {1}, 1, 2, 0, 0}, {1, {2}, 3, 63, 0, 0}, {1, {1}, 3, 63, 0, 0},
    {1, {0}, 6, 14, 0, 0}, {1, {0}, 15, 63, 0, 0},
};
static const jpeg_scan_info mi_grey_scans[] = {
    {1, {0}, 0, 0, 0, 0}, {1, {0}, 1, 2, 0, 0}, {1, {0}, 3, 5, 0, 0}, {1, {0}, 6, 14, 0, 0}, {1, {0}, 15, 63, 0, 0},
};

/// Everything an encode owns, so the error path (a longjmp out of libjpeg) frees it all. The output
/// buffer is its own (libjpeg's memory destination frees and replaces its buffer as it grows, which
/// an error path cannot follow).
typedef struct {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr errors;
    struct jpeg_destination_mgr destination;
    jmp_buf jump;
    VipsImage *pixels;
    VipsRegion *region;
    unsigned char *buffer;
    size_t capacity;
} mi_jpeg_encode_state;

static void mi_jpeg_encode_exit(j_common_ptr cinfo) {
    longjmp(((mi_jpeg_encode_state *)cinfo->client_data)->jump, 1);
}

static void mi_jpeg_destination_start(j_compress_ptr cinfo) { (void)cinfo; }

/// Called with the buffer full: twice the room, the bytes kept.
static boolean mi_jpeg_destination_grow(j_compress_ptr cinfo) {
    mi_jpeg_encode_state *s = cinfo->client_data;
    unsigned char *grown = realloc(s->buffer, s->capacity * 2);
    if (!grown) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    s->buffer = grown;
    s->destination.next_output_byte = grown + s->capacity;
    s->destination.free_in_buffer = s->capacity;
    s->capacity *= 2;
    return TRUE;
}

static void mi_jpeg_destination_end(j_compress_ptr cinfo) { (void)cinfo; }

static int mi_jpeg_encode_fail(mi_jpeg_encode_state *s) {
    jpeg_destroy_compress(&s->cinfo);
    if (s->region) g_object_unref(s->region);
    if (s->pixels) g_object_unref(s->pixels);
    free(s->buffer);
    free(s);
    return -1;
}

int mi_jpeg_encode(void *image, int quality, int progressive, int full_chroma, unsigned char **out, unsigned long *length) {
    VipsImage *in = image;
    int bands = in->Bands;
    if (in->BandFmt != VIPS_FORMAT_UCHAR || (bands != 1 && bands != 3)) {
        vips_error("mi_jpeg_encode", "needs 8-bit grey or RGB pixels, not %d bands of format %d", bands, in->BandFmt);
        return -1;
    }
    mi_jpeg_encode_state *s = calloc(1, sizeof *s);
    if (!s) return -1;
    s->cinfo.err = jpeg_std_error(&s->errors);
    s->errors.error_exit = mi_jpeg_encode_exit;
    s->cinfo.client_data = s;
    if (setjmp(s->jump)) {
        char message[JMSG_LENGTH_MAX];
        s->errors.format_message((j_common_ptr)&s->cinfo, message);
        vips_error("mi_jpeg_encode", "%s", message);
        return mi_jpeg_encode_fail(s);
    }
    jpeg_create_compress(&s->cinfo);
    // About a bit a pixel at the qualities used, so most outputs never grow it; at most 4 MB to start.
    s->capacity = VIPS_MIN(65536 + (size_t)in->Xsize * (size_t)in->Ysize * (size_t)bands / 8, (size_t)4 << 20);
    if (!(s->buffer = malloc(s->capacity))) return mi_jpeg_encode_fail(s);
    s->destination = (struct jpeg_destination_mgr){s->buffer, s->capacity, mi_jpeg_destination_start, mi_jpeg_destination_grow, mi_jpeg_destination_end};
    s->cinfo.dest = &s->destination;
    s->cinfo.image_width = (JDIMENSION)in->Xsize;
    s->cinfo.image_height = (JDIMENSION)in->Ysize;
    s->cinfo.input_components = bands;
    s->cinfo.in_color_space = bands == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&s->cinfo);
    jpeg_set_quality(&s->cinfo, quality, TRUE);
    s->cinfo.optimize_coding = TRUE;
    if (bands == 3 && full_chroma) s->cinfo.comp_info[0].h_samp_factor = s->cinfo.comp_info[0].v_samp_factor = 1;
    if (progressive) {
        s->cinfo.scan_info = bands == 3 ? mi_colour_scans : mi_grey_scans;
        s->cinfo.num_scans = bands == 3 ? (int)(sizeof mi_colour_scans / sizeof *mi_colour_scans) : (int)(sizeof mi_grey_scans / sizeof *mi_grey_scans);
    }
    // The pipeline is evaluated first, on libvips' threads and under its eval callbacks (where a
    // render's deadline is checked: watch.c); an image already in memory is only referenced.
    if (!(s->pixels = vips_image_copy_memory(in)) || !(s->region = vips_region_new(s->pixels))) return mi_jpeg_encode_fail(s);
    jpeg_start_compress(&s->cinfo, TRUE);
    const int strip = 16;
    for (int top = 0; top < in->Ysize; top += strip) {
        VipsRect rect = {0, top, in->Xsize, VIPS_MIN(strip, in->Ysize - top)};
        if (vips_region_prepare(s->region, &rect)) return mi_jpeg_encode_fail(s);
        for (int y = 0; y < rect.height; y++) {
            JSAMPROW row = (JSAMPROW)VIPS_REGION_ADDR(s->region, 0, top + y);
            jpeg_write_scanlines(&s->cinfo, &row, 1);
        }
    }
    jpeg_finish_compress(&s->cinfo);
    jpeg_destroy_compress(&s->cinfo);
    g_object_unref(s->region);
    g_object_unref(s->pixels);
    *out = s->buffer;
    *length = s->capacity - s->destination.free_in_buffer;
    free(s);
    return 0;
}
