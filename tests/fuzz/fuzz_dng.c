// fuzz_dng.c — libFuzzer target for bsDng_Decode (the distance/normal grid file, io/dng.h).
//
// On success the grid's invariants are checked (dimensions within the limit, a finite positive cell
// size, finite distances, unit normals) and it must encode back to the same bytes when the input was
// not compressed (the format has one encoding of a grid); a compressed input must decode to the grid
// its re-encoding decodes to. On failure the grid must be zeroed and the message name the file and a
// byte offset. Each input is decoded twice: as it is, and with its checksums made right (the
// payload's over the bytes after the header as if not compressed, then the header's), so that
// mutations reach the checks behind the CRCs.
#include "dng.h"

#include <zlib.h>

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

static void bsPutLe32(uint8_t* p, uint32_t v)
{
	for (int b = 0; b < 4; ++b)
	{
		p[b] = (uint8_t)(v >> (8 * b));
	}
}

static void bsFuzzDecode(const uint8_t* data, size_t size)
{
	bsDistanceGrid g;
	bsDngInfo info;
	char message[512];
	message[0] = '\0';
	bool ok = bsDng_Decode(data, size, "fuzz.dng", &g, &info, message, sizeof message);
	bsFuzzCheck(memchr(message, '\0', sizeof message) != NULL);
	if (!ok)
	{
		bsFuzzCheck(g.cells == NULL && g.nx == 0 && info.fileBytes == 0);
		bsFuzzCheck(strncmp(message, "fuzz.dng: byte ", 15) == 0 ||
			strncmp(message, "fuzz.dng: payload byte ", 23) == 0);
		return;
	}
	uint64_t cells = bsDistanceGrid_CellCount(&g);
	bsFuzzCheck(g.nx >= 1 && g.ny >= 1 && g.nz >= 1 && cells <= BS_GRID_MAX_CELLS);
	bsFuzzCheck(isfinite(g.cellSize) && g.cellSize > 0.0);
	for (uint64_t c = 0; c < cells; ++c)
	{
		const bsGridCell* cell = g.cells + c;
		double x = cell->normal[0], y = cell->normal[1], z = cell->normal[2];
		double n2 = x * x + y * y + z * z;
		bsFuzzCheck(isfinite(cell->distance) && fabs(sqrt(n2) - 1.0) <= 1e-3);
	}
	uint8_t* again = NULL;
	size_t againSize = 0;
	bsFuzzCheck(bsDng_Encode(&g, info.compressed, &again, &againSize, message, sizeof message));
	if (!info.compressed)
	{
		bsFuzzCheck(againSize == size && memcmp(again, data, size) == 0);
	}
	else
	{
		bsDistanceGrid back;
		bsFuzzCheck(bsDng_Decode(again, againSize, "again.dng", &back, NULL, message, sizeof message));
		bsFuzzCheck(memcmp(back.cells, g.cells, (size_t)cells * sizeof(bsGridCell)) == 0);
		bsDistanceGrid_Free(&back);
	}
	free(again);
	bsDistanceGrid_Free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	bsFuzzDecode(data, size);
	if (size >= BS_DNG_HEADER_BYTES && size <= (1u << 20))
	{
		uint8_t* fixed = malloc(size);
		bsFuzzCheck(fixed != NULL);
		memcpy(fixed, data, size);
		uLong payload = crc32(crc32(0L, Z_NULL, 0), fixed + BS_DNG_HEADER_BYTES, (uInt)(size - BS_DNG_HEADER_BYTES));
		bsPutLe32(fixed + 104, (uint32_t)payload);
		bsPutLe32(fixed + 124, (uint32_t)crc32(crc32(0L, Z_NULL, 0), fixed, 124));
		bsFuzzDecode(fixed, size);
		free(fixed);
	}
	return 0;
}
