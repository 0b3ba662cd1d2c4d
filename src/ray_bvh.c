// ray_bvh.c — the 8-wide copy of a bsBvh for ray queries (include/blobsim/ray_bvh.h): its collapse
// from the binary tree and its walk.
#include "bvh_collapse.h"
#include "bvh_query.h"
#include "dispatch.h"
#include "float_bounds.h"

#include "blobsim/ray_bvh.h"
#include "blobsim/timer.h"

#include <float.h>
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
	const bsTriangle* tris;  // the bsBvh's, leaf order
	const uint32_t* triIndex;
	bsRayBvhNode* out;
	bsRayLeafBlock* blocks;
	uint32_t count;
	uint32_t blockCount;
	uint32_t depth;
} bsRayBvhBuilder;

// Blocks of 4 lanes a leaf of n triangles takes.
static uint32_t bsRayLeaf_Blocks(uint32_t n)
{
	return (n + 3u) / 4u;
}

// The larger of m and |x| rounded up to a float.
static float bsRayLeaf_Mag(float m, double x)
{
	float f = bsFloatUp(fabs(x));
	return f > m ? f : m;
}

// The blocks of the leaf of triangles [first, first + n) (leaf order); returns its first block.
static uint32_t bsRayBvhBuilder_Leaf(bsRayBvhBuilder* b, uint32_t first, uint32_t n)
{
	uint32_t start = b->blockCount;
	for (uint32_t j = 0; j < n; j += 4)
	{
		bsRayLeafBlock* block = b->blocks + b->blockCount++;
		memset(block, 0, sizeof *block);
		block->first = first + j;
		block->count = n - j < 4 ? n - j : 4;
		for (uint32_t lane = 0; lane < block->count; ++lane)
		{
			const bsTriangle* t = b->tris + first + j + lane;
			const bsVec3 v[3] = {t->p1, t->p2, t->p3};
			for (int k = 0; k < 3; ++k)
			{
				double c[3] = {v[k].x, v[k].y, v[k].z};
				for (int a = 0; a < 3; ++a)
				{
					block->p[k][a][lane] = (float)c[a];
					block->mag = bsRayLeaf_Mag(block->mag, c[a]);
				}
			}
			block->n[0][lane] = (float)t->n.x;
			block->n[1][lane] = (float)t->n.y;
			block->n[2][lane] = (float)t->n.z;
			block->delta[lane] = (float)t->delta;
			block->index[lane] = b->triIndex[first + j + lane];
		}
	}
	return start;
}

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
			node->child[i] = bsRayBvhBuilder_Leaf(b, c->leftFirst, c->count);
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

// How many nodes the collapse of binary node `root` (interior) makes; adds its leaves' blocks.
static uint32_t bsRayBvh_CountNodes(const bsBvhNode* nodes, uint32_t root, uint32_t* blocks)
{
	uint32_t slot[8];
	uint32_t n = bsBvh_OpenSlots(nodes, root, 8, slot);
	uint32_t total = 1;
	for (uint32_t i = 0; i < n; ++i)
	{
		uint32_t count = nodes[slot[i]].count;
		total += count == 0 ? bsRayBvh_CountNodes(nodes, slot[i], blocks) : 0u;
		*blocks += bsRayLeaf_Blocks(count);
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
	rays->triCount = bvh->triCount;
	rays->pad = bvh->pad;
	if (bvh->triCount == 0 || bvh->nodeCount == 0)
	{
		rays->buildSeconds = bsNow() - t0;
		return bs_ok;
	}
	// The nodes are counted first (the same slot choices without the writes), so the array is
	// allocated once at its size.
	uint32_t blockTotal = 0;
	uint32_t total = bvh->nodes->count > 0 ? 1u : bsRayBvh_CountNodes(bvh->nodes, 0, &blockTotal);
	blockTotal += bvh->nodes->count > 0 ? bsRayLeaf_Blocks(bvh->nodes->count) : 0u;
	bsRayBvhNode* nodes = aligned_alloc(64, (size_t)total * sizeof *nodes);
	// 240 bytes: a multiple of 16 (the blocks' SSE loads), rounded up to one of 64 for aligned_alloc.
	size_t blockBytes = ((size_t)blockTotal * sizeof(bsRayLeafBlock) + 63u) & ~(size_t)63u;
	bsRayLeafBlock* blocks = aligned_alloc(64, blockBytes);
	if (nodes == NULL || blocks == NULL)
	{
		free(nodes);
		free(blocks);
		return bs_errOutOfMemory;
	}
	bsRayBvhBuilder b = {bvh->nodes, bvh->tris, bvh->triIndex, nodes, blocks, 1, 0, 1};
	const bsBvhNode* root = bvh->nodes;
	if (root->count > 0)
	{
		uint32_t slot = 0;
		bsRayBvhNode_Set(nodes, bvh->nodes, &slot, 1);
		nodes->child[0] = bsRayBvhBuilder_Leaf(&b, root->leftFirst, root->count);
		nodes->count[0] = root->count;
	}
	else
	{
		bsRayBvhBuilder_Collapse(&b, 0, 0, 1);
	}
	rays->nodes = nodes;
	rays->blocks = blocks;
	rays->blockCount = b.blockCount;
	for (uint32_t i = 0; i < b.blockCount; ++i)
	{
		rays->mag = blocks[i].mag > rays->mag ? blocks[i].mag : rays->mag;
	}
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
		free(rays->blocks);
		memset(rays, 0, sizeof *rays);
	}
}

size_t bsRayBvh_Bytes(const bsRayBvh* rays)
{
	return rays != NULL ? (size_t)rays->nodeCount * sizeof(bsRayBvhNode) +
		(size_t)rays->blockCount * sizeof(bsRayLeafBlock) : 0;
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

// --- The leaves: a float filter before the double test ---

// The segment as the float filter reads it, made at the first leaf a query reaches (with the
// double frame's shear, which the float one rounds): the end points in float, the shear, and the
// magnitudes its rounding bounds scale with. `on` is false when those bounds could overflow (the
// filter then keeps every lane).
typedef struct bsRayLeafFrame
{
	bool ready;
	bool on;
	int kx, ky, kz;
	float c1[3], c2[3];
	float sx, sy;       // the double shear rounded to nearest: |sx|, |sy| <= 1 as theirs are
	float norm1, norm2; // |c1|_1, |c2|_1 of the doubles, rounded up
	float reach1;       // the largest |coordinate| of c1, rounded up
	float tl;           // the filter's bound: nextafter(best t) rounded up, at most 1
} bsRayLeafFrame;

// Beyond this magnitude of coordinates the filter is off: the products of its edge test (at most
// ~16 (G)^2 for G the sum of two magnitudes) stay far below FLT_MAX.
#define BS_RAY_LEAF_LIMIT 1e17

// Scales every rounding bound of the filter; 1 but in the check that the tests catch a bound too
// small (rebuild with -DBS_RAY_LEAF_BOUND_SCALE=0 or 1e-3: tests/test_ray_bvh.c fails).
#ifndef BS_RAY_LEAF_BOUND_SCALE
#define BS_RAY_LEAF_BOUND_SCALE 1.0f
#endif

static void bsMakeRayLeafFrame(bsRayLeafFrame* lf, bsRayFrame* frame, float sceneMag)
{
	if (frame->kz < 0)
	{
		bsRayFrame_Shear(frame);
	}
	lf->ready = true;
	lf->tl = 1.0f;
	lf->kx = frame->kx;
	lf->ky = frame->ky;
	lf->kz = frame->kz;
	double c1[3] = {frame->c1.x, frame->c1.y, frame->c1.z};
	double c2[3] = {frame->c2.x, frame->c2.y, frame->c2.z};
	float norm1 = 0.0f, norm2 = 0.0f, reach1 = 0.0f;
	for (int a = 0; a < 3; ++a)
	{
		lf->c1[a] = (float)c1[a];
		lf->c2[a] = (float)c2[a];
		norm1 += fabsf(lf->c1[a]);
		norm2 += fabsf(lf->c2[a]);
		reach1 = fabsf(lf->c1[a]) > reach1 ? fabsf(lf->c1[a]) : reach1;
	}
	lf->on = reach1 <= (float)BS_RAY_LEAF_LIMIT && norm2 <= (float)BS_RAY_LEAF_LIMIT &&
		sceneMag <= (float)BS_RAY_LEAF_LIMIT;
	// The float sums of the rounded coordinates are within 3 u of the doubles' (each rounding and
	// sum u): 1 + 2^-20 covers them, and its own rounding.
	const float up = 1.0f + 0x1p-20f;
	lf->norm1 = norm1 * up;
	lf->norm2 = norm2 * up;
	lf->reach1 = reach1 * up;
	lf->sx = (float)frame->sx;
	lf->sy = (float)frame->sy;
}

// The lanes of block b the double test (bsRay_Triangle with any bound tmax <= tl's double) might
// take: a bit per lane in use, cleared only where the float computation proves that test returns
// false. u = 2^-24 is the float unit roundoff; float operations round to nearest. The double test's
// own rounding (u_d = 2^-53) is a relative 1e-16 and is absorbed by the margins below.
//
// The plane. The double test computes d1 = n . C1 + delta (and d2 for C2) from its doubles. The
// filter computes d1f from n, C1, delta rounded to float (each off by u relative) with 3 products
// and 3 sums: |d1f - d1| <= 6.01 u S1, S1 = |C1|_1 + |delta| (|n_i| <= 1), and the same for d2.
// With s the sign of d1f, a = |d1f| and b = s d2f (so s d1 is within 6.01 u S1 of a), the filter
// computes alo = a - B1, blo = b - B2 (B = 16 u S), and E = (1 - tl) alo + tl blo, tl in (0, 1], and
// drops the lane when alo > 0 and E > M = 8 u (S1 + S2):
//   - alo > 0 gives s d1 > a - 6.01 u S1 > 0: d1 is nonzero, so the segment is not in the plane
//     (the double test's coplanar branch needs d1 = d2 = 0).
//   - E evaluated in float is within 4.01 u (S1 + S2) of its exact value, and the exact
//     (1 - tl) s d1 + tl s d2 >= the exact E (B >= the error of a and b): so
//     (1 - tl) s d1 + tl s d2 > 3.99 u (S1 + S2) >= 1e-8 (|d1| + |d2|). If s d2 > 0 the double test
//     misses (the same sign). If d2 = 0, tl < 1 (for tl = 1 the condition is blo > 0, s d2 > 0) and
//     the double t is d1 / d1 = 1 >= tl. Otherwise the exact t* = |d1| / (|d1| + |d2|) exceeds tl by
//     1e-8, so the double t, within 3 u_d of t*, is >= tl: no contact below the bound.
// The edges. The double test projects each vertex P along the segment, q = (P - C1)_kx -
// sx (P - C1)_kz (and y with ky, sy), and takes the exact signs of the three 2D edge functions of
// those double points (ties by simulation of simplicity). The float projection of the float vertex
// differs from the double one by at most 8.01 u G + 2^-149, G = the largest |coordinate| of the
// block's vertices plus that of C1: the float vertex, C1 and difference each add u (|P| + |C1|) or u
// |P - C1|, the rounded shear (|sx| <= 1) and its product 2 u G, the last difference u |q| <= 2 u G,
// the double's own steps 4 u_d G, and an underflowed product 2^-150. E_q = 9 u G + FLT_MIN covers it.
// Then for an edge a, b the float U = xa yb - ya xb is within E_q (|xa| + |ya| + |xb| + |yb| + 2 E_q)
// + 2.01 u (|xa yb| + |ya xb|) + 2^-148 of the double points' exact edge function (the first term
// the projections' errors, the second the float products and difference, the last underflow):
// B_e = E_q (ma + mb + 2 E_q) + 3 u ma mb + FLT_MIN bounds it (m = |x| + |y|, and |xa yb| + |ya xb|
// <= ma mb), its own
// rounding inside the slack of the constants (9 for 8.01, 3 for 2.01). U > B_e proves the exact
// sign +1, U < -B_e proves -1, with no tie, so simulation of simplicity never enters. Two edges
// proved of opposite signs mean the segment's line misses the triangle: the lane is dropped when
// that holds and the plane is proved crossed, not lain in (|d1f| > B1 or |d2f| > B2, as above).
// Every magnitude is at most ~1e17 (BS_RAY_LEAF_LIMIT), so no float overflows.
#if defined(__SSE2__)
static BS_ALWAYS_INLINE __m128 bsRayLeaf_Abs(__m128 x)
{
	return _mm_andnot_ps(_mm_set1_ps(-0.0f), x);
}

// The edge a -> b: lanes proved positive (*pos) and negative (*neg).
static BS_ALWAYS_INLINE void bsRayLeaf_Edge(__m128 xa, __m128 ya, __m128 ma, __m128 xb, __m128 yb,
	__m128 mb, __m128 eq, __m128* pos, __m128* neg)
{
	const __m128 u3 = _mm_set1_ps(3.0f * 0x1p-24f * BS_RAY_LEAF_BOUND_SCALE);
	__m128 l = _mm_mul_ps(xa, yb);
	__m128 r = _mm_mul_ps(ya, xb);
	__m128 e = _mm_sub_ps(l, r);
	__m128 bound = _mm_add_ps(_mm_add_ps(_mm_mul_ps(eq, _mm_add_ps(_mm_add_ps(ma, mb), _mm_add_ps(eq, eq))),
		_mm_mul_ps(u3, _mm_mul_ps(ma, mb))),
		_mm_set1_ps(FLT_MIN * BS_RAY_LEAF_BOUND_SCALE));
	*pos = _mm_or_ps(*pos, _mm_cmpgt_ps(e, bound));
	*neg = _mm_or_ps(*neg, _mm_cmplt_ps(e, _mm_xor_ps(bound, _mm_set1_ps(-0.0f))));
}

static BS_ALWAYS_INLINE unsigned bsRayLeaf_Survivors(const bsRayLeafBlock* b, const bsRayLeafFrame* f,
	float tl)
{
	const __m128 sign = _mm_set1_ps(-0.0f);
	const __m128 zero = _mm_setzero_ps();
	unsigned lanes = (1u << b->count) - 1u;
	// The plane.
	__m128 nx = _mm_load_ps(b->n[0]), ny = _mm_load_ps(b->n[1]), nz = _mm_load_ps(b->n[2]);
	__m128 delta = _mm_load_ps(b->delta);
	__m128 d1 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(nx, _mm_set1_ps(f->c1[0])),
		_mm_mul_ps(ny, _mm_set1_ps(f->c1[1]))), _mm_mul_ps(nz, _mm_set1_ps(f->c1[2]))), delta);
	__m128 d2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(nx, _mm_set1_ps(f->c2[0])),
		_mm_mul_ps(ny, _mm_set1_ps(f->c2[1]))), _mm_mul_ps(nz, _mm_set1_ps(f->c2[2]))), delta);
	__m128 absDelta = bsRayLeaf_Abs(delta);
	__m128 s1 = _mm_add_ps(_mm_set1_ps(f->norm1), absDelta);
	__m128 s2 = _mm_add_ps(_mm_set1_ps(f->norm2), absDelta);
	const __m128 u16 = _mm_set1_ps(16.0f * 0x1p-24f * BS_RAY_LEAF_BOUND_SCALE);
	__m128 b1 = _mm_mul_ps(u16, s1);
	__m128 b2 = _mm_mul_ps(u16, s2);
	__m128 s = _mm_and_ps(d1, sign);
	__m128 alo = _mm_sub_ps(_mm_xor_ps(d1, s), b1);
	__m128 blo = _mm_sub_ps(_mm_xor_ps(d2, s), b2);
	__m128 e = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(1.0f - tl), alo), _mm_mul_ps(_mm_set1_ps(tl), blo));
	__m128 m = _mm_mul_ps(_mm_set1_ps(8.0f * 0x1p-24f * BS_RAY_LEAF_BOUND_SCALE), _mm_add_ps(s1, s2));
	__m128 crosses = _mm_cmpgt_ps(alo, zero);
	__m128 drop = _mm_and_ps(crosses, _mm_cmpgt_ps(e, m));
	crosses = _mm_or_ps(crosses, _mm_cmpgt_ps(_mm_sub_ps(bsRayLeaf_Abs(d2), b2), zero));
	// The edges.
	float g = b->mag + f->reach1;
	__m128 eq = _mm_set1_ps(9.0f * 0x1p-24f * BS_RAY_LEAF_BOUND_SCALE * g + FLT_MIN *
		BS_RAY_LEAF_BOUND_SCALE);
	__m128 cx = _mm_set1_ps(f->c1[f->kx]), cy = _mm_set1_ps(f->c1[f->ky]), cz = _mm_set1_ps(f->c1[f->kz]);
	__m128 sx = _mm_set1_ps(f->sx), sy = _mm_set1_ps(f->sy);
	__m128 x[3], y[3], mxy[3];
	for (int v = 0; v < 3; ++v)
	{
		__m128 az = _mm_sub_ps(_mm_load_ps(b->p[v][f->kz]), cz);
		x[v] = _mm_sub_ps(_mm_sub_ps(_mm_load_ps(b->p[v][f->kx]), cx), _mm_mul_ps(sx, az));
		y[v] = _mm_sub_ps(_mm_sub_ps(_mm_load_ps(b->p[v][f->ky]), cy), _mm_mul_ps(sy, az));
		mxy[v] = _mm_add_ps(bsRayLeaf_Abs(x[v]), bsRayLeaf_Abs(y[v]));
	}
	__m128 pos = zero, neg = zero;
	bsRayLeaf_Edge(x[0], y[0], mxy[0], x[1], y[1], mxy[1], eq, &pos, &neg);
	bsRayLeaf_Edge(x[1], y[1], mxy[1], x[2], y[2], mxy[2], eq, &pos, &neg);
	bsRayLeaf_Edge(x[2], y[2], mxy[2], x[0], y[0], mxy[0], eq, &pos, &neg);
	drop = _mm_or_ps(drop, _mm_and_ps(crosses, _mm_and_ps(pos, neg)));
	return lanes & ~(unsigned)_mm_movemask_ps(drop);
}
#else
// The same float operations a lane at a time.
static void bsRayLeaf_Edge1(float xa, float ya, float ma, float xb, float yb, float mb, float eq,
	bool* pos, bool* neg)
{
	float l = xa * yb;
	float r = ya * xb;
	float e = l - r;
	float bound = eq * ((ma + mb) + (eq + eq)) + 3.0f * 0x1p-24f * BS_RAY_LEAF_BOUND_SCALE *
		(ma * mb) + FLT_MIN * BS_RAY_LEAF_BOUND_SCALE;
	*pos = *pos || e > bound;
	*neg = *neg || e < -bound;
}

static unsigned bsRayLeaf_Survivors(const bsRayLeafBlock* b, const bsRayLeafFrame* f, float tl)
{
	unsigned lanes = 0;
	float g = b->mag + f->reach1;
	float eq = 9.0f * 0x1p-24f * BS_RAY_LEAF_BOUND_SCALE * g + FLT_MIN * BS_RAY_LEAF_BOUND_SCALE;
	for (uint32_t i = 0; i < b->count; ++i)
	{
		float d1 = ((b->n[0][i] * f->c1[0] + b->n[1][i] * f->c1[1]) + b->n[2][i] * f->c1[2]) + b->delta[i];
		float d2 = ((b->n[0][i] * f->c2[0] + b->n[1][i] * f->c2[1]) + b->n[2][i] * f->c2[2]) + b->delta[i];
		float s1 = f->norm1 + fabsf(b->delta[i]);
		float s2 = f->norm2 + fabsf(b->delta[i]);
		float b1 = 16.0f * 0x1p-24f * BS_RAY_LEAF_BOUND_SCALE * s1;
		float b2 = 16.0f * 0x1p-24f * BS_RAY_LEAF_BOUND_SCALE * s2;
		float alo = fabsf(d1) - b1;
		float blo = (d1 < 0.0f || signbit(d1) ? -d2 : d2) - b2;
		float e = (1.0f - tl) * alo + tl * blo;
		bool crosses = alo > 0.0f;
		bool drop = crosses && e > 8.0f * 0x1p-24f * BS_RAY_LEAF_BOUND_SCALE * (s1 + s2);
		crosses = crosses || fabsf(d2) - b2 > 0.0f;
		float x[3], y[3], m[3];
		for (int v = 0; v < 3; ++v)
		{
			float az = b->p[v][f->kz][i] - f->c1[f->kz];
			x[v] = (b->p[v][f->kx][i] - f->c1[f->kx]) - f->sx * az;
			y[v] = (b->p[v][f->ky][i] - f->c1[f->ky]) - f->sy * az;
			m[v] = fabsf(x[v]) + fabsf(y[v]);
		}
		bool pos = false, neg = false;
		bsRayLeaf_Edge1(x[0], y[0], m[0], x[1], y[1], m[1], eq, &pos, &neg);
		bsRayLeaf_Edge1(x[1], y[1], m[1], x[2], y[2], m[2], eq, &pos, &neg);
		bsRayLeaf_Edge1(x[2], y[2], m[2], x[0], y[0], m[0], eq, &pos, &neg);
		drop = drop || (crosses && pos && neg);
		lanes |= drop ? 0u : 1u << i;
	}
	return lanes;
}
#endif

// The leaf of `count` triangles from block `first`: the filter, then the double test on the
// survivors in leaf order (bsRay_TestRange's order and bounds, so the same answers). The filter's tl
// is the largest bound any lane's double test can be given (bsBvhBest_Bound), capped at 1; the best
// only shrinks during the leaf, so a lane dropped against it stays dropped. Returns true when the
// best contact changed.
static BS_ALWAYS_INLINE bool bsRayBvh_TestLeaf(const bsRayBvh* rb, bsRayFrame* frame,
	bsRayLeafFrame* lf, uint32_t first, uint32_t count, bsBvhBest* best)
{
	if (!lf->ready)
	{
		bsMakeRayLeafFrame(lf, frame, rb->mag);
	}
	bool filter = lf->on && !rb->exact;
	bool changed = false;
	for (const bsRayLeafBlock* b = rb->blocks + first; count > 0; ++b)
	{
		count -= b->count;
		unsigned lanes = (1u << b->count) - 1u;
		if (filter)
		{
			lanes = bsRayLeaf_Survivors(b, lf, lf->tl);
		}
		for (; lanes != 0; lanes &= lanes - 1u)
		{
			int i = __builtin_ctz(lanes);
			uint32_t k = b->first + (uint32_t)i;
			uint32_t index = b->index[i];
			bsTriangleHit h;
			if (bsRay_Triangle(rb->tris + k, frame, bsBvhBest_Bound(best, index), &h) &&
				bsBvhBest_Offer(best, &h, k, index))
			{
				changed = true;
				float tl = best->hit.t < 1.0 ? bsFloatUp(bsNextUp(best->hit.t)) : 1.0f;
				lf->tl = tl < 1.0f ? tl : 1.0f;
			}
		}
	}
	return changed;
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
		bsRayLeafFrame lf;
		lf.ready = false;
#if BS_DISPATCH_AVX2
		bool walked = bsDispatch_Avx2() ? bsRayBvh_WalkAvx2(rb, frame, &lf, &lanes, best, visited, tested)
			: bsRayBvh_Walk(rb, frame, &lf, &lanes, best, visited, tested);
#else
		bool walked = bsRayBvh_Walk(rb, frame, &lf, &lanes, best, visited, tested);
#endif
		if (walked)
		{
			return;
		}
		memset(best, 0, sizeof *best);
	}
	*tested += rb->triCount;
	bsRay_TestRange(rb->tris, rb->triIndex, frame, 0, rb->triCount, best);
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
