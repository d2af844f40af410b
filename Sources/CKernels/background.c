// A product put on pure white by its mask (see CKernels.h): the composite and what the mask says
// about itself, from which the pipeline names a photo the model could not cut out.
#include "CKernels.h"

#include <string.h>

int mi_white_background(const unsigned char *rgb, const unsigned char *mask, int width, int height, unsigned char *out, mi_cutout_t *cut) {
    if (width < 8 || height < 8) return -1;
    memset(cut, 0, sizeof *cut);
    size_t pixels = (size_t)width * height, product = 0, touched = 0, unsure = 0;
    for (size_t i = 0; i < pixels; i++) {
        int m = mask[i];
        if (m >= 64) { touched++; if (m < 192) unsure++; }
        if (m >= 128) product++;
        // The soft edge steepened: 96 and below is ground, 224 and above product.
        int alpha = m <= 96 ? 0 : m >= 224 ? 255 : (m - 96) * 255 / 128;
        for (int c = 0; c < 3; c++) out[i * 3 + c] = (unsigned char)((rgb[i * 3 + c] * alpha + 255 * (255 - alpha) + 127) / 255);
    }
    cut->product = (double)product / (double)pixels;
    cut->unsure = touched ? (double)unsure / (double)touched : 0;
    // The box is of what shows on white, as PhotoFrame reads a product's box.
    int box[4];
    if (mi_product_box(out, width, height, box) != 0) return -1;
    cut->x0 = box[0]; cut->y0 = box[1]; cut->x1 = box[2]; cut->y1 = box[3];
    return 0;
}
