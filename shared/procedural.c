#include "procedural.h"

#include "blobsim/rng.h"
#include "core.h"

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
		double angle = (k % 2 == 0) ? 0.0 : bsRng_Range(&rng, 0.0, 0.5 * BS_PI);
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

// Appends a triangle of a closed solid around `center`, facing outwards or inwards.
static uint32_t bsAppendFacing(bsTriangle* tris, uint32_t count, bsVec3 a, bsVec3 b, bsVec3 c,
	bsVec3 center, bool inward)
{
	uint32_t made = bsAppendOutward(tris, count, a, b, c, center);
	if (inward && made > count)
	{
		bsTriangle* t = tris + count;
		(void)bsMakeTriangle(t->p1, t->p3, t->p2, t);  // the same vertices, reversed
	}
	return made;
}

// Grid coordinate k of cells on one axis: from the axis and index alone, so shared vertices agree.
static double bsGridCoordinate(double lo, double hi, int k, int cells)
{
	return k == cells ? hi : lo + (hi - lo) * ((double)k / (double)cells);
}

bsResult bsMakeBoxMesh(bsVec3 lo, bsVec3 hi, int cells, bool inward, bsTriangle** outTris,
	uint32_t* outCount)
{
	if (outTris == NULL || outCount == NULL)
	{
		return bs_errInvalidArgument;
	}
	*outTris = NULL;
	*outCount = 0;
	if (cells < 1 || cells > 4096 || !bsIsValidVec3(lo) || !bsIsValidVec3(hi) || !(lo.x < hi.x) ||
		!(lo.y < hi.y) || !(lo.z < hi.z))
	{
		return bs_errInvalidArgument;
	}
	size_t capacity = (size_t)12 * (size_t)cells * (size_t)cells;
	bsTriangle* tris = malloc(capacity * sizeof(bsTriangle));
	if (tris == NULL)
	{
		return bs_errOutOfMemory;
	}
	double l[3] = {lo.x, lo.y, lo.z};
	double h[3] = {hi.x, hi.y, hi.z};
	bsVec3 center = bsScale(0.5, bsAdd(lo, hi));
	uint32_t count = 0;
	for (int axis = 0; axis < 3; ++axis)
	{
		int u = axis == 2 ? 0 : axis + 1;
		int v = u == 2 ? 0 : u + 1;
		for (int side = 0; side < 2; ++side)
		{
			for (int i = 0; i < cells; ++i)
			{
				for (int j = 0; j < cells; ++j)
				{
					bsVec3 corner[4];
					for (int k = 0; k < 4; ++k)
					{
						double p[3];
						p[axis] = side == 0 ? l[axis] : h[axis];
						p[u] = bsGridCoordinate(l[u], h[u], i + (k == 1 || k == 2), cells);
						p[v] = bsGridCoordinate(l[v], h[v], j + (k >= 2), cells);
						corner[k] = bsV3(p[0], p[1], p[2]);
					}
					// Corners go round the cell; the diagonal alternates with the cell's parity.
					int d = (i + j) & 1;
					count = bsAppendFacing(tris, count, corner[d], corner[d + 1], corner[d + 2],
						center, inward);
					count = bsAppendFacing(tris, count, corner[d + 2], corner[(d + 3) & 3], corner[d],
						center, inward);
				}
			}
		}
	}
	*outTris = tris;
	*outCount = count;
	return bs_ok;
}

// The point of the sphere above the middle of a and b. a + b is commutative in floating point, so
// both triangles sharing the edge compute the same vertex.
static bsVec3 bsSphereMidpoint(bsVec3 a, bsVec3 b)
{
	return bsNormalize(bsAdd(a, b));
}

static double bsSnap(double x, double snap)
{
	return snap > 0.0 ? snap * nearbyint(x / snap) : x;
}

bsResult bsMakeIcosphere(int level, double radius, double snap, bool inward, bsTriangle** outTris,
	uint32_t* outCount)
{
	if (outTris == NULL || outCount == NULL)
	{
		return bs_errInvalidArgument;
	}
	*outTris = NULL;
	*outCount = 0;
	if (level < 0 || level > 7 || !(radius > 0.0) || !isfinite(radius) || !(snap >= 0.0) ||
		!isfinite(snap))
	{
		return bs_errInvalidArgument;
	}
	size_t count = (size_t)20 << (2 * level);
	bsVec3* corners = malloc(3 * count * sizeof(bsVec3));
	bsTriangle* tris = malloc(count * sizeof(bsTriangle));
	if (corners == NULL || tris == NULL)
	{
		free(corners);
		free(tris);
		return bs_errOutOfMemory;
	}
	// The icosahedron: vertices (0, +-1, +-phi) and their cyclic permutations.
	const double phi = 1.6180339887498949;
	static const int faces[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
		{1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6},
		{3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
	bsVec3 base[12] = {bsV3(-1, phi, 0), bsV3(1, phi, 0), bsV3(-1, -phi, 0), bsV3(1, -phi, 0),
		bsV3(0, -1, phi), bsV3(0, 1, phi), bsV3(0, -1, -phi), bsV3(0, 1, -phi), bsV3(phi, 0, -1),
		bsV3(phi, 0, 1), bsV3(-phi, 0, -1), bsV3(-phi, 0, 1)};
	size_t n = 20;
	for (size_t f = 0; f < n; ++f)
	{
		for (int k = 0; k < 3; ++k)
		{
			corners[3 * f + (size_t)k] = bsNormalize(base[faces[f][k]]);
		}
	}
	// Each level splits triangle f into four, in place from the back so nothing is overwritten
	// before it is read.
	for (int l = 0; l < level; ++l)
	{
		for (size_t f = n; f-- > 0;)
		{
			bsVec3 a = corners[3 * f], b = corners[3 * f + 1], c = corners[3 * f + 2];
			bsVec3 ab = bsSphereMidpoint(a, b), bc = bsSphereMidpoint(b, c), ca = bsSphereMidpoint(c, a);
			bsVec3 split[4][3] = {{a, ab, ca}, {ab, b, bc}, {ca, bc, c}, {ab, bc, ca}};
			for (int s = 0; s < 4; ++s)
			{
				for (int k = 0; k < 3; ++k)
				{
					corners[3 * (4 * f + (size_t)s) + (size_t)k] = split[s][k];
				}
			}
		}
		n *= 4;
	}
	bsResult result = bs_ok;
	uint32_t made = 0;
	for (size_t f = 0; f < n; ++f)
	{
		bsVec3 v[3];
		for (int k = 0; k < 3; ++k)
		{
			bsVec3 p = bsScale(radius, corners[3 * f + (size_t)k]);
			v[k] = bsV3(bsSnap(p.x, snap), bsSnap(p.y, snap), bsSnap(p.z, snap));
		}
		uint32_t next = bsAppendFacing(tris, made, v[0], v[1], v[2], bsV3(0.0, 0.0, 0.0), inward);
		if (next == made)
		{
			result = bs_errDegenerateTriangle;  // a hole would make the mesh open
			break;
		}
		made = next;
	}
	free(corners);
	if (result != bs_ok)
	{
		free(tris);
		return result;
	}
	*outTris = tris;
	*outCount = made;
	return bs_ok;
}

bsVec3 bsRandomPointOn(const bsTriangle* t, bsRng* rng)
{
	double u = bsRng_Uniform(rng), v = bsRng_Uniform(rng);
	if (u + v > 1.0)
	{
		u = 1.0 - u;
		v = 1.0 - v;
	}
	uint32_t k = bsRng_Below(rng, 10);
	if (k == 0)
	{
		uint32_t i = bsRng_Below(rng, 3);
		return i == 0 ? t->p1 : (i == 1 ? t->p2 : t->p3);
	}
	if (k <= 2)
	{
		uint32_t i = bsRng_Below(rng, 3);
		if (i == 0)
		{
			v = 0.0;
		}
		else if (i == 1)
		{
			u = 0.0;
		}
		else
		{
			v = 1.0 - u;
		}
	}
	return bsAdd(t->p1, bsAdd(bsScale(u, bsSub(t->p2, t->p1)), bsScale(v, bsSub(t->p3, t->p1))));
}
