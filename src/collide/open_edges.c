// open_edges.c — which triangle edges have no neighbour (bsFindOpenEdges, collide.h), for the ray
// test's tie rule: an edge of one triangle only takes every tie on it (ray_test.h).
//
// Edges are matched by the exact positions of their two ends, in either direction, as
// bsMeshTopology welds (OBJ triangles arrive as a soup whose shared corners are bit-identical
// copies). One pass over the 3n edges with an open-addressing table keyed by a hash of the two
// positions: linear time, a 4-byte slot for every half edge and 5 bytes an edge, freed at the end.
#include "core.h"

#include "blobsim/collide.h"

#include <stdbool.h>

#include <stdlib.h>
#include <string.h>

static uint64_t bsOpenEdges_HashPoint(bsVec3 p)
{
	// +0.0 for -0.0, so the two zeros are one position, as == says.
	double c[3] = {p.x + 0.0, p.y + 0.0, p.z + 0.0};
	uint64_t h = UINT64_C(0x9e3779b97f4a7c15);
	for (int i = 0; i < 3; ++i)
	{
		uint64_t bits;
		memcpy(&bits, c + i, sizeof bits);
		h = bsMurmurMix(h ^ bits);
	}
	return h;
}

static bool bsOpenEdges_Same(bsVec3 a, bsVec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

// Corner k of a triangle (p1, p2, p3).
static bsVec3 bsOpenEdges_Corner(const bsTriangle* t, int k)
{
	return k == 0 ? t->p1 : (k == 1 ? t->p2 : t->p3);
}

bsResult bsFindOpenEdges(const bsTriangle* tris, uint32_t count, uint8_t* open)
{
	if ((tris == NULL || open == NULL) && count > 0)
	{
		return bs_errInvalidArgument;
	}
	uint64_t edges = 3 * (uint64_t)count;
	if (edges >= UINT32_MAX)
	{
		return bs_errTooLarge;  // edge ids are 32-bit (a billion and a half triangles)
	}
	size_t slots = 1;
	while (slots < 2 * edges)
	{
		slots *= 2;
	}
	uint32_t* table = calloc(slots, sizeof(uint32_t));  // edge id + 1 of the first with those ends
	uint8_t* uses = calloc(edges > 0 ? edges : 1, 1);     // per first edge: triangles on it, up to 2
	uint32_t* first = malloc((edges > 0 ? edges : 1) * sizeof(uint32_t));
	if (table == NULL || uses == NULL || first == NULL)
	{
		free(table);
		free(uses);
		free(first);
		return bs_errOutOfMemory;
	}
	for (uint32_t e = 0; e < edges; ++e)
	{
		const bsTriangle* t = tris + e / 3;
		bsVec3 a = bsOpenEdges_Corner(t, (int)(e % 3));
		bsVec3 b = bsOpenEdges_Corner(t, (int)(e % 3 == 2 ? 0 : e % 3 + 1));
		uint64_t ha = bsOpenEdges_HashPoint(a), hb = bsOpenEdges_HashPoint(b);
		size_t slot = (size_t)bsMurmurMix(ha + hb) & (slots - 1);  // symmetric in a, b
		for (;; slot = (slot + 1) & (slots - 1))
		{
			uint32_t f = table[slot];
			if (f == 0)
			{
				table[slot] = e + 1;
				first[e] = e;
				uses[e] = 1;
				break;
			}
			const bsTriangle* u = tris + (f - 1) / 3;
			bsVec3 c = bsOpenEdges_Corner(u, (int)((f - 1) % 3));
			bsVec3 d = bsOpenEdges_Corner(u, (int)((f - 1) % 3 == 2 ? 0 : (f - 1) % 3 + 1));
			if ((bsOpenEdges_Same(a, c) && bsOpenEdges_Same(b, d)) ||
				(bsOpenEdges_Same(a, d) && bsOpenEdges_Same(b, c)))
			{
				first[e] = f - 1;
				uses[f - 1] = uses[f - 1] < 2 ? uses[f - 1] + 1 : 2;
				break;
			}
		}
	}
	for (uint32_t i = 0; i < count; ++i)
	{
		open[i] = 0;
		for (int k = 0; k < 3; ++k)
		{
			open[i] |= (uint8_t)(uses[first[3 * i + (uint32_t)k]] == 1 ? 1u << k : 0u);
		}
	}
	free(table);
	free(uses);
	free(first);
	return bs_ok;
}
