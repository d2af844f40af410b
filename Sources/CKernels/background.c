// A product put on pure white by its mask (see CKernels.h): the composite and what the mask says
// about itself, from which the pipeline names a photo the model could not cut out.
#include "CKernels.h"

#include <stdlib.h>
#include <string.h>

int mi_white_background(const unsigned char *rgb, const unsigned char *mask, int width, int height, unsigned char *out, mi_cutout_t *cut) {
    if (width < 8 || height < 8) return -1;
    memset(cut, 0, sizeof *cut);
    int *columns = calloc((size_t)width, sizeof *columns);
    if (!columns) return -1;
    size_t product = 0, touched = 0, unsure = 0;
    int row_needed = width / 500 < 2 ? 2 : width / 500, column_needed = height / 500 < 2 ? 2 : height / 500;
    int y0 = -1, y1 = -1;
    for (int y = 0; y < height; y++) {
        int count = 0;
        for (int x = 0; x < width; x++) {
            size_t i = (size_t)y * width + x;
            int m = mask[i];
            if (m >= 64) { touched++; if (m < 192) unsure++; }
            if (m >= 128) product++;
            // The soft edge steepened: 96 and below is ground, 224 and above product.
            int alpha = m <= 96 ? 0 : m >= 224 ? 255 : (m - 96) * 255 / 128;
            int dark = 0;
            for (int c = 0; c < 3; c++) {
                out[i * 3 + c] = (unsigned char)((rgb[i * 3 + c] * alpha + 255 * (255 - alpha) + 127) / 255);
                dark |= out[i * 3 + c] < MI_FRAME_PRODUCT;
            }
            // The box is of what shows on white, as PhotoFrame reads a product's box.
            if (dark) { count++; columns[x]++; }
        }
        if (count >= row_needed) { if (y0 < 0) y0 = y; y1 = y + 1; }
    }
    int x0 = -1, x1 = -1;
    for (int x = 0; x < width; x++) {
        if (columns[x] >= column_needed) { if (x0 < 0) x0 = x; x1 = x + 1; }
    }
    free(columns);
    if (x0 >= 0 && y0 >= 0) { cut->x0 = x0; cut->y0 = y0; cut->x1 = x1; cut->y1 = y1; }
    cut->product = (double)product / ((double)width * height);
    cut->unsure = touched ? (double)unsure / (double)touched : 0;
    return 0;
}
