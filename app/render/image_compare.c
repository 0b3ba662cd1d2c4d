// image_compare.c — the metrics of image_compare.h, the heatmap and the limits.
#include "image_compare.h"

#include "atomic_file.h"  // BS_PRINTF_FORMAT

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- SSIM -----------------------------------------------------------------------------------------

enum
{
	bs_ssimHalf = BS_SSIM_WINDOW / 2,
	bs_ssimSums = 5,  // the window sums: x, y, x^2, y^2, x y
};

// The 1-D Gaussian, normalised to sum 1; the 2-D window is its outer product (also sums to 1).
static void bsSsimKernel(double g[BS_SSIM_WINDOW])
{
	double sum = 0.0;
	for (int i = 0; i < BS_SSIM_WINDOW; ++i)
	{
		double u = (double)(i - bs_ssimHalf);
		g[i] = exp(-u * u / (2.0 * BS_SSIM_SIGMA * BS_SSIM_SIGMA));
		sum += g[i];
	}
	for (int i = 0; i < BS_SSIM_WINDOW; ++i)
	{
		g[i] /= sum;
	}
}

// The window is separable, so each row is first filtered horizontally (at the valid positions) into a
// ring of the last 11 rows, and each window's sums are then the vertical filter of that ring: memory
// is 11 rows, time 2 x 11 multiply-adds per sum and position.
double bsSsimLuminance(const double* ya, const double* yb, int width, int height, bool* outOfMemory)
{
	if (outOfMemory != NULL)
	{
		*outOfMemory = false;
	}
	if (width < BS_SSIM_WINDOW || height < BS_SSIM_WINDOW)
	{
		return NAN;
	}
	size_t ow = (size_t)(width - BS_SSIM_WINDOW + 1);
	size_t oh = (size_t)(height - BS_SSIM_WINDOW + 1);
	size_t rowSize = bs_ssimSums * ow;
	double* ring = malloc(BS_SSIM_WINDOW * rowSize * sizeof(double));
	if (ring == NULL)
	{
		if (outOfMemory != NULL)
		{
			*outOfMemory = true;
		}
		return NAN;
	}
	double g[BS_SSIM_WINDOW];
	bsSsimKernel(g);
	const double c1 = (BS_SSIM_K1 * 255.0) * (BS_SSIM_K1 * 255.0);
	const double c2 = (BS_SSIM_K2 * 255.0) * (BS_SSIM_K2 * 255.0);
	double total = 0.0;
	for (int y = 0; y < height; ++y)
	{
		const double* ra = ya + (size_t)y * (size_t)width;
		const double* rb = yb + (size_t)y * (size_t)width;
		double* h = ring + (size_t)(y % BS_SSIM_WINDOW) * rowSize;
		for (size_t x = 0; x < ow; ++x)
		{
			double s[bs_ssimSums] = {0.0, 0.0, 0.0, 0.0, 0.0};
			for (int k = 0; k < BS_SSIM_WINDOW; ++k)
			{
				double va = ra[x + (size_t)k], vb = rb[x + (size_t)k];
				s[0] += g[k] * va;
				s[1] += g[k] * vb;
				s[2] += g[k] * va * va;
				s[3] += g[k] * vb * vb;
				s[4] += g[k] * va * vb;
			}
			for (int q = 0; q < bs_ssimSums; ++q)
			{
				h[(size_t)q * ow + x] = s[q];
			}
		}
		if (y < BS_SSIM_WINDOW - 1)
		{
			continue;
		}
		// The windows whose top row is y - 10: ring rows y - 10 ... y.
		int top = y - (BS_SSIM_WINDOW - 1);
		double rowTotal = 0.0;
		for (size_t x = 0; x < ow; ++x)
		{
			double s[bs_ssimSums] = {0.0, 0.0, 0.0, 0.0, 0.0};
			for (int k = 0; k < BS_SSIM_WINDOW; ++k)
			{
				const double* r = ring + (size_t)((top + k) % BS_SSIM_WINDOW) * rowSize;
				for (int q = 0; q < bs_ssimSums; ++q)
				{
					s[q] += g[k] * r[(size_t)q * ow + x];
				}
			}
			double mx = s[0], my = s[1];
			double vx = s[2] - mx * mx, vy = s[3] - my * my, cxy = s[4] - mx * my;
			rowTotal += ((2.0 * mx * my + c1) * (2.0 * cxy + c2)) /
				((mx * mx + my * my + c1) * (vx + vy + c2));
		}
		total += rowTotal;
	}
	free(ring);
	return total / ((double)ow * (double)oh);
}

// ---- Heatmap --------------------------------------------------------------------------------------

void bsHeatmapColor(int d, uint8_t rgb[3])
{
	static const double stops[5][3] = {
		{64, 64, 255}, {0, 255, 255}, {0, 255, 0}, {255, 255, 0}, {255, 0, 0},
	};
	if (d <= 0)
	{
		rgb[0] = rgb[1] = rgb[2] = 0;
		return;
	}
	double t = d >= 255 ? 1.0 : log2((double)d) / log2(255.0);
	double u = 4.0 * t;
	int i = u >= 4.0 ? 3 : (int)u;
	double f = u - (double)i;
	for (int c = 0; c < 3; ++c)
	{
		double v = stops[i][c] + f * (stops[i + 1][c] - stops[i][c]);
		rgb[c] = (uint8_t)lround(v);
	}
}

// ---- The comparison -------------------------------------------------------------------------------

// Writes the message into err (which may be NULL) and returns false.
static bool bsCompareFail(char* err, size_t errSize, const char* fmt, ...) BS_PRINTF_FORMAT(3, 4);

static bool bsCompareFail(char* err, size_t errSize, const char* fmt, ...)
{
	if (err != NULL && errSize > 0)
	{
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errSize, fmt, ap);
		va_end(ap);
	}
	return false;
}

static double bsLuminance(const uint8_t rgb[3])
{
	return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2];
}

bool bsCompareImages(const bsImage* a, const bsImage* b, const bsCompareOptions* options,
	bsImageMetrics* metrics, bsImage* heatmap, char* err, size_t errSize)
{
	memset(metrics, 0, sizeof(*metrics));
	if (heatmap != NULL)
	{
		memset(heatmap, 0, sizeof(*heatmap));
	}
	const char* nameA = options != NULL && options->nameA != NULL ? options->nameA : "first image";
	const char* nameB = options != NULL && options->nameB != NULL ? options->nameB : "second image";
	int threshold = options != NULL ? options->threshold : 0;
	if (a == NULL || b == NULL || a->pixels == NULL || b->pixels == NULL)
	{
		return bsCompareFail(err, errSize, "compare: no image");
	}
	if (threshold < 0 || threshold > 255)
	{
		return bsCompareFail(err, errSize, "compare: threshold %d is not in 0 ... 255", threshold);
	}
	if (a->width != b->width || a->height != b->height)
	{
		return bsCompareFail(err, errSize, "cannot compare images of different sizes: %s is %dx%d but %s is %dx%d",
			nameA, a->width, a->height, nameB, b->width, b->height);
	}
	int w = a->width, h = a->height;
	size_t n = (size_t)w * (size_t)h;
	uint8_t heatColor[256][3];
	if (heatmap != NULL)
	{
		if (!bsImage_Init(heatmap, w, h, 3, err, errSize))
		{
			return false;
		}
		for (int d = 0; d < 256; ++d)
		{
			bsHeatmapColor(d, heatColor[d]);
		}
	}
	double* ya = malloc(n * sizeof(double));
	double* yb = malloc(n * sizeof(double));
	if (ya == NULL || yb == NULL)
	{
		free(ya);
		free(yb);
		bsImage_Free(heatmap);
		return bsCompareFail(err, errSize, "compare %s and %s: out of memory", nameA, nameB);
	}

	// Exact integer sums: MSE and MAE are then exact up to the final division.
	uint64_t sumSquares = 0, sumAbs = 0, over = 0;
	int maxDiff = 0;
	for (int y = 0; y < h; ++y)
	{
		for (int x = 0; x < w; ++x)
		{
			uint8_t pa[3], pb[3];
			bsImage_OpaqueRgb(a, x, y, pa);
			bsImage_OpaqueRgb(b, x, y, pb);
			int d = 0;
			for (int c = 0; c < 3; ++c)
			{
				int e = abs((int)pa[c] - (int)pb[c]);
				sumSquares += (uint64_t)(e * e);
				sumAbs += (uint64_t)e;
				d = e > d ? e : d;
			}
			maxDiff = d > maxDiff ? d : maxDiff;
			over += d > threshold;
			size_t i = (size_t)y * (size_t)w + (size_t)x;
			ya[i] = bsLuminance(pa);
			yb[i] = bsLuminance(pb);
			if (heatmap != NULL)
			{
				memcpy(heatmap->pixels + 3 * i, heatColor[d], 3);
			}
		}
	}

	double samples = 3.0 * (double)n;
	metrics->width = w;
	metrics->height = h;
	metrics->mse = (double)sumSquares / samples;
	metrics->mae = (double)sumAbs / samples;
	metrics->psnr = sumSquares == 0 ? (double)INFINITY : 10.0 * log10(255.0 * 255.0 / metrics->mse);
	metrics->maxDiff = maxDiff;
	metrics->threshold = threshold;
	metrics->pixelsOver = (int64_t)over;
	metrics->fractionOver = (double)over / (double)n;
	metrics->identical = sumSquares == 0;
	bool outOfMemory = false;
	metrics->ssim = bsSsimLuminance(ya, yb, w, h, &outOfMemory);
	free(ya);
	free(yb);
	if (outOfMemory)
	{
		bsImage_Free(heatmap);
		return bsCompareFail(err, errSize, "compare %s and %s: out of memory", nameA, nameB);
	}
	return true;
}

// ---- Limits ---------------------------------------------------------------------------------------

bsCompareLimits bsCompareLimits_None(void)
{
	bsCompareLimits l = {
		.minPsnr = -INFINITY,
		.minSsim = -INFINITY,
		.maxDiff = 255,
		.maxMae = INFINITY,
		.maxFraction = INFINITY,
	};
	return l;
}

unsigned bsCompareLimits_Check(const bsCompareLimits* l, const bsImageMetrics* m)
{
	unsigned failed = 0;
	if (m->psnr < l->minPsnr)
	{
		failed |= bs_limitMinPsnr;
	}
	// A set limit fails on an undefined SSIM (NAN compares false).
	if (l->minSsim > -(double)INFINITY && !(m->ssim >= l->minSsim))
	{
		failed |= bs_limitMinSsim;
	}
	if (m->maxDiff > l->maxDiff)
	{
		failed |= bs_limitMaxDiff;
	}
	if (m->mae > l->maxMae)
	{
		failed |= bs_limitMaxMae;
	}
	if (m->fractionOver > l->maxFraction)
	{
		failed |= bs_limitMaxFraction;
	}
	return failed;
}

void bsCompareLimits_Describe(const bsCompareLimits* l, const bsImageMetrics* m, unsigned limit, char* out,
	size_t outSize)
{
	switch (limit)
	{
		case bs_limitMinPsnr:
			snprintf(out, outSize, "psnr %.4f dB is below --min-psnr %g", m->psnr, l->minPsnr);
			break;
		case bs_limitMinSsim:
			if (isnan(m->ssim))
			{
				snprintf(out, outSize, "ssim is undefined for a %dx%d image (smaller than %dx%d), "
					"--min-ssim %g cannot hold", m->width, m->height, BS_SSIM_WINDOW, BS_SSIM_WINDOW,
					l->minSsim);
			}
			else
			{
				snprintf(out, outSize, "ssim %.6f is below --min-ssim %g", m->ssim, l->minSsim);
			}
			break;
		case bs_limitMaxDiff:
			snprintf(out, outSize, "max_diff %d is above --max-diff %d", m->maxDiff, l->maxDiff);
			break;
		case bs_limitMaxMae:
			snprintf(out, outSize, "mae %.6f is above --max-mae %g", m->mae, l->maxMae);
			break;
		case bs_limitMaxFraction:
			snprintf(out, outSize, "fraction %.6g (%lld pixels over threshold %d) is above --max-fraction %g",
				m->fractionOver, (long long)m->pixelsOver, m->threshold, l->maxFraction);
			break;
		default:
			snprintf(out, outSize, "unknown limit %u", limit);
			break;
	}
}
