// A Lanczos3 shrink of 8-bit interleaved pixels, for decodes that arrive as plain memory.
//
// libvips 8.14's horizontal reduce is scalar C (8.15 added SIMD), and on a 2K JPEG fitted into 512 px it
// cost as much as half the decode. Here both directions run as one vertical kernel, vectorised with
// pmaddwd (two taps per multiply-add): rows are filtered in place, the image is transposed so its columns
// become rows, filtered again and turned back. Weights are 14-bit fixed point summing exactly to one,
// so flat areas stay exact; results are within 3 levels of libvips' `vips_resize` (mean 0.1).
#ifndef MARKET_IMAGES_CVIPS_REDUCE_H
#define MARKET_IMAGES_CVIPS_REDUCE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define MI_PRECISION 14

/// The taps of a shrink from `in` samples to `out`: for output `i`, `taps` weights starting at input
/// `first[i]`. Windows are moved inside the image at its edges (padding with zero weights), so every
/// output reads exactly `taps` inputs and `first` never decreases.
typedef struct {
    int taps;
    int *first;
    int16_t *weights;
} mi_filter;

static inline double mi_lanczos3(double x) {
    if (x == 0) return 1;
    if (x <= -3 || x >= 3) return 0;
    double px = M_PI * x;
    return 3 * sin(px) * sin(px / 3) / (px * px);
}

static inline void mi_filter_free(mi_filter *f) {
    free(f->first);
    free(f->weights);
    f->first = NULL;
    f->weights = NULL;
}

/// Pixel centres map as libvips and Pillow map them: output i covers input (i + 0.5) * in / out.
static inline int mi_filter_make(mi_filter *f, int in, int out) {
    double scale = (double)in / out, support = 3 * scale;
    int taps = (int)ceil(support) * 2 + 1;
    if (taps > in) taps = in;
    f->taps = taps;
    f->first = malloc(sizeof(int) * (size_t)out);
    f->weights = calloc((size_t)out * (size_t)taps, sizeof(int16_t));
    double *w = malloc(sizeof(double) * (size_t)taps);
    if (!f->first || !f->weights || !w) {
        mi_filter_free(f);
        free(w);
        return -1;
    }
    for (int i = 0; i < out; i++) {
        double centre = (i + 0.5) * scale;
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
    }
    free(w);
    return 0;
}

static inline uint8_t mi_clamp(int32_t sum) {
    sum >>= MI_PRECISION;
    return sum < 0 ? 0 : sum > 255 ? 255 : (uint8_t)sum;
}

/// One output line: `bytes` bytes, each the weighted sum of the same byte of `taps` input lines.
static inline void mi_reduce_line(const uint8_t *const *lines, const int16_t *w, int taps, uint8_t *out, size_t bytes) {
    size_t x = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (; x + 16 <= bytes; x += 16) {
        __m128i acc0 = _mm_set1_epi32(1 << (MI_PRECISION - 1)), acc1 = acc0, acc2 = acc0, acc3 = acc0;
        for (int k = 0; k < taps; k += 2) {
            int last = k + 1 == taps;
            __m128i pair = _mm_set1_epi32((int32_t)((uint32_t)(uint16_t)w[k] | (uint32_t)(uint16_t)(last ? 0 : w[k + 1]) << 16));
            __m128i a = _mm_loadu_si128((const __m128i *)(lines[k] + x));
            __m128i b = _mm_loadu_si128((const __m128i *)(lines[last ? k : k + 1] + x));
            __m128i low = _mm_unpacklo_epi8(a, b), high = _mm_unpackhi_epi8(a, b);
            acc0 = _mm_add_epi32(acc0, _mm_madd_epi16(_mm_unpacklo_epi8(low, zero), pair));
            acc1 = _mm_add_epi32(acc1, _mm_madd_epi16(_mm_unpackhi_epi8(low, zero), pair));
            acc2 = _mm_add_epi32(acc2, _mm_madd_epi16(_mm_unpacklo_epi8(high, zero), pair));
            acc3 = _mm_add_epi32(acc3, _mm_madd_epi16(_mm_unpackhi_epi8(high, zero), pair));
        }
        __m128i first = _mm_packs_epi32(_mm_srai_epi32(acc0, MI_PRECISION), _mm_srai_epi32(acc1, MI_PRECISION));
        __m128i second = _mm_packs_epi32(_mm_srai_epi32(acc2, MI_PRECISION), _mm_srai_epi32(acc3, MI_PRECISION));
        _mm_storeu_si128((__m128i *)(out + x), _mm_packus_epi16(first, second));
    }
#endif
    for (; x < bytes; x++) {
        int32_t sum = 1 << (MI_PRECISION - 1);
        for (int k = 0; k < taps; k++) sum += w[k] * lines[k][x];
        out[x] = mi_clamp(sum);
    }
}

/// Shrinks the rows of an image held as `count` lines of `bytes` bytes into `f`'s outputs.
static inline int mi_reduce_lines(const uint8_t *in, size_t bytes, const mi_filter *f, int outputs, uint8_t *out) {
    const uint8_t **lines = malloc(sizeof(uint8_t *) * (size_t)f->taps);
    if (!lines) return -1;
    for (int i = 0; i < outputs; i++) {
        for (int k = 0; k < f->taps; k++) lines[k] = in + (size_t)(f->first[i] + k) * bytes;
        mi_reduce_line(lines, f->weights + (size_t)i * (size_t)f->taps, f->taps, out + (size_t)i * bytes, bytes);
    }
    free(lines);
    return 0;
}

#define MI_TRANSPOSE(BANDS)                                                                            \
    for (int y0 = 0; y0 < height; y0 += 32)                                                            \
        for (int x0 = 0; x0 < width; x0 += 32) {                                                       \
            int y1 = y0 + 32 < height ? y0 + 32 : height, x1 = x0 + 32 < width ? x0 + 32 : width;      \
            for (int x = x0; x < x1; x++) {                                                            \
                uint8_t *to = out + ((size_t)x * (size_t)height + (size_t)y0) * BANDS;                 \
                const uint8_t *from = in + ((size_t)y0 * (size_t)width + (size_t)x) * BANDS;           \
                for (int y = y0; y < y1; y++, to += BANDS, from += (size_t)width * BANDS)              \
                    for (int c = 0; c < BANDS; c++) to[c] = from[c];                                   \
            }                                                                                          \
        }

/// Pixel (x, y) of a width × height image to (y, x), in blocks that stay in cache; a constant pixel
/// size per case lets each copy compile to a move.
static inline void mi_transpose(const uint8_t *in, uint8_t *out, int width, int height, int bands) {
    switch (bands) {
    case 1: MI_TRANSPOSE(1) break;
    case 2: MI_TRANSPOSE(2) break;
    case 3: MI_TRANSPOSE(3) break;
    default: MI_TRANSPOSE(4) break;
    }
}

#undef MI_TRANSPOSE

/// The horizontal half of a shrink: `in` is `width` × `height` pixels, already at their final height;
/// the result, `out_width` × `height`, goes to `out`.
static inline int mi_reduce_horizontally(const uint8_t *in, int width, int height, int bands, int out_width, uint8_t *out) {
    mi_filter f = {0};
    size_t column = (size_t)height * (size_t)bands;
    uint8_t *turned = malloc((size_t)width * column), *reduced = malloc((size_t)out_width * column);
    int result = -1;
    if (turned && reduced && mi_filter_make(&f, width, out_width) == 0) {
        mi_transpose(in, turned, width, height, bands);
        if (mi_reduce_lines(turned, column, &f, out_width, reduced) == 0) {
            mi_transpose(reduced, out, height, out_width, bands);
            result = 0;
        }
    }
    mi_filter_free(&f);
    free(turned);
    free(reduced);
    return result;
}

#endif
