// open_edges.c — which triangle edges have no neighbour (bsFindOpenEdges, collide.h), for the ray
// test's tie rule: an edge of one triangle only takes every tie on it (ray_test.h).
//
// Edges are matched by the exact positions of their two ends, in either direction, as
// bsMeshTopology welds (OBJ triangles arrive as a soup whose shared corners are bit-identical
// copies). One pass over the 3n edges with an open-addressing table keyed by a hash of the two
// positions that holds only the edges not yet matched: an edge that finds its partner there leaves
// with it. In the BVH's leaf order (spatially coherent) that frontier stays small, so the table stays
// in cache, and the triangles read to confirm a match are near in memory; the table grows when half
// full (all the edges of a soup: 8 bytes a slot). Linear time. Edges of three or more triangles are
// paired in order: an odd one out counts as open (it takes the ties on its edge: a double hit at
// worst).
#include "core.h"

#include "blobsim/collide.h"

#include <stdbool.h>

#include <stdlib.h>
#include <string.h>

// A hash of a position (+0.0 for -0.0, so the two zeros are one position, as == says); mixed later.
static uint64_t bsOpenEdges_HashPoint(bsVec3 p)
{
	double c[3] = {p.x + 0.0, p.y + 0.0, p.z + 0.0};
	uint64_t bits[3];
	memcpy(bits, c, sizeof bits);
	return bits[0] * UINT64_C(0x9e3779b97f4a7c15) ^ bits[1] * UINT64_C(0xc2b2ae3d27d4eb4f) ^
		bits[2] * UINT64_C(0x165667b19e3779f9);
}

static bool bsOpenEdges_Same(bsVec3 a, bsVec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

// Corner k of a triangle (p1, p2, p3).
static bsVec3 bsOpenEdges_Corner(const bsTriangle* t, uint32_t k)
{
	return k == 0 ? t->p1 : (k == 1 ? t->p2 : t->p3);
}

// Do edges e and f (3 * triangle + k: from corner k to the next) join the same two positions?
static bool bsOpenEdges_Match(const bsTriangle* tris, uint32_t e, uint32_t f)
{
	const bsTriangle* t = tris + e / 3;
	const bsTriangle* u = tris + f / 3;
	bsVec3 a = bsOpenEdges_Corner(t, e % 3), b = bsOpenEdges_Corner(t, e % 3 == 2 ? 0 : e % 3 + 1);
	bsVec3 c = bsOpenEdges_Corner(u, f % 3), d = bsOpenEdges_Corner(u, f % 3 == 2 ? 0 : f % 3 + 1);
	return (bsOpenEdges_Same(a, c) && bsOpenEdges_Same(b, d)) ||
		(bsOpenEdges_Same(a, d) && bsOpenEdges_Same(b, c));
}

// The unmatched edges so far, by linear probing. A slot: the edge's 32-bit hash (its home slot is
// hash & mask), then the edge id + 1; 0 is empty.
typedef struct bsEdgeTable
{
	uint64_t* slots;
	size_t mask;
	size_t live;
} bsEdgeTable;

static size_t bsEdgeTable_Home(const bsEdgeTable* t, uint64_t entry)
{
	return (size_t)(entry >> 32) & t->mask;
}

// Twice the slots, the live entries placed again. false when out of memory.
static bool bsEdgeTable_Grow(bsEdgeTable* t)
{
	size_t old = t->mask + 1;
	if (old >= ((size_t)1 << 31))
	{
		return false;  // the home slot comes from 32 bits of hash
	}
	uint64_t* slots = calloc(2 * old, sizeof(uint64_t));
	if (slots == NULL)
	{
		return false;
	}
	bsEdgeTable grown = {slots, 2 * old - 1, t->live};
	for (size_t i = 0; i < old; ++i)
	{
		if (t->slots[i] != 0)
		{
			size_t j = bsEdgeTable_Home(&grown, t->slots[i]);
			while (slots[j] != 0)
			{
				j = (j + 1) & grown.mask;
			}
			slots[j] = t->slots[i];
		}
	}
	free(t->slots);
	*t = grown;
	return true;
}

// Empties slot i, moving later entries of its probe run back so every entry stays reachable from its
// home slot (deletion without tombstones).
static void bsEdgeTable_Remove(bsEdgeTable* t, size_t i)
{
	for (size_t j = (i + 1) & t->mask; t->slots[j] != 0; j = (j + 1) & t->mask)
	{
		size_t home = bsEdgeTable_Home(t, t->slots[j]);
		// The entry at j may move to i unless its home lies cyclically in (i, j].
		bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (!stays)
		{
			t->slots[i] = t->slots[j];
			i = j;
		}
	}
	t->slots[i] = 0;
	t->live -= 1;
}

// Edge e (hash h): pairs it with a live edge joining the same two positions, both then closed in
// open, or adds it to the table. false when out of memory.
static bool bsEdgeTable_Offer(bsEdgeTable* t, const bsTriangle* tris, uint32_t e, uint32_t h,
	uint8_t* open)
{
	size_t i = (size_t)h & t->mask;
	for (; t->slots[i] != 0; i = (i + 1) & t->mask)
	{
		uint64_t entry = t->slots[i];
		uint32_t f = (uint32_t)entry - 1;
		if ((uint32_t)(entry >> 32) == h && bsOpenEdges_Match(tris, e, f))
		{
			open[e / 3] &= (uint8_t)~(1u << (e % 3));
			open[f / 3] &= (uint8_t)~(1u << (f % 3));
			bsEdgeTable_Remove(t, i);
			return true;
		}
	}
	t->slots[i] = (uint64_t)h << 32 | (e + 1);
	t->live += 1;
	return 2 * t->live <= t->mask + 1 || bsEdgeTable_Grow(t);
}

bsResult bsFindOpenEdges(const bsTriangle* tris, uint32_t count, uint8_t* open)
{
	if (count == 0)
	{
		return bs_ok;
	}
	if (tris == NULL || open == NULL)
	{
		return bs_errInvalidArgument;
	}
	if (3 * (uint64_t)count >= UINT32_MAX)
	{
		return bs_errTooLarge;  // edge ids are 32-bit (a billion and a half triangles)
	}
	bsEdgeTable t = {calloc(4096, sizeof(uint64_t)), 4095, 0};
	bool ok = t.slots != NULL;
	memset(open, 7, count);
	for (uint32_t i = 0; ok && i < count; ++i)
	{
		uint64_t h[3] = {bsOpenEdges_HashPoint(tris[i].p1), bsOpenEdges_HashPoint(tris[i].p2),
			bsOpenEdges_HashPoint(tris[i].p3)};
		for (uint32_t k = 0; ok && k < 3; ++k)
		{
			uint64_t hash = bsMurmurMix(h[k] + h[k == 2 ? 0 : k + 1]);  // symmetric in the two ends
			ok = bsEdgeTable_Offer(&t, tris, 3 * i + k, (uint32_t)hash, open);
		}
	}
	free(t.slots);
	return ok ? bs_ok : bs_errOutOfMemory;
}
