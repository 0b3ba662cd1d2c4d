#include "procedural.h"

#include "blobsim/rng.h"

#include <stddef.h>
#include <stdlib.h>

// Noise octaves of the heightfield: lattice frequency over [0, 1] and amplitude.
static const int bsNoiseFrequency[3] = {3, 7, 17};
static const double bsNoiseAmplitude[3] = {0.09, 0.035, 0.012};
#define BS_BUMP_AMPLITUDE 0.003

// A lattice value in [-1, 1) for one octave, hashed from the seed (no tables to allocate).
static double bsLatticeValue(uint64_t seed, int octave, int ix, int iz)
{
	uint64_t key = seed ^ ((uint64_t)(uint32_t)ix * 0x9e3779b97f4a7c15ull) ^
		((uint64_t)(uint32_t)iz * 0xc2b2ae3d27d4eb4full) ^ ((uint64_t)(uint32_t)octave << 56);
	uint64_t h = bsSplitMix64(&key);
	return (double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static double bsSmoothStep(double u)
{
	return u * u * (3.0 - 2.0 * u);
}

// The smooth part of the terrain height at (x, z): value noise, bilinear with smoothstep weights.
static double bsNoiseHeight(uint64_t seed, double x, double z)
{
	double h = 0.0;
	for (int o = 0; o < 3; ++o)
	{
		double fx = x * (double)bsNoiseFrequency[o];
		double fz = z * (double)bsNoiseFrequency[o];
		double gx = floor(fx), gz = floor(fz);
		int ix = (int)gx, iz = (int)gz;
		double u = bsSmoothStep(fx - gx), v = bsSmoothStep(fz - gz);
		double a = bsLatticeValue(seed, o, ix, iz);
		double b = bsLatticeValue(seed, o, ix + 1, iz);
		double c = bsLatticeValue(seed, o, ix, iz + 1);
		double d = bsLatticeValue(seed, o, ix + 1, iz + 1);
		double top = a + u * (b - a);
		double bottom = c + u * (d - c);
		h += bsNoiseAmplitude[o] * (top + v * (bottom - top));
	}
	return h;
}

// Appends the triangle when bsMakeTriangle accepts it (degenerate ones are skipped). Returns the new
// count.
static uint32_t bsAppendTriangle(bsTriangle* tris, uint32_t count, bsVec3 a, bsVec3 b, bsVec3 c)
{
	if (bsMakeTriangle(a, b, c, tris + count) == bs_ok)
	{
		++count;
	}
	return count;
}

// Appends a triangle of a convex solid with its normal pointing away from the solid's centre.
static uint32_t bsAppendOutward(bsTriangle* tris, uint32_t count, bsVec3 a, bsVec3 b, bsVec3 c,
	bsVec3 center)
{
	bsVec3 n = bsCross(bsSub(b, a), bsSub(c, a));
	bsVec3 mid = bsScale(1.0 / 3.0, bsAdd(a, bsAdd(b, c)));
	if (bsDot(n, bsSub(mid, center)) < 0.0)
	{
		return bsAppendTriangle(tris, count, a, c, b);
	}
	return bsAppendTriangle(tris, count, a, b, c);
}

bsResult bsMakeHeightfieldScene(uint64_t seed, int resolution, int boxes, bsTriangle** outTris,
	uint32_t* outCount)
{
	if (outTris == NULL || outCount == NULL)
	{
		return bs_errInvalidArgument;
	}
	*outTris = NULL;
	*outCount = 0;
	if (resolution < 1 || boxes < 0)
	{
		return bs_errInvalidArgument;
	}
	uint64_t res = (uint64_t)resolution;
	uint64_t total = 2 * res * res + 12 * (uint64_t)boxes;
	if (total >= (1ull << 31))
	{
		return bs_errTooLarge;
	}
	size_t vertexCount = (size_t)(res + 1) * (size_t)(res + 1);
	double* heights = malloc(vertexCount * sizeof(double));
	bsTriangle* tris = malloc((size_t)(total > 0 ? total : 1) * sizeof(bsTriangle));
	if (heights == NULL || tris == NULL)
	{
		free(heights);
		free(tris);
		return bs_errOutOfMemory;
	}

	bsRng rng = bsMakeRng(seed);
	uint64_t noiseSeed = bsRng_Next(&rng);
	double cell = 1.0 / (double)resolution;
	for (int j = 0; j <= resolution; ++j)
	{
		for (int i = 0; i <= resolution; ++i)
		{
			double bump = bsRng_Range(&rng, -BS_BUMP_AMPLITUDE, BS_BUMP_AMPLITUDE);
			heights[(size_t)j * (size_t)(resolution + 1) + (size_t)i] =
				bsNoiseHeight(noiseSeed, (double)i * cell, (double)j * cell) + bump;
		}
	}

	uint32_t count = 0;
	size_t row = (size_t)resolution + 1;
	for (int j = 0; j < resolution; ++j)
	{
		for (int i = 0; i < resolution; ++i)
		{
			double x0 = (double)i * cell, x1 = (double)(i + 1) * cell;
			double z0 = (double)j * cell, z1 = (double)(j + 1) * cell;
			bsVec3 a = bsV3(x0, heights[(size_t)j * row + (size_t)i], z0);
			bsVec3 b = bsV3(x1, heights[(size_t)j * row + (size_t)i + 1], z0);
			bsVec3 c = bsV3(x0, heights[(size_t)(j + 1) * row + (size_t)i], z1);
			bsVec3 d = bsV3(x1, heights[(size_t)(j + 1) * row + (size_t)i + 1], z1);
			// (a, c, b) and (b, c, d) are counter-clockwise seen from above: normals point up.
			count = bsAppendTriangle(tris, count, a, c, b);
			count = bsAppendTriangle(tris, count, b, c, d);
		}
	}
	free(heights);

	for (int k = 0; k < boxes; ++k)
	{
		double cx = bsRng_Range(&rng, 0.05, 0.95);
		double cz = bsRng_Range(&rng, 0.05, 0.95);
		double hx = bsRng_Range(&rng, 0.01, 0.05);
		double hz = bsRng_Range(&rng, 0.01, 0.05);
		double height = bsRng_Range(&rng, 0.02, 0.15);
		double angle = (k % 2 == 0) ? 0.0 : bsRng_Range(&rng, 0.0, 1.5707963267948966);
		double cs = cos(angle), sn = sin(angle);

		// The footprint's corners in x/z; the box's bottom goes below the lowest ground under them.
		double fx[4], fz[4];
		double base = 1e300;
		for (int c = 0; c < 4; ++c)
		{
			double lx = (c & 1) ? hx : -hx;
			double lz = (c & 2) ? hz : -hz;
			fx[c] = cx + cs * lx - sn * lz;
			fz[c] = cz + sn * lx + cs * lz;
			base = fmin(base, bsNoiseHeight(noiseSeed, fx[c], fz[c]));
		}
		base -= 0.01;

		bsVec3 corner[8];
		for (int c = 0; c < 8; ++c)
		{
			corner[c] = bsV3(fx[c & 3], (c & 4) ? base + height : base, fz[c & 3]);
		}
		bsVec3 center = bsV3(cx, base + 0.5 * height, cz);
		// Faces as quads of corner indices (bit 0: +x side, bit 1: +z side, bit 2: top).
		static const int faces[6][4] = {
			{0, 1, 3, 2}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 3, 7, 5},
		};
		for (int f = 0; f < 6; ++f)
		{
			bsVec3 p0 = corner[faces[f][0]], p1 = corner[faces[f][1]];
			bsVec3 p2 = corner[faces[f][2]], p3 = corner[faces[f][3]];
			count = bsAppendOutward(tris, count, p0, p1, p2, center);
			count = bsAppendOutward(tris, count, p0, p2, p3, center);
		}
	}

	*outTris = tris;
	*outCount = count;
	return bs_ok;
}

static bool bsInUnitCube(bsVec3 p)
{
	return p.x >= 0.0 && p.x <= 1.0 && p.y >= 0.0 && p.y <= 1.0 && p.z >= 0.0 && p.z <= 1.0;
}

static bool bsSideInRange(bsVec3 a, bsVec3 b)
{
	double len = bsDistance(a, b);
	return len >= 0.1 && len <= 0.5;
}

bsResult bsMakeTriangleSoup(uint64_t seed, uint32_t count, bsTriangle** outTris, uint32_t* outCount)
{
	if (outTris == NULL || outCount == NULL)
	{
		return bs_errInvalidArgument;
	}
	*outTris = NULL;
	*outCount = 0;
	if (count >= (1u << 31))
	{
		return bs_errTooLarge;
	}
	if (count == 0)
	{
		return bs_ok;
	}
	bsTriangle* tris = malloc((size_t)count * sizeof(bsTriangle));
	if (tris == NULL)
	{
		return bs_errOutOfMemory;
	}
	bsRng rng = bsMakeRng(seed);
	uint32_t made = 0;
	while (made < count)
	{
		// Rejection sampling: keep candidates whose sides are all in range and that stay in the cube.
		bsVec3 a = bsV3(bsRng_Uniform(&rng), bsRng_Uniform(&rng), bsRng_Uniform(&rng));
		bsVec3 b = bsMulAdd(a, bsRng_Range(&rng, 0.1, 0.5), bsRng_UnitVector(&rng));
		bsVec3 c = bsMulAdd(a, bsRng_Range(&rng, 0.1, 0.5), bsRng_UnitVector(&rng));
		if (!bsInUnitCube(b) || !bsInUnitCube(c) || !bsSideInRange(b, c))
		{
			continue;
		}
		made = bsAppendTriangle(tris, made, a, b, c);
	}
	*outTris = tris;
	*outCount = count;
	return bs_ok;
}
