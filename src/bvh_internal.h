// bvh_internal.h — what the BVH's build, refit and queries share inside the engine.
#pragma once

#include "blobsim/bvh.h"

#include <stdbool.h>
#include <stddef.h>

// The largest distance of a vertex from its own triangle's stored plane (|T.N . P + T.delta|) over
// the triangles, the bound karabassi's box cull allows for (bsBvh.planeSlack); +inf when some
// distance is not finite, which turns the cull off.
double bsBvh_PlaneSlack(const bsTriangle* tris, uint32_t count);

// Allocates bvh->triBoxes for bvh->triCount triangles, the tail zeroed. Returns false when out of
// memory.
bool bsBvh_AllocTriBoxes(bsBvh* bvh);

// The boxes of triangles [first, last) of the leaf order, from bvh->tris.
static inline void bsBvh_SetTriBoxes(bsBvh* bvh, size_t first, size_t last)
{
	for (size_t i = first; i < last; ++i)
	{
		bvh->triBoxes[i] = bsTriangle_Boxf(bvh->tris + i);
	}
}
