#include "morton.h"

#include <math.h>
#include <stdlib.h>

// Spreads the 10 low bits of x to every third bit.
static uint32_t bsSpreadBits(uint32_t x)
{
	x &= 0x3ffu;
	x = (x | (x << 16)) & 0x030000ffu;
	x = (x | (x << 8)) & 0x0300f00fu;
	x = (x | (x << 4)) & 0x030c30c3u;
	x = (x | (x << 2)) & 0x09249249u;
	return x;
}

static uint32_t bsMortonCode(const double lo[3], const double scale[3], bsVec3 p)
{
	double c[3] = {p.x, p.y, p.z};
	uint32_t code = 0;
	for (int a = 0; a < 3; ++a)
	{
		double q = (c[a] - lo[a]) * scale[a];
		uint32_t cell = q > 0.0 ? (q < 1023.0 ? (uint32_t)q : 1023u) : 0u;  // NaN -> 0
		code |= bsSpreadBits(cell) << a;
	}
	return code;
}

bool bsMortonOrder(bsVec3 lo3, bsVec3 hi3, const bsVec3* points, size_t stride, size_t count,
	uint32_t* order)
{
	if (count > UINT32_MAX)
	{
		return false;
	}
	uint64_t* keys = malloc((count + 1) * sizeof(uint64_t));
	uint64_t* scratch = malloc((count + 1) * sizeof(uint64_t));
	if (keys == NULL || scratch == NULL)
	{
		free(keys);
		free(scratch);
		return false;
	}
	double lo[3] = {lo3.x, lo3.y, lo3.z};
	double hi[3] = {hi3.x, hi3.y, hi3.z};
	double scale[3];
	for (int a = 0; a < 3; ++a)
	{
		double extent = hi[a] - lo[a];
		scale[a] = extent > 0.0 && isfinite(extent) ? 1023.0 / extent : 0.0;
	}
	for (size_t i = 0; i < count; ++i)
	{
		bsVec3 p = *(const bsVec3*)(const void*)((const char*)points + i * stride);
		keys[i] = (uint64_t)bsMortonCode(lo, scale, p) << 32 | (uint64_t)i;
	}
	// LSD radix sort on the 30-bit code, 10 bits a pass; stable, so ties keep index order.
	for (int shift = 32; shift < 62; shift += 10)
	{
		size_t counts[1025] = {0};
		for (size_t i = 0; i < count; ++i)
		{
			counts[((keys[i] >> shift) & 1023u) + 1] += 1;
		}
		for (int b = 0; b < 1024; ++b)
		{
			counts[b + 1] += counts[b];
		}
		for (size_t i = 0; i < count; ++i)
		{
			scratch[counts[(keys[i] >> shift) & 1023u]++] = keys[i];
		}
		uint64_t* swap = keys;
		keys = scratch;
		scratch = swap;
	}
	for (size_t i = 0; i < count; ++i)
	{
		order[i] = (uint32_t)keys[i];
	}
	free(keys);
	free(scratch);
	return true;
}
