// SSIMULACRA2 (Jon Sneyers' perceptual metric, as libjxl's tools compute it, with the Gaussian the
// PyPI package uses): both images to linear RGB, then at each of six scales (halved by 2×2 box
// means in linear RGB) to XYB made positive, and per channel an SSIM map and an edge map from
// Gaussian-blurred means and variances, each summarised by its mean and its 4-norm; 108 weighted
// terms become a score, 100 for identical images, 90 visually lossless, 70 high quality.
#include "CKernels.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SCALES = 6, RADIUS = 5 };

// The opsin absorbance matrix and bias of XYB.
static const double M00 = 0.30, M02 = 0.078, M10 = 0.23, M12 = 0.078, M20 = 0.24342268924547819, M21 = 0.20476744424496821;
#define M01 (1.0 - M02 - M00)
#define M11 (1.0 - M12 - M10)
#define M22 (1.0 - M20 - M21)
static const double BIAS = 0.0037930732552754493;

static const double WEIGHTS[108] = {
    0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0, 0.0, 0.0004371155730107379, 0.0,
    1.1041726426657346, 0.00066284834129271, 0.00015231632783718752, 0.0, 0.0016406437456599754, 0.0,
    1.8422455520539298, 11.441172603757666, 0.0, 0.0007989109436015163, 0.000176816438078653, 0.0,
    1.8787594979546387, 10.94906990605142, 0.0, 0.0007289346991508072, 0.9677937080626833, 0.0,
    0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053, 0.0004550992113792063, 0.0, 0.0,
    0.0013648766163243398, 0.0, 0.0, 0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
    0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
    225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
    176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408, 0.0, 0.0,
    0.0, 34.77906344483772, 44.835625328877896, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0008680556573291698, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0004179171803251336, 0.0017290828234722833, 0.0, 0.0020827005846636437,
    0.0, 0.0, 8.826982764996862, 23.19243343998926, 0.0, 95.1080498811086, 0.9863978034400682,
    0.9834382792465353, 0.0012286405048278493, 171.2667255897307, 0.9807858872435379, 0.0, 0.0, 0.0,
    0.0005130064588990679, 0.0, 0.00010854057858411537,
};

// The Gaussian of sigma 1.5 over ±5 pixels, normalised.
static void gaussian(float kernel[2 * RADIUS + 1]) {
    double sum = 0, weights[2 * RADIUS + 1];
    for (int i = -RADIUS; i <= RADIUS; i++) sum += weights[i + RADIUS] = exp(-0.5 * i * i / (1.5 * 1.5));
    for (int i = 0; i <= 2 * RADIUS; i++) kernel[i] = (float)(weights[i] / sum);
}

// `out` = `in` blurred: along the rows with zeros beyond the left and right edges, then down the
// columns mirrored at the top and bottom (d c b a | a b c d | d c b a). That is how PyPI's
// `ssimulacra2` borders it (it pads what it takes for rows, on a transposed image), the oracle our
// scores are checked against; libjxl's recursive Gaussian differs a little at the borders.
// `scratch` holds one plane.
static void blur(const float *in, float *out, float *scratch, int width, int height, const float *kernel) {
    for (int y = 0; y < height; y++) {
        const float *row = in + (size_t)y * width;
        float *to = scratch + (size_t)y * width;
        int edge = width < RADIUS ? width : RADIUS;
        for (int x = 0; x < width; x++) {
            if (x == edge && width - RADIUS > x) {
                // The interior: every tap inside the row, a plain dot product the compiler vectorises.
                for (; x < width - RADIUS; x++) {
                    float sum = 0;
                    for (int k = 0; k <= 2 * RADIUS; k++) sum += kernel[k] * row[x - RADIUS + k];
                    to[x] = sum;
                }
                if (x >= width) break;
            }
            float sum = 0;
            int from = x - RADIUS < 0 ? RADIUS - x : 0, until = x + RADIUS >= width ? RADIUS + width - 1 - x : 2 * RADIUS;
            for (int k = from; k <= until; k++) sum += kernel[k] * row[x - RADIUS + k];
            to[x] = sum;
        }
    }
    for (int y = 0; y < height; y++) {
        float *to = out + (size_t)y * width;
        memset(to, 0, sizeof(float) * width);
        for (int k = -RADIUS; k <= RADIUS; k++) {
            int source = y + k;
            if (source < 0) source = -source - 1;
            if (source >= height) source = 2 * height - source - 1;
            const float *from = scratch + (size_t)source * width, weight = kernel[k + RADIUS];
            for (int x = 0; x < width; x++) to[x] += weight * from[x];
        }
    }
}

// Linear RGB (planar) → positive XYB, all three planes in one pass.
static void to_xyb(float *const linear[3], float *const xyb[3], size_t count) {
    const float bias = cbrtf((float)BIAS);
    for (size_t i = 0; i < count; i++) {
        float r = linear[0][i], g = linear[1][i], b = linear[2][i];
        float m0 = cbrtf(fmaxf(0, (float)M00 * r + (float)M01 * g + (float)M02 * b + (float)BIAS)) - bias;
        float m1 = cbrtf(fmaxf(0, (float)M10 * r + (float)M11 * g + (float)M12 * b + (float)BIAS)) - bias;
        float m2 = cbrtf(fmaxf(0, (float)M20 * r + (float)M21 * g + (float)M22 * b + (float)BIAS)) - bias;
        float y = 0.5f * (m0 + m1);
        xyb[0][i] = 0.5f * (m0 - m1) * 14.0f + 0.42f;
        xyb[1][i] = y + 0.01f;
        xyb[2][i] = m2 - y + 0.55f;
    }
}

// 2×2 box means, a partial block at the right or bottom edge averaging what it covers.
static void halve(float *plane, int width, int height) {
    int out_width = (width + 1) / 2, out_height = (height + 1) / 2;
    for (int y = 0; y < out_height; y++) {
        for (int x = 0; x < out_width; x++) {
            double sum = 0;
            int n = 0;
            for (int dy = 0; dy < 2 && 2 * y + dy < height; dy++)
                for (int dx = 0; dx < 2 && 2 * x + dx < width; dx++, n++) sum += plane[(size_t)(2 * y + dy) * width + 2 * x + dx];
            plane[(size_t)y * out_width + x] = (float)(sum / n);
        }
    }
}

// sRGB byte → linear light.
static void linear_table(float table[256]) {
    for (int v = 0; v < 256; v++) {
        double s = v / 255.0;
        table[v] = (float)(s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4));
    }
}

// One image at every scale: positive XYB planes, and for a reference also their blurred means and
// blurred squares, which every comparison with it needs and none changes.
typedef struct {
    int width, height;
    float *xyb[3], *mu[3], *squares[3];
} level;

struct mi_ssimulacra2_reference {
    int width, height, scales;
    level levels[SCALES];
    float *memory;
};

// The pyramid of `rgb`: planes for each level at `memory` (`planes` per pixel of each level), linear
// RGB in `linear` (three planes of the full size), halved in place from level to level.
static int pyramid(const unsigned char *rgb, int width, int height, float *linear[3], level *levels, float *memory, int planes) {
    float table[256];
    linear_table(table);
    size_t count = (size_t)width * height;
    for (size_t i = 0; i < count; i++)
        for (int c = 0; c < 3; c++) linear[c][i] = table[rgb[i * 3 + c]];
    int scales = 0;
    for (; scales < SCALES && width >= 8 && height >= 8; scales++) {
        size_t n = (size_t)width * height;
        level *at = &levels[scales];
        at->width = width, at->height = height;
        for (int c = 0; c < 3; c++) {
            at->xyb[c] = memory + n * c;
            at->mu[c] = planes > 3 ? memory + n * (3 + c) : NULL;
            at->squares[c] = planes > 3 ? memory + n * (6 + c) : NULL;
        }
        memory += n * planes;
        to_xyb(linear, at->xyb, n);
        if (scales + 1 < SCALES) {
            for (int c = 0; c < 3; c++) halve(linear[c], width, height);
            width = (width + 1) / 2, height = (height + 1) / 2;
        }
    }
    return scales;
}

// Floats for a pyramid of `planes` planes a pixel over an image of `count` pixels: each level is at
// most a quarter of the one before, rounded up.
static size_t pyramid_floats(int width, int height, int planes) {
    size_t total = 0;
    for (int scale = 0; scale < SCALES; scale++, width = (width + 1) / 2, height = (height + 1) / 2) total += (size_t)width * height;
    return total * planes;
}

mi_ssimulacra2_reference *mi_ssimulacra2_prepare(const unsigned char *rgb, int width, int height) {
    if (width < 8 || height < 8) return NULL;
    mi_ssimulacra2_reference *reference = calloc(1, sizeof *reference);
    size_t count = (size_t)width * height;
    float *linear = malloc(sizeof(float) * count * 4), *memory = malloc(sizeof(float) * pyramid_floats(width, height, 9));
    if (!reference || !linear || !memory) {
        free(reference), free(linear), free(memory);
        return NULL;
    }
    float *planes[3] = {linear, linear + count, linear + 2 * count}, *scratch = linear + 3 * count;
    reference->width = width, reference->height = height, reference->memory = memory;
    reference->scales = pyramid(rgb, width, height, planes, reference->levels, memory, 9);
    float kernel[2 * RADIUS + 1];
    gaussian(kernel);
    for (int scale = 0; scale < reference->scales; scale++) {
        level *at = &reference->levels[scale];
        size_t n = (size_t)at->width * at->height;
        for (int c = 0; c < 3; c++) {
            blur(at->xyb[c], at->mu[c], scratch, at->width, at->height, kernel);
            for (size_t i = 0; i < n; i++) at->squares[c][i] = at->xyb[c][i] * at->xyb[c][i];
            blur(at->squares[c], at->squares[c], scratch, at->width, at->height, kernel);
        }
    }
    free(linear);
    return reference;
}

void mi_ssimulacra2_free(mi_ssimulacra2_reference *reference) {
    if (!reference) return;
    free(reference->memory);
    free(reference);
}

double mi_ssimulacra2_compare(const mi_ssimulacra2_reference *reference, const unsigned char *distorted) {
    if (!reference) return NAN;
    int width = reference->width, height = reference->height;
    size_t count = (size_t)width * height;
    // Linear RGB (3), then for the level being compared: its means, squares, products and a scratch plane.
    float *linear = malloc(sizeof(float) * count * 7), *memory = malloc(sizeof(float) * pyramid_floats(width, height, 3));
    if (!linear || !memory) {
        free(linear), free(memory);
        return NAN;
    }
    float *planes[3] = {linear, linear + count, linear + 2 * count};
    float *mu2 = linear + 3 * count, *s22 = linear + 4 * count, *s12 = linear + 5 * count, *scratch = linear + 6 * count;
    level levels[SCALES];
    int scales = pyramid(distorted, width, height, planes, levels, memory, 3);
    if (scales > reference->scales) scales = reference->scales;
    float kernel[2 * RADIUS + 1];
    gaussian(kernel);

    double ssim[SCALES][6] = {{0}}, edges[SCALES][12] = {{0}};
    for (int scale = 0; scale < scales; scale++) {
        const level *ours = &reference->levels[scale], *theirs = &levels[scale];
        int w = theirs->width, h = theirs->height;
        size_t n = (size_t)w * h;
        for (int c = 0; c < 3; c++) {
            const float *x1 = ours->xyb[c], *x2 = theirs->xyb[c], *mu1 = ours->mu[c], *s11 = ours->squares[c];
            blur(x2, mu2, scratch, w, h, kernel);
            for (size_t i = 0; i < n; i++) s22[i] = x2[i] * x2[i];
            blur(s22, s22, scratch, w, h, kernel);
            for (size_t i = 0; i < n; i++) s12[i] = x1[i] * x2[i];
            blur(s12, s12, scratch, w, h, kernel);
            double sums[6] = {0};
            for (int y = 0; y < h; y++) {
                // A row's sums in float, added up in double: the same result, vectorised.
                float row[6] = {0};
                for (size_t i = (size_t)y * w; i < (size_t)(y + 1) * w; i++) {
                    float m1 = mu1[i], m2 = mu2[i];
                    float num_m = 1.0f - (m1 - m2) * (m1 - m2);
                    float num_s = 2.0f * (s12[i] - m1 * m2) + 0.0009f;
                    float denom_s = (s11[i] - m1 * m1) + (s22[i] - m2 * m2) + 0.0009f;
                    float d = fmaxf(0, 1.0f - num_m * num_s / denom_s);
                    row[0] += d, row[1] += d * d * d * d;
                    float ratio = (1.0f + fabsf(x2[i] - m2)) / (1.0f + fabsf(x1[i] - m1)) - 1.0f;
                    float artifact = fmaxf(0, ratio), lost = fmaxf(0, -ratio);
                    row[2] += artifact, row[3] += artifact * artifact * artifact * artifact;
                    row[4] += lost, row[5] += lost * lost * lost * lost;
                }
                for (int k = 0; k < 6; k++) sums[k] += row[k];
            }
            ssim[scale][c * 2] = sums[0] / n, ssim[scale][c * 2 + 1] = pow(sums[1] / n, 0.25);
            edges[scale][c * 4] = sums[2] / n, edges[scale][c * 4 + 1] = pow(sums[3] / n, 0.25);
            edges[scale][c * 4 + 2] = sums[4] / n, edges[scale][c * 4 + 3] = pow(sums[5] / n, 0.25);
        }
    }
    free(linear), free(memory);

    double sum = 0;
    int w = 0;
    for (int c = 0; c < 3; c++)
        for (int scale = 0; scale < scales; scale++)
            for (int n = 0; n < 2; n++) {
                sum += WEIGHTS[w++] * fabs(ssim[scale][c * 2 + n]);
                sum += WEIGHTS[w++] * fabs(edges[scale][c * 4 + n]);
                sum += WEIGHTS[w++] * fabs(edges[scale][c * 4 + n + 2]);
            }
    sum *= 0.9562382616834844;
    sum = 2.326765642916932 * sum - 0.020884521182843837 * sum * sum + 6.248496625763138e-05 * sum * sum * sum;
    return sum > 0 ? 100.0 - 10.0 * pow(sum, 0.6276336467831387) : 100.0;
}

double mi_ssimulacra2(const unsigned char *reference, const unsigned char *distorted, int width, int height) {
    mi_ssimulacra2_reference *prepared = mi_ssimulacra2_prepare(reference, width, height);
    double score = mi_ssimulacra2_compare(prepared, distorted);
    mi_ssimulacra2_free(prepared);
    return score;
}
