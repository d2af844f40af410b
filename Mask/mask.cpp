// U²-Net-p through OpenCV 4.6's DNN module (Debian 12's libopencv-dnn406): see BackgroundMask.h.
// The input is what rembg feeds the same model: RGB scaled to the model's side, /255, minus the
// ImageNet mean, over its deviation; the first output map, min–max normalised and upsampled, is
// where the product is, and the photo's colours decide its edge (`matte`) and what ground it encloses
// (`groundInside`).
#include "BackgroundMask.h"
#include "../Sources/CKernels/include/CKernels.h"

#include <cstdio>
#include <algorithm>
#include <cmath>
#include <exception>
#include <mutex>
#include <type_traits>
#include <vector>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

struct mi_mask_net {
    cv::dnn::Net net;
    std::mutex lock;
};

static void say(char *error, size_t length, const char *text) {
    if (error && length) std::snprintf(error, length, "%s", text);
}

extern "C" mi_mask_net *mi_mask_open(const char *path, char *error, size_t error_length) {
    try {
        auto *loaded = new mi_mask_net();
        loaded->net = cv::dnn::readNetFromONNX(path);
        if (loaded->net.empty()) {
            delete loaded;
            say(error, error_length, "OpenCV read no network from it");
            return nullptr;
        }
        return loaded;
    } catch (const std::exception &failure) {
        say(error, error_length, failure.what());
        return nullptr;
    }
}

/// The mean colour of the pixels `sure` marks (8-bit, 255) around each cell of a grid `step` px
/// apart: over a box of `reach` cells, or where that holds under 2% of them, one 4 times as wide,
/// else the whole photo's. Means are smooth at that scale, so a grid of about 4 cells a radius
/// costs a few full-size passes over 8-bit pixels instead of float box filters at full size.
static cv::Mat localMeans(const cv::Mat &image, const cv::Mat &sure, int step, int reach) {
    cv::Mat picked = cv::Mat::zeros(image.size(), image.type());
    image.copyTo(picked, sure);
    cv::Scalar whole = cv::mean(image, sure);
    // Whole cells only (the shrink is then a plain average): the last `step` - 1 columns and rows
    // are left to their neighbours' cells.
    cv::Size grid(image.cols / step, image.rows / step);
    cv::Rect cells(0, 0, grid.width * step, grid.height * step);
    cv::Mat sums, shares;
    cv::resize(picked(cells), sums, grid, 0, 0, cv::INTER_AREA);
    cv::resize(sure(cells), shares, grid, 0, 0, cv::INTER_AREA);
    sums.convertTo(sums, CV_32FC3);
    shares.convertTo(shares, CV_32F, 1.0 / 255);
    cv::Mat near[2], share[2];
    for (int k = 0; k < 2; k++) {
        cv::Size box(2 * (reach << 2 * k) + 1, 2 * (reach << 2 * k) + 1);
        cv::boxFilter(sums, near[k], CV_32F, box);
        cv::boxFilter(shares, share[k], CV_32F, box);
    }
    cv::Mat mean(grid, CV_32FC3);
    for (int y = 0; y < grid.height; y++) {
        cv::Vec3f *out = mean.ptr<cv::Vec3f>(y);
        for (int x = 0; x < grid.width; x++) {
            out[x] = cv::Vec3f((float)whole[0], (float)whole[1], (float)whole[2]);
            for (int k = 0; k < 2; k++) {
                float part = share[k].ptr<float>(y)[x];
                if (part > 0.02f) { out[x] = near[k].ptr<cv::Vec3f>(y)[x] / part; break; }
            }
        }
    }
    return mean;
}

/// `grid` (one value a `step` × `step` cell) at pixel (x, y), interpolated between cell centres.
static cv::Vec3f sample(const cv::Mat &grid, int step, int x, int y) {
    float gx = std::max(0.f, (x + 0.5f) / step - 0.5f), gy = std::max(0.f, (y + 0.5f) / step - 0.5f);
    int x0 = std::min((int)gx, grid.cols - 1), y0 = std::min((int)gy, grid.rows - 1);
    int x1 = std::min(x0 + 1, grid.cols - 1), y1 = std::min(y0 + 1, grid.rows - 1);
    float fx = std::min(1.f, gx - x0), fy = std::min(1.f, gy - y0);
    const cv::Vec3f *top = grid.ptr<cv::Vec3f>(y0), *bottom = grid.ptr<cv::Vec3f>(y1);
    return (top[x0] * (1 - fx) + top[x1] * fx) * (1 - fy) + (bottom[x0] * (1 - fx) + bottom[x1] * fx) * fy;
}

/// The model's map is taken as sure at or under this (ground) and at or over this (product).
static const float mapGround = 0.1f, mapProduct = 0.98f;

/// Where the model's map is sure (`mapGround`, `mapProduct`) its answer; between,
/// each pixel's colour placed on the line from the mean colour of the ground's pixels around it
/// (`sureGround`) to the product's (`sureProduct`), 0 at the ground's, 1 at the product's. Where the
/// two means are alike the colour says little, and the map's answer is kept in proportion.
static cv::Mat project(const cv::Mat &image, const cv::Mat &prior, const cv::Mat &sureGround, const cv::Mat &sureProduct, int radius) {
    const float alike = 20 * 20;  // squared RGB distance at which colour and map count the same
    // Without any sure ground or product there is no colour to compare with: the map stays.
    if (cv::countNonZero(sureGround) == 0 || cv::countNonZero(sureProduct) == 0) return prior.clone();
    int step = std::max(1, std::min({radius / 4, image.cols, image.rows})), reach = std::max(1, radius / step);
    cv::Mat F = localMeans(image, sureProduct, step, reach), B = localMeans(image, sureGround, step, reach);
    cv::Mat alpha(prior.size(), CV_32F);
    for (int y = 0; y < image.rows; y++) {
        const float *p = prior.ptr<float>(y);
        const cv::Vec3b *c = image.ptr<cv::Vec3b>(y);
        float *out = alpha.ptr<float>(y);
        for (int x = 0; x < image.cols; x++) {
            if (p[x] <= mapGround || p[x] >= mapProduct) { out[x] = p[x] <= mapGround ? 0 : 1; continue; }
            cv::Vec3f f = sample(F, step, x, y), b = sample(B, step, x, y), apart = f - b;
            float distance = apart.dot(apart);
            float along = std::min(1.f, std::max(0.f, (cv::Vec3f(c[x]) - b).dot(apart) / (distance + 1e-3f)));
            float trust = distance / (distance + alike);
            out[x] = trust * along + (1 - trust) * p[x];
        }
    }
    return alpha;
}

/// The model's upsampled map is a blur some 20 px wide that spills the ground's texture onto white
/// and, at 320 px, misses thin parts (a bottle's cap). The edge is decided by colour instead: where
/// the map is unsure, how far each pixel's colour lies from the ground's around it towards the
/// product's. A second pass takes its sure pixels from the first, so the means come from nearer
/// (the dark side of a handle is compared with the handle, not the bright body).
/// Only the box around the unsure pixels is worked on, widened by the widest box the means look in;
/// the rest is the map's sure answer.
static cv::Mat matte(const cv::Mat &image, const cv::Mat &prior, int radius) {
    cv::Mat alpha = prior >= mapProduct, unsure;
    alpha.convertTo(alpha, CV_32F, 1.0 / 255);
    cv::findNonZero((prior > mapGround) & (prior < mapProduct), unsure);
    if (unsure.empty()) return alpha;
    cv::Rect box = cv::boundingRect(unsure);
    int margin = 4 * radius + 4;
    box = cv::Rect(box.x - margin, box.y - margin, box.width + 2 * margin, box.height + 2 * margin) & cv::Rect(0, 0, image.cols, image.rows);
    cv::Mat part = image(box), map = prior(box);
    cv::Mat first = project(part, map, map <= mapGround, map >= mapProduct, radius);
    cv::Mat second = project(part, map, first <= 0.05f, first >= 0.95f, std::max(2, radius / 2));
    // A patch the colour alone kept, touching nothing the model was sure of, is ground that looks
    // like the product (a fleck of sand by a mug's rim), not a part of it.
    cv::Mat labels;
    int count = cv::connectedComponents(second > 0.25f, labels, 8, CV_32S);
    std::vector<char> anchored(count, 0);
    for (int y = 0; y < labels.rows; y++) {
        const int *label = labels.ptr<int>(y);
        const float *p = map.ptr<float>(y);
        for (int x = 0; x < labels.cols; x++) anchored[label[x]] |= p[x] >= mapProduct;
    }
    for (int y = 0; y < labels.rows; y++) {
        const int *label = labels.ptr<int>(y);
        float *a = second.ptr<float>(y);
        for (int x = 0; x < labels.cols; x++) if (label[x] && !anchored[label[x]]) a[x] = 0;
    }
    second.copyTo(alpha(box));
    return alpha;
}

/// A colour in 16 levels a channel: an index into `groundOdds`'s 4096 bins.
static inline int colourBin(const cv::Vec3b &c) { return (c[0] >> 4) << 8 | (c[1] >> 4) << 4 | c[2] >> 4; }

/// The log of how much more common each colour bin is among `ground`'s pixels than `product`'s: both
/// histograms smoothed over the 3 × 3 × 3 neighbouring bins, so a shade the sample missed by a level
/// counts as seen, and floored (a thousandth of an even spread) so a colour neither holds says little.
static std::vector<float> groundOdds(const cv::Mat &image, const cv::Mat &ground, const cv::Mat &product) {
    std::vector<double> counts[2] = {std::vector<double>(4096), std::vector<double>(4096)};
    for (int y = 0; y < image.rows; y++) {
        const cv::Vec3b *c = image.ptr<cv::Vec3b>(y);
        const uchar *g = ground.ptr<uchar>(y), *p = product.ptr<uchar>(y);
        for (int x = 0; x < image.cols; x++) {
            if (g[x]) counts[0][colourBin(c[x])]++;
            if (p[x]) counts[1][colourBin(c[x])]++;
        }
    }
    for (auto &h : counts) {
        for (int axis : {256, 16, 1}) {
            std::vector<double> summed(h);
            for (int i = 0; i < 4096; i++) {
                int level = i / axis % 16;
                if (level > 0) summed[i] += h[i - axis];
                if (level < 15) summed[i] += h[i + axis];
            }
            h.swap(summed);
        }
        double total = 0;
        for (double v : h) total += v;
        for (double &v : h) v = v / total + 1e-3 / 4096;
    }
    std::vector<float> odds(4096);
    for (int i = 0; i < 4096; i++) odds[i] = (float)std::log(counts[0][i] / counts[1][i]);
    return odds;
}

/// Ground the model took for product where the product encloses it (a mug handle's hole): regions
/// inside the product's outline whose colours are on average this much more likely (log: 4.5 times)
/// under the sure ground's colours than the sure product's. Measured on the made mugs' holes 1.9
/// and 4.5; on 13 real photos (a brown cup of coffee on a wooden table, a motorcycle, an astronaut,
/// a saw on wood, flowers), no enclosed region of 1% of the product over 0.83, the coffee's crema
/// (BENCHMARKS.md).
static const float groundLike = 1.5f;

/// Regions inside `alpha`'s product, not touching the ground around it, whose colours are likely
/// under the sure ground's (`groundLike`). Where the colour edge already cut some of one (an
/// enclosed hole in `alpha`), the region's ground-coloured pixels are made sure ground in `map` and
/// its others unsure, so the edge can be decided again with the hole's own ground nearby;
/// returns whether any was. A region with no such hole is not cut on colour alone: its share of the
/// product is added to `kept`.
static bool groundInside(const cv::Mat &photo, cv::Mat &map, const cv::Mat &alpha, double &kept) {
    cv::Mat sureGround = map <= mapGround, sureProduct = map >= mapProduct, whole = alpha >= 0.5f, at;
    int products = cv::countNonZero(whole);
    if (cv::countNonZero(sureGround) == 0 || cv::countNonZero(sureProduct) == 0 || products == 0) return false;
    std::vector<float> odds = groundOdds(photo, sureGround, sureProduct);
    const float twice = std::log(2.f);
    // Only the box around the product is worked on, widened past the closing's reach: beyond it is
    // all ground outside the product.
    int reach = std::max(1, std::max(photo.cols, photo.rows) / 250);
    cv::findNonZero(whole, at);
    cv::Rect box = cv::boundingRect(at);
    box = cv::Rect(box.x - reach - 3, box.y - reach - 3, box.width + 2 * reach + 6, box.height + 2 * reach + 6) & cv::Rect(0, 0, photo.cols, photo.rows);
    cv::Mat image = photo(box), prior = map(box), product = whole(box);
    // The ground outside the product is what touches the box's edge; the rest of the ground is
    // enclosed by it: a hole the edge already cut.
    cv::Mat labels;
    int count = cv::connectedComponents(~product, labels, 8, CV_32S);
    std::vector<char> edge(count, 0);
    for (int x = 0; x < labels.cols; x++) edge[labels.ptr<int>(0)[x]] = edge[labels.ptr<int>(labels.rows - 1)[x]] = 1;
    for (int y = 0; y < labels.rows; y++) edge[labels.ptr<int>(y)[0]] = edge[labels.ptr<int>(y)[labels.cols - 1]] = 1;
    cv::Mat outside(labels.size(), CV_8U), hole(labels.size(), CV_8U), like(labels.size(), CV_8U);
    for (int y = 0; y < labels.rows; y++) {
        const int *label = labels.ptr<int>(y);
        const cv::Vec3b *c = image.ptr<cv::Vec3b>(y);
        const uchar *p = product.ptr<uchar>(y);
        uchar *o = outside.ptr<uchar>(y), *h = hole.ptr<uchar>(y), *l = like.ptr<uchar>(y);
        for (int x = 0; x < labels.cols; x++) {
            o[x] = !p[x] && edge[label[x]] ? 255 : 0;
            h[x] = !p[x] && !edge[label[x]] ? 255 : 0;
            l[x] = p[x] && odds[colourBin(c[x])] > twice ? 255 : 0;
        }
    }
    // A product pixel is like the ground where its colour is twice as common there. Textured ground
    // is only partly like it pixel by pixel: a closing (0.4% of the long side) joins it into one
    // region, an opening drops thin bands along the product's edge and specks.
    cv::Mat kernel = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * reach + 1, 2 * reach + 1)), regions, near;
    cv::morphologyEx(like | hole, regions, cv::MORPH_CLOSE, kernel);
    cv::morphologyEx(regions, regions, cv::MORPH_OPEN, kernel);
    regions &= ~outside;
    cv::dilate(outside, near, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
    count = cv::connectedComponents(regions, labels, 8, CV_32S);
    struct Region { double odds = 0; int size = 0, product = 0, hole = 0, touching = 0; };
    std::vector<Region> found(count);
    for (int y = 0; y < labels.rows; y++) {
        const int *label = labels.ptr<int>(y);
        const cv::Vec3b *c = image.ptr<cv::Vec3b>(y);
        const uchar *p = product.ptr<uchar>(y), *h = hole.ptr<uchar>(y), *n = near.ptr<uchar>(y);
        for (int x = 0; x < labels.cols; x++) {
            if (!label[x]) continue;
            Region &r = found[label[x]];
            r.size++;
            r.hole += h[x] != 0;
            r.touching += n[x] != 0;
            if (p[x]) { r.product++; r.odds += odds[colourBin(c[x])]; }
        }
    }
    std::vector<char> cut(count, false);
    bool any = false;
    for (int i = 1; i < count; i++) {
        const Region &r = found[i];
        // Under 1% of the product (on real photos, white petals and a collar's lining: 0.5%), or
        // along the ground outside (the colour edge's to decide): not this.
        if (r.product < 0.01 * products || r.touching > 0.05 * r.size || r.odds / r.product < groundLike) continue;
        // Cut where the colour edge already found a tenth of it ground and it is all inside: else it
        // may be the product's own (a brown mug's dark inside, by a thin rim, on dark wood: 4% cut).
        if (r.hole >= 0.1 * r.size && r.touching <= 0.01 * r.size) cut[i] = any = true;
        else kept += (double)r.product / products;
    }
    if (!any) return false;
    for (int y = 0; y < labels.rows; y++) {
        const int *label = labels.ptr<int>(y);
        const uchar *l = like.ptr<uchar>(y), *h = hole.ptr<uchar>(y);
        float *p = prior.ptr<float>(y);
        for (int x = 0; x < labels.cols; x++) if (cut[label[x]]) p[x] = l[x] || h[x] ? 0 : 0.5f;
    }
    return true;
}

extern "C" int mi_mask_run(mi_mask_net *net, const unsigned char *rgb, int width, int height, int side, unsigned char *mask,
                           char *error, size_t error_length, double *ground_kept) {
    double kept = 0;
    if (ground_kept) *ground_kept = 0;
    try {
        cv::Mat image(height, width, CV_8UC3, const_cast<unsigned char *>(rgb));
        cv::Mat small;
        cv::resize(image, small, cv::Size(side, side), 0, 0, cv::INTER_AREA);
        cv::Mat input;
        small.convertTo(input, CV_32FC3, 1.0 / 255);
        cv::subtract(input, cv::Scalar(0.485, 0.456, 0.406), input);
        cv::divide(input, cv::Scalar(0.229, 0.224, 0.225), input);
        cv::Mat blob = cv::dnn::blobFromImage(input);
        cv::Mat output;
        {
            std::lock_guard<std::mutex> hold(net->lock);
            net->net.setInput(blob);
            output = net->net.forward();
        }
        if (output.dims != 4 || output.size[2] != side || output.size[3] != side) {
            say(error, error_length, "the model's output is not one map of its input's size");
            return -1;
        }
        cv::Mat map(side, side, CV_32F, output.ptr<float>(0, 0));
        double low, high;
        cv::minMaxLoc(map, &low, &high);
        // The map is a probability: when nothing in the photo reaches even this, there is no
        // product, and stretching the noise to 0–1 would invent one.
        if (high < 0.2) {
            std::fill(mask, mask + (size_t)width * height, 0);
            return 0;
        }
        cv::Mat normalised = (map - low) / (high > low ? high - low : 1.0);
        cv::Mat full;
        cv::resize(normalised, full, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
        // 2% of the long side reaches across the map's blur to pixels it is sure of (BENCHMARKS.md).
        int longest = width > height ? width : height;
        int radius = std::max(2, longest / 50);
        cv::Mat alpha = matte(image, full, radius);
        if (groundInside(image, full, alpha, kept)) alpha = matte(image, full, radius);
        if (ground_kept) *ground_kept = kept;
        cv::Mat bytes, out(height, width, CV_8U, mask);
        alpha.convertTo(bytes, CV_8U, 255.0);
        // Single pixels the colour put on the wrong side (a fleck of the ground like the product).
        cv::medianBlur(bytes, out, 5);
        return 0;
    } catch (const std::exception &failure) {
        say(error, error_length, failure.what());
        return -1;
    }
}

extern "C" void mi_mask_close(mi_mask_net *net) { delete net; }

// The pipeline calls these through CKernels.h's pointer types: a mismatch fails to compile here.
static_assert(std::is_same<decltype(&mi_mask_open), mi_mask_open_fn>::value, "mi_mask_open's signature");
static_assert(std::is_same<decltype(&mi_mask_run), mi_mask_run_fn>::value, "mi_mask_run's signature");
static_assert(std::is_same<decltype(&mi_mask_close), mi_mask_close_fn>::value, "mi_mask_close's signature");
