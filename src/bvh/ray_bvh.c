// ray_bvh.c — the 8-wide copy of a bsBvh for ray queries (ray_bvh.h): its collapse
// from the binary tree and its walk.
#include "boxf.h"
#include "bvh_collapse.h"
#include "bvh_query.h"
#include "dispatch.h"
#include "ray_bvh.h"

#include "blobsim/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__AVX__) || BS_DISPATCH_AVX2
#include <immintrin.h>
#endif

// --- The collapse ---

typedef struct bsRayBvhBuilder
{
	const bsBvhNode* nodes;  // the binary tree
	bsRayBvhNode* out;
	uint32_t count;
	uint32_t depth;
} bsRayBvhBuilder;

// Node `index` from the binary nodes slot[0, n), the rest of its slots unused.
static void bsRayBvhNode_Set(bsRayBvhNode* node, const bsBvhNode* nodes, const uint32_t* slot,
	uint32_t n)
{
	memset(node, 0, sizeof *node);
	bsBvh_SlotBoxes(nodes, slot, n, 8, &node->min[0][0], &node->max[0][0]);
}

// Makes node `index` from binary node `root` (interior) and recurses into its interior slots
// (bsBvh_OpenSlots: the 4-wide tree's collapse with 8 slots). Depth-first numbering keeps a
// subtree's nodes close in memory.
static void bsRayBvhBuilder_Collapse(bsRayBvhBuilder* b, uint32_t root, uint32_t index, uint32_t depth)
{
	b->depth = depth > b->depth ? depth : b->depth;
	uint32_t slot[8];
	uint32_t n = bsBvh_OpenSlots(b->nodes, root, 8, slot);
	bsRayBvhNode* node = b->out + index;
	bsRayBvhNode_Set(node, b->nodes, slot, n);
	for (uint32_t i = 0; i < n; ++i)
	{
		const bsBvhNode* c = b->nodes + slot[i];
		if (c->count > 0)
		{
			node->child[i] = c->leftFirst;
			node->count[i] = c->count;
		}
		else
		{
			uint32_t childIndex = b->count++;
			node->child[i] = childIndex;
			bsRayBvhBuilder_Collapse(b, slot[i], childIndex, depth + 1);
		}
	}
}

// How many nodes the collapse of binary node `root` (interior) makes.
static uint32_t bsRayBvh_CountNodes(const bsBvhNode* nodes, uint32_t root)
{
	uint32_t slot[8];
	uint32_t n = bsBvh_OpenSlots(nodes, root, 8, slot);
	uint32_t total = 1;
	for (uint32_t i = 0; i < n; ++i)
	{
		total += nodes[slot[i]].count == 0 ? bsRayBvh_CountNodes(nodes, slot[i]) : 0u;
	}
	return total;
}

bsResult bsRayBvh_Build(bsRayBvh* rays, const bsBvh* bvh)
{
	if (rays == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(rays, 0, sizeof *rays);
	if (bvh == NULL)
	{
		return bs_errInvalidArgument;
	}
	double t0 = bsNow();
	rays->tris = bvh->tris;
	rays->triIndex = bvh->triIndex;
	rays->openEdges = bvh->openEdges;
	rays->triCount = bvh->triCount;
	rays->pad = bvh->pad;
	if (bvh->triCount == 0 || bvh->nodeCount == 0)
	{
		rays->buildSeconds = bsNow() - t0;
		return bs_ok;
	}
	// The nodes are counted first (the same slot choices without the writes), so the array is
	// allocated once at its size.
	uint32_t total = bvh->nodes->count > 0 ? 1u : bsRayBvh_CountNodes(bvh->nodes, 0);
	bsRayBvhNode* nodes = aligned_alloc(64, (size_t)total * sizeof *nodes);
	if (nodes == NULL)
	{
		return bs_errOutOfMemory;
	}
	bsRayBvhBuilder b = {bvh->nodes, nodes, 1, 1};
	const bsBvhNode* root = bvh->nodes;
	if (root->count > 0)
	{
		uint32_t slot = 0;
		bsRayBvhNode_Set(nodes, bvh->nodes, &slot, 1);
		nodes->child[0] = root->leftFirst;
		nodes->count[0] = root->count;
	}
	else
	{
		bsRayBvhBuilder_Collapse(&b, 0, 0, 1);
	}
	rays->nodes = nodes;
	rays->nodeCount = b.count;
	rays->depth = b.depth;
	rays->buildSeconds = bsNow() - t0;
	return bs_ok;
}

void bsRayBvh_Destroy(bsRayBvh* rays)
{
	if (rays != NULL)
	{
		free(rays->nodes);
		memset(rays, 0, sizeof *rays);
	}
}

size_t bsRayBvh_Bytes(const bsRayBvh* rays)
{
	return rays != NULL ? (size_t)rays->nodeCount * sizeof(bsRayBvhNode) : 0;
}

// --- The walk ---

// The segment's slab test, set up once per query as the 4-wide ray walk's (bvh.c): for each axis
// the origin seen from the min planes (o + grow) and from the max planes (o - grow) and the negated
// inverse, so a plane's time is (origin - plane) * -inv, exactly (plane - origin) * inv. No NaN can
// arise: the origins are finite and -inv is never zero, so an unused slot's inf plane gives an inf
// time, and its box is missed.
typedef struct bsRayBvhLanes
{
	float lower[3];  // o + grow
	float upper[3];  // o - grow
	float ninv[3];   // -inv
} bsRayBvhLanes;

static void bsMakeRayBvhLanes(const bsBvhRay* r, bsRayBvhLanes* l)
{
	for (int a = 0; a < 3; ++a)
	{
		l->lower[a] = r->o[a] + r->grow;
		l->upper[a] = r->o[a] - r->grow;
		l->ninv[a] = -r->inv[a];
	}
}

// A bit per slot whose grown box the segment enters at or before the limit (clipped to [0, limit])
// and the 8 entry times. Every version below does the same float operations on each lane (minps and
// maxps return their second operand when the comparison is false, as the scalar one does), so they
// enter the same boxes.
#if defined(__SSE2__)
static inline unsigned bsRayBvh_Boxes4(const bsRayBvhLanes* l, const bsRayBvhNode* n, int half,
	__m128 limit, float* entry)
{
	__m128 tmin = _mm_setzero_ps();
	__m128 tmax = limit;
	for (int a = 0; a < 3; ++a)
	{
		__m128 ninv = _mm_set1_ps(l->ninv[a]);
		__m128 t1 = _mm_mul_ps(_mm_sub_ps(_mm_set1_ps(l->lower[a]), _mm_load_ps(n->min[a] + half)), ninv);
		__m128 t2 = _mm_mul_ps(_mm_sub_ps(_mm_set1_ps(l->upper[a]), _mm_load_ps(n->max[a] + half)), ninv);
		tmin = _mm_max_ps(tmin, _mm_min_ps(t1, t2));
		tmax = _mm_min_ps(tmax, _mm_max_ps(t1, t2));
	}
	_mm_store_ps(entry + half, tmin);
	return (unsigned)_mm_movemask_ps(_mm_cmple_ps(tmin, tmax));
}

static inline unsigned bsRayBvh_BoxesSse(const bsRayBvhLanes* l, const bsRayBvhNode* n, float limit,
	float* entry)
{
	__m128 lim = _mm_set1_ps(limit);
	return bsRayBvh_Boxes4(l, n, 0, lim, entry) | bsRayBvh_Boxes4(l, n, 4, lim, entry) << 4;
}
#else
static inline unsigned bsRayBvh_BoxesSse(const bsRayBvhLanes* l, const bsRayBvhNode* n, float limit,
	float* entry)
{
	unsigned mask = 0;
	for (int i = 0; i < 8; ++i)
	{
		float tmin = 0.0f, tmax = limit;
		for (int a = 0; a < 3; ++a)
		{
			float t1 = (l->lower[a] - n->min[a][i]) * l->ninv[a];
			float t2 = (l->upper[a] - n->max[a][i]) * l->ninv[a];
			float near = t1 < t2 ? t1 : t2;
			float far = t1 > t2 ? t1 : t2;
			tmin = tmin > near ? tmin : near;
			tmax = tmax < far ? tmax : far;
		}
		entry[i] = tmin;
		mask |= tmin <= tmax ? 1u << i : 0u;
	}
	return mask;
}
#endif

#if defined(__AVX__) || BS_DISPATCH_AVX2
#if BS_DISPATCH_AVX2
#define BS_RAY_BVH_AVX_TARGET BS_TARGET_AVX2
#else
#define BS_RAY_BVH_AVX_TARGET
#endif
static BS_RAY_BVH_AVX_TARGET BS_ALWAYS_INLINE unsigned bsRayBvh_BoxesAvx(const bsRayBvhLanes* l,
	const bsRayBvhNode* n, float limit, float* entry)
{
	__m256 tmin = _mm256_setzero_ps();
	__m256 tmax = _mm256_set1_ps(limit);
	for (int a = 0; a < 3; ++a)
	{
		// Broadcasts from memory: one load each, no shuffle.
		__m256 ninv = _mm256_broadcast_ss(l->ninv + a);
		__m256 t1 = _mm256_mul_ps(_mm256_sub_ps(_mm256_broadcast_ss(l->lower + a),
			_mm256_load_ps(n->min[a])), ninv);
		__m256 t2 = _mm256_mul_ps(_mm256_sub_ps(_mm256_broadcast_ss(l->upper + a),
			_mm256_load_ps(n->max[a])), ninv);
		tmin = _mm256_max_ps(tmin, _mm256_min_ps(t1, t2));
		tmax = _mm256_min_ps(tmax, _mm256_max_ps(t1, t2));
	}
	_mm256_store_ps(entry, tmin);
	return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(tmin, tmax, _CMP_LE_OQ));
}
#endif

// A deferred child: a node (count 0) or a leaf's range, with its float entry time.
typedef struct bsRayBvhEntry
{
	uint32_t child;
	uint32_t count;
	float key;
} bsRayBvhEntry;

// Each node defers at most 7 children, and the tree is no deeper than the binary one.
#define BS_RAY_BVH_STACK (7 * BS_BVH_MAX_DEPTH)

// The entered children of `node` (mask, at least two bits) but the nearest pushed farthest first, so
// they are popped nearest first (on equal times the lower slot first). Returns the nearest's slot.
static inline int bsRayBvh_Push(const bsRayBvhNode* node, unsigned mask, const float* entry,
	bsRayBvhEntry* stack, int* top)
{
	int order[8];
	int n = 0;
	for (unsigned m = mask; m != 0; m &= m - 1)
	{
		int i = __builtin_ctz(m);
		int j = n++;
		while (j > 0 && entry[order[j - 1]] <= entry[i])
		{
			order[j] = order[j - 1];
			--j;
		}
		order[j] = i;
	}
	// order: farthest first, and of equal times the higher slot first.
	for (int j = 0; j + 1 < n; ++j)
	{
		int i = order[j];
		bsRayBvhEntry c = {node->child[i], node->count[i], entry[i]};
		stack[(*top)++] = c;
	}
	return order[n - 1];
}

#define BS_RAY_WALK bsRayBvh_Walk
#define BS_RAY_WALK_TARGET
#if defined(__AVX__)
#define BS_RAY_WALK_BOXES bsRayBvh_BoxesAvx
#else
#define BS_RAY_WALK_BOXES bsRayBvh_BoxesSse
#endif
#include "ray_bvh_walk.h"
#undef BS_RAY_WALK
#undef BS_RAY_WALK_TARGET
#undef BS_RAY_WALK_BOXES

#if BS_DISPATCH_AVX2
#define BS_RAY_WALK bsRayBvh_WalkAvx2
#define BS_RAY_WALK_TARGET BS_TARGET_AVX2
#define BS_RAY_WALK_BOXES bsRayBvh_BoxesAvx
#include "ray_bvh_walk.h"
#undef BS_RAY_WALK
#undef BS_RAY_WALK_TARGET
#undef BS_RAY_WALK_BOXES
#endif

// The nearest crossing of the segment in frame: the walk, or a scan of every triangle when the
// float walk cannot be trusted (bsBvh_Ray's rule).
static void bsRayBvh_Best(const bsRayBvh* rb, bsRayFrame* frame, bsBvhBest* best, uint64_t* visited,
	uint64_t* tested)
{
	memset(best, 0, sizeof *best);
	if (rb->triCount == 0)
	{
		return;
	}
	double reach = bsRayFrame_Reach(frame);
	if (reach <= BS_BVH_FLOAT_LIMIT)
	{
		bsBvhRay ray = bsMakeBvhRayPadded(rb->pad, frame->c1, frame->d, 0.0, reach);
		bsRayBvhLanes lanes;
		bsMakeRayBvhLanes(&ray, &lanes);
#if BS_DISPATCH_AVX2
		bool walked = bsDispatch_Avx2() ? bsRayBvh_WalkAvx2(rb, frame, &lanes, best, visited, tested)
			: bsRayBvh_Walk(rb, frame, &lanes, best, visited, tested);
#else
		bool walked = bsRayBvh_Walk(rb, frame, &lanes, best, visited, tested);
#endif
		if (walked)
		{
			return;
		}
		memset(best, 0, sizeof *best);
	}
	*tested += rb->triCount;
	bsRay_TestRange(rb->tris, rb->triIndex, rb->openEdges, frame, 0, rb->triCount, best);
}

bsResult bsRayBvh_Ray(const bsRayBvh* rays, const bsRayInput* input, bsRayOutput* out,
	bsQueryStats* stats)
{
	bsRayFrame frame;
	bsResult result = bsRayQuery_Begin(rays != NULL, input, out, &frame);
	if (stats != NULL)
	{
		stats->queries += 1;
	}
	if (result != bs_ok)
	{
		return result;
	}
	bsBvhBest best;
	uint64_t visited = 0, tested = 0;
	bsRayBvh_Best(rays, &frame, &best, &visited, &tested);
	bsRayQuery_Finish(rays->tris, &frame, &best, out);
	if (stats != NULL)
	{
		stats->nodesVisited += visited;
		stats->trianglesTested += tested;
		stats->hits += best.found ? 1u : 0u;
	}
	return bs_ok;
}
