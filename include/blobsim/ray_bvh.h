// ray_bvh.h — an 8-wide copy of a bsBvh's tree for ray queries only (bsRayBvh_Ray).
//
// A short segment spends its time walking nodes, not testing triangles: with 4-wide nodes it enters
// ~7 of them a query. This copy holds 8 children a node (collapsed from the binary tree the way the
// 4-wide tree is, opening the interior child with the largest surface area until 8 slots are used),
// so a segment walks fewer nodes; one node's 8 boxes are one AVX 8-lane slab test where the CPU has
// AVX2 (runtime dispatch, src/dispatch.h), two 4-lane SSE halves otherwise, the same float
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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// A node of the 8-wide tree. Slots in use come first; an unused slot has min = max = +inf on every
// axis (every slab test misses it) and child = count = 0.
typedef struct bsRayBvhNode
{
	float min[3][8];     // min[axis][slot]: one 8-lane register a row
	float max[3][8];
	uint32_t child[8];   // count 0: index of a node; count > 0: the leaf's first block
	uint32_t count[8];   // triangles of a leaf child; 0 for a node child or an unused slot
} bsRayBvhNode;

_Static_assert(sizeof(bsRayBvhNode) == 256, "8-wide ray nodes are four cache lines");

// A leaf's triangles as the float filter reads them (src/ray_bvh.c, bsRayLeaf_Survivors): up to 4
// triangles a block, one lane each, their vertices, plane and caller's index in structure-of-arrays
// floats rounded to nearest from the doubles; a leaf of n triangles has ceil(n / 4) consecutive
// blocks. The filter drops a lane only when it proves the double test would not take it; the
// others go, in leaf order, to the double test on the bsBvh's triangles.
typedef struct bsRayLeafBlock
{
	float p[3][3][4];    // p[vertex][axis][lane]
	float n[3][4];       // the unit normal, n[axis][lane]
	float delta[4];      // the plane constant
	uint32_t index[4];   // the caller's triangle index (no indirection)
	uint32_t first;      // leaf-order index of lane 0 (lane i is first + i)
	uint32_t count;      // lanes in use, 1..4; the others are zero
	float mag;           // the largest |coordinate| of the lanes' vertices, rounded up
	uint32_t reserved;
} bsRayLeafBlock;

_Static_assert(sizeof(bsRayLeafBlock) == 240, "leaf blocks are 240 bytes");

typedef struct bsRayBvh
{
	bsRayBvhNode* nodes;        // root first (NULL when the bsBvh has no triangles)
	bsRayLeafBlock* blocks;     // the leaves' float blocks (a leaf child's `child` is its first block)
	uint32_t blockCount;
	bool exact;                 // tests only: skip the float filter (every triangle to the double test)
	uint32_t nodeCount;
	uint32_t depth;             // the longest root-to-leaf path in nodes, the root at 1
	const bsTriangle* tris;     // the bsBvh's triangles in leaf order (borrowed)
	const uint32_t* triIndex;   // leaf order -> the caller's index (borrowed)
	uint32_t triCount;
	float pad;                  // the bsBvh's rounding pad, added to every box on query
	float mag;                  // the largest block's mag: the filter is off beyond ~1e17
	double buildSeconds;        // the collapse's wall time
} bsRayBvh;

// Builds the 8-wide copy of bvh's tree (bvh built, possibly over 0 triangles). bs_errInvalidArgument
// (a NULL argument), bs_errOutOfMemory; on failure *rays is zeroed and bsRayBvh_Destroy accepts it.
bsResult bsRayBvh_Build(bsRayBvh* rays, const bsBvh* bvh);

void bsRayBvh_Destroy(bsRayBvh* rays);

// Bytes the copy holds (its nodes and leaf blocks; the double triangles are the bsBvh's).
size_t bsRayBvh_Bytes(const bsRayBvh* rays);

// bsBvh_Ray on the 8-wide copy: the same t, triangle, normal, hit and result, bit for bit (invalid
// inputs included: rays NULL is bs_errInvalidArgument; the grazing case above aside). stats may be
// NULL; when not, the call, the node visits (8-wide nodes), the triangle tests and a hit are added.
bsResult bsRayBvh_Ray(const bsRayBvh* rays, const bsRayInput* input, bsRayOutput* out,
	bsQueryStats* stats);
