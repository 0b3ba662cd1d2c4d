// image.h — an 8-bit RGB or RGBA image in memory, and PNG files in and out (libpng).
//
// bsImage_LoadPng reads every PNG variant into 8 bits per channel: gray (1, 2, 4, 8, 16 bits),
// gray+alpha, palette (with or without a tRNS transparency chunk), RGB and RGBA (8 or 16 bits),
// interlaced or not. Gray becomes R = G = B; a palette is expanded; tRNS becomes an alpha channel;
// 16-bit samples are scaled to 8 bits with rounding, v8 = round(v16 * 255 / 65535) (libpng's
// png_set_scale_16, the same as ImageMagick's). Images with alpha load as 4 channels, others as 3.
// Sample values are taken as stored: gAMA, cHRM, sRGB and iCCP chunks are ignored (no colour
// management), which is what an image comparison wants.
//
// The reader treats the file as hostile and is safe for untrusted input: a missing file, a directory,
// a file that is not a PNG, a truncated or corrupt PNG, or one that claims more than
// bs_imageMaxDimension pixels a side or bs_imageMaxPixels in all gives an error message naming the
// file, never a crash; the size is checked before the pixels are allocated. libpng's errors are caught
// with its setjmp/longjmp mechanism, through a per-call context (no global state): the functions are
// safe to call from several threads at once.
//
// Errors: every function returning bool writes one line into err (errSize bytes, may be NULL/0) on
// failure, starting with the file name, e.g. "ref/a.png: truncated PNG (unexpected end of file)".
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Limits of the reader (errors, not asserts). 16384 x 16384 RGBA is 1 GiB: the product cap keeps a
// loaded image at most 256 MiB (64 Mi pixels x 4 bytes).
enum
{
	bs_imageMaxDimension = 65535,
	bs_imageMaxPixels = 1 << 26,
};

typedef struct bsImage
{
	int width;
	int height;
	int channels;     // 3 (RGB) or 4 (RGBA, alpha not premultiplied)
	uint8_t* pixels;  // width * height * channels bytes, rows top to bottom, no padding; malloc'd
} bsImage;

// Allocates a width x height image of 3 or 4 channels, all bytes zero. On failure (a bad size, out of
// memory) *image is zeroed and err says why.
bool bsImage_Init(bsImage* image, int width, int height, int channels, char* err, size_t errSize);

// Reads a PNG file. On success *image owns its pixels (free with bsImage_Free); on failure *image is
// zeroed (bsImage_Free on it is harmless) and err names the file.
bool bsImage_LoadPng(const char* path, bsImage* image, char* err, size_t errSize);

// The same for a PNG already in memory (size bytes at data); name stands for the file in messages.
bool bsImage_DecodePng(const void* data, size_t size, const char* name, bsImage* image, char* err,
	size_t errSize);

// Writes an 8-bit RGB or RGBA PNG atomically (atomic_file.h: a temporary file renamed into place, so a
// failure leaves any old file at path as it was).
bool bsImage_SavePng(const char* path, const bsImage* image, char* err, size_t errSize);

// The same, renamed into place at once even while a deferred group is open (bs_atomicFileNow): for a
// file its caller moves on itself (a render's private folder).
bool bsImage_SavePngNow(const char* path, const bsImage* image, char* err, size_t errSize);

// The average of count images of one size and channel count, in linear light: each 8-bit sample is
// taken as sRGB-encoded (what POV-Ray writes by default, File_Gamma sRGB), decoded, averaged and
// encoded again, rounded to nearest; with alpha the colours are averaged premultiplied and the alpha
// linearly. A shutter integrates light, which adds linearly: averaging the encoded values instead
// darkens a streak (docs/rendering.md, "Motion blur"). Sums run in image order in doubles, so the
// bytes never depend on threads. *out is allocated (bsImage_Free); false with a message on a size
// mismatch or out of memory.
bool bsImage_AverageLinear(const bsImage* images, int count, bsImage* out, char* err, size_t errSize);

// Frees the pixels and zeroes *image. NULL or an already freed image is fine.
void bsImage_Free(bsImage* image);

// The pixel at (x, y) as opaque RGB: an RGBA pixel is composited over black, c' = round(c * a / 255),
// so fully transparent pixels are black whatever colour they store. rgb receives 3 bytes.
static inline void bsImage_OpaqueRgb(const bsImage* image, int x, int y, uint8_t rgb[3])
{
	const uint8_t* p = image->pixels + ((size_t)y * (size_t)image->width + (size_t)x) * (size_t)image->channels;
	if (image->channels == 4)
	{
		unsigned a = p[3];
		for (int c = 0; c < 3; ++c)
		{
			rgb[c] = (uint8_t)((p[c] * a + 127u) / 255u);
		}
	}
	else
	{
		rgb[0] = p[0];
		rgb[1] = p[1];
		rgb[2] = p[2];
	}
}
