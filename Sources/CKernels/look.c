// The measures behind a photo's look warnings (blurry, too dark, blown out) and its near-duplicate
// hash, in one pass over 8-bit pixels and one over a box-shrunk luminance. Histograms rather than
// sorting: percentiles at a fixed resolution, in memory that does not grow with the photo.
#include "CKernels.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { GRAD_BINS_PER_LEVEL = 16, GRAD_BINS = 182 * GRAD_BINS_PER_LEVEL, LAP_BINS_PER_LEVEL = 8, LAP_BINS = 1021 * LAP_BINS_PER_LEVEL };

/// The value at or below which `share` of the histogram's `total` counts lie, in bin units.
static double percentile(const unsigned *histogram, int bins, double total, double share) {
    double wanted = total * share, seen = 0;
    for (int bin = 0; bin < bins; bin++) {
        seen += histogram[bin];
        if (seen >= wanted) return bin;
    }
    return bins - 1;
}

/// Sharpness from the luminance `luma` (`width` × `height`): the 99.5th percentiles of the gradient
/// and of the second derivative. A step blurred by a Gaussian of sigma s peaks at A/(s√2π) in its
/// gradient and at A/(s²√(2πe)) in its second derivative: their ratio is e^-½/s, whatever the
/// contrast A. Beside them the 99.95th percentile of the gradient: the strongest edges even where
/// they are few (a product's outline on a plain background is well under 0.5% of the pixels).
static int sharpness(const float *luma, int width, int height, double *blur_width, double *edge_strength, double *detail_strength) {
    unsigned *grad = calloc(GRAD_BINS, sizeof(unsigned)), *lap = calloc(LAP_BINS, sizeof(unsigned));
    if (!grad || !lap) {
        free(grad), free(lap);
        return -1;
    }
    for (int y = 1; y < height - 1; y++) {
        for (int x = 1; x < width - 1; x++) {
            const float *c = luma + (size_t)y * width + x;
            float dx = (c[1] - c[-1]) / 2, dy = (c[width] - c[-width]) / 2;
            float second = fabsf(c[1] + c[-1] + c[width] + c[-width] - 4 * c[0]);
            int g = (int)(sqrtf(dx * dx + dy * dy) * GRAD_BINS_PER_LEVEL), l = (int)(second * LAP_BINS_PER_LEVEL);
            grad[g < GRAD_BINS ? g : GRAD_BINS - 1]++;
            lap[l < LAP_BINS ? l : LAP_BINS - 1]++;
        }
    }
    double interior = (double)(width - 2) * (height - 2);
    double strongest_gradient = (percentile(grad, GRAD_BINS, interior, 0.995) + 0.5) / GRAD_BINS_PER_LEVEL;
    double strongest_second = (percentile(lap, LAP_BINS, interior, 0.995) + 0.5) / LAP_BINS_PER_LEVEL;
    *blur_width = strongest_second > 0 ? exp(-0.5) * strongest_gradient / strongest_second : 0;
    *edge_strength = strongest_gradient;
    *detail_strength = (percentile(grad, GRAD_BINS, interior, 0.9995) + 0.5) / GRAD_BINS_PER_LEVEL;
    free(grad), free(lap);
    return 0;
}

/// The difference hash of `luma`: 9 × 8 cells, each bit whether a cell's mean is above its left
/// neighbour's.
static unsigned long long difference_hash(const float *luma, int width, int height) {
    double cells[8][9] = {{0}};
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) cells[(long)y * 8 / height][(long)x * 9 / width] += luma[(size_t)y * width + x];
    }
    unsigned long long hash = 0;
    for (int row = 0; row < 8; row++) {
        for (int column = 1; column < 9; column++) {
            // Cells in a row differ in width by a pixel: compare their means.
            double left = cells[row][column - 1] / (((long)column * width + 8) / 9 - ((long)(column - 1) * width + 8) / 9);
            double here = cells[row][column] / (((long)(column + 1) * width + 8) / 9 - ((long)column * width + 8) / 9);
            hash = hash << 1 | (here > left);
        }
    }
    return hash;
}

/// Exposure and clipping counted pixel by pixel.
typedef struct {
    size_t tinted;
    unsigned levels[256];
} exposure_t;

/// Counts one pixel and returns its luminance in 256ths of a level (Rec. 709 weights in integers).
static inline unsigned expose(exposure_t *counts, const unsigned char *p) {
    unsigned r = p[0], g = p[1], b = p[2];
    unsigned high = r > g ? (r > b ? r : b) : (g > b ? g : b), low = r < g ? (r < b ? r : b) : (g < b ? g : b);
    counts->tinted += high >= 251 && low <= 235;
    unsigned value = 54 * r + 183 * g + 19 * b;
    counts->levels[(value + 128) >> 8]++;
    return value;
}

int mi_photo_look(const unsigned char *rgb, int width, int height, int working_edge, mi_photo_look_t *out) {
    if (width < 3 || height < 3) return -1;
    memset(out, 0, sizeof *out);
    int longest = width > height ? width : height;
    int factor = working_edge > 0 && longest / working_edge > 1 ? longest / working_edge : 1;
    int small_width = width / factor, small_height = height / factor;
    float *luma = malloc(sizeof(float) * (size_t)small_width * small_height);
    unsigned *sums = calloc((size_t)small_width, sizeof(unsigned));
    if (!luma || !sums) {
        free(luma), free(sums);
        return -1;
    }
    exposure_t counts = {0};
    size_t pixels = (size_t)width * height;
    // A row of boxes summed at a time.
    for (int y = 0; y < small_height * factor; y++) {
        const unsigned char *p = rgb + (size_t)y * width * 3;
        for (int box = 0, x = 0; box < small_width; box++) {
            unsigned sum = 0;
            for (int end = x + factor; x < end; x++, p += 3) sum += expose(&counts, p);
            sums[box] += sum;
        }
        if ((y + 1) % factor == 0) {
            float *row = luma + (size_t)(y / factor) * small_width;
            for (int box = 0; box < small_width; box++) row[box] = sums[box] / (256.0f * factor * factor);
            memset(sums, 0, sizeof(unsigned) * small_width);
        }
    }
    free(sums);
    // The edges the boxes left out (under a factor's width) still count for exposure and clipping.
    for (int y = 0; y < height; y++) {
        int from = y < small_height * factor ? small_width * factor : 0;
        for (const unsigned char *p = rgb + ((size_t)y * width + from) * 3, *end = rgb + (size_t)(y + 1) * width * 3; p < end; p += 3) {
            expose(&counts, p);
        }
    }
    int failed = sharpness(luma, small_width, small_height, &out->blur_width, &out->edge_strength, &out->detail_strength);
    out->hash = difference_hash(luma, small_width, small_height);
    free(luma);
    if (failed) return -1;
    // Expressed at the working edge: a photo measured larger shows its blur smaller there.
    int measured = small_width > small_height ? small_width : small_height;
    if (measured > working_edge && working_edge > 0) out->blur_width *= (double)working_edge / measured;
    out->shadows = (int)percentile(counts.levels, 256, pixels, 0.01);
    out->median = (int)percentile(counts.levels, 256, pixels, 0.5);
    out->highlights = (int)percentile(counts.levels, 256, pixels, 0.99);
    out->tinted_clipping = (double)counts.tinted / pixels;
    return 0;
}
