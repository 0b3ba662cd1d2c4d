// morton.h — the order of points along a Morton (Z-order) curve: points near each other in space come
// near each other in the order. Queries answered in this order walk the same BVH nodes and triangles
// one after another, which is several times faster than a random order on a scene larger than the
// caches. Used by the batch of sweeps and by the step's move phase; the order changes no answer.
#pragma once

#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Writes into order[0 .. count - 1] the indices 0 .. count - 1 sorted by the Morton code of each
// point's cell in a 1024^3 grid over [lo, hi] (points outside, and NaN, are clamped to the grid);
// points of one cell keep their index order. The point of index i is at (const char*)points +
// i * stride. False, with order untouched, when count > UINT32_MAX or memory is short.
bool bsMortonOrder(bsVec3 lo, bsVec3 hi, const bsVec3* points, size_t stride, size_t count,
	uint32_t* order);
