// image_compare.h — how far two images of the same size are apart: PSNR, SSIM, mean and maximum
// absolute difference, the fraction of pixels differing by more than a threshold, a difference
// heatmap, and pass/fail limits on those metrics (for `blobsim compare` and regression suites).
//
// Every metric is computed on opaque 8-bit RGB: an RGBA pixel is first composited over black,
// c' = round(c * a / 255) (bsImage_OpaqueRgb), so alpha counts only through the colour it leaves;
// gray images were expanded to R = G = B when loaded. With N = width * height pixels and the sums over
// every pixel p and channel c in {R, G, B}:
//     MSE  = sum (a - b)^2 / (3 N)
//     PSNR = 10 log10(255^2 / MSE) dB                 (INFINITY when MSE = 0)
//     MAE  = sum |a - b| / (3 N)                      (0 ... 255)
//     maxDiff = max |a - b|                           (0 ... 255)
//     d(p) = max over c of |a - b|                    (a pixel's difference)
//     pixelsOver = #{p : d(p) > threshold},  fractionOver = pixelsOver / N
// SSIM (Wang, Bovik, Sheikh & Simoncelli 2004, as their ssim_index.m) is computed on the luminance
// Y = 0.299 R + 0.587 G + 0.114 B (Rec. 601 weights, in double, not rounded) of each image, with
// an 11 x 11 Gaussian window w (sigma 1.5, normalised to sum 1), K1 = 0.01, K2 = 0.03, L = 255,
// C1 = (K1 L)^2, C2 = (K2 L)^2. For every window position that lies wholly inside the image (no
// padding: the (W - 10) x (H - 10) "valid" positions), with weighted means, variances and covariance
//     mu_x = sum w x,  s_x^2 = sum w x^2 - mu_x^2,  s_xy = sum w x y - mu_x mu_y   (same for y)
//     SSIM = (2 mu_x mu_y + C1)(2 s_xy + C2) / ((mu_x^2 + mu_y^2 + C1)(s_x^2 + s_y^2 + C2))
// and the result is the mean over those positions. There is no downsampling. An image narrower or
// lower than 11 pixels has no valid window: its SSIM is NAN (undefined).
#pragma once

#include "image.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// The SSIM parameters (fixed: those of the paper).
#define BS_SSIM_WINDOW 11
#define BS_SSIM_SIGMA 1.5
#define BS_SSIM_K1 0.01
#define BS_SSIM_K2 0.03

typedef struct bsCompareOptions
{
	int threshold;      // 0 ... 255: pixelsOver counts pixels with d(p) > threshold (0: any change)
	const char* nameA;  // names for error messages (file names); NULL: "first image", "second image"
	const char* nameB;
} bsCompareOptions;

typedef struct bsImageMetrics
{
	int width;
	int height;
	double mse;
	double psnr;           // dB; INFINITY when the images are identical
	double ssim;           // 1 when identical; NAN when the image is smaller than 11 x 11
	double mae;
	int maxDiff;
	int threshold;         // the options' threshold
	int64_t pixelsOver;
	double fractionOver;
	bool identical;        // every composited RGB sample is equal (MSE = 0)
} bsImageMetrics;

// Compares a and b (same width and height; either may have 3 or 4 channels). Fills *metrics. With
// heatmap non-NULL, also makes (bsImage_Init: the caller frees it with bsImage_Free) the difference
// heatmap: an RGB image of the same size, each pixel bsHeatmapColor(d(p)). Fails, with a message in
// err, when the sizes differ ("NAME_A is 64x48 but NAME_B is 32x32"), on a bad threshold, or when
// memory runs out; then *heatmap is zeroed.
bool bsCompareImages(const bsImage* a, const bsImage* b, const bsCompareOptions* options,
	bsImageMetrics* metrics, bsImage* heatmap, char* err, size_t errSize);

// The heatmap's colour for a pixel difference d (0 ... 255): black for 0; otherwise a ramp in
// t = log2(d) / log2(255), linear between the stops d = 1 (64, 64, 255) light blue, d = 4 (0, 255, 255)
// cyan, d = 16 (0, 255, 0) green, d = 64 (255, 255, 0) yellow, d = 255 (255, 0, 0) red; so a
// difference of 1 is visible and every doubling moves half a stop.
void bsHeatmapColor(int d, uint8_t rgb[3]);

// The SSIM of two luminance images (width x height doubles each, row-major) as defined above; NAN
// when smaller than 11 x 11, or when memory runs out (then *outOfMemory is set, if non-NULL).
double bsSsimLuminance(const double* ya, const double* yb, int width, int height, bool* outOfMemory);

// ---- Pass/fail limits ----------------------------------------------------------------------------

// One bit per limit, for bsCompareLimits_Check's result.
enum
{
	bs_limitMinPsnr = 1,
	bs_limitMinSsim = 2,
	bs_limitMaxDiff = 4,
	bs_limitMaxMae = 8,
	bs_limitMaxFraction = 16,
};

// A limit that is not set never fails: bsCompareLimits_None gives minPsnr = minSsim = -INFINITY,
// maxMae = maxFraction = INFINITY and maxDiff = 255.
typedef struct bsCompareLimits
{
	double minPsnr;      // fail when psnr < minPsnr (an identical pair, PSNR infinite, always passes)
	double minSsim;      // fail when ssim < minSsim, or when SSIM is undefined and minSsim is set
	int maxDiff;         // fail when maxDiff > this
	double maxMae;       // fail when mae > this
	double maxFraction;  // fail when fractionOver > this
} bsCompareLimits;

bsCompareLimits bsCompareLimits_None(void);

// The bs_limit* bits of the limits the metrics break; 0 means pass.
unsigned bsCompareLimits_Check(const bsCompareLimits* limits, const bsImageMetrics* metrics);

// One line on why the metrics break the limit of bit `limit`, e.g.
// "psnr 38.21 dB is below --min-psnr 40".
void bsCompareLimits_Describe(const bsCompareLimits* limits, const bsImageMetrics* metrics, unsigned limit,
	char* out, size_t outSize);
