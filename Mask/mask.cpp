// U²-Net-p through OpenCV 4.6's DNN module (Debian 12's libopencv-dnn406): see BackgroundMask.h.
// The input is what rembg feeds the same model: RGB scaled to the model's side, /255, minus the
// ImageNet mean, over its deviation; the first output map, min–max normalised and upsampled, is
// where the product is, and the photo's colours decide its edge (`matte`).
#include "BackgroundMask.h"
#include "../Sources/CKernels/include/CKernels.h"

#include <cstdio>
#include <algorithm>
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

extern "C" int mi_mask_run(mi_mask_net *net, const unsigned char *rgb, int width, int height, int side, unsigned char *mask,
                           char *error, size_t error_length) {
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
        cv::Mat alpha = matte(image, full, std::max(2, longest / 50));
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
