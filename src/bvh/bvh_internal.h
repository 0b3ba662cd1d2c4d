// bvh_internal.h — what the BVH's build, refit and queries share inside the engine.
#pragma once

#include "blobsim/bvh.h"

// The largest distance of a vertex from its own triangle's stored plane (|T.N . P + T.delta|) over
// the triangles, the bound karabassi's box cull allows for (bsBvh.planeSlack); +inf when some
// distance is not finite, which turns the cull off.
double bsBvh_PlaneSlack(const bsTriangle* tris, uint32_t count);
