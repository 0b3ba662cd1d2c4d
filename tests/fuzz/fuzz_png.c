// fuzz_png.c — libFuzzer target for bsImage_DecodePng (PNG bytes from memory, io/image.h): the reader
// `blobsim compare` and `blobsim regress` use on images they did not make.
//
// On failure the image must be zeroed and the message set, starting with the name. On success the
// image must be within the reader's limits (3 or 4 channels, at most bs_imageMaxDimension a side and
// bs_imageMaxPixels in all, pixels present), and the comparison code must take it: an image compared
// with itself is identical (MSE 0, PSNR infinite, no pixel over the threshold), with a black heatmap.
#include "image.h"
#include "image_compare.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void bsFuzzCheck(int ok)
{
	if (!ok)
	{
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	bsImage image;
	char message[512];
	message[0] = '\0';
	bool ok = bsImage_DecodePng(data, size, "fuzz.png", &image, message, sizeof message);
	bsFuzzCheck(memchr(message, '\0', sizeof message) != NULL);
	if (!ok)
	{
		bsFuzzCheck(image.pixels == NULL && image.width == 0 && image.height == 0 && image.channels == 0);
		bsFuzzCheck(strncmp(message, "fuzz.png: ", 10) == 0);
		return 0;
	}
	bsFuzzCheck(image.channels == 3 || image.channels == 4);
	bsFuzzCheck(image.width >= 1 && image.height >= 1 && image.pixels != NULL);
	bsFuzzCheck(image.width <= bs_imageMaxDimension && image.height <= bs_imageMaxDimension);
	bsFuzzCheck((int64_t)image.width * image.height <= bs_imageMaxPixels);
	// The metrics on large images cost seconds per input: only small ones, as the fuzzer makes them.
	if ((int64_t)image.width * image.height <= 4096)
	{
		bsImageMetrics m;
		bsImage heat;
		char err[256];
		bsCompareOptions options = {0, "a", "b"};
		bsFuzzCheck(bsCompareImages(&image, &image, &options, &m, &heat, err, sizeof err));
		bsFuzzCheck(m.identical && m.mse == 0.0 && isinf(m.psnr) && m.maxDiff == 0 && m.pixelsOver == 0);
		bsFuzzCheck(isnan(m.ssim) || m.ssim == 1.0);
		bsFuzzCheck(heat.width == image.width && heat.height == image.height);
		for (size_t i = 0; i < (size_t)heat.width * (size_t)heat.height * (size_t)heat.channels; ++i)
		{
			bsFuzzCheck(heat.pixels[i] == 0);
		}
		bsImage_Free(&heat);
	}
	bsImage_Free(&image);
	return 0;
}
