// surface.c — the blob field polygonized on a sparse grid of bricks (surface.h).
//
// Three passes. (1) Bricks: every component marks the bricks its bounding box meets; the bricks are
// sorted by (z, y, x) and each gets the list of those components, in index order. (2) Vertices, per
// brick in parallel: the field at the brick's (B+1)^3 lattice points, summed component by component in
// index order (so two bricks that share a point compute the same bits for it), and one vertex for each
// edge the brick owns (lower end in the brick's [0, B)^3) whose ends lie on different sides. (3)
// Triangles, per brick in parallel: each cube's configuration gives its triangles as cube edges; an edge
// whose lower end lies on the brick's upper faces is owned by the neighbour brick, which exists because
// the edge's inside end lies within some component that marked it. Outputs join in brick order.
#include "blobsim/surface.h"

#include "blobsim/base.h"

#include "array.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum
{
	bsB = bs_surfaceBrickCells,
	bsPoints = bsB + 1,                        // lattice points along a brick's edge
	bsPointCount = bsPoints * bsPoints * bsPoints,
	bsEdgeIds = bsB * bsB * bsB * 3,           // edges a brick owns: 3 per owned lattice point
	bsMaxCubeTriangles = 12,
};

// ---- The marching cubes table, made from the face rule ----------------------------------------------
//
// Corner i of a cube is at (i & 1, i >> 1 & 1, i >> 2 & 1). Edge e = 4 * axis + (u + 2 v) where u, v
// are the bits of the lower corner on the two other axes in increasing order.

typedef struct bsCubeCase
{
	uint8_t triangleCount;
	uint8_t edges[bsMaxCubeTriangles][3];
} bsCubeCase;

typedef struct bsCubeTable
{
	bsCubeCase cases[256];
	uint8_t edgeLower[12];  // the edge's lower corner
	uint8_t edgeAxis[12];
} bsCubeTable;

// The six faces' corners, counter-clockwise seen from outside the cube.
static const uint8_t bsFaceCorners[6][4] = {
	{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};

static int bsCubeEdge(int a, int b)
{
	int lower = a < b ? a : b;
	int axis = (a ^ b) == 1 ? 0 : ((a ^ b) == 2 ? 1 : 2);
	int o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2;
	return 4 * axis + ((lower >> o1) & 1) + 2 * ((lower >> o2) & 1);
}

// Do two cube edges lie on a common face?
static bool bsEdgesShareFace(int e1, int e2)
{
	for (int f = 0; f < 6; ++f)
	{
		int found = 0;
		for (int i = 0; i < 4; ++i)
		{
			int e = bsCubeEdge(bsFaceCorners[f][i], bsFaceCorners[f][(i + 1) & 3]);
			found += e == e1 || e == e2;
		}
		if (found == 2)
		{
			return true;
		}
	}
	return false;
}

// A loop triangulated as a fan from the apex whose diagonals all cross the cube's interior: a diagonal
// between two edges of one face could also be a diagonal of the neighbour cube's loop, and then four
// triangles would share it.
static void bsTriangulateLoop(const int* loop, int k, bsCubeCase* c)
{
	int apex = 0;
	for (int a = 0; a < k; ++a)
	{
		bool clear = true;
		for (int j = 2; j < k - 1 && clear; ++j)
		{
			clear = !bsEdgesShareFace(loop[a], loop[(a + j) % k]);
		}
		if (clear)
		{
			apex = a;
			break;
		}
	}
	// The loop runs with the inside on its left seen from outside (exit -> entry on each face), which
	// turns inwards; the triangles are written reversed so that they face out.
	for (int j = 1; j + 1 < k; ++j)
	{
		uint8_t* tri = c->edges[c->triangleCount++];
		tri[0] = (uint8_t)loop[apex];
		tri[1] = (uint8_t)loop[(apex + j + 1) % k];
		tri[2] = (uint8_t)loop[(apex + j) % k];
	}
}

static void bsCubeTable_Build(bsCubeTable* t)
{
	memset(t, 0, sizeof(*t));
	for (int a = 0; a < 8; ++a)
	{
		for (int bit = 0; bit < 3; ++bit)
		{
			int b = a ^ (1 << bit);
			if (b > a)
			{
				int e = bsCubeEdge(a, b);
				t->edgeLower[e] = (uint8_t)a;
				t->edgeAxis[e] = (uint8_t)bit;
			}
		}
	}
	for (int config = 0; config < 256; ++config)
	{
		int next[12];
		for (int e = 0; e < 12; ++e)
		{
			next[e] = -1;
		}
		for (int f = 0; f < 6; ++f)
		{
			const uint8_t* c = bsFaceCorners[f];
			for (int i = 0; i < 4; ++i)
			{
				bool in = (config >> c[i]) & 1, nextIn = (config >> c[(i + 1) & 3]) & 1;
				if (!in || nextIn)
				{
					continue;  // not an exit
				}
				// Back from corner i to the first outside corner j: the entry is edge (j, j + 1). With
				// alternating corners that is the neighbour, so each inside corner is cut off alone.
				int j = (i + 3) & 3;
				while ((config >> c[j]) & 1)
				{
					j = (j + 3) & 3;
				}
				next[bsCubeEdge(c[i], c[(i + 1) & 3])] = bsCubeEdge(c[j], c[(j + 1) & 3]);
			}
		}
		bool done[12] = {false};
		for (int e = 0; e < 12; ++e)
		{
			if (next[e] < 0 || done[e])
			{
				continue;
			}
			int loop[12], k = 0;
			for (int v = e; !done[v]; v = next[v])
			{
				done[v] = true;
				loop[k++] = v;
			}
			bsTriangulateLoop(loop, k, t->cases + config);
		}
	}
}

// ---- The field --------------------------------------------------------------------------------------

typedef struct bsComponent
{
	bsVec3 c;
	double r, invR2;
} bsComponent;

// One component's density at p: the same expression everywhere, so lattice values agree bit for bit.
static inline double bsDensity(const bsComponent* k, double px, double py, double pz, double strength)
{
	double dx = px - k->c.x, dy = py - k->c.y, dz = pz - k->c.z;
	double q = (dx * dx + dy * dy + dz * dz) * k->invR2;
	if (q >= 1.0)
	{
		return 0.0;
	}
	double s = 1.0 - q;
	return strength * s * s;
}

// ---- Bricks -----------------------------------------------------------------------------------------

typedef struct bsBrick
{
	int32_t key[3];       // brick coordinates
	uint32_t first, count;  // its components in the shared list
	uint64_t inside[(bsPointCount + 63) / 64];
	uint16_t* edges;      // owned vertices' local edge ids, increasing
	bsVec3* positions;
	bsVec3* normals;
	uint32_t vertexCount;
	uint32_t* triangles;  // 3 global indices per triangle
	uint32_t triangleCount;
	bool failed;
} bsBrick;

typedef struct bsBuild
{
	const bsSurfaceDef* def;
	bsCubeTable table;
	bsComponent* components;
	uint32_t* lists;        // the bricks' component lists, concatenated
	bsBrick* bricks;
	size_t brickCount;
	uint32_t* hash;         // brick index + 1 by key, open addressing; 0 = empty
	size_t hashMask;
	uint32_t* vertexOffset; // brickCount + 1
	double h;
} bsBuild;

static uint64_t bsKeyHash(const int32_t k[3])
{
	uint64_t h = (uint64_t)(uint32_t)k[0] * 0x9e3779b97f4a7c15ull;
	h = (h ^ (h >> 29) ^ (uint64_t)(uint32_t)k[1]) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 32) ^ (uint64_t)(uint32_t)k[2]) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

// The brick index of key, or -1.
static long bsFindBrick(const bsBuild* b, const int32_t k[3])
{
	size_t slot = (size_t)bsKeyHash(k) & b->hashMask;
	while (b->hash[slot] != 0)
	{
		const bsBrick* br = b->bricks + b->hash[slot] - 1;
		if (br->key[0] == k[0] && br->key[1] == k[1] && br->key[2] == k[2])
		{
			return (long)(b->hash[slot] - 1);
		}
		slot = (slot + 1) & b->hashMask;
	}
	return -1;
}

static void bsBrickRange(const bsBuild* b, const bsComponent* k, int32_t lo[3], int32_t hi[3])
{
	// A margin of 1e-3 of the spacing: a component that reaches a lattice point on a face between
	// bricks is then in both bricks' lists whatever the rounding, so both compute the same field there.
	double side = b->h * bsB, margin = 1e-3 * b->h;
	double c[3] = {k->c.x, k->c.y, k->c.z};
	for (int a = 0; a < 3; ++a)
	{
		lo[a] = (int32_t)floor((c[a] - k->r - margin) / side);
		hi[a] = (int32_t)floor((c[a] + k->r + margin) / side);
	}
}

static int bsKeyCompare(const void* pa, const void* pb)
{
	const bsBrick* a = pa;
	const bsBrick* b = pb;
	for (int i = 2; i >= 0; --i)
	{
		if (a->key[i] != b->key[i])
		{
			return a->key[i] < b->key[i] ? -1 : 1;
		}
	}
	return 0;
}

// Temporary set of keys while marking: the same open addressing over an array of keys.
typedef struct bsKeySet
{
	int32_t (*keys)[3];
	uint8_t* used;
	size_t mask, count;
} bsKeySet;

static bool bsKeySet_Grow(bsKeySet* s)
{
	size_t capacity = s->mask == 0 ? 1024 : 2 * (s->mask + 1);
	bsKeySet n = {malloc(capacity * sizeof(*s->keys)), calloc(capacity, 1), capacity - 1, 0};
	if (n.keys == NULL || n.used == NULL)
	{
		free(n.keys);
		free(n.used);
		return false;
	}
	for (size_t i = 0; s->mask != 0 && i <= s->mask; ++i)
	{
		if (s->used[i])
		{
			size_t slot = (size_t)bsKeyHash(s->keys[i]) & n.mask;
			while (n.used[slot])
			{
				slot = (slot + 1) & n.mask;
			}
			memcpy(n.keys[slot], s->keys[i], sizeof(n.keys[slot]));
			n.used[slot] = 1;
			n.count += 1;
		}
	}
	free(s->keys);
	free(s->used);
	*s = n;
	return true;
}

static bool bsKeySet_Add(bsKeySet* s, const int32_t k[3])
{
	if (s->mask == 0 || 2 * (s->count + 1) > s->mask + 1)
	{
		if (!bsKeySet_Grow(s))
		{
			return false;
		}
	}
	size_t slot = (size_t)bsKeyHash(k) & s->mask;
	while (s->used[slot])
	{
		if (s->keys[slot][0] == k[0] && s->keys[slot][1] == k[1] && s->keys[slot][2] == k[2])
		{
			return true;
		}
		slot = (slot + 1) & s->mask;
	}
	memcpy(s->keys[slot], k, sizeof(s->keys[slot]));
	s->used[slot] = 1;
	s->count += 1;
	return true;
}

// Visits every (component, brick) pair in component order: marks the brick (set != NULL), counts the
// component in it (fill false) or appends it to the brick's list (fill true). False when out of memory.
static bool bsVisitBricks(bsBuild* b, bsKeySet* set, bool fill)
{
	for (size_t i = 0; i < b->def->count; ++i)
	{
		int32_t lo[3], hi[3], k[3];
		bsBrickRange(b, b->components + i, lo, hi);
		for (k[2] = lo[2]; k[2] <= hi[2]; ++k[2])
		{
			for (k[1] = lo[1]; k[1] <= hi[1]; ++k[1])
			{
				for (k[0] = lo[0]; k[0] <= hi[0]; ++k[0])
				{
					if (set != NULL)
					{
						if (!bsKeySet_Add(set, k))
						{
							return false;
						}
						continue;
					}
					bsBrick* br = b->bricks + bsFindBrick(b, k);
					if (fill)
					{
						b->lists[br->first + br->count] = (uint32_t)i;
					}
					br->count += 1;
				}
			}
		}
	}
	return true;
}

// Pass 1: the bricks, sorted, with their component lists.
static bsResult bsBuild_Bricks(bsBuild* b)
{
	bsKeySet set = {NULL, NULL, 0, 0};
	bool ok = bsVisitBricks(b, &set, false);
	b->brickCount = set.count;
	b->bricks = calloc(set.count + 1, sizeof(bsBrick));
	size_t capacity = 16;
	while (capacity < 2 * set.count + 2)
	{
		capacity *= 2;
	}
	b->hash = calloc(capacity, sizeof(uint32_t));
	b->hashMask = capacity - 1;
	if (!ok || b->bricks == NULL || b->hash == NULL)
	{
		free(set.keys);
		free(set.used);
		return bs_errOutOfMemory;
	}
	size_t m = 0;
	for (size_t i = 0; set.mask != 0 && i <= set.mask; ++i)
	{
		if (set.used[i])
		{
			memcpy(b->bricks[m++].key, set.keys[i], sizeof(set.keys[i]));
		}
	}
	free(set.keys);
	free(set.used);
	qsort(b->bricks, b->brickCount, sizeof(bsBrick), bsKeyCompare);
	for (size_t i = 0; i < b->brickCount; ++i)
	{
		size_t slot = (size_t)bsKeyHash(b->bricks[i].key) & b->hashMask;
		while (b->hash[slot] != 0)
		{
			slot = (slot + 1) & b->hashMask;
		}
		b->hash[slot] = (uint32_t)(i + 1);
	}
	// Component lists: count, offsets, then fill in index order.
	bsVisitBricks(b, NULL, false);
	size_t total = 0;
	for (size_t i = 0; i < b->brickCount; ++i)
	{
		b->bricks[i].first = (uint32_t)total;
		total += b->bricks[i].count;
		b->bricks[i].count = 0;
		if (total > UINT32_MAX)
		{
			return bs_errTooLarge;
		}
	}
	b->lists = malloc((total + 1) * sizeof(uint32_t));
	if (b->lists == NULL)
	{
		return bs_errOutOfMemory;
	}
	bsVisitBricks(b, NULL, true);
	return bs_ok;
}

// ---- Pass 2: vertices -------------------------------------------------------------------------------

static inline int bsPointIndex(int x, int y, int z)
{
	return (z * bsPoints + y) * bsPoints + x;
}

static inline bool bsInside(const bsBrick* br, int x, int y, int z)
{
	int i = bsPointIndex(x, y, z);
	return (br->inside[i >> 6] >> (i & 63)) & 1;
}

// The components whose sphere meets one lattice edge, in index order; ids has room for the largest
// brick list.
typedef struct bsEdgeFit
{
	uint32_t* ids;
	uint32_t count;
} bsEdgeFit;

// The field at p from the gathered components, minus T.
static double bsEdgeField(const bsBuild* b, const bsEdgeFit* fit, double px, double py, double pz)
{
	double f = 0.0;
	for (uint32_t i = 0; i < fit->count; ++i)
	{
		f += bsDensity(b->components + fit->ids[i], px, py, pz, b->def->strength);
	}
	return f - b->def->threshold;
}

static void bsGatherEdge(const bsBuild* b, const bsBrick* br, const double p[3], int axis, bsEdgeFit* fit)
{
	fit->count = 0;
	for (uint32_t k = 0; k < br->count; ++k)
	{
		uint32_t id = b->lists[br->first + k];
		const bsComponent* c = b->components + id;
		double cc[3] = {c->c.x, c->c.y, c->c.z};
		double d2 = 0.0, r2 = c->r * c->r;
		for (int a = 0; a < 3 && d2 < r2; ++a)
		{
			double lo = p[a], hi = a == axis ? p[a] + b->h : p[a];
			double e = cc[a] < lo ? lo - cc[a] : (cc[a] > hi ? cc[a] - hi : 0.0);
			d2 += e * e;
		}
		if (d2 < r2)
		{
			fit->ids[fit->count++] = id;
		}
	}
}

// The root of the field on the edge from p along axis, between the values minus T f0 (t = 0) and f1
// (t = 1) of opposite sides: regula falsi with the Illinois halving, to 1e-6 of the edge.
static double bsEdgeRoot(const bsBuild* b, const bsEdgeFit* fit, const double p[3], int axis, double f0, double f1)
{
	double t0 = 0.0, t1 = 1.0;
	bool in0 = f0 > 0.0;
	int side = 0;
	for (int it = 0; it < 100 && t1 - t0 > 1e-6; ++it)
	{
		double t = t0 + (t1 - t0) * f0 / (f0 - f1);
		if (!(t > t0 && t < t1))
		{
			t = 0.5 * (t0 + t1);
		}
		double q[3] = {p[0], p[1], p[2]};
		q[axis] += t * b->h;
		double f = bsEdgeField(b, fit, q[0], q[1], q[2]);
		if ((f > 0.0) == in0)
		{
			t0 = t;
			f0 = f;
			if (side == -1)
			{
				f1 *= 0.5;
			}
			side = -1;
		}
		else
		{
			t1 = t;
			f1 = f;
			if (side == 1)
			{
				f0 *= 0.5;
			}
			side = 1;
		}
	}
	return 0.5 * (t0 + t1);
}

// The outward normal at p: minus the gradient, the sum of 4 S (1 - q) (p - c) / R^2, normalized.
static bsVec3 bsEdgeNormal(const bsBuild* b, const bsEdgeFit* fit, bsVec3 p, int axis, bool lowerInside)
{
	double gx = 0.0, gy = 0.0, gz = 0.0;
	for (uint32_t i = 0; i < fit->count; ++i)
	{
		const bsComponent* c = b->components + fit->ids[i];
		double dx = p.x - c->c.x, dy = p.y - c->c.y, dz = p.z - c->c.z;
		double q = (dx * dx + dy * dy + dz * dz) * c->invR2;
		if (q < 1.0)
		{
			double w = (1.0 - q) * c->invR2;
			gx += w * dx;
			gy += w * dy;
			gz += w * dz;
		}
	}
	double len = sqrt(gx * gx + gy * gy + gz * gz);
	if (!(len > 0.0))
	{
		double s = lowerInside ? 1.0 : -1.0;  // out of the inside end
		return bsV3(axis == 0 ? s : 0.0, axis == 1 ? s : 0.0, axis == 2 ? s : 0.0);
	}
	return bsV3(gx / len, gy / len, gz / len);
}

// The field at the brick's lattice points and their inside bits.
static void bsBrick_Field(const bsBuild* b, bsBrick* br, double* field)
{
	double h = b->h;
	int32_t base[3] = {br->key[0] * bsB, br->key[1] * bsB, br->key[2] * bsB};
	for (int i = 0; i < bsPointCount; ++i)
	{
		field[i] = 0.0;
	}
	for (uint32_t k = 0; k < br->count; ++k)
	{
		const bsComponent* c = b->components + b->lists[br->first + k];
		double cc[3] = {c->c.x, c->c.y, c->c.z};
		int lo[3], hi[3];
		for (int a = 0; a < 3; ++a)
		{
			// A point of margin each way; bsDensity decides exactly.
			int l = (int)floor((cc[a] - c->r) / h) - base[a];
			int u = (int)floor((cc[a] + c->r) / h) + 1 - base[a];
			lo[a] = l < 0 ? 0 : l;
			hi[a] = u > bsB ? bsB : u;
		}
		double r2 = c->r * c->r;
		for (int z = lo[2]; z <= hi[2]; ++z)
		{
			double pz = (double)(base[2] + z) * h, dz = pz - cc[2];
			for (int y = lo[1]; y <= hi[1]; ++y)
			{
				double py = (double)(base[1] + y) * h, dy = py - cc[1];
				double rest = r2 - (dy * dy + dz * dz);
				if (!(rest > 0.0))
				{
					continue;
				}
				// The row's points within the sphere, with a point of margin; which ones are visited
				// depends only on the component and the point, never on the brick.
				double w = sqrt(rest);
				int x0 = (int)floor((cc[0] - w) / h) - base[0], x1 = (int)floor((cc[0] + w) / h) + 1 - base[0];
				x0 = x0 < lo[0] ? lo[0] : x0;
				x1 = x1 > hi[0] ? hi[0] : x1;
				for (int x = x0; x <= x1; ++x)
				{
					double px = (double)(base[0] + x) * h;
					field[bsPointIndex(x, y, z)] += bsDensity(c, px, py, pz, b->def->strength);
				}
			}
		}
	}
	memset(br->inside, 0, sizeof(br->inside));
	for (int i = 0; i < bsPointCount; ++i)
	{
		if (field[i] > b->def->threshold)
		{
			br->inside[i >> 6] |= 1ull << (i & 63);
		}
	}
}

// The brick's three vertex arrays, grown together to one capacity.
static bool bsBrick_Reserve(bsBrick* br, size_t capacity)
{
	return BS_ARRAY_RESIZE(br->edges, capacity) && BS_ARRAY_RESIZE(br->positions, capacity) &&
		BS_ARRAY_RESIZE(br->normals, capacity);
}

// One vertex per owned edge that crosses the surface, in increasing local edge id.
static void bsBrick_Vertices(const bsBuild* b, bsBrick* br, double* field, bsEdgeFit* fit)
{
	bsBrick_Field(b, br, field);
	double h = b->h, T = b->def->threshold;
	int32_t base[3] = {br->key[0] * bsB, br->key[1] * bsB, br->key[2] * bsB};
	size_t capacity = 0;
	for (int z = 0; z < bsB; ++z)
	{
		for (int y = 0; y < bsB; ++y)
		{
			for (int x = 0; x < bsB; ++x)
			{
				bool in = bsInside(br, x, y, z);
				for (int axis = 0; axis < 3; ++axis)
				{
					int x1 = x + (axis == 0), y1 = y + (axis == 1), z1 = z + (axis == 2);
					if (bsInside(br, x1, y1, z1) == in)
					{
						continue;
					}
					if (br->vertexCount == capacity)
					{
						capacity = bsArray_NextCapacity(capacity, capacity + 1);
						if (!bsBrick_Reserve(br, capacity))
						{
							br->failed = true;
							return;
						}
					}
					double p[3] = {(double)(base[0] + x) * h, (double)(base[1] + y) * h, (double)(base[2] + z) * h};
					bsGatherEdge(b, br, p, axis, fit);
					double t = bsEdgeRoot(b, fit, p, axis, field[bsPointIndex(x, y, z)] - T,
						field[bsPointIndex(x1, y1, z1)] - T);
					double q[3] = {p[0], p[1], p[2]};
					q[axis] += t * h;
					bsVec3 v = bsV3(q[0], q[1], q[2]);
					uint32_t i = br->vertexCount++;
					br->edges[i] = (uint16_t)(((z * bsB + y) * bsB + x) * 3 + axis);
					br->positions[i] = v;
					br->normals[i] = bsEdgeNormal(b, fit, v, axis, in);
				}
			}
		}
	}
}

// ---- Pass 3: triangles ------------------------------------------------------------------------------

// The global index of the vertex on the edge from local point (x, y, z) (each in 0 .. B) along axis;
// UINT32_MAX when it is missing (which the construction rules out).
static uint32_t bsFindVertex(const bsBuild* b, size_t brick, int x, int y, int z, int axis)
{
	const bsBrick* br = b->bricks + brick;
	if (x == bsB || y == bsB || z == bsB)
	{
		int32_t k[3] = {br->key[0] + (x == bsB), br->key[1] + (y == bsB), br->key[2] + (z == bsB)};
		long other = bsFindBrick(b, k);
		if (other < 0)
		{
			return UINT32_MAX;
		}
		brick = (size_t)other;
		br = b->bricks + brick;
		x %= bsB;
		y %= bsB;
		z %= bsB;
	}
	uint16_t id = (uint16_t)(((z * bsB + y) * bsB + x) * 3 + axis);
	uint32_t lo = 0, hi = br->vertexCount;
	while (lo < hi)
	{
		uint32_t mid = (lo + hi) / 2;
		if (br->edges[mid] < id)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	if (lo == br->vertexCount || br->edges[lo] != id)
	{
		return UINT32_MAX;
	}
	return b->vertexOffset[brick] + lo;
}

static void bsBrick_Triangles(const bsBuild* b, size_t brick)
{
	bsBrick* br = b->bricks + brick;
	size_t capacity = 0;  // triangles, 3 indices each
	for (int z = 0; z < bsB; ++z)
	{
		for (int y = 0; y < bsB; ++y)
		{
			for (int x = 0; x < bsB; ++x)
			{
				int config = 0;
				for (int c = 0; c < 8; ++c)
				{
					config |= (int)bsInside(br, x + (c & 1), y + ((c >> 1) & 1), z + ((c >> 2) & 1)) << c;
				}
				const bsCubeCase* cc = b->table.cases + config;
				if (cc->triangleCount == 0)
				{
					continue;
				}
				size_t need = (size_t)br->triangleCount + cc->triangleCount;
				if (!bsArray_Reserve(&br->triangles, &capacity, need, 3 * sizeof(uint32_t)))
				{
					br->failed = true;
					return;
				}
				for (int t = 0; t < cc->triangleCount; ++t)
				{
					uint32_t* out = br->triangles + 3 * (size_t)br->triangleCount;
					for (int v = 0; v < 3; ++v)
					{
						int e = cc->edges[t][v];
						int lower = b->table.edgeLower[e];
						out[v] = bsFindVertex(b, brick, x + (lower & 1), y + ((lower >> 1) & 1),
							z + ((lower >> 2) & 1), b->table.edgeAxis[e]);
						if (out[v] == UINT32_MAX)
						{
							br->failed = true;
							return;
						}
					}
					br->triangleCount += 1;
				}
			}
		}
	}
}

// ---- Workers ----------------------------------------------------------------------------------------

typedef struct bsWorkerScratch
{
	double field[bsPointCount];
	bsEdgeFit fit;
} bsWorkerScratch;

typedef struct bsPassContext
{
	bsBuild* build;
	bsWorkerScratch** scratch;  // one per worker
	int pass;
} bsPassContext;

static void bsPassRange(void* context, size_t begin, size_t end, int worker)
{
	bsPassContext* pc = context;
	for (size_t i = begin; i < end; ++i)
	{
		if (pc->pass == 2)
		{
			bsWorkerScratch* s = pc->scratch[worker];
			bsBrick_Vertices(pc->build, pc->build->bricks + i, s->field, &s->fit);
		}
		else
		{
			bsBrick_Triangles(pc->build, i);
		}
	}
}

// ---- The build --------------------------------------------------------------------------------------

bsSurfaceDef bsDefaultSurfaceDef(void)
{
	bsSurfaceDef d;
	memset(&d, 0, sizeof(d));
	d.strength = 1.0;
	d.threshold = 0.6;
	return d;
}

void bsSurfaceMesh_Free(bsSurfaceMesh* mesh)
{
	if (mesh == NULL)
	{
		return;
	}
	free(mesh->positions);
	free(mesh->normals);
	free(mesh->indices);
	memset(mesh, 0, sizeof(*mesh));
}

static bsResult bsCheckDef(const bsSurfaceDef* d)
{
	if (!(d->spacing > 0.0 && isfinite(d->spacing)) || !(d->strength > 0.0 && isfinite(d->strength)) ||
		!(d->threshold > 0.0 && d->threshold < d->strength) || (d->count > 0 && d->centers == NULL) ||
		(d->radii == NULL && d->count > 0 && !(d->radius > 0.0)))
	{
		return bs_errInvalidArgument;
	}
	if (d->count > UINT32_MAX)
	{
		return bs_errTooLarge;
	}
	double limit = (double)bs_surfaceMaxLattice * d->spacing;
	for (size_t i = 0; i < d->count; ++i)
	{
		double r = d->radii != NULL ? d->radii[i] : d->radius;
		bsVec3 c = d->centers[i];
		if (!isfinite(c.x) || !isfinite(c.y) || !isfinite(c.z) || !isfinite(r))
		{
			return bs_errNonFinite;
		}
		if (!(r > 0.0))
		{
			return bs_errInvalidArgument;
		}
		if (!(fabs(c.x) + r < limit && fabs(c.y) + r < limit && fabs(c.z) + r < limit))
		{
			return bs_errTooLarge;
		}
	}
	return bs_ok;
}

static void bsBuild_Free(bsBuild* b, int workers, bsWorkerScratch** scratch)
{
	for (size_t i = 0; b->bricks != NULL && i < b->brickCount; ++i)
	{
		free(b->bricks[i].edges);
		free(b->bricks[i].positions);
		free(b->bricks[i].normals);
		free(b->bricks[i].triangles);
	}
	for (int w = 0; scratch != NULL && w < workers; ++w)
	{
		if (scratch[w] != NULL)
		{
			free(scratch[w]->fit.ids);
		}
		free(scratch[w]);
	}
	free(scratch);
	free(b->bricks);
	free(b->hash);
	free(b->lists);
	free(b->components);
	free(b->vertexOffset);
}

static bool bsBuild_Failed(const bsBuild* b)
{
	for (size_t i = 0; i < b->brickCount; ++i)
	{
		if (b->bricks[i].failed)
		{
			return true;
		}
	}
	return false;
}

// Joins the bricks' outputs in brick order.
static bsResult bsBuild_Join(const bsBuild* b, bsSurfaceMesh* mesh)
{
	size_t vertices = b->vertexOffset[b->brickCount], triangles = 0;
	for (size_t i = 0; i < b->brickCount; ++i)
	{
		triangles += b->bricks[i].triangleCount;
	}
	mesh->positions = malloc((vertices + 1) * sizeof(bsVec3));
	mesh->normals = malloc((vertices + 1) * sizeof(bsVec3));
	mesh->indices = malloc((3 * triangles + 1) * sizeof(uint32_t));
	if (mesh->positions == NULL || mesh->normals == NULL || mesh->indices == NULL)
	{
		return bs_errOutOfMemory;
	}
	size_t t = 0;
	for (size_t i = 0; i < b->brickCount; ++i)
	{
		const bsBrick* br = b->bricks + i;
		if (br->vertexCount > 0)  // an empty brick has no arrays (memcpy from NULL is undefined)
		{
			memcpy(mesh->positions + b->vertexOffset[i], br->positions, br->vertexCount * sizeof(bsVec3));
			memcpy(mesh->normals + b->vertexOffset[i], br->normals, br->vertexCount * sizeof(bsVec3));
		}
		if (br->triangleCount > 0)
		{
			memcpy(mesh->indices + 3 * t, br->triangles, 3 * (size_t)br->triangleCount * sizeof(uint32_t));
		}
		t += br->triangleCount;
	}
	mesh->vertexCount = vertices;
	mesh->triangleCount = triangles;
	for (size_t v = 0; v < vertices; ++v)
	{
		double p[3] = {mesh->positions[v].x, mesh->positions[v].y, mesh->positions[v].z};
		for (int a = 0; a < 3; ++a)
		{
			if (v == 0 || p[a] < mesh->bounds[0][a])
			{
				mesh->bounds[0][a] = p[a];
			}
			if (v == 0 || p[a] > mesh->bounds[1][a])
			{
				mesh->bounds[1][a] = p[a];
			}
		}
	}
	return bs_ok;
}

static bsResult bsBuild_Run(bsBuild* b, bsSurfaceMesh* mesh, int* workersOut, bsWorkerScratch*** scratchOut)
{
	const bsSurfaceDef* def = b->def;
	b->components = malloc((def->count + 1) * sizeof(bsComponent));
	if (b->components == NULL)
	{
		return bs_errOutOfMemory;
	}
	for (size_t i = 0; i < def->count; ++i)
	{
		double r = def->radii != NULL ? def->radii[i] : def->radius;
		b->components[i].c = def->centers[i];
		b->components[i].r = r;
		b->components[i].invR2 = 1.0 / (r * r);
	}
	bsResult r = bsBuild_Bricks(b);
	if (r != bs_ok)
	{
		return r;
	}
	mesh->brickCount = b->brickCount;
	uint32_t longest = 1;
	for (size_t i = 0; i < b->brickCount; ++i)
	{
		longest = b->bricks[i].count > longest ? b->bricks[i].count : longest;
	}
	int workers = bsResolveThreads(def->threads, b->brickCount > 0 ? b->brickCount : 1);
	bsWorkerScratch** scratch = calloc((size_t)workers, sizeof(bsWorkerScratch*));
	*workersOut = workers;
	*scratchOut = scratch;
	if (scratch == NULL)
	{
		return bs_errOutOfMemory;
	}
	for (int w = 0; w < workers; ++w)
	{
		scratch[w] = malloc(sizeof(bsWorkerScratch));
		if (scratch[w] == NULL)
		{
			return bs_errOutOfMemory;
		}
		scratch[w]->fit.ids = malloc(longest * sizeof(uint32_t));
		if (scratch[w]->fit.ids == NULL)
		{
			return bs_errOutOfMemory;
		}
	}
	bsPassContext pc = {b, scratch, 2};
	bsParallelFor(workers, b->brickCount, 1, bsPassRange, &pc);
	if (bsBuild_Failed(b))
	{
		return bs_errOutOfMemory;
	}
	b->vertexOffset = malloc((b->brickCount + 1) * sizeof(uint32_t));
	if (b->vertexOffset == NULL)
	{
		return bs_errOutOfMemory;
	}
	uint64_t total = 0;
	for (size_t i = 0; i < b->brickCount; ++i)
	{
		b->vertexOffset[i] = (uint32_t)total;
		total += b->bricks[i].vertexCount;
		if (total >= UINT32_MAX)
		{
			return bs_errTooLarge;
		}
	}
	b->vertexOffset[b->brickCount] = (uint32_t)total;
	pc.pass = 3;
	bsParallelFor(workers, b->brickCount, 1, bsPassRange, &pc);
	if (bsBuild_Failed(b))
	{
		return bs_errOutOfMemory;  // out of memory, or (never expected) a vertex without its brick
	}
	return bsBuild_Join(b, mesh);
}

bsResult bsSurface_Build(const bsSurfaceDef* def, bsSurfaceMesh* mesh)
{
	if (mesh == NULL || def == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(mesh, 0, sizeof(*mesh));
	bsResult r = bsCheckDef(def);
	if (r != bs_ok)
	{
		return r;
	}
	bsBuild* b = calloc(1, sizeof(bsBuild));
	if (b == NULL)
	{
		return bs_errOutOfMemory;
	}
	b->def = def;
	b->h = def->spacing;
	bsCubeTable_Build(&b->table);
	int workers = 0;
	bsWorkerScratch** scratch = NULL;
	r = bsBuild_Run(b, mesh, &workers, &scratch);
	bsBuild_Free(b, workers, scratch);
	free(b);
	if (r != bs_ok)
	{
		bsSurfaceMesh_Free(mesh);
	}
	return r;
}
