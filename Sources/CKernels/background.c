// A product put on pure white by its mask (see CKernels.h): the composite and what the mask says
// about itself, from which the pipeline names a photo the model could not cut out.
#include "CKernels.h"

#include <stdlib.h>
#include <string.h>

/// The mask's values between these are unsure: drawn faint or dropped, but neither product nor ground.
enum { UNSURE_LOW = 32, UNSURE_HIGH = 224 };

/// Share of the product (mask 128 or more) covered by unsure regions too thick to be its edge and
/// inside its box (of mask 224 or more): a part the mask half lost, as a dark cap on a dark cloth.
/// Counted on cells about 0.5% of the long side wide; a cell is unsure when half its pixels are, and
/// counts when it and its 8 neighbours all are, so an edge a few pixels wide never does.
static int doubtful_share(const unsigned char *mask, int width, int height, size_t product, double *share) {
    *share = 0;
    int side = (width > height ? width : height) / 200;
    if (side < 2) side = 2;
    int columns = width / side, rows = height / side;
    if (columns < 3 || rows < 3 || product == 0) return 0;
    int x0 = width, y0 = height, x1 = -1, y1 = -1;
    unsigned *count = calloc((size_t)columns * rows, sizeof *count);
    if (!count) return -1;
    for (int y = 0; y < rows * side; y++) {
        const unsigned char *row = mask + (size_t)y * width;
        for (int x = 0; x < columns * side; x++) {
            if (row[x] >= UNSURE_HIGH) {
                if (x < x0) x0 = x;
                if (x > x1) x1 = x;
                if (y < y0) y0 = y;
                if (y > y1) y1 = y;
            } else if (row[x] >= UNSURE_LOW) {
                count[(size_t)(y / side) * columns + x / side]++;
            }
        }
    }
    size_t deep = 0;
    int half = side * side / 2;
    for (int r = 1; r < rows - 1; r++) {
        for (int c = 1; c < columns - 1; c++) {
            if (c * side < x0 || c * side > x1 || r * side < y0 || r * side > y1) continue;
            int all = 1;
            for (int dr = -1; dr <= 1 && all; dr++)
                for (int dc = -1; dc <= 1 && all; dc++) all = count[(size_t)(r + dr) * columns + c + dc] >= half;
            deep += all;
        }
    }
    free(count);
    *share = (double)deep * side * side / (double)product;
    return 0;
}

int mi_white_background(const unsigned char *rgb, const unsigned char *mask, int width, int height, unsigned char *out, mi_cutout_t *cut) {
    if (width < 8 || height < 8) return -1;
    memset(cut, 0, sizeof *cut);
    size_t pixels = (size_t)width * height, product = 0, touched = 0, unsure = 0;
    for (size_t i = 0; i < pixels; i++) {
        int m = mask[i];
        if (m >= 64) { touched++; if (m < 192) unsure++; }
        if (m >= 128) product++;
        // The mask's edge follows the photo's colours (mask.cpp), so its soft part is mostly the
        // product's own blend into the ground: 160 and below drawn as ground keeps the old ground out
        // of the 8 px around the product (BENCHMARKS.md: halo and lost by this floor).
        int alpha = m <= 160 ? 0 : m >= 224 ? 255 : (m - 160) * 255 / 64;
        for (int c = 0; c < 3; c++) out[i * 3 + c] = (unsigned char)((rgb[i * 3 + c] * alpha + 255 * (255 - alpha) + 127) / 255);
    }
    cut->product = (double)product / (double)pixels;
    cut->unsure = touched ? (double)unsure / (double)touched : 0;
    if (doubtful_share(mask, width, height, product, &cut->doubtful) != 0) return -1;
    // The box is of what shows on white, as PhotoFrame reads a product's box.
    int box[4];
    if (mi_product_box(out, width, height, box) != 0) return -1;
    cut->x0 = box[0]; cut->y0 = box[1]; cut->x1 = box[2]; cut->y1 = box[3];
    return 0;
}
