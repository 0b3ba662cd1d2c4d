// image.c — PNG in and out with libpng; errors caught with setjmp in a per-call context.
#include "image.h"

#include "atomic_file.h"
#include "open_file.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// Writes "path: message" into err.
static bool bsImageFail(char* err, size_t errSize, const char* path, const char* fmt, ...)
	BS_PRINTF_FORMAT(4, 5);

static bool bsImageFail(char* err, size_t errSize, const char* path, const char* fmt, ...)
{
	if (err == NULL || errSize == 0)
	{
		return false;
	}
	int n = snprintf(err, errSize, "%s: ", path != NULL ? path : "(null)");
	if (n >= 0 && (size_t)n < errSize)
	{
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + n, errSize - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

bool bsImage_Init(bsImage* image, int width, int height, int channels, char* err, size_t errSize)
{
	memset(image, 0, sizeof(*image));
	if (width <= 0 || height <= 0 || (channels != 3 && channels != 4) || width > bs_imageMaxDimension ||
		height > bs_imageMaxDimension || (int64_t)width * height > bs_imageMaxPixels)
	{
		return bsImageFail(err, errSize, "image", "cannot make a %dx%d image of %d channels (at most %d "
			"pixels a side, %d in all, 3 or 4 channels)", width, height, channels, bs_imageMaxDimension,
			bs_imageMaxPixels);
	}
	image->pixels = calloc((size_t)width * (size_t)height, (size_t)channels);
	if (image->pixels == NULL)
	{
		return bsImageFail(err, errSize, "image", "out of memory for a %dx%d image", width, height);
	}
	image->width = width;
	image->height = height;
	image->channels = channels;
	return true;
}

void bsImage_Free(bsImage* image)
{
	if (image != NULL)
	{
		free(image->pixels);
		memset(image, 0, sizeof(*image));
	}
}

// ---- Reading --------------------------------------------------------------------------------------

// Everything a read needs, reachable from libpng's callbacks through png_get_error_ptr/io_ptr. The
// function that calls setjmp modifies none of its own locals afterwards: what changes lives here.
typedef struct bsPngReader
{
	const char* path;
	FILE* file;          // the source: a file, or (file NULL) the bytes data[at .. size)
	const uint8_t* data;
	size_t size, at;
	char* err;
	size_t errSize;
	png_structp png;
	png_infop info;
	uint8_t* pixels;     // the image being read (owned until handed to the caller)
	png_bytep* rows;
	bool failed;         // err holds the message
	size_t refused;      // the last allocation bsPngMalloc refused (a chunk claiming too many bytes)
} bsPngReader;

// The largest block libpng may allocate for a read. Its own blocks are a row (65535 pixels x 8 bytes
// at most), zlib's state and ancillary chunks: a larger request comes from a length field that claims
// more than any valid image of ours needs (libpng would allocate it before finding the file shorter).
// The image itself is allocated here, not by libpng, under bs_imageMaxPixels.
enum
{
	bs_pngAllocMax = 16 << 20,
};

static png_voidp bsPngMalloc(png_structp png, png_alloc_size_t size)
{
	bsPngReader* r = png_get_mem_ptr(png);
	if (size > bs_pngAllocMax)
	{
		r->refused = size;
		return NULL;
	}
	return malloc(size);
}

static void bsPngFree(png_structp png, png_voidp p)
{
	(void)png;
	free(p);
}

static void bsPngReadError(png_structp png, png_const_charp message)
{
	bsPngReader* r = png_get_error_ptr(png);
	if (!r->failed && r->refused > 0)
	{
		bsImageFail(r->err, r->errSize, r->path, "corrupt PNG: a chunk or row claims %zu bytes (at most %d "
			"MiB): %s", (size_t)r->refused, bs_pngAllocMax >> 20, message);
		r->failed = true;
	}
	if (!r->failed)
	{
		bsImageFail(r->err, r->errSize, r->path, "corrupt PNG: %s", message);
		r->failed = true;
	}
	png_longjmp(png, 1);
}

static void bsPngWarning(png_structp png, png_const_charp message)
{
	// Warnings (a bad ancillary chunk, skipped) do not stop the read and are not shown.
	(void)png;
	(void)message;
}

static void bsPngReadData(png_structp png, png_bytep data, size_t length)
{
	bsPngReader* r = png_get_io_ptr(png);
	size_t got;
	if (r->file != NULL)
	{
		got = fread(data, 1, length, r->file);
	}
	else
	{
		got = length <= r->size - r->at ? length : r->size - r->at;
		memcpy(data, r->data + r->at, got);
		r->at += got;
	}
	if (got != length)
	{
		if (r->file != NULL && ferror(r->file))
		{
			bsImageFail(r->err, r->errSize, r->path, "cannot read: %s", strerror(errno));
		}
		else
		{
			bsImageFail(r->err, r->errSize, r->path, "truncated PNG (unexpected end of file)");
		}
		r->failed = true;
		png_error(png, "read");
	}
}

// The libpng part of a read, after the signature was checked. Returns false with r->err set.
static bool bsPngRead(bsPngReader* r, bsImage* image)
{
	if (setjmp(png_jmpbuf(r->png)))
	{
		return false;
	}
	png_set_read_fn(r->png, r, bsPngReadData);
	png_set_sig_bytes(r->png, 8);
	// libpng's own size limits up to the format's (2^31 - 1 a side): the check below, with a clearer
	// message, comes before anything of the image's size is allocated (png_read_update_info is the
	// first call that allocates rows). Also caps what one ancillary chunk may allocate.
	png_set_user_limits(r->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
	png_set_chunk_malloc_max(r->png, 8u << 20);
	png_read_info(r->png, r->info);

	png_uint_32 width = png_get_image_width(r->png, r->info);
	png_uint_32 height = png_get_image_height(r->png, r->info);
	if (width > bs_imageMaxDimension || height > bs_imageMaxDimension ||
		(uint64_t)width * height > (uint64_t)bs_imageMaxPixels)
	{
		bsImageFail(r->err, r->errSize, r->path, "image of %ux%u pixels is too large (at most %d pixels a "
			"side and %d in all)", (unsigned)width, (unsigned)height, bs_imageMaxDimension,
			bs_imageMaxPixels);
		r->failed = true;
		return false;
	}

	// Everything to 8-bit RGB or RGBA.
	png_set_expand(r->png);  // palette -> RGB, gray < 8 bits -> 8 bits, tRNS -> alpha
	png_set_scale_16(r->png);
	png_set_gray_to_rgb(r->png);
	png_set_interlace_handling(r->png);
	png_read_update_info(r->png, r->info);

	int channels = png_get_channels(r->png, r->info);
	size_t rowBytes = png_get_rowbytes(r->png, r->info);
	if (png_get_bit_depth(r->png, r->info) != 8 || (channels != 3 && channels != 4) ||
		rowBytes != (size_t)width * (size_t)channels)
	{
		bsImageFail(r->err, r->errSize, r->path, "unsupported PNG layout (%d channels of %d bits)", channels,
			png_get_bit_depth(r->png, r->info));
		r->failed = true;
		return false;
	}
	r->pixels = malloc((size_t)height * rowBytes);
	r->rows = malloc((size_t)height * sizeof(png_bytep));
	if (r->pixels == NULL || r->rows == NULL)
	{
		bsImageFail(r->err, r->errSize, r->path, "out of memory for %ux%u pixels", (unsigned)width,
			(unsigned)height);
		r->failed = true;
		return false;
	}
	for (png_uint_32 y = 0; y < height; ++y)
	{
		r->rows[y] = r->pixels + (size_t)y * rowBytes;
	}
	png_read_image(r->png, r->rows);
	// Reads up to IEND, so a file cut after its pixel data is still reported as truncated.
	png_read_end(r->png, NULL);

	image->width = (int)width;
	image->height = (int)height;
	image->channels = channels;
	image->pixels = r->pixels;
	r->pixels = NULL;
	return true;
}

// The message for a source whose first `got` bytes (got <= 8) are not a whole PNG signature.
static bool bsBadSignature(const uint8_t* signature, size_t got, const char* path, char* err, size_t errSize)
{
	if (got == 0)
	{
		return bsImageFail(err, errSize, path, "not a PNG file (the file is empty)");
	}
	if (png_sig_cmp(signature, 0, got) == 0)
	{
		return bsImageFail(err, errSize, path, "truncated PNG (unexpected end of file)");
	}
	return bsImageFail(err, errSize, path, "not a PNG file (no PNG signature)");
}

// Decodes what follows the signature from r's source into *image; frees everything but the image.
static bool bsPngDecode(bsPngReader* r, bsImage* image)
{
	r->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, r, bsPngReadError, bsPngWarning, r, bsPngMalloc,
		bsPngFree);
	r->info = r->png != NULL ? png_create_info_struct(r->png) : NULL;
	bool ok = false;
	if (r->info == NULL)
	{
		bsImageFail(r->err, r->errSize, r->path, "out of memory");
	}
	else
	{
		ok = bsPngRead(r, image);
	}
	if (r->png != NULL)
	{
		png_destroy_read_struct(&r->png, r->info != NULL ? &r->info : NULL, NULL);
	}
	free(r->pixels);
	free(r->rows);
	if (!ok)
	{
		memset(image, 0, sizeof(*image));
	}
	return ok;
}

bool bsImage_LoadPng(const char* path, bsImage* image, char* err, size_t errSize)
{
	memset(image, 0, sizeof(*image));
	if (err != NULL && errSize > 0)
	{
		err[0] = '\0';
	}
	if (path == NULL)
	{
		return bsImageFail(err, errSize, path, "no file name");
	}
	int why;
	FILE* file = bsOpenRegularStream(path, &why);
	if (file == NULL)
	{
		char reason[160];
		bsOpenError(why, reason, sizeof(reason));
		return why == EISDIR ? bsImageFail(err, errSize, path, "cannot read: it is a directory, not a PNG file")
			: bsImageFail(err, errSize, path, "%s", reason);
	}
	uint8_t signature[8];
	size_t got = fread(signature, 1, sizeof(signature), file);
	if (got != sizeof(signature) || png_sig_cmp(signature, 0, sizeof(signature)) != 0)
	{
		bool readError = ferror(file);
		int e = errno;
		fclose(file);
		if (readError)
		{
			return bsImageFail(err, errSize, path, "cannot read: %s", strerror(e));
		}
		return bsBadSignature(signature, got, path, err, errSize);
	}
	bsPngReader r = {.path = path, .file = file, .err = err, .errSize = errSize};
	bool ok = bsPngDecode(&r, image);
	fclose(file);
	return ok;
}

bool bsImage_DecodePng(const void* data, size_t size, const char* name, bsImage* image, char* err,
	size_t errSize)
{
	memset(image, 0, sizeof(*image));
	if (err != NULL && errSize > 0)
	{
		err[0] = '\0';
	}
	if (data == NULL && size > 0)
	{
		return bsImageFail(err, errSize, name, "no data");
	}
	const uint8_t* bytes = data;
	size_t got = size < 8 ? size : 8;
	if (got != 8 || png_sig_cmp(bytes, 0, 8) != 0)
	{
		return bsBadSignature(bytes, got, name, err, errSize);
	}
	bsPngReader r = {.path = name, .data = bytes, .size = size, .at = 8, .err = err, .errSize = errSize};
	return bsPngDecode(&r, image);
}

// ---- Writing --------------------------------------------------------------------------------------

typedef struct bsPngWriter
{
	const char* path;
	bsAtomicFile file;
	char* err;
	size_t errSize;
	png_structp png;
	png_infop info;
	png_bytep* rows;
	bool failed;
} bsPngWriter;

static void bsPngWriteError(png_structp png, png_const_charp message)
{
	bsPngWriter* w = png_get_error_ptr(png);
	if (!w->failed)
	{
		bsImageFail(w->err, w->errSize, w->path, "cannot write PNG: %s", message);
		w->failed = true;
	}
	png_longjmp(png, 1);
}

static void bsPngWriteData(png_structp png, png_bytep data, size_t length)
{
	bsPngWriter* w = png_get_io_ptr(png);
	if (!bsAtomicFile_Write(&w->file, data, length))
	{
		w->failed = true;  // the atomic file wrote the message (naming the path) into err
		png_error(png, "write");
	}
}

static void bsPngFlush(png_structp png)
{
	(void)png;
}

static bool bsPngWrite(bsPngWriter* w, const bsImage* image)
{
	if (setjmp(png_jmpbuf(w->png)))
	{
		return false;
	}
	png_set_write_fn(w->png, w, bsPngWriteData, bsPngFlush);
	png_set_IHDR(w->png, w->info, (png_uint_32)image->width, (png_uint_32)image->height, 8,
		image->channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(w->png, w->info);
	size_t rowBytes = (size_t)image->width * (size_t)image->channels;
	for (int y = 0; y < image->height; ++y)
	{
		w->rows[y] = image->pixels + (size_t)y * rowBytes;
	}
	png_write_image(w->png, w->rows);
	png_write_end(w->png, w->info);
	return true;
}

static bool bsImage_Save(const char* path, const bsImage* image, unsigned flags, char* err, size_t errSize)
{
	if (err != NULL && errSize > 0)
	{
		err[0] = '\0';
	}
	if (image == NULL || image->pixels == NULL || image->width <= 0 || image->height <= 0 ||
		(image->channels != 3 && image->channels != 4))
	{
		return bsImageFail(err, errSize, path, "cannot write PNG: no image");
	}
	bsPngWriter w = {.path = path, .err = err, .errSize = errSize};
	w.rows = malloc((size_t)image->height * sizeof(png_bytep));
	if (w.rows == NULL)
	{
		return bsImageFail(err, errSize, path, "out of memory");
	}
	if (!bsAtomicFile_Open(&w.file, path, err, errSize))
	{
		free(w.rows);
		return false;
	}
	w.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w, bsPngWriteError, bsPngWarning);
	w.info = w.png != NULL ? png_create_info_struct(w.png) : NULL;
	bool ok = false;
	if (w.info == NULL)
	{
		bsImageFail(err, errSize, path, "out of memory");
	}
	else
	{
		ok = bsPngWrite(&w, image);
	}
	if (w.png != NULL)
	{
		png_destroy_write_struct(&w.png, w.info != NULL ? &w.info : NULL);
	}
	free(w.rows);
	if (ok)
	{
		ok = bsAtomicFile_Commit(&w.file, flags);
	}
	else
	{
		bsAtomicFile_Abort(&w.file);
	}
	return ok;
}

bool bsImage_SavePng(const char* path, const bsImage* image, char* err, size_t errSize)
{
	return bsImage_Save(path, image, 0, err, errSize);
}

bool bsImage_SavePngNow(const char* path, const bsImage* image, char* err, size_t errSize)
{
	return bsImage_Save(path, image, bs_atomicFileNow, err, errSize);
}

// sRGB's transfer function (IEC 61966-2-1) both ways, on [0, 1].
static double bsSrgbToLinear(double v)
{
	return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static double bsLinearToSrgb(double v)
{
	return v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1.0 / 2.4) - 0.055;
}

static uint8_t bsImage_Byte(double v)
{
	double b = floor(v * 255.0 + 0.5);
	return (uint8_t)(b < 0.0 ? 0.0 : (b > 255.0 ? 255.0 : b));
}

bool bsImage_AverageLinear(const bsImage* images, int count, bsImage* out, char* err, size_t errSize)
{
	memset(out, 0, sizeof(*out));
	if (count < 1 || images[0].pixels == NULL)
	{
		return bsImageFail(err, errSize, "average", "no images");
	}
	const bsImage* first = images;
	for (int k = 1; k < count; ++k)
	{
		if (images[k].width != first->width || images[k].height != first->height ||
			images[k].channels != first->channels)
		{
			char what[128];
			snprintf(what, sizeof(what), "image %d is %dx%d with %d channels, image 0 %dx%d with %d", k,
				images[k].width, images[k].height, images[k].channels, first->width, first->height,
				first->channels);
			return bsImageFail(err, errSize, "average", "%s", what);
		}
	}
	if (!bsImage_Init(out, first->width, first->height, first->channels, err, errSize))
	{
		return false;
	}
	double linear[256];
	for (int v = 0; v < 256; ++v)
	{
		linear[v] = bsSrgbToLinear(v / 255.0);
	}
	int ch = first->channels;
	size_t pixels = (size_t)first->width * (size_t)first->height;
	for (size_t i = 0; i < pixels; ++i)
	{
		double sum[3] = {0.0, 0.0, 0.0}, alpha = 0.0;
		for (int k = 0; k < count; ++k)
		{
			const uint8_t* p = images[k].pixels + i * (size_t)ch;
			double a = ch == 4 ? p[3] / 255.0 : 1.0;
			for (int c = 0; c < 3; ++c)
			{
				sum[c] += linear[p[c]] * a;  // premultiplied: a transparent sample adds no colour
			}
			alpha += a;
		}
		uint8_t* q = out->pixels + i * (size_t)ch;
		for (int c = 0; c < 3; ++c)
		{
			q[c] = alpha > 0.0 ? bsImage_Byte(bsLinearToSrgb(sum[c] / alpha)) : 0;
		}
		if (ch == 4)
		{
			q[3] = bsImage_Byte(alpha / count);
		}
	}
	return true;
}
