// weld.c — welding a triangle soup by exact position (weld.h).
#include "weld.h"

#include "array.h"

#include <stdlib.h>
#include <string.h>

static bsVec3 bsWeld_Corner(const bsTriangle* tris, uint32_t corner)
{
	const bsTriangle* t = tris + corner / 3;
	uint32_t k = corner % 3;
	return k == 0 ? t->p1 : (k == 1 ? t->p2 : t->p3);
}

// A position's coordinates as bits, -0 made +0, so that equal doubles have equal keys.
static void bsWeld_Key(bsVec3 p, uint64_t key[3])
{
	double c[3] = {p.x + 0.0, p.y + 0.0, p.z + 0.0};
	memcpy(key, c, sizeof c);
}

static uint64_t bsWeld_Hash(const uint64_t key[3])
{
	uint64_t h = key[0] * 0x9E3779B97F4A7C15u;
	h = (h ^ (h >> 29) ^ key[1]) * 0xBF58476D1CE4E5B9u;
	h = (h ^ (h >> 31) ^ key[2]) * 0x94D049BB133111EBu;
	return h ^ (h >> 32);
}

// Open addressing over a power-of-two table at most half full; a slot holds a vertex + 1 (0 empty).
static uint32_t bsWeld_Insert(bsWeld* weld, uint32_t* table, size_t mask, bsVec3 p)
{
	uint64_t key[3];
	bsWeld_Key(p, key);
	for (size_t slot = (size_t)bsWeld_Hash(key) & mask;; slot = (slot + 1) & mask)
	{
		uint32_t e = table[slot];
		if (e == 0)
		{
			weld->positions[weld->vertexCount] = p;
			table[slot] = ++weld->vertexCount;
			return weld->vertexCount - 1;
		}
		uint64_t other[3];
		bsWeld_Key(weld->positions[e - 1], other);
		if (memcmp(key, other, sizeof key) == 0)
		{
			return e - 1;
		}
	}
}

bsResult bsWeld_Build(bsWeld* weld, const bsTriangle* tris, uint32_t count)
{
	memset(weld, 0, sizeof *weld);
	if ((uint64_t)count * 3 > UINT32_MAX - 1)
	{
		return bs_errTooLarge;
	}
	uint32_t corners = 3 * count;
	weld->cornerCount = corners;
	size_t slots = 16;
	while (slots < 2 * (size_t)corners)
	{
		slots *= 2;
	}
	uint32_t* table = calloc(slots, sizeof *table);
	weld->positions = malloc(sizeof(bsVec3) * (corners > 0 ? corners : 1));
	weld->cornerVertex = malloc(sizeof(uint32_t) * (corners > 0 ? corners : 1));
	if (table == NULL || weld->positions == NULL || weld->cornerVertex == NULL)
	{
		free(table);
		bsWeld_Destroy(weld);
		return bs_errOutOfMemory;
	}
	for (uint32_t c = 0; c < corners; ++c)
	{
		weld->cornerVertex[c] = bsWeld_Insert(weld, table, slots - 1, bsWeld_Corner(tris, c));
	}
	free(table);
	(void)BS_ARRAY_RESIZE(weld->positions, weld->vertexCount);  // shrunk to the welded vertices, or kept
	return bs_ok;
}

typedef struct bsWeldEntry
{
	bsVec3 p;
	uint32_t vertex;
} bsWeldEntry;

// Positions are distinct (welded), so this order is total.
static int bsWeld_ComparePositions(const void* pa, const void* pb)
{
	const bsVec3* a = &((const bsWeldEntry*)pa)->p;
	const bsVec3* b = &((const bsWeldEntry*)pb)->p;
	if (a->x != b->x)
	{
		return a->x < b->x ? -1 : 1;
	}
	if (a->y != b->y)
	{
		return a->y < b->y ? -1 : 1;
	}
	return a->z < b->z ? -1 : (a->z > b->z);
}

bool bsWeld_SortByPosition(bsWeld* weld)
{
	uint32_t n = weld->vertexCount;
	bsWeldEntry* e = malloc(sizeof *e * (n > 0 ? n : 1));
	uint32_t* renumber = malloc(sizeof *renumber * (n > 0 ? n : 1));
	if (e == NULL || renumber == NULL)
	{
		free(e);
		free(renumber);
		return false;
	}
	for (uint32_t v = 0; v < n; ++v)
	{
		e[v] = (bsWeldEntry){weld->positions[v], v};
	}
	qsort(e, n, sizeof *e, bsWeld_ComparePositions);
	for (uint32_t v = 0; v < n; ++v)
	{
		weld->positions[v] = e[v].p;
		renumber[e[v].vertex] = v;
	}
	free(e);
	for (uint32_t c = 0; c < weld->cornerCount; ++c)
	{
		weld->cornerVertex[c] = renumber[weld->cornerVertex[c]];
	}
	free(renumber);
	return true;
}

void bsWeld_Destroy(bsWeld* weld)
{
	free(weld->positions);
	free(weld->cornerVertex);
	memset(weld, 0, sizeof *weld);
}
