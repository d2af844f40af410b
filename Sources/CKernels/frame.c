// How a photo sits in its frame: how white its edges are, where the product is, and whether a border
// was added around it. These are the measures marketplaces' main-image rules are written in (a pure
// white background, the product filling 85% of the frame, no borders); see PhotoFrame.swift.
#include "CKernels.h"

#include <stdlib.h>
#include <string.h>

static int is_white(const unsigned char *p, int level) { return p[0] >= level && p[1] >= level && p[2] >= level; }

/// The pixel at (x, y).
static const unsigned char *at(const unsigned char *rgb, int width, int x, int y) { return rgb + ((size_t)y * width + x) * 3; }

/// How many pixels of the line from (x, y) stepping (dx, dy) `count` times are within `tolerance` of
/// `mean` on every channel.
static int matching(const unsigned char *rgb, int width, int x, int y, int dx, int dy, int count, const int mean[3], int tolerance) {
    int n = 0;
    for (int i = 0; i < count; i++, x += dx, y += dy) {
        const unsigned char *p = at(rgb, width, x, y);
        if (abs(p[0] - mean[0]) <= tolerance && abs(p[1] - mean[1]) <= tolerance && abs(p[2] - mean[2]) <= tolerance) n++;
    }
    return n;
}

/// The thickness of the uniform band of colour `mean` along one side: lines from the edge inwards
/// (side 0 top, 1 bottom, 2 left, 3 right) whose pixels all but 0.5% match it, up to `limit`; and
/// whether the first line past it differs from it over more than half its length (an edge, not a
/// backdrop fading into the photo).
static int band(const unsigned char *rgb, int width, int height, int side, const int mean[3], int limit, int *sharp) {
    int length = side < 2 ? width : height;
    int allowed = length / 200;
    int depth = 0;
    *sharp = 0;
    for (; depth < limit; depth++) {
        int x = side == 3 ? width - 1 - depth : (side == 2 ? depth : 0);
        int y = side == 1 ? height - 1 - depth : (side == 0 ? depth : 0);
        int dx = side < 2 ? 1 : 0, dy = side < 2 ? 0 : 1;
        int same = matching(rgb, width, x, y, dx, dy, length, mean, 12);
        if (same < length - allowed) {
            *sharp = same < length / 2;
            break;
        }
    }
    return depth;
}

int mi_product_box(const unsigned char *rgb, int width, int height, int box[4]) {
    memset(box, 0, 4 * sizeof *box);
    int *columns = calloc((size_t)width, sizeof *columns);
    if (!columns) return -1;
    int row_needed = width / 500 < 2 ? 2 : width / 500, column_needed = height / 500 < 2 ? 2 : height / 500;
    int y0 = -1, y1 = -1;
    for (int y = 0; y < height; y++) {
        int count = 0;
        for (int x = 0; x < width; x++) {
            if (!is_white(at(rgb, width, x, y), MI_FRAME_PRODUCT)) { count++; columns[x]++; }
        }
        if (count >= row_needed) { if (y0 < 0) y0 = y; y1 = y + 1; }
    }
    int x0 = -1, x1 = -1;
    for (int x = 0; x < width; x++) {
        if (columns[x] >= column_needed) { if (x0 < 0) x0 = x; x1 = x + 1; }
    }
    free(columns);
    if (x0 >= 0 && y0 >= 0) { box[0] = x0; box[1] = y0; box[2] = x1; box[3] = y1; }
    return 0;
}

int mi_photo_frame(const unsigned char *rgb, int width, int height, mi_photo_frame_t *out) {
    if (width < 8 || height < 8) return -1;
    memset(out, 0, sizeof *out);
    int shortest = width < height ? width : height;
    int edge = shortest / 50 < 2 ? 2 : shortest / 50;

    // The edge band: white, and pure white.
    size_t band_pixels = 0, white = 0, pure = 0;
    for (int y = 0; y < height; y++) {
        int inner = y >= edge && y < height - edge;
        for (int x = 0; x < width; x += (inner && x == edge - 1) ? width - 2 * edge + 1 : 1) {
            const unsigned char *p = at(rgb, width, x, y);
            band_pixels++;
            white += is_white(p, MI_FRAME_WHITE);
            pure += is_white(p, 255);
        }
    }
    out->white_edge = (double)white / (double)band_pixels;
    out->pure_white_edge = (double)pure / (double)band_pixels;

    int box[4];
    if (mi_product_box(rgb, width, height, box) != 0) return -1;
    out->x0 = box[0]; out->y0 = box[1]; out->x1 = box[2]; out->y1 = box[3];

    // A border: the corner's colour running as a uniform band along all four sides, of about one
    // thickness, each ending in a sharp edge; at most a tenth of the short side.
    const unsigned char *corner = at(rgb, width, 0, 0);
    int mean[3] = {corner[0], corner[1], corner[2]};
    int limit = shortest / 10, thinnest = limit, thickest = 0;
    for (int side = 0; side < 4; side++) {
        int sharp = 0;
        int depth = band(rgb, width, height, side, mean, limit, &sharp);
        if (!sharp || depth < 2) return 0;
        if (depth < thinnest) thinnest = depth;
        if (depth > thickest) thickest = depth;
    }
    if (thickest - thinnest > 1 + thinnest / 10) return 0;
    out->border = thinnest;
    for (int c = 0; c < 3; c++) out->border_rgb[c] = mean[c];
    return 0;
}
