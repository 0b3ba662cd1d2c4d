// weld.h — a triangle soup's shared corners made one vertex. OBJ and PLY meshes arrive as unindexed
// bsTriangle soups whose shared corners are the same doubles, so welding is by exact position (-0 and
// +0 are one position). Used by the mesh topology (sensor particles), the rigid bodies' vertex lists
// and the distance grid's connected components.
#pragma once

#include "blobsim/base.h"
#include "blobsim/triangle.h"

#include <stdint.h>

typedef struct bsWeld
{
	bsVec3* positions;      // vertexCount positions, each its lowest corner's
	uint32_t* cornerVertex; // the vertex of corner k of triangle t at 3 t + k
	uint32_t cornerCount;   // 3 * the triangle count
	uint32_t vertexCount;
} bsWeld;

// Welds tris[0 .. count - 1] through a hash table, in O(count): vertices are numbered in the order
// of their first corner. bs_errTooLarge when 3 count does not fit 32 bits, bs_errOutOfMemory;
// on an error weld is left empty. The corners are not checked (NaN welds with nothing).
bsResult bsWeld_Build(bsWeld* weld, const bsTriangle* tris, uint32_t count);

// Renumbers the vertices in the order of their positions (x, then y, then z), so that the numbering
// does not depend on the triangles' order. False when memory is short (weld unchanged).
bool bsWeld_SortByPosition(bsWeld* weld);

void bsWeld_Destroy(bsWeld* weld);
