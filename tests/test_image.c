// test_image.c — PNG load/save round trips, hostile PNG files, and the comparison metrics on cases
// whose values follow exactly from the formulas (tests/compare_test.py checks the metrics against
// ImageMagick and an independent SSIM, and every PNG variant).
#include "test.h"

#include "image.h"
#include "image_compare.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char imageDir[512];

static const char* ImagePath(char* out, size_t len, const char* name)
{
	snprintf(out, len, "%s/%s", imageDir, name);
	return out;
}

// A deterministic pattern with structure and every byte value.
static void FillPattern(bsImage* image, uint32_t seed)
{
	size_t n = (size_t)image->width * (size_t)image->height * (size_t)image->channels;
	uint32_t s = seed;
	for (size_t i = 0; i < n; ++i)
	{
		s = s * 1664525u + 1013904223u;
		image->pixels[i] = (uint8_t)((i * 7) / 3 + (s >> 28));
	}
}

static uint8_t* ReadFile(const char* path, size_t* size)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t* data = n > 0 ? malloc((size_t)n) : NULL;
	if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n)
	{
		free(data);
		data = NULL;
	}
	fclose(f);
	*size = data != NULL ? (size_t)n : 0;
	return data;
}

static bool WriteFile(const char* path, const uint8_t* data, size_t size)
{
	FILE* f = fopen(path, "wb");
	if (f == NULL)
	{
		return false;
	}
	bool ok = fwrite(data, 1, size, f) == size;
	return fclose(f) == 0 && ok;
}

// PNG's CRC-32 (ISO 3309), bit by bit: independent of libpng and zlib.
static uint32_t Crc32(const uint8_t* p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; ++i)
	{
		c ^= p[i];
		for (int k = 0; k < 8; ++k)
		{
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
		}
	}
	return c ^ 0xffffffffu;
}

static void PutBE32(uint8_t* p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static bool StartsWith(const char* s, const char* prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int CountTemporaries(void)
{
	int count = 0;
	DIR* d = opendir(imageDir);
	if (d == NULL)
	{
		return -1;
	}
	struct dirent* e;
	while ((e = readdir(d)) != NULL)
	{
		count += strstr(e->d_name, ".tmp.") != NULL;
	}
	closedir(d);
	return count;
}

// ---- Load and save --------------------------------------------------------------------------------

static int RoundTripTest(void)
{
	char path[600], err[1024];
	for (int channels = 3; channels <= 4; ++channels)
	{
		bsImage a, b;
		ENSURE(bsImage_Init(&a, 37, 21, channels, err, sizeof(err)));
		FillPattern(&a, (uint32_t)channels);
		ImagePath(path, sizeof(path), channels == 3 ? "rgb.png" : "rgba.png");
		ENSURE(bsImage_SavePng(path, &a, err, sizeof(err)));
		ENSURE(bsImage_LoadPng(path, &b, err, sizeof(err)));
		ENSURE(b.width == 37 && b.height == 21 && b.channels == channels);
		ENSURE(memcmp(a.pixels, b.pixels, (size_t)37 * 21 * (size_t)channels) == 0);
		bsImage_Free(&a);
		bsImage_Free(&b);
		ENSURE(b.pixels == NULL);
		bsImage_Free(&b);  // twice is harmless
	}
	ENSURE(CountTemporaries() == 0);

	bsImage a;
	ENSURE(!bsImage_Init(&a, 0, 5, 3, err, sizeof(err)));
	ENSURE(!bsImage_Init(&a, 5, 5, 2, err, sizeof(err)));
	ENSURE(!bsImage_Init(&a, 65536, 1, 3, err, sizeof(err)));
	ENSURE(!bsImage_Init(&a, 10000, 10000, 3, err, sizeof(err)) && a.pixels == NULL);

	// Save into a missing directory: false, the message names the file, nothing left.
	ENSURE(bsImage_Init(&a, 4, 4, 3, err, sizeof(err)));
	ImagePath(path, sizeof(path), "no/such/dir/x.png");
	ENSURE(!bsImage_SavePng(path, &a, err, sizeof(err)));
	ENSURE(strstr(err, "no/such/dir/x.png") != NULL);
	bsImage_Free(&a);
	ENSURE(!bsImage_SavePng(path, &a, err, sizeof(err)));  // no image
	return 0;
}

static int CompositeTest(void)
{
	char err[256];
	bsImage a;
	ENSURE(bsImage_Init(&a, 5, 1, 4, err, sizeof(err)));
	// (colour, alpha) -> round(colour * alpha / 255)
	const uint8_t in[5][2] = {{200, 0}, {200, 255}, {255, 128}, {1, 128}, {1, 127}};
	const uint8_t expected[5] = {0, 200, 128, 1, 0};
	for (int x = 0; x < 5; ++x)
	{
		uint8_t* p = a.pixels + 4 * x;
		p[0] = p[1] = p[2] = in[x][0];
		p[3] = in[x][1];
	}
	for (int x = 0; x < 5; ++x)
	{
		uint8_t rgb[3];
		bsImage_OpaqueRgb(&a, x, 0, rgb);
		ENSURE(rgb[0] == expected[x] && rgb[1] == expected[x] && rgb[2] == expected[x]);
	}
	bsImage_Free(&a);
	return 0;
}

// Every truncation of a valid file, and every byte changed, loads or fails with a message naming the
// file: never a crash (the sanitizer build runs this too).
static int HostileTest(void)
{
	char good[600], bad[600], err[1024];
	bsImage a, b;
	ENSURE(bsImage_Init(&a, 16, 12, 4, err, sizeof(err)));
	FillPattern(&a, 3);
	ImagePath(good, sizeof(good), "good.png");
	ImagePath(bad, sizeof(bad), "bad.png");
	ENSURE(bsImage_SavePng(good, &a, err, sizeof(err)));
	bsImage_Free(&a);
	size_t size;
	uint8_t* data = ReadFile(good, &size);
	ENSURE(data != NULL && size > 33);
	// Every length through the header chunks, then every 5th (each case is a file write: keep it short).
	for (size_t n = 0; n < size; n += n < 64 ? 1 : 5)
	{
		ENSURE(WriteFile(bad, data, n));
		ENSURE(!bsImage_LoadPng(bad, &b, err, sizeof(err)));
		ENSURE(b.pixels == NULL && b.width == 0);
		ENSURE(StartsWith(err, bad));
		ENSURE(strstr(err, n == 0 ? "empty" : "truncated") != NULL);
	}
	for (size_t i = 0; i < size; i += i < 64 ? 1 : 3)
	{
		uint8_t saved = data[i];
		data[i] ^= 0xa5;
		ENSURE(WriteFile(bad, data, size));
		if (bsImage_LoadPng(bad, &b, err, sizeof(err)))
		{
			ENSURE(b.width > 0 && b.pixels != NULL);
			bsImage_Free(&b);
		}
		else
		{
			ENSURE(StartsWith(err, bad) && b.pixels == NULL);
		}
		data[i] = saved;
	}

	// A huge claimed size (valid CRC): refused before allocating.
	const uint32_t sizes[3][2] = {{100000, 100000}, {65535, 65535}, {70000, 1}};
	for (int k = 0; k < 3; ++k)
	{
		PutBE32(data + 16, sizes[k][0]);
		PutBE32(data + 20, sizes[k][1]);
		PutBE32(data + 29, Crc32(data + 12, 17));
		ENSURE(WriteFile(bad, data, size));
		ENSURE(!bsImage_LoadPng(bad, &b, err, sizeof(err)));
		ENSURE(StartsWith(err, bad) && strstr(err, "too large") != NULL);
	}
	free(data);

	ImagePath(bad, sizeof(bad), "missing.png");
	ENSURE(!bsImage_LoadPng(bad, &b, err, sizeof(err)) && StartsWith(err, bad));
	ENSURE(strstr(err, "cannot open") != NULL);
	ENSURE(!bsImage_LoadPng(imageDir, &b, err, sizeof(err)) && strstr(err, "directory") != NULL);
	return 0;
}

// ---- Metrics --------------------------------------------------------------------------------------

static int IdenticalAndOnePixelTest(void)
{
	char err[1024];
	bsImage a, b;
	const int w = 40, h = 30;
	ENSURE(bsImage_Init(&a, w, h, 3, err, sizeof(err)));
	ENSURE(bsImage_Init(&b, w, h, 4, err, sizeof(err)));
	FillPattern(&a, 5);
	for (int i = 0; i < w * h; ++i)  // b: the same colours, opaque RGBA
	{
		memcpy(b.pixels + 4 * i, a.pixels + 3 * i, 3);
		b.pixels[4 * i + 3] = 255;
	}
	bsImageMetrics m;
	bsCompareOptions options = {0};
	ENSURE(bsCompareImages(&a, &b, &options, &m, NULL, err, sizeof(err)));
	ENSURE(m.identical && isinf(m.psnr) && m.psnr > 0.0 && m.ssim == 1.0);
	ENSURE(m.mse == 0.0 && m.mae == 0.0 && m.maxDiff == 0 && m.pixelsOver == 0);

	// One red sample up by 50 (or down, where it would overflow).
	uint8_t* p = b.pixels + 4 * (13 * w + 17);
	p[0] = (uint8_t)(p[0] < 200 ? p[0] + 50 : p[0] - 50);
	bsImage heat;
	ENSURE(bsCompareImages(&a, &b, &options, &m, &heat, err, sizeof(err)));
	double n3 = 3.0 * w * h;
	ENSURE_SMALL(m.mse - 2500.0 / n3, 1e-15);
	ENSURE_SMALL(m.mae - 50.0 / n3, 1e-15);
	ENSURE_SMALL(m.psnr - 10.0 * log10(255.0 * 255.0 * n3 / 2500.0), 1e-12);
	ENSURE(m.maxDiff == 50 && m.pixelsOver == 1 && !m.identical);
	ENSURE(m.ssim < 1.0 && m.ssim > 0.9);
	// The heatmap: black everywhere but that pixel.
	ENSURE(heat.width == w && heat.height == h && heat.channels == 3);
	uint8_t red50[3];
	bsHeatmapColor(50, red50);
	for (int i = 0; i < w * h; ++i)
	{
		const uint8_t* q = heat.pixels + 3 * i;
		if (i == 13 * w + 17)
		{
			ENSURE(memcmp(q, red50, 3) == 0);
		}
		else
		{
			ENSURE(q[0] == 0 && q[1] == 0 && q[2] == 0);
		}
	}
	bsImage_Free(&heat);
	options.threshold = 50;
	ENSURE(bsCompareImages(&a, &b, &options, &m, NULL, err, sizeof(err)) && m.pixelsOver == 0);
	options.threshold = 49;
	ENSURE(bsCompareImages(&a, &b, &options, &m, NULL, err, sizeof(err)) && m.pixelsOver == 1);
	ENSURE_SMALL(m.fractionOver - 1.0 / (w * h), 1e-18);
	options.threshold = 256;
	ENSURE(!bsCompareImages(&a, &b, &options, &m, NULL, err, sizeof(err)));

	// Different sizes: an error naming both and their sizes.
	bsImage c;
	ENSURE(bsImage_Init(&c, w, h + 1, 3, err, sizeof(err)));
	bsCompareOptions named = {.nameA = "ref.png", .nameB = "new.png"};
	ENSURE(!bsCompareImages(&a, &c, &named, &m, &heat, err, sizeof(err)) && heat.pixels == NULL);
	ENSURE(strcmp(err, "cannot compare images of different sizes: ref.png is 40x30 but new.png is 40x31") == 0);
	bsImage_Free(&a);
	bsImage_Free(&b);
	bsImage_Free(&c);
	return 0;
}

// A uniform offset k of a flat image: PSNR = 20 log10(255 / k); the windows' variances are 0 and the
// means v and v + k, so SSIM = (2 v (v + k) + C1) / (v^2 + (v + k)^2 + C1).
static int OffsetTest(void)
{
	char err[256];
	const int v = 90, k = 12;
	bsImage a, b;
	ENSURE(bsImage_Init(&a, 20, 15, 3, err, sizeof(err)));
	ENSURE(bsImage_Init(&b, 20, 15, 3, err, sizeof(err)));
	memset(a.pixels, v, 20 * 15 * 3);
	memset(b.pixels, v + k, 20 * 15 * 3);
	bsImageMetrics m;
	ENSURE(bsCompareImages(&a, &b, NULL, &m, NULL, err, sizeof(err)));
	double c1 = (0.01 * 255.0) * (0.01 * 255.0);
	ENSURE_SMALL(m.psnr - 20.0 * log10(255.0 / k), 1e-12);
	ENSURE_SMALL(m.ssim - (2.0 * v * (v + k) + c1) / ((double)v * v + (double)(v + k) * (v + k) + c1), 1e-12);
	ENSURE(m.mae == k && m.maxDiff == k && m.pixelsOver == 20 * 15);
	bsImage_Free(&a);
	bsImage_Free(&b);

	// Below 11 x 11 SSIM is undefined.
	ENSURE(bsImage_Init(&a, 10, 30, 3, err, sizeof(err)));
	ENSURE(bsImage_Init(&b, 10, 30, 3, err, sizeof(err)));
	ENSURE(bsCompareImages(&a, &b, NULL, &m, NULL, err, sizeof(err)));
	ENSURE(isnan(m.ssim) && m.identical);
	bsImage_Free(&a);
	bsImage_Free(&b);
	return 0;
}

static int LimitsTest(void)
{
	bsCompareLimits none = bsCompareLimits_None();
	bsImageMetrics m = {.width = 8, .height = 8, .psnr = 3.0, .ssim = NAN, .mae = 200.0, .maxDiff = 255,
		.fractionOver = 1.0};
	ENSURE(bsCompareLimits_Check(&none, &m) == 0);
	bsCompareLimits l = none;
	l.minSsim = 0.0;  // set: an undefined SSIM fails it
	ENSURE(bsCompareLimits_Check(&l, &m) == bs_limitMinSsim);
	char why[256];
	bsCompareLimits_Describe(&l, &m, bs_limitMinSsim, why, sizeof(why));
	ENSURE(strstr(why, "undefined") != NULL);

	m = (bsImageMetrics){.psnr = 40.0, .ssim = 0.99, .mae = 1.0, .maxDiff = 32, .fractionOver = 0.001};
	l = (bsCompareLimits){.minPsnr = 40.0, .minSsim = 0.99, .maxDiff = 32, .maxMae = 1.0, .maxFraction = 0.001};
	ENSURE(bsCompareLimits_Check(&l, &m) == 0);  // every limit is inclusive
	m = (bsImageMetrics){.psnr = 39.9, .ssim = 0.98, .mae = 1.5, .maxDiff = 33, .fractionOver = 0.002};
	ENSURE(bsCompareLimits_Check(&l, &m) ==
		(bs_limitMinPsnr | bs_limitMinSsim | bs_limitMaxDiff | bs_limitMaxMae | bs_limitMaxFraction));
	bsCompareLimits_Describe(&l, &m, bs_limitMinPsnr, why, sizeof(why));
	ENSURE(strcmp(why, "psnr 39.9000 dB is below --min-psnr 40") == 0);
	m.psnr = INFINITY;
	ENSURE((bsCompareLimits_Check(&l, &m) & bs_limitMinPsnr) == 0);
	return 0;
}

static int HeatmapColorTest(void)
{
	uint8_t rgb[3];
	bsHeatmapColor(0, rgb);
	ENSURE(rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 0);
	bsHeatmapColor(1, rgb);
	ENSURE(rgb[0] == 64 && rgb[1] == 64 && rgb[2] == 255);
	bsHeatmapColor(255, rgb);
	ENSURE(rgb[0] == 255 && rgb[1] == 0 && rgb[2] == 0);
	// Near the stops (t = log2(d) / log2(255) is a hair past k / 4 at d = 4^k).
	const uint8_t stops[3][3] = {{0, 255, 255}, {0, 255, 0}, {255, 255, 0}};
	for (int k = 0; k < 3; ++k)
	{
		bsHeatmapColor(4 << (2 * k), rgb);
		for (int c = 0; c < 3; ++c)
		{
			ENSURE(abs((int)rgb[c] - (int)stops[k][c]) <= 2);
		}
	}
	// Every difference is visible (not black) and distinct from its neighbours up to 64.
	uint8_t previous[3] = {0, 0, 0};
	for (int d = 1; d < 256; ++d)
	{
		bsHeatmapColor(d, rgb);
		ENSURE(rgb[0] + rgb[1] + rgb[2] >= 255);
		ENSURE(d > 64 || memcmp(rgb, previous, 3) != 0);
		memcpy(previous, rgb, 3);
	}
	return 0;
}

// bsImage_AverageLinear: identical images give themselves back (sRGB there and back is exact on 8
// bits), black and white average to 188 (sRGB of linear 0.5, not 128), a transparent sample adds no
// colour, and images of different sizes are refused.
static int AverageTest(void)
{
	char err[256];
	bsImage in[3], out;
	ENSURE(bsImage_Init(in + 0, 256, 1, 3, err, sizeof(err)));
	for (int x = 0; x < 256; ++x)
	{
		memset(in[0].pixels + 3 * x, x, 3);
	}
	in[1] = in[0];
	ENSURE(bsImage_AverageLinear(in, 2, &out, err, sizeof(err)));
	ENSURE(out.width == 256 && out.channels == 3 && memcmp(out.pixels, in[0].pixels, 3 * 256) == 0);
	bsImage_Free(&out);
	bsImage_Free(in + 0);

	ENSURE(bsImage_Init(in + 0, 1, 1, 3, err, sizeof(err)) && bsImage_Init(in + 1, 1, 1, 3, err, sizeof(err)));
	memset(in[1].pixels, 255, 3);
	ENSURE(bsImage_AverageLinear(in, 2, &out, err, sizeof(err)));
	ENSURE(out.pixels[0] == 188 && out.pixels[1] == 188 && out.pixels[2] == 188);
	bsImage_Free(&out);
	ENSURE(bsImage_Init(in + 2, 2, 1, 3, err, sizeof(err)));
	ENSURE(!bsImage_AverageLinear(in, 3, &out, err, sizeof(err)) && strstr(err, "image 2 is 2x1") != NULL);
	ENSURE(out.pixels == NULL);
	for (int k = 0; k < 3; ++k)
	{
		bsImage_Free(in + k);
	}

	ENSURE(bsImage_Init(in + 0, 1, 1, 4, err, sizeof(err)) && bsImage_Init(in + 1, 1, 1, 4, err, sizeof(err)));
	const uint8_t clear[4] = {0, 255, 0, 0}, red[4] = {200, 0, 0, 255};
	memcpy(in[0].pixels, clear, 4);
	memcpy(in[1].pixels, red, 4);
	ENSURE(bsImage_AverageLinear(in, 2, &out, err, sizeof(err)));
	ENSURE(out.pixels[0] == 200 && out.pixels[1] == 0 && out.pixels[2] == 0 && out.pixels[3] == 128);
	bsImage_Free(&out);
	bsImage_Free(in + 0);
	bsImage_Free(in + 1);
	return 0;
}

int ImageTest(void)
{
	snprintf(imageDir, sizeof(imageDir), "/tmp/blobsim-image-test-XXXXXX");
	ENSURE(mkdtemp(imageDir) != NULL);
	int rc = 0;
	if ((rc = RoundTripTest()) != 0 || (rc = CompositeTest()) != 0 || (rc = HostileTest()) != 0 ||
		(rc = IdenticalAndOnePixelTest()) != 0 || (rc = OffsetTest()) != 0 || (rc = LimitsTest()) != 0 ||
		(rc = HeatmapColorTest()) != 0 || (rc = AverageTest()) != 0)
	{
		fprintf(stderr, "  (test files kept in %s)\n", imageDir);
		return rc;
	}
	// Clean up: only the files this suite made.
	const char* names[] = {"rgb.png", "rgba.png", "good.png", "bad.png"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i)
	{
		char path[600];
		unlink(ImagePath(path, sizeof(path), names[i]));
	}
	ENSURE(rmdir(imageDir) == 0);
	return 0;
}
