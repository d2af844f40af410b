// A Lanczos3 shrink of 8-bit interleaved pixels, for decodes that arrive as plain memory.
//
// libvips 8.14's horizontal reduce is scalar C (8.15 added SIMD), and on a 2K JPEG fitted into 512 px it
// cost as much as half the decode. Here both directions run as one vertical kernel, vectorised with
// pmaddwd (two taps per multiply-add): rows are filtered in place, the image is transposed so its columns
// become rows, filtered again and turned back. Weights are 14-bit fixed point summing exactly to one,
// so flat areas stay exact; results are within 3 levels of libvips' `vips_resize` (mean 0.1).
//
// A private header of the CKernels target, included by jpeg.c alone: one translation unit, so its
// statics exist once.
#ifndef MARKET_IMAGES_CKERNELS_REDUCE_H
#define MARKET_IMAGES_CKERNELS_REDUCE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define MI_PRECISION 14

/// Whether the shrink may take its AVX2 path: the CPU has it and `MARKET_IMAGES_NO_AVX2` is not set
/// (then it takes the SSE2 path, whose results are the same bytes). Asked once per filter: the
/// environment is read at that moment, so a test can switch paths between decodes.
static int mi_reduce_may_use_avx2(void) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") && !getenv("MARKET_IMAGES_NO_AVX2");
#else
    return 0;
#endif
}

/// The taps of a shrink from `in` samples to `out`: for output `i`, `taps` weights starting at input
/// `first[i]`. Windows are moved inside the image at its edges (padding with zero weights), so every
/// output reads exactly `taps` inputs and `first` never decreases.
typedef struct {
    int taps;
    int *first;
    int16_t *weights;
    /// The same weights two at a time, as pmaddwd takes them: (w[2p], w[2p + 1]) in one int32, an odd
    /// last tap paired with zero. (taps + 1) / 2 per output.
    int32_t *pairs;
    /// See `mi_reduce_may_use_avx2`.
    int avx2;
} mi_filter;

static double mi_lanczos3(double x) {
    if (x == 0) return 1;
    if (x <= -3 || x >= 3) return 0;
    double px = M_PI * x;
    return 3 * sin(px) * sin(px / 3) / (px * px);
}

static void mi_filter_free(mi_filter *f) {
    free(f->first);
    free(f->weights);
    free(f->pairs);
    f->first = NULL;
    f->weights = NULL;
    f->pairs = NULL;
}

/// Output i is centred on input (i + 0.5) × scale. The scale is the fit's, the same on both axes, not
/// in / out: 439 rows fitted at 1/2 are 220 (219.5 rounded), and 439 / 220 would stretch the picture.
/// `extent` is how many inputs the picture really spans: a DCT-scaled decode rounds its last row or
/// column up (333 rows at 1/4 are 84, spanning 83.25).
static int mi_filter_make(mi_filter *f, int in, int out, double scale, double extent) {
    double support = 3 * scale;
    int taps = (int)ceil(support) * 2 + 1;
    if (taps > in) taps = in;
    f->taps = taps;
    f->avx2 = mi_reduce_may_use_avx2();
    f->first = malloc(sizeof(int) * (size_t)out);
    f->weights = calloc((size_t)out * (size_t)taps, sizeof(int16_t));
    f->pairs = malloc(sizeof(int32_t) * (size_t)out * (size_t)((taps + 1) / 2));
    double *w = malloc(sizeof(double) * (size_t)taps);
    if (!f->first || !f->weights || !f->pairs || !w) {
        mi_filter_free(f);
        free(w);
        return -1;
    }
    // When out × scale is not exactly in, the grid is centred on the input, the slack split equally
    // between both ends, as libvips does.
    double origin = (out * scale - extent) / 2;
    for (int i = 0; i < out; i++) {
        double centre = (i + 0.5) * scale - origin;
        int lo = (int)floor(centre - support + 0.5), hi = (int)floor(centre + support + 0.5);
        if (lo < 0) lo = 0;
        if (hi > in) hi = in;
        if (hi - lo > taps) hi = lo + taps;
        double sum = 0;
        for (int k = 0; k < hi - lo; k++) sum += w[k] = mi_lanczos3((lo + k - centre + 0.5) / scale);
        int start = lo < in - taps ? lo : in - taps;
        int16_t *fixed = f->weights + (size_t)i * (size_t)taps + (lo - start);
        int total = 0, peak = 0;
        for (int k = 0; k < hi - lo; k++) {
            fixed[k] = (int16_t)lrint(w[k] / sum * (1 << MI_PRECISION));
            total += fixed[k];
            if (fixed[k] > fixed[peak]) peak = k;
        }
        fixed[peak] += (1 << MI_PRECISION) - total;
        f->first[i] = start;
        const int16_t *line = f->weights + (size_t)i * (size_t)taps;
        for (int k = 0; k < taps; k += 2)
            f->pairs[(size_t)i * (size_t)((taps + 1) / 2) + (size_t)(k / 2)] =
                (int32_t)((uint32_t)(uint16_t)line[k] | (uint32_t)(uint16_t)(k + 1 < taps ? line[k + 1] : 0) << 16);
    }
    free(w);
    return 0;
}

static uint8_t mi_clamp(int32_t sum) {
    sum >>= MI_PRECISION;
    return sum < 0 ? 0 : sum > 255 ? 255 : (uint8_t)sum;
}

#if defined(__x86_64__)
/// Bytes [x, bytes) of one output line, as many whole vectors as fit: taps in pairs, each pair's two
/// lines interleaved byte by byte and widened, so one pmaddwd multiplies and adds both; returns where it
/// stopped. One body for SSE2 (16 bytes) and AVX2 (32, where the CPU has it): unpacks and packs work
/// within 128-bit lanes, so the order comes back out as it went in at either width.
#define MI_REDUCE_VECTORS(NAME, ATTRIBUTES, V, P, SI, WIDTH)                                                         \
    ATTRIBUTES static size_t NAME(const uint8_t *const *lines, const int32_t *pair, int pairs, uint8_t *out, \
                                         size_t x, size_t bytes) {                                                   \
        const V zero = P##_setzero_##SI();                                                                           \
        for (; x + WIDTH <= bytes; x += WIDTH) {                                                                     \
            V acc0 = P##_set1_epi32(1 << (MI_PRECISION - 1)), acc1 = acc0, acc2 = acc0, acc3 = acc0;                 \
            for (int p = 0; p < pairs; p++) {                                                                        \
                V weights = P##_set1_epi32(pair[p]);                                                                 \
                V a = P##_loadu_##SI((const V *)(lines[2 * p] + x));                                                 \
                V b = P##_loadu_##SI((const V *)(lines[2 * p + 1] + x));                                             \
                V low = P##_unpacklo_epi8(a, b), high = P##_unpackhi_epi8(a, b);                                     \
                acc0 = P##_add_epi32(acc0, P##_madd_epi16(P##_unpacklo_epi8(low, zero), weights));                   \
                acc1 = P##_add_epi32(acc1, P##_madd_epi16(P##_unpackhi_epi8(low, zero), weights));                   \
                acc2 = P##_add_epi32(acc2, P##_madd_epi16(P##_unpacklo_epi8(high, zero), weights));                  \
                acc3 = P##_add_epi32(acc3, P##_madd_epi16(P##_unpackhi_epi8(high, zero), weights));                  \
            }                                                                                                        \
            V first = P##_packs_epi32(P##_srai_epi32(acc0, MI_PRECISION), P##_srai_epi32(acc1, MI_PRECISION));       \
            V second = P##_packs_epi32(P##_srai_epi32(acc2, MI_PRECISION), P##_srai_epi32(acc3, MI_PRECISION));      \
            P##_storeu_##SI((V *)(out + x), P##_packus_epi16(first, second));                                        \
        }                                                                                                            \
        return x;                                                                                                    \
    }

MI_REDUCE_VECTORS(mi_reduce_vectors_avx2, __attribute__((target("avx2"))), __m256i, _mm256, si256, 32)
MI_REDUCE_VECTORS(mi_reduce_vectors_sse2, , __m128i, _mm, si128, 16)
#undef MI_REDUCE_VECTORS
#endif

/// One output line of `f`'s output `i`: `bytes` bytes, each the weighted sum of the same byte of the
/// filter's input lines, `lines[0..<taps]`; `lines[taps]` must repeat the last (its weight is zero).
static void mi_reduce_line(const uint8_t *const *lines, const mi_filter *f, int i, uint8_t *out, size_t bytes) {
    size_t x = 0;
    int taps = f->taps;
#if defined(__x86_64__)
    int pairs = (taps + 1) / 2;
    const int32_t *pair = f->pairs + (size_t)i * (size_t)pairs;
    if (f->avx2) x = mi_reduce_vectors_avx2(lines, pair, pairs, out, x, bytes);
    x = mi_reduce_vectors_sse2(lines, pair, pairs, out, x, bytes);
#endif
    const int16_t *w = f->weights + (size_t)i * (size_t)taps;
    for (; x < bytes; x++) {
        int32_t sum = 1 << (MI_PRECISION - 1);
        for (int k = 0; k < taps; k++) sum += w[k] * lines[k][x];
        out[x] = mi_clamp(sum);
    }
}

/// Shrinks an image held as lines of `bytes` bytes into `f`'s outputs.
static int mi_reduce_lines(const uint8_t *in, size_t bytes, const mi_filter *f, int outputs, uint8_t *out) {
    const uint8_t **lines = malloc(sizeof(uint8_t *) * (size_t)(f->taps + 1));
    if (!lines) return -1;
    for (int i = 0; i < outputs; i++) {
        for (int k = 0; k <= f->taps; k++) lines[k] = in + (size_t)(f->first[i] + (k < f->taps ? k : k - 1)) * bytes;
        mi_reduce_line(lines, f, i, out + (size_t)i * bytes, bytes);
    }
    free(lines);
    return 0;
}

#define MI_TRANSPOSE(COPY)                                                                             \
    for (int y0 = 0; y0 < height; y0 += 16)                                                            \
        for (int x0 = 0; x0 < width; x0 += 16) {                                                       \
            int y1 = y0 + 16 < height ? y0 + 16 : height, x1 = x0 + 16 < width ? x0 + 16 : width;      \
            for (int x = x0; x < x1; x++) {                                                            \
                uint8_t *to = out + ((size_t)x * (size_t)height + (size_t)y0) * (size_t)bands;         \
                const uint8_t *from = in + ((size_t)y0 * (size_t)width + (size_t)x) * (size_t)bands;   \
                for (int y = y0; y < y1; y++, to += bands, from += (size_t)width * (size_t)bands) {    \
                    COPY;                                                                              \
                }                                                                                      \
            }                                                                                          \
        }

/// Pixel (x, y) of a width × height image to (y, x), in blocks that stay in cache. A 3-byte pixel is
/// moved as 4 bytes (faster than byte copies) whose extra byte the next pixel down overwrites;
/// the last pixel of each block's column, whose neighbour may be written already or lie past the end
/// of either buffer, is moved as 3.
static void mi_transpose(const uint8_t *in, uint8_t *out, int width, int height, int bands) {
    switch (bands) {
    case 1: MI_TRANSPOSE(*to = *from) break;
    case 2: MI_TRANSPOSE(memcpy(to, from, 2)) break;
    case 3:
        MI_TRANSPOSE(if (y + 1 < y1) {
            uint32_t pixel;
            memcpy(&pixel, from, 4);
            memcpy(to, &pixel, 4);
        } else memcpy(to, from, 3))
        break;
    default: MI_TRANSPOSE(memcpy(to, from, 4)) break;
    }
}

#undef MI_TRANSPOSE

/// The horizontal half of a shrink by `scale` (see `mi_filter_make` for `extent`): `*in` is `width` ×
/// `height` pixels, already at their final height, and is freed (and set to NULL) as soon as it has
/// been turned, so at most two copies are alive at a time; the result, `out_width` × `height`, is returned (malloc'd), or NULL when memory ran out.
static uint8_t *mi_reduce_horizontally(uint8_t **in, int width, int height, int bands, int out_width, double scale,
                                              double extent) {
    mi_filter f = {0};
    size_t column = (size_t)height * (size_t)bands;
    uint8_t *turned = malloc((size_t)width * column), *reduced = NULL, *out = NULL;
    if (turned && mi_filter_make(&f, width, out_width, scale, extent) == 0) {
        mi_transpose(*in, turned, width, height, bands);
        free(*in);
        *in = NULL;
        if ((reduced = malloc((size_t)out_width * column)) && mi_reduce_lines(turned, column, &f, out_width, reduced) == 0) {
            free(turned);
            turned = NULL;
            if ((out = malloc((size_t)out_width * column))) mi_transpose(reduced, out, height, out_width, bands);
        }
    }
    mi_filter_free(&f);
    free(turned);
    free(reduced);
    return out;
}

#endif
