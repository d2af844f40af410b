// The measures behind a photo's look warnings (blurry, too dark, blown out) and its near-duplicate
// hash, over one pass of 8-bit pixels. Histograms rather than sorting: percentiles at a fixed
// resolution, in memory that does not grow with the photo.
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

int mi_photo_look(const unsigned char *rgba, int width, int height, mi_photo_look_t *out) {
    if (width < 3 || height < 3) return -1;
    memset(out, 0, sizeof *out);
    float *luma = malloc(sizeof(float) * (size_t)width * height);
    unsigned *grad = calloc(GRAD_BINS, sizeof(unsigned)), *lap = calloc(LAP_BINS, sizeof(unsigned));
    unsigned levels[256] = {0};
    double cells[8][9] = {{0}};
    if (!luma || !grad || !lap) {
        free(luma), free(grad), free(lap);
        return -1;
    }
    size_t tinted = 0, white = 0, pixels = (size_t)width * height;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            const unsigned char *p = rgba + ((size_t)y * width + x) * 4;
            int high = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
            int low = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
            tinted += high >= 251 && low <= 235;
            white += low >= 251;
            float value = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
            luma[(size_t)y * width + x] = value;
            levels[(int)(value + 0.5f)]++;
            cells[(long)y * 8 / height][(long)x * 9 / width] += value;
        }
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
    // A step blurred by a Gaussian of sigma s peaks at A/(s√2π) in its gradient and at
    // A/(s²√(2πe)) in its second derivative: their ratio is e^-½/s, whatever the contrast A.
    out->blur_width = strongest_second > 0 ? exp(-0.5) * strongest_gradient / strongest_second : 0;
    out->edge_strength = strongest_gradient;
    out->shadows = (int)percentile(levels, 256, pixels, 0.01);
    out->median = (int)percentile(levels, 256, pixels, 0.5);
    out->highlights = (int)percentile(levels, 256, pixels, 0.99);
    out->tinted_clipping = (double)tinted / pixels;
    out->white = (double)white / pixels;
    for (int row = 0; row < 8; row++) {
        for (int column = 1; column < 9; column++) {
            // Cells in a row differ in width by a pixel: compare their means.
            double left = cells[row][column - 1] / (((long)column * width + 8) / 9 - ((long)(column - 1) * width + 8) / 9);
            double here = cells[row][column] / (((long)(column + 1) * width + 8) / 9 - ((long)column * width + 8) / 9);
            out->hash = out->hash << 1 | (here > left);
        }
    }
    free(luma), free(grad), free(lap);
    return 0;
}
