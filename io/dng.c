// dng.c — writing and reading the distance/normal grid file (see dng.h for the layout and messages).
#include "dng.h"

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#if defined(__GNUC__)
#define BS_DNG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define BS_DNG_PRINTF(f, a)
#endif

static const uint8_t bs_dngMagic[8] = {0x89, 'D', 'N', 'G', '\r', '\n', 0x1a, '\n'};

enum
{
	bs_dngFlagExactFar = 1,
	bs_dngFlagOpen = 2,
	bs_dngFlagInside = 4,
	bs_dngFlagsKnown = 7,
	bs_dngCompressNone = 0,
	bs_dngCompressZlib = 1,
	bs_dngCellBytes = 16,
};

// ---- little-endian fields ----

static void bsPut32(uint8_t* p, uint32_t v)
{
	for (int b = 0; b < 4; ++b)
	{
		p[b] = (uint8_t)(v >> (8 * b));
	}
}

static void bsPut64(uint8_t* p, uint64_t v)
{
	for (int b = 0; b < 8; ++b)
	{
		p[b] = (uint8_t)(v >> (8 * b));
	}
}

static uint32_t bsGet32(const uint8_t* p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t bsGet64(const uint8_t* p)
{
	return (uint64_t)bsGet32(p) | (uint64_t)bsGet32(p + 4) << 32;
}

static void bsPutF64(uint8_t* p, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	bsPut64(p, bits);
}

static double bsGetF64(const uint8_t* p)
{
	uint64_t bits = bsGet64(p);
	double v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

static void bsPutF32(uint8_t* p, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	bsPut32(p, bits);
}

static float bsGetF32(const uint8_t* p)
{
	uint32_t bits = bsGet32(p);
	float v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

// CRC-32 of any length (zlib's crc32 takes a uInt length).
static uint32_t bsCrc32(const uint8_t* data, size_t size)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	while (size > 0)
	{
		uInt n = size > (1u << 30) ? (1u << 30) : (uInt)size;
		crc = crc32(crc, data, n);
		data += n;
		size -= n;
	}
	return (uint32_t)crc;
}

BS_DNG_PRINTF(3, 4)
static bool bsDngFail(char* err, size_t errlen, const char* format, ...)
{
	if (err != NULL && errlen > 0)
	{
		va_list args;
		va_start(args, format);
		vsnprintf(err, errlen, format, args);
		va_end(args);
	}
	return false;
}

// ---- writing ----

static void bsDng_EncodePayload(const bsDistanceGrid* grid, uint8_t* out)
{
	uint64_t cells = bsDistanceGrid_CellCount(grid);
	for (uint64_t c = 0; c < cells; ++c)
	{
		const bsGridCell* cell = grid->cells + c;
		uint8_t* p = out + c * bs_dngCellBytes;
		bsPutF32(p, cell->distance);
		for (int m = 0; m < 3; ++m)
		{
			bsPutF32(p + 4 + 4 * m, cell->normal[m]);
		}
	}
}

// The whole zlib stream of `size` bytes into `out` (capacity *outSize, set to the bytes written).
static bool bsDng_Deflate(const uint8_t* in, size_t size, uint8_t* out, size_t* outSize)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit(&z, Z_DEFAULT_COMPRESSION) != Z_OK)
	{
		return false;
	}
	size_t capacity = *outSize;
	size_t inLeft = size, outLeft = capacity;
	int status = Z_OK;
	z.next_in = (Bytef*)(uintptr_t)in;
	z.next_out = out;
	while (status == Z_OK)
	{
		uInt inChunk = inLeft > (1u << 30) ? (1u << 30) : (uInt)inLeft;
		uInt outChunk = outLeft > (1u << 30) ? (1u << 30) : (uInt)outLeft;
		z.avail_in = inChunk;
		z.avail_out = outChunk;
		status = deflate(&z, inChunk == inLeft ? Z_FINISH : Z_NO_FLUSH);
		inLeft -= inChunk - z.avail_in;
		outLeft -= outChunk - z.avail_out;
		if (status == Z_BUF_ERROR || (status == Z_OK && outLeft == 0))
		{
			break;
		}
	}
	deflateEnd(&z);
	*outSize = capacity - outLeft;
	return status == Z_STREAM_END;
}

bool bsDng_Encode(const bsDistanceGrid* grid, bool compress, uint8_t** data, size_t* size, char* err,
	size_t errlen)
{
	*data = NULL;
	*size = 0;
	uint64_t cells = bsDistanceGrid_CellCount(grid);
	if (grid->cells == NULL || cells == 0 || cells > BS_GRID_MAX_CELLS)
	{
		return bsDngFail(err, errlen, "invalid grid");
	}
	size_t raw = (size_t)cells * bs_dngCellBytes;
	uint8_t* payload = malloc(raw);
	size_t capacity = compress ? (size_t)compressBound((uLong)raw) + 64 : raw;
	uint8_t* out = malloc(BS_DNG_HEADER_BYTES + capacity);
	if (payload == NULL || out == NULL)
	{
		free(payload);
		free(out);
		return bsDngFail(err, errlen, "out of memory");
	}
	bsDng_EncodePayload(grid, payload);
	size_t stored = raw;
	if (compress)
	{
		stored = capacity;
		if (!bsDng_Deflate(payload, raw, out + BS_DNG_HEADER_BYTES, &stored))
		{
			free(payload);
			free(out);
			return bsDngFail(err, errlen, "zlib compression failed");
		}
	}
	else
	{
		memcpy(out + BS_DNG_HEADER_BYTES, payload, raw);
	}
	uint8_t* h = out;
	memset(h, 0, BS_DNG_HEADER_BYTES);
	memcpy(h, bs_dngMagic, sizeof bs_dngMagic);
	bsPut32(h + 8, BS_DNG_VERSION);
	bsPut32(h + 12, BS_DNG_HEADER_BYTES);
	bsPut32(h + 16, (uint32_t)grid->nx);
	bsPut32(h + 20, (uint32_t)grid->ny);
	bsPut32(h + 24, (uint32_t)grid->nz);
	bsPut32(h + 28, (uint32_t)grid->method);
	bsPut32(h + 32, (uint32_t)grid->band);
	bsPut32(h + 36, (uint32_t)grid->blurRadius);
	bsPut32(h + 40, (uint32_t)grid->blurRounds);
	uint32_t flags = (grid->exactFar ? bs_dngFlagExactFar : 0u) |
		((grid->flags & bs_gridHasOpen) ? bs_dngFlagOpen : 0u) |
		((grid->flags & bs_gridHasInside) ? bs_dngFlagInside : 0u);
	bsPut32(h + 44, flags);
	bsPut32(h + 48, compress ? bs_dngCompressZlib : bs_dngCompressNone);
	bsPutF64(h + 56, grid->cellSize);
	bsPutF64(h + 64, grid->origin.x);
	bsPutF64(h + 72, grid->origin.y);
	bsPutF64(h + 80, grid->origin.z);
	bsPut64(h + 88, grid->meshHash);
	bsPut64(h + 96, stored);
	bsPut32(h + 104, bsCrc32(payload, raw));
	bsPut32(h + 124, bsCrc32(h, 124));
	free(payload);
	*data = out;
	*size = BS_DNG_HEADER_BYTES + stored;
	return true;
}

bool bsDng_Write(const char* path, const bsDistanceGrid* grid, bool compress, char* err, size_t errlen)
{
	uint8_t* data = NULL;
	size_t size = 0;
	if (!bsDng_Encode(grid, compress, &data, &size, err, errlen))
	{
		return false;
	}
	bsAtomicFile f;
	bool ok = bsAtomicFile_Open(&f, path, err, errlen);
	if (ok)
	{
		bsAtomicFile_Write(&f, data, size);
		ok = bsAtomicFile_Commit(&f, 0);
	}
	free(data);
	return ok;
}

// ---- reading ----

typedef struct bsDngReader
{
	const uint8_t* data;
	size_t size;
	const char* name;
	char* err;
	size_t errlen;
} bsDngReader;

BS_DNG_PRINTF(3, 4)
static bool bsDngAt(const bsDngReader* r, uint64_t offset, const char* format, ...)
{
	if (r->err == NULL || r->errlen == 0)
	{
		return false;
	}
	int n = snprintf(r->err, r->errlen, "%s: byte %" PRIu64 ": ", r->name, offset);
	if (n >= 0 && (size_t)n < r->errlen - 1)
	{
		va_list args;
		va_start(args, format);
		vsnprintf(r->err + n, r->errlen - (size_t)n, format, args);
		va_end(args);
	}
	return false;
}

// A u32 field in [lo, hi], or a message naming it.
static bool bsDng_Field(const bsDngReader* r, size_t offset, uint32_t lo, uint32_t hi, const char* what,
	uint32_t* out)
{
	*out = bsGet32(r->data + offset);
	if (*out < lo || *out > hi)
	{
		return bsDngAt(r, offset, "%s %" PRIu32 " out of range %" PRIu32 "..%" PRIu32, what, *out, lo, hi);
	}
	return true;
}

static bool bsDng_ReadHeader(const bsDngReader* r, bsDistanceGrid* g, bsDngInfo* info)
{
	const uint8_t* h = r->data;
	if (r->size < BS_DNG_HEADER_BYTES)
	{
		return bsDngAt(r, r->size, "truncated header (%zu bytes, expected %d)", r->size, BS_DNG_HEADER_BYTES);
	}
	if (memcmp(h, bs_dngMagic, sizeof bs_dngMagic) != 0)
	{
		return bsDngAt(r, 0, "not a distance/normal grid (bad magic)");
	}
	uint32_t stored = bsGet32(h + 124), computed = bsCrc32(h, 124);
	if (stored != computed)
	{
		return bsDngAt(r, 124, "header checksum mismatch (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 ")",
			stored, computed);
	}
	info->version = bsGet32(h + 8);
	if (info->version != BS_DNG_VERSION)
	{
		return bsDngAt(r, 8, "unsupported version %" PRIu32 " (this reader reads %d)", info->version,
			BS_DNG_VERSION);
	}
	if (bsGet32(h + 12) != BS_DNG_HEADER_BYTES)
	{
		return bsDngAt(r, 12, "header size %" PRIu32 ", expected %d", bsGet32(h + 12), BS_DNG_HEADER_BYTES);
	}
	uint64_t n[3] = {bsGet32(h + 16), bsGet32(h + 20), bsGet32(h + 24)};
	if (n[0] == 0 || n[1] == 0 || n[2] == 0 || n[0] * n[1] > BS_GRID_MAX_CELLS ||
		n[0] * n[1] * n[2] > BS_GRID_MAX_CELLS)
	{
		return bsDngAt(r, 16, "grid of %" PRIu64 " x %" PRIu64 " x %" PRIu64 " cells (each at least 1, at most %" PRIu64
			" in all)", n[0], n[1], n[2], (uint64_t)BS_GRID_MAX_CELLS);
	}
	g->nx = (int)n[0];
	g->ny = (int)n[1];
	g->nz = (int)n[2];
	uint32_t method = bsGet32(h + 28);
	if (method >= bs_gridMethodCount)
	{
		return bsDngAt(r, 28, "unknown method %" PRIu32, method);
	}
	g->method = (bsGridMethod)method;
	uint32_t band, radius, rounds;
	if (!bsDng_Field(r, 32, 1, 64, "band", &band) || !bsDng_Field(r, 36, 1, 8, "blur radius", &radius) ||
		!bsDng_Field(r, 40, 0, 64, "blur rounds", &rounds))
	{
		return false;
	}
	g->band = (int)band;
	g->blurRadius = (int)radius;
	g->blurRounds = (int)rounds;
	uint32_t flags = bsGet32(h + 44);
	if (flags & ~(uint32_t)bs_dngFlagsKnown)
	{
		return bsDngAt(r, 44, "unknown flags 0x%" PRIx32, flags & ~(uint32_t)bs_dngFlagsKnown);
	}
	g->exactFar = (flags & bs_dngFlagExactFar) != 0;
	g->flags = ((flags & bs_dngFlagOpen) ? bs_gridHasOpen : 0u) | ((flags & bs_dngFlagInside) ? bs_gridHasInside : 0u);
	uint32_t compression = bsGet32(h + 48);
	if (compression > bs_dngCompressZlib)
	{
		return bsDngAt(r, 48, "unknown compression %" PRIu32, compression);
	}
	info->compressed = compression == bs_dngCompressZlib;
	if (bsGet32(h + 52) != 0)
	{
		return bsDngAt(r, 52, "reserved bytes not zero");
	}
	for (size_t k = 108; k < 124; ++k)
	{
		if (h[k] != 0)
		{
			return bsDngAt(r, 108, "reserved bytes not zero");
		}
	}
	g->cellSize = bsGetF64(h + 56);
	if (!isfinite(g->cellSize) || !(g->cellSize > 0.0))
	{
		return bsDngAt(r, 56, "cell size not finite and positive");
	}
	g->origin = bsV3(bsGetF64(h + 64), bsGetF64(h + 72), bsGetF64(h + 80));
	bsVec3 far = bsAdd(g->origin, bsV3(g->nx * g->cellSize, g->ny * g->cellSize, g->nz * g->cellSize));
	if (!bsIsValidVec3(g->origin) || !bsIsValidVec3(far))
	{
		return bsDngAt(r, 64, "origin not finite (or its far corner)");
	}
	g->meshHash = bsGet64(h + 88);
	info->payloadBytes = bsGet64(h + 96);
	info->payloadCrc = bsGet32(h + 104);
	info->fileBytes = r->size;
	return true;
}

// Inflates exactly `raw` bytes from the stored payload, which must be one whole zlib stream.
static bool bsDng_Inflate(const bsDngReader* r, const uint8_t* in, size_t size, uint8_t* out, size_t raw)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK)
	{
		return bsDngAt(r, BS_DNG_HEADER_BYTES, "out of memory");
	}
	size_t inLeft = size, outLeft = raw;
	int status = Z_OK;
	z.next_in = (Bytef*)(uintptr_t)in;
	z.next_out = out;
	while (status == Z_OK)
	{
		uInt inChunk = inLeft > (1u << 30) ? (1u << 30) : (uInt)inLeft;
		uInt outChunk = outLeft > (1u << 30) ? (1u << 30) : (uInt)outLeft;
		z.avail_in = inChunk;
		z.avail_out = outChunk;
		status = inflate(&z, Z_NO_FLUSH);
		inLeft -= inChunk - z.avail_in;
		outLeft -= outChunk - z.avail_out;
		if (status == Z_OK && inChunk == z.avail_in && outChunk == z.avail_out)
		{
			status = Z_BUF_ERROR;  // no progress: the input ended or the output is full
		}
	}
	char why[128];
	snprintf(why, sizeof why, "%s", z.msg != NULL ? z.msg : "");
	inflateEnd(&z);
	if (status == Z_STREAM_END && outLeft == 0 && inLeft == 0)
	{
		return true;
	}
	if (status == Z_STREAM_END || (status == Z_BUF_ERROR && outLeft == 0))
	{
		return bsDngAt(r, BS_DNG_HEADER_BYTES, "compressed payload inflates to other than %zu bytes%s", raw,
			inLeft > 0 && status == Z_STREAM_END ? " (data after the stream)" : "");
	}
	if (status == Z_BUF_ERROR)
	{
		return bsDngAt(r, BS_DNG_HEADER_BYTES, "corrupt compressed payload (zlib: truncated stream)");
	}
	return bsDngAt(r, BS_DNG_HEADER_BYTES, "corrupt compressed payload (zlib: %s)", why[0] ? why : "error");
}

static bool bsDng_ReadCells(const bsDngReader* r, const uint8_t* payload, bsDistanceGrid* g)
{
	uint64_t cells = bsDistanceGrid_CellCount(g);
	for (uint64_t c = 0; c < cells; ++c)
	{
		const uint8_t* p = payload + c * bs_dngCellBytes;
		bsGridCell* cell = g->cells + c;
		cell->distance = bsGetF32(p);
		double len2 = 0.0;
		bool finite = true;
		for (int m = 0; m < 3; ++m)
		{
			cell->normal[m] = bsGetF32(p + 4 + 4 * m);
			finite = finite && isfinite(cell->normal[m]);
			len2 += (double)cell->normal[m] * (double)cell->normal[m];
		}
		const char* problem = !isfinite(cell->distance) ? "distance not finite"
			: (!finite || fabs(sqrt(len2) - 1.0) > 1e-3) ? "normal not unit" : NULL;
		if (problem != NULL)
		{
			uint64_t i = c % (uint64_t)g->nx, j = (c / (uint64_t)g->nx) % (uint64_t)g->ny;
			uint64_t k = c / ((uint64_t)g->nx * (uint64_t)g->ny);
			if (r->err != NULL && r->errlen > 0)
			{
				snprintf(r->err, r->errlen, "%s: payload byte %" PRIu64 ": cell (%" PRIu64 ", %" PRIu64 ", %" PRIu64 "): %s",
					r->name, c * bs_dngCellBytes + (problem[0] == 'n' ? 4u : 0u), i, j, k, problem);
				if (problem[0] == 'n' && finite)
				{
					size_t n = strlen(r->err);
					snprintf(r->err + n, r->errlen - n, " (length %.6g)", sqrt(len2));
				}
			}
			return false;
		}
	}
	return true;
}

static bool bsDng_DecodeInto(const bsDngReader* r, bsDistanceGrid* g, bsDngInfo* info)
{
	if (!bsDng_ReadHeader(r, g, info))
	{
		return false;
	}
	uint64_t cells = bsDistanceGrid_CellCount(g);
	size_t raw = (size_t)cells * bs_dngCellBytes;
	uint64_t available = r->size - BS_DNG_HEADER_BYTES;
	if (!info->compressed && info->payloadBytes != raw)
	{
		return bsDngAt(r, 96, "payload of %" PRIu64 " bytes, expected %zu", info->payloadBytes, raw);
	}
	// Deflate never packs more than 1032 bytes into one (RFC 1951's longest match in its shortest
	// code): a larger promise is refused before the cells are allocated, so memory stays within about
	// a thousand times the file.
	if (info->compressed && raw / 1032 > info->payloadBytes)
	{
		return bsDngAt(r, 96, "compressed payload of %" PRIu64 " bytes cannot hold %zu bytes", info->payloadBytes,
			raw);
	}
	if (info->compressed && info->payloadBytes > available)
	{
		return bsDngAt(r, 96, "payload of %" PRIu64 " bytes, more than the file holds (%" PRIu64 ")",
			info->payloadBytes, available);
	}
	if (available < info->payloadBytes)
	{
		return bsDngAt(r, BS_DNG_HEADER_BYTES, "truncated payload (%" PRIu64 " bytes, expected %" PRIu64 ")",
			available, info->payloadBytes);
	}
	if (available > info->payloadBytes)
	{
		uint64_t extra = available - info->payloadBytes;
		return bsDngAt(r, BS_DNG_HEADER_BYTES + info->payloadBytes, "%" PRIu64 " byte%s after the payload",
			extra, extra == 1 ? "" : "s");
	}
	const uint8_t* stored = r->data + BS_DNG_HEADER_BYTES;
	uint8_t* inflated = NULL;
	if (info->compressed)
	{
		inflated = malloc(raw);
		if (inflated == NULL)
		{
			return bsDngAt(r, BS_DNG_HEADER_BYTES, "out of memory for %zu bytes", raw);
		}
		if (!bsDng_Inflate(r, stored, (size_t)info->payloadBytes, inflated, raw))
		{
			free(inflated);
			return false;
		}
		stored = inflated;
	}
	uint32_t crc = bsCrc32(stored, raw);
	bool ok = true;
	if (crc != info->payloadCrc)
	{
		ok = bsDngAt(r, 104, "payload checksum mismatch (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 ")",
			info->payloadCrc, crc);
	}
	if (ok)
	{
		g->cells = malloc((size_t)cells * sizeof *g->cells);
		ok = g->cells != NULL ? bsDng_ReadCells(r, stored, g)
			: bsDngAt(r, BS_DNG_HEADER_BYTES, "out of memory for %zu bytes", raw);
	}
	free(inflated);
	return ok;
}

bool bsDng_Decode(const uint8_t* data, size_t size, const char* name, bsDistanceGrid* grid,
	bsDngInfo* info, char* err, size_t errlen)
{
	memset(grid, 0, sizeof *grid);
	bsDngInfo local;
	bsDngInfo* i = info != NULL ? info : &local;
	memset(i, 0, sizeof *i);
	if (err != NULL && errlen > 0)
	{
		err[0] = '\0';
	}
	bsDngReader r = {data, data != NULL ? size : 0, name != NULL ? name : "<dng>", err, errlen};
	if (!bsDng_DecodeInto(&r, grid, i))
	{
		bsDistanceGrid_Free(grid);
		memset(i, 0, sizeof *i);
		return false;
	}
	return true;
}

// The bytes decoding a file of `size` bytes needs at most: the file, the inflated payload and the
// cells (16 bytes a cell each), from the cell counts of its header, read before anything is inflated
// (an unreadable header counts the file alone: the decoder refuses it). Saturates at UINT64_MAX.
static uint64_t bsDng_DecodeBytes(const uint8_t* data, size_t size)
{
	uint64_t bytes = size;
	if (size < 28 || memcmp(data, bs_dngMagic, sizeof bs_dngMagic) != 0)
	{
		return bytes;
	}
	uint64_t cells = 1;
	for (int a = 0; a < 3; ++a)
	{
		uint64_t n = bsGet32(data + 16 + 4 * a);
		if (n != 0 && cells > UINT64_MAX / 64 / n)
		{
			return UINT64_MAX;
		}
		cells *= n;
	}
	return bytes + cells * 2 * sizeof(bsGridCell);
}

bool bsDng_Load(const char* path, bsDistanceGrid* grid, bsDngInfo* info, char* err, size_t errlen)
{
	return bsDng_LoadWithin(path, 0, grid, info, err, errlen);
}

bool bsDng_LoadWithin(const char* path, uint64_t maxBytes, bsDistanceGrid* grid, bsDngInfo* info, char* err,
	size_t errlen)
{
	memset(grid, 0, sizeof *grid);
	// O_NONBLOCK: a FIFO must not block the open; it is refused below as not a regular file.
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
	{
		return bsDngFail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
	}
	struct stat st;
	int statError = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
	if (statError != 0 || !S_ISREG(st.st_mode))
	{
		close(fd);
		return statError != 0 ? bsDngFail(err, errlen, "%s: cannot read: %s", path, strerror(statError))
			: bsDngFail(err, errlen, "%s: not a regular file", path);
	}
	// The largest file the reader could accept: a header and an uncompressed payload of the most cells
	// (a zlib stream of them is never larger than compressBound of it, about the same).
	uint64_t limit = BS_DNG_HEADER_BYTES + (uint64_t)compressBound((uLong)(BS_GRID_MAX_CELLS * bs_dngCellBytes));
	if ((uint64_t)st.st_size > limit || (uint64_t)st.st_size >= (uint64_t)SIZE_MAX)
	{
		close(fd);
		return bsDngFail(err, errlen, "%s: file too large", path);
	}
	size_t size = (size_t)st.st_size;
	uint8_t* data = malloc(size > 0 ? size : 1);
	if (data == NULL)
	{
		close(fd);
		return bsDngFail(err, errlen, "%s: out of memory", path);
	}
	size_t got = 0;
	while (got < size)
	{
		ssize_t n = read(fd, data + got, size - got);
		if (n < 0 && errno == EINTR)
		{
			continue;
		}
		if (n < 0)
		{
			int e = errno;
			close(fd);
			free(data);
			return bsDngFail(err, errlen, "%s: cannot read: %s", path, strerror(e));
		}
		if (n == 0)
		{
			break;  // the file shrank: decode what there is (a truncation error names the offset)
		}
		got += (size_t)n;
	}
	close(fd);
	uint64_t need = bsDng_DecodeBytes(data, got);
	if (maxBytes > 0 && need > maxBytes)
	{
		free(data);
		return bsDngFail(err, errlen, "%s: loading the grid needs about %" PRIu64 " bytes (its header's cells, "
			"inflated), more than the %" PRIu64 " bytes it may use", path, need, maxBytes);
	}
	bool ok = bsDng_Decode(data, got, path, grid, info, err, errlen);
	free(data);
	return ok;
}
