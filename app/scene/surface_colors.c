// surface_colors.c — vertex colours of the particles' surface mesh (surface_colors.h).
#include "surface_colors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// The particles sorted by the cell (edge: the largest component radius) holding their centre, so that
// the components reaching a point are in the 27 cells around it.
typedef struct bsColorGrid
{
	double cell;
	uint64_t* keys;  // sorted
	uint32_t* ids;   // the particle of each key
	size_t count;
} bsColorGrid;

enum
{
	bs_colorCellBits = 21,  // a cell coordinate's bits: |x / cell| < 2^20 inside the surface's lattice
};

static uint64_t bsColorCellKey(int64_t x, int64_t y, int64_t z)
{
	const int64_t half = (int64_t)1 << (bs_colorCellBits - 1);
	return ((uint64_t)(x + half) << (2 * bs_colorCellBits)) | ((uint64_t)(y + half) << bs_colorCellBits) |
		(uint64_t)(z + half);
}

static int64_t bsColorCellOf(double x, double cell)
{
	return (int64_t)floor(x / cell);
}

typedef struct bsKeyed
{
	uint64_t key;
	uint32_t id;
} bsKeyed;

static int bsKeyed_Compare(const void* a, const void* b)
{
	const bsKeyed* p = a;
	const bsKeyed* q = b;
	return p->key < q->key ? -1 : p->key > q->key ? 1 : (p->id > q->id) - (p->id < q->id);
}

static double bsComponentRadius(const bsPovParticles* ps, size_t i)
{
	return (ps->radii != NULL ? ps->radii[i] : ps->radius) * ps->radiusScale;
}

static bool bsColorGrid_Build(const bsPovParticles* ps, bsColorGrid* g)
{
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < ps->count; ++i)
	{
		double r = bsComponentRadius(ps, i);
		g->cell = r > g->cell ? r : g->cell;
	}
	bsKeyed* keyed = malloc((ps->count + 1) * sizeof(bsKeyed));
	g->keys = malloc((ps->count + 1) * sizeof(uint64_t));
	g->ids = malloc((ps->count + 1) * sizeof(uint32_t));
	if (keyed == NULL || g->keys == NULL || g->ids == NULL)
	{
		free(keyed);
		return false;
	}
	for (size_t i = 0; i < ps->count; ++i)
	{
		bsVec3 c = ps->centers[i];
		keyed[i].key = bsColorCellKey(bsColorCellOf(c.x, g->cell), bsColorCellOf(c.y, g->cell), bsColorCellOf(c.z, g->cell));
		keyed[i].id = (uint32_t)i;
	}
	qsort(keyed, ps->count, sizeof(bsKeyed), bsKeyed_Compare);
	for (size_t i = 0; i < ps->count; ++i)
	{
		g->keys[i] = keyed[i].key;
		g->ids[i] = keyed[i].id;
	}
	g->count = ps->count;
	free(keyed);
	return true;
}

static void bsColorGrid_Free(bsColorGrid* g)
{
	free(g->keys);
	free(g->ids);
	memset(g, 0, sizeof(*g));
}

// The first index whose key is >= key.
static size_t bsColorGrid_Lower(const bsColorGrid* g, uint64_t key)
{
	size_t lo = 0, hi = g->count;
	while (lo < hi)
	{
		size_t mid = lo + (hi - lo) / 2;
		if (g->keys[mid] < key)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	return lo;
}

// The field-weighted blend of the colours of the components reaching p (white and opaque where none does).
static void bsBlendAt(const bsPovParticles* ps, const bsColorGrid* g, bsVec3 p, double rgba[4])
{
	double sum[4] = {0.0, 0.0, 0.0, 0.0}, weight = 0.0;
	int64_t cx = bsColorCellOf(p.x, g->cell), cy = bsColorCellOf(p.y, g->cell), cz = bsColorCellOf(p.z, g->cell);
	for (int64_t x = cx - 1; x <= cx + 1; ++x)
	{
		for (int64_t y = cy - 1; y <= cy + 1; ++y)
		{
			for (int64_t z = cz - 1; z <= cz + 1; ++z)
			{
				uint64_t key = bsColorCellKey(x, y, z);
				for (size_t k = bsColorGrid_Lower(g, key); k < g->count && g->keys[k] == key; ++k)
				{
					uint32_t i = g->ids[k];
					double r = bsComponentRadius(ps, i);
					double q = bsLengthSquared(bsSub(p, ps->centers[i])) / (r * r);
					if (q >= 1.0)
					{
						continue;
					}
					double w = (1.0 - q) * (1.0 - q);
					for (int c = 0; c < 4; ++c)
					{
						sum[c] += w * (double)ps->colors[4 * (size_t)i + (size_t)c];
					}
					weight += w;
				}
			}
		}
	}
	for (int c = 0; c < 4; ++c)
	{
		rgba[c] = weight > 0.0 ? sum[c] / weight : 1.0;
	}
}

// A colour's palette key: each channel to 1/255 (16 bits a channel: colours above 1 are kept).
static uint64_t bsColorKey(const double rgba[4])
{
	uint64_t key = 0;
	for (int c = 0; c < 4; ++c)
	{
		double v = round(rgba[c] * 255.0);
		key = (key << 16) | (uint64_t)(v < 0.0 ? 0.0 : v > 65535.0 ? 65535.0 : v);
	}
	return key;
}

static int bsU64_Compare(const void* a, const void* b)
{
	uint64_t p = *(const uint64_t*)a, q = *(const uint64_t*)b;
	return (p > q) - (p < q);
}

// The palette from the vertices' keys (sorted and made unique in place), and each vertex's index.
static bool bsMakePalette(uint64_t* keys, size_t vertices, bsSurfaceColors* out)
{
	uint64_t* sorted = malloc((vertices + 1) * sizeof(uint64_t));
	if (sorted == NULL)
	{
		return false;
	}
	memcpy(sorted, keys, vertices * sizeof(uint64_t));
	qsort(sorted, vertices, sizeof(uint64_t), bsU64_Compare);
	size_t n = 0;
	for (size_t v = 0; v < vertices; ++v)
	{
		n += n == 0 || sorted[v] != sorted[n - 1] ? (sorted[n] = sorted[v], 1) : 0;
	}
	out->palette = malloc((n + 1) * 4 * sizeof(float));
	if (out->palette == NULL)
	{
		free(sorted);
		return false;
	}
	out->paletteCount = (uint32_t)n;
	for (size_t k = 0; k < n; ++k)
	{
		for (int c = 0; c < 4; ++c)
		{
			out->palette[4 * k + (size_t)c] = (float)((double)((sorted[k] >> (16 * (3 - c))) & 0xffffu) / 255.0);
		}
	}
	for (size_t v = 0; v < vertices; ++v)
	{
		const uint64_t* at = bsearch(keys + v, sorted, n, sizeof(uint64_t), bsU64_Compare);
		out->vertexColor[v] = (uint32_t)(at - sorted);
	}
	free(sorted);
	return true;
}

bool bsSurfaceColors_Build(const bsPovParticles* ps, const bsSurfaceMesh* mesh, bsSurfaceColors* out)
{
	memset(out, 0, sizeof(*out));
	bsColorGrid g;
	memset(&g, 0, sizeof(g));
	uint64_t* keys = malloc((mesh->vertexCount + 1) * sizeof(uint64_t));
	out->vertexColor = malloc((mesh->vertexCount + 1) * sizeof(uint32_t));
	bool ok = keys != NULL && out->vertexColor != NULL && bsColorGrid_Build(ps, &g);
	for (size_t v = 0; ok && v < mesh->vertexCount; ++v)
	{
		double rgba[4];
		bsBlendAt(ps, &g, mesh->positions[v], rgba);
		keys[v] = bsColorKey(rgba);
	}
	ok = ok && bsMakePalette(keys, mesh->vertexCount, out);
	bsColorGrid_Free(&g);
	free(keys);
	if (!ok)
	{
		bsSurfaceColors_Free(out);
	}
	return ok;
}

void bsSurfaceColors_Free(bsSurfaceColors* colors)
{
	free(colors->palette);
	free(colors->vertexColor);
	memset(colors, 0, sizeof(*colors));
}
