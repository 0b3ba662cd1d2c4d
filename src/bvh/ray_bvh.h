// ray_bvh.h — an 8-wide copy of a bsBvh's tree for ray queries only (bsRayBvh_Ray).
//
// A short segment spends its time walking nodes, not testing triangles: with 4-wide nodes it enters
// ~7 of them a query. This copy holds 8 children a node (collapsed from the binary tree the way the
// 4-wide tree is, opening the interior child with the largest surface area until 8 slots are used),
// so a segment walks fewer nodes; one node's 8 boxes are one AVX 8-lane slab test where the CPU has
// AVX2 (runtime dispatch, src/collide/dispatch.h), two 4-lane SSE halves otherwise, the same float
// operations either way. Its leaves are the binary tree's leaves: triangle ranges of the bsBvh's own
// leaf-ordered copies, tested with the same double-precision watertight test as bsBvh_Ray, so the
// answers are bsBvh_Ray's and the list loop's bit for bit, but for one case older than this copy: a
// segment lying almost in a triangle's plane can get from the list loop a contact at t = 0 outside
// the triangle's box, which a walk that prunes boxes may miss (any walk; docs/performance.md, "Rays
// on an 8-wide copy of the tree").
//
// Built from a built bsBvh (bsRayBvh_Build: the collapse alone, no sorting or binning; a few
// milliseconds for 256k triangles), which must outlive it and is borrowed, not copied: the copy
// holds only its nodes (256 bytes each, about one for every 6 triangles: ~43 bytes a triangle on the
// bench's heightfield). After bsBvh_Refit (or a rebuild) build it again: it copies the boxes.
#pragma once

#include "blobsim/bvh.h"

#include <stddef.h>
#include <stdint.h>

// A node of the 8-wide tree. Slots in use come first; an unused slot has min = max = +inf on every
// axis (every slab test misses it) and child = count = 0.
typedef struct bsRayBvhNode
{
	float min[3][8];     // min[axis][slot]: one 8-lane register a row
	float max[3][8];
	uint32_t child[8];   // count 0: index of a node; count > 0: first triangle (the bsBvh's leaf order)
	uint32_t count[8];   // triangles of a leaf child; 0 for a node child or an unused slot
} bsRayBvhNode;

_Static_assert(sizeof(bsRayBvhNode) == 256, "8-wide ray nodes are four cache lines");

typedef struct bsRayBvh
{
	bsRayBvhNode* nodes;        // root first (NULL when the bsBvh has no triangles)
	uint32_t nodeCount;
	uint32_t depth;             // the longest root-to-leaf path in nodes, the root at 1
	const bsTriangle* tris;     // the bsBvh's triangles in leaf order (borrowed)
	const uint32_t* triIndex;   // leaf order -> the caller's index (borrowed)
	const uint8_t* openEdges;   // leaf order: the edges without a neighbour (borrowed)
	uint32_t triCount;
	float pad;                  // the bsBvh's rounding pad, added to every box on query
	double buildSeconds;        // the collapse's wall time
} bsRayBvh;

// Builds the 8-wide copy of bvh's tree (bvh built, possibly over 0 triangles). bs_errInvalidArgument
// (a NULL argument), bs_errOutOfMemory; on failure *rays is zeroed and bsRayBvh_Destroy accepts it.
bsResult bsRayBvh_Build(bsRayBvh* rays, const bsBvh* bvh);

void bsRayBvh_Destroy(bsRayBvh* rays);

// Bytes the copy holds (its nodes; the triangles are the bsBvh's).
size_t bsRayBvh_Bytes(const bsRayBvh* rays);

// bsBvh_Ray on the 8-wide copy: the same t, triangle, normal, hit and result, bit for bit (invalid
// inputs included: rays NULL is bs_errInvalidArgument; the grazing case above aside). stats may be
// NULL; when not, the call, the node visits (8-wide nodes), the triangle tests and a hit are added.
bsResult bsRayBvh_Ray(const bsRayBvh* rays, const bsRayInput* input, bsRayOutput* out,
	bsQueryStats* stats);
