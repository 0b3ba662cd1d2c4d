// bvh.h — bounding volume hierarchy over the environment's triangles.
//
// Built once with binned SAH into a binary tree of 32-byte nodes (tinybvh layout: min, leftFirst,
// max, count; a leaf when count > 0; the two children of an interior node are adjacent, the left at
// leftFirst). Triangles are copied in leaf order so a leaf reads one contiguous run.
//
// Queries do not walk the binary tree but a 4-wide copy of it (bsBvhWideNode, 128 bytes): each
// wide node holds the boxes of up to 4 children as structure-of-arrays floats (min[axis][child]), so
// one SIMD slab test checks all four. It is collapsed from the binary tree by repeatedly opening the
// interior child with the largest surface area, so its leaves are exactly the binary tree's leaves.
// A wide child is either another wide node (count 0) or a binary leaf (count > 0 triangles from
// first). Queries walk a fixed-size stack, nearest child first, and shrink the search interval as
// nearer contacts are found; rays (bs_methodRay and bsBvh_Ray) have their own leaner walk of the same
// tree.
#pragma once

#include "blobsim/collide.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bsBvhNode
{
	float min[3];
	uint32_t leftFirst;  // interior: index of the left child (right = left + 1); leaf: first triangle
	float max[3];
	uint32_t count;      // triangles in a leaf; 0 for an interior node
} bsBvhNode;

_Static_assert(sizeof(bsBvhNode) == 32, "BVH nodes are 32 bytes");

// A node of the 4-wide tree that queries walk. Slots in use come first (2..4 of them, or 1 when the
// whole tree is one leaf); an unused slot has the box min = max = +inf on every axis, which every
// slab test misses (its entry time is +inf or its exit time -inf), and child = count = 0.
typedef struct bsBvhWideNode
{
	float min[3][4];     // min[axis][slot]: the children's boxes, one SIMD register per row
	float max[3][4];
	uint32_t child[4];   // count 0: index of a wide node; count > 0: first triangle (leaf order)
	uint32_t count[4];   // triangles of a leaf child; 0 for a wide-node child or an unused slot
} bsBvhWideNode;

_Static_assert(sizeof(bsBvhWideNode) == 128, "wide nodes are two cache lines");

#define BS_BVH_MAX_DEPTH 64

typedef struct bsBvhOptions
{
	int bins;         // SAH bins per axis (default 16; 2..64)
	int maxLeafSize;  // a node with at most this many triangles may become a leaf (default 4; 1..64)
	double traversalCost;  // SAH cost of visiting a node relative to one triangle test (default 1.0)
	int threads;      // build threads, <= 0 for all cores (default 1); the tree is the same for any
} bsBvhOptions;

bsBvhOptions bsDefaultBvhOptions(void);

typedef struct bsBvhStats
{
	uint32_t nodes;       // nodes in use
	uint32_t leaves;
	uint32_t depth;       // longest root-to-leaf path, the root at depth 1
	uint32_t maxLeafTriangles;
	double sahCost;       // SAH cost of the tree, normalised by the root's surface area
	uint32_t wideNodes;   // nodes of the 4-wide tree the queries walk
	uint32_t wideDepth;   // its longest path, the root at 1
	double buildSeconds;  // both trees
} bsBvhStats;

typedef struct bsBvh
{
	bsBvhNode* nodes;          // the binary tree, root first
	uint32_t nodeCount;
	bsBvhWideNode* wide;       // the 4-wide tree, root first (NULL when there are no triangles)
	uint32_t wideCount;
	bsTriangle* tris;      // triangles in leaf order
	uint32_t* triIndex;    // leaf order -> index in the caller's array
	uint8_t* openEdges;    // leaf order: bit k set when edge k (p1p2, p2p3, p3p1) has no neighbour
	                       // at the build (a border of an open mesh): the ray test's tie rule
	uint32_t triCount;
	float pad;             // added to every box on query: covers float rounding of the bounds
	double planeSlack;     // the largest distance of a vertex from its triangle's stored plane
	                       // (bvh_internal.h): karabassi's box cull allows for it
	bsBvhStats stats;
} bsBvh;

// Statistics of one or many queries (summed by the batch).
typedef struct bsQueryStats
{
	uint64_t queries;          // calls, invalid inputs included
	uint64_t nodesVisited;     // wide nodes the walk entered, the root included (boxes missed are not)
	uint64_t trianglesTested;  // per-triangle tests run
	uint64_t hits;
} bsQueryStats;

// Builds the tree over count triangles (count may be 0: every query misses) on options->threads
// threads; the tree (both trees, the triangle order, every statistic but the time) is the same for
// any thread count. The BVH owns copies; the caller keeps its array. Fails with bs_errOutOfMemory (also beyond 1.4 billion triangles, whose edges are not matched) or bs_errTooLarge (count >= 2^31).
// options NULL means bsDefaultBvhOptions(). Also fails with bs_errInvalidArgument (bvh NULL, tris
// NULL with count > 0, an option out of range) and bs_errNonFinite (a NaN/inf vertex). On failure
// *bvh is zeroed, nothing is leaked, and bsBvh_Destroy accepts it.
bsResult bsBvh_Build(bsBvh* bvh, const bsTriangle* tris, uint32_t count, const bsBvhOptions* options);

void bsBvh_Destroy(bsBvh* bvh);

// New positions for the triangles of a built BVH (tris in the caller's order of the build, same
// count), keeping the tree and recomputing its boxes bottom-up (bvh_refit.c): answers stay exact, the
// tree's quality is the old shape's. bs_errInvalidArgument, bs_errNonFinite (the BVH unchanged).
bsResult bsBvh_Refit(bsBvh* bvh, const bsTriangle* tris);

// The open edges of the build (bsFindOpenEdges) in the caller's order of the triangles, into open
// (bvh->triCount bytes): what bsSweepListOpen needs to give the BVH's answers.
void bsBvh_OpenEdges(const bsBvh* bvh, uint8_t* open);

// Bytes the BVH holds: both trees, the triangle copies and the index map.
size_t bsBvh_Bytes(const bsBvh* bvh);

// The nearest contact of the swept sphere (or, for bs_methodRay, the segment) with the mesh: the same
// answer as bsSweepList over the caller's array (for bs_methodRay, bsSweepListOpen with the build's
// open edges, bsBvh_OpenEdges), bit for bit (of triangles at the same t, the lowest
// caller's index wins, as in the list loop, whatever order the walk visits them in).
// out->triangle is the caller's index. stats may be NULL; when not, the counts are added to it.
// An invalid input returns bsMakeSweep's error (bs_errInvalidArgument for a NULL bvh/input or an
// unknown method) and still fills out with a miss: t = 1, hit = 0, triangle BS_NO_TRIANGLE, centre
// and point C2 (C1 when C2 is not finite, the origin when neither is), normal zero. Every byte of
// out is written (zeroed first), so outputs can be compared with memcmp.
bsResult bsBvh_Sweep(const bsBvh* bvh, bsMethod method, const bsSweepInput* input,
	bsSweepOutput* out, bsQueryStats* stats);

// The same for a sweep already prepared with bsMakeSweep (so a caller that also tests other shapes
// builds it once); method must be valid.
void bsBvh_SweepPrepared(const bsBvh* bvh, bsMethod method, const bsSweep* sweep, bsSweepOutput* out,
	bsQueryStats* stats);

// The triangles within `distance` of q (exactly: bsTriangle_ClosestPoint), as their places in the
// tree's triangle order (bvh->tris), at most `capacity` of them into leaves, in the tree's order.
// Returns how many there are, which may exceed capacity (then leaves holds the first capacity).
uint32_t bsBvh_NearLeaves(const bsBvh* bvh, bsVec3 q, double distance, uint32_t* leaves, uint32_t capacity);

// bsBvh_SweepPrepared tested against the triangles at the tree places `leaves` only (the candidates of
// bsBvh_NearLeaves), for a method other than bs_methodRay: the same answer bit for bit as
// bsBvh_SweepPrepared whenever no other triangle of the mesh reports a contact for this sweep (the
// caller's bound: every other triangle is farther from the swept sphere than the kernels' rounding),
// the contact's refinement included (it looks at the whole tree, as bsBvh_SweepPrepared does).
void bsBvh_SweepLeaves(const bsBvh* bvh, bsMethod method, const bsSweep* sweep, const uint32_t* leaves,
	uint32_t count, bsSweepOutput* out, bsQueryStats* stats);

// A ray query: the segment C1 -> C2, the question bs_methodRay asks without a radius.
typedef struct bsRayInput
{
	bsVec3 c1;  // start
	bsVec3 c2;  // end
} bsRayInput;

// What a ray query needs, as Embree's rtcIntersect1 returns it: where, which triangle, its normal.
typedef struct bsRayOutput
{
	double t;           // the crossing's fraction of C1 -> C2; 1 when nothing is hit
	bsVec3 normal;      // the hit triangle's unit face normal turned against the motion (n, or -n
	                    // when n . (C2 - C1) > 0); zero on a miss
	uint32_t triangle;  // the caller's index; BS_NO_TRIANGLE on a miss
	uint8_t hit;        // 1 when the segment crosses a triangle
	uint8_t reserved[3];  // zero
} bsRayOutput;

// The first triangle the segment C1 -> C2 crosses: the same t and triangle as bsBvh_Sweep with
// bs_methodRay (and so as bsSweepListOpen with the build's open edges), bit for bit, without making a bsSweep or filling a whole
// bsSweepOutput (centre, closest point). An invalid input (bvh, input or out NULL:
// bs_errInvalidArgument; what bsMakeSweep rejects, a NaN/inf coordinate or a squared length beyond
// the double range: bs_errNonFinite) fills out (when not NULL) with a miss. Every byte of out is
// written, so outputs can be compared with memcmp.
// One known exception, for rays only (bs_methodRay and this): a segment lying in a triangle's plane to
// rounding (one end's plane distance 0, the other's ~1e-17) gets t = 0 from the plane distances while
// the watertight test asks whether its whole line passes through the triangle, so the list loop can
// report a contact at a point of the segment outside the triangle's box, which a walk that prunes
// boxes may skip. tests/test_ray_bvh.c counts these (none on the bench's query sets) and accepts no
// other difference.
bsResult bsBvh_Ray(const bsBvh* bvh, const bsRayInput* input, bsRayOutput* out);

// N queries spread over threads (sweep_batch.c). threads <= 0 means all cores. Outputs are identical
// for every thread count. Returns the first input error (by index) and still answers the others;
// an invalid input gets a miss with t = 1 and hit = 0.
bsResult bsBvh_SweepBatch(const bsBvh* bvh, bsMethod method, const bsSweepInput* inputs,
	bsSweepOutput* outputs, size_t count, int threads, bsQueryStats* stats);

// The mesh's point nearest input->point within input->maxDistance (collide.h): the same answer as
// bsClosestPointList over the caller's array, bit for bit (the nearest triangle; of triangles at the
// same distance, the lowest caller's index). Walks the 4-wide tree nearest box first and skips every
// box farther than the best distance so far (boxes are padded for rounding, so ties are kept).
// out->triangle is the caller's index. stats may be NULL; when not, the counts are added to it. An
// invalid input returns bs_errInvalidArgument (bvh, input or out NULL) or bsClosestPointInput_Check's
// error and fills out (when not NULL) with a miss. Every byte of out is written.
// The triangles near q: fn gets every triangle of every leaf whose box lies within radius of q (a
// superset of the triangles within radius), with its caller's index, in the tree's order (the same
// for any thread). For the fluid's walls, which sum the planes near a particle.
typedef void bsBvhVisitFn(void* context, const bsTriangle* triangle, uint32_t index);
void bsBvh_VisitNear(const bsBvh* bvh, bsVec3 q, double radius, bsBvhVisitFn* fn, void* context);

bsResult bsBvh_ClosestPoint(const bsBvh* bvh, const bsClosestPointInput* input,
	bsClosestPointOutput* out, bsQueryStats* stats);
