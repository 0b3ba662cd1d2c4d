#include "boxf.h"
#include "bvh_internal.h"
#include "bvh_query.h"
#include "dispatch.h"

#include "blobsim/bvh.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// --- Query ---

// Slab test of the segment against the four boxes of a wide node, each grown by ray->grow: returns
// a bit per slot whose box the segment enters at or before `limit` (clipped to [0, limit]) and the
// entry times. Unused slots (inf boxes) always miss. The SSE and scalar versions do the same float
// operations in the same order as the binary tree's scalar test did, so they agree bit for bit.
#if defined(__SSE2__)
static inline unsigned bsBvhRay_Boxes(const bsBvhRay* r, const bsBvhWideNode* n, float limit,
	float entry[4])
{
	__m128 grow = _mm_set1_ps(r->grow);
	__m128 tmin = _mm_setzero_ps();
	__m128 tmax = _mm_set1_ps(limit);
	for (int a = 0; a < 3; ++a)
	{
		__m128 o = _mm_set1_ps(r->o[a]);
		__m128 inv = _mm_set1_ps(r->inv[a]);
		__m128 t1 = _mm_mul_ps(_mm_sub_ps(_mm_sub_ps(_mm_load_ps(n->min[a]), grow), o), inv);
		__m128 t2 = _mm_mul_ps(_mm_sub_ps(_mm_add_ps(_mm_load_ps(n->max[a]), grow), o), inv);
		tmin = _mm_max_ps(tmin, _mm_min_ps(t1, t2));
		tmax = _mm_min_ps(tmax, _mm_max_ps(t1, t2));
	}
	_mm_storeu_ps(entry, tmin);
	return (unsigned)_mm_movemask_ps(_mm_cmple_ps(tmin, tmax));
}
#else
static inline unsigned bsBvhRay_Boxes(const bsBvhRay* r, const bsBvhWideNode* n, float limit,
	float entry[4])
{
	unsigned mask = 0;
	for (int i = 0; i < 4; ++i)
	{
		float tmin = 0.0f, tmax = limit;
		for (int a = 0; a < 3; ++a)
		{
			float t1 = (n->min[a][i] - r->grow - r->o[a]) * r->inv[a];
			float t2 = (n->max[a][i] + r->grow - r->o[a]) * r->inv[a];
			// The operand order of SSE's minps/maxps (the second operand when they compare false).
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

// karabassi's own lower bound on a box's t, for the walk to order and cull boxes by. Every t the
// cylinder test reports is t len = the axial distance h = A . (P - C1) of a point P of the triangle
// (Par5, Par7, Int6: a vertex or an edge point; Par6: C1's projection, at 0) or of a point of its
// projection along N onto the stored plane (Int4), which lies within the mesh's planeSlack of the
// triangle; the start sphere (t = 0) needs a point within R of C1, so h <= R; the end sphere gives
// t = 1. So when every point of a box has h > R, every triangle in it reports t >= min(1,
// (hmin - planeSlack) / len), hmin the box's smallest h. The float arithmetic is allowed for by a
// margin of several times the slab test's pad (1e-6 of the scene's and the query's magnitudes, where
// float rounding is 6e-8) and the division by shrinking 1 / len by 1e-6. Slots whose bound is not
// below the limit are dropped; the entry times become the larger of the two, so the walk takes the
// boxes where karabassi's t may be earliest first (docs/algorithm.md: the answer does not depend
// on the order).
typedef struct bsBvhAxial
{
	float axis[3];
	int upper[3];    // 1 when the axis component is negative: the box's max is its smallest h
	float h0;        // A . C1
	float margin;    // planeSlack plus the rounding of h
	float radius;    // R, rounded up
	float invLen;    // 1 / len, shrunk
	bool on;
} bsBvhAxial;

static bsBvhAxial bsMakeBvhAxial(const bsBvh* bvh, const bsSweep* s, double reach)
{
	bsBvhAxial x;
	memset(&x, 0, sizeof x);
	double slack = bvh->planeSlack;
	if (!(s->len > 0.0) || !(slack < 1e30))
	{
		return x;
	}
	double a[3] = {s->axis.x, s->axis.y, s->axis.z};
	for (int i = 0; i < 3; ++i)
	{
		x.axis[i] = (float)a[i];
		x.upper[i] = a[i] < 0.0;
	}
	x.h0 = (float)bsDot(s->axis, s->c1);
	double round = (double)bvh->pad + 1e-6 * (reach + s->radius) + 1e-8 * (1.0 + reach);
	x.margin = bsFloatUp(slack + 4.0 * round);
	x.radius = bsFloatUp(s->radius);
	x.invLen = (float)((1.0 - 1e-6) / s->len);
	x.on = true;
	return x;
}

#if defined(__SSE2__)
static inline unsigned bsBvhAxial_Bound(const bsBvhAxial* x, const bsBvhWideNode* n, unsigned mask,
	float limit, float entry[4])
{
	__m128 h = _mm_setzero_ps();
	for (int a = 0; a < 3; ++a)
	{
		__m128 row = _mm_load_ps(x->upper[a] ? n->max[a] : n->min[a]);
		h = _mm_add_ps(h, _mm_mul_ps(_mm_set1_ps(x->axis[a]), row));
	}
	// h - A . C1 - margin: below every point's h minus the slack.
	h = _mm_sub_ps(_mm_sub_ps(h, _mm_set1_ps(x->h0)), _mm_set1_ps(x->margin));
	__m128 beyond = _mm_cmpgt_ps(h, _mm_set1_ps(x->radius));
	__m128 t = _mm_min_ps(_mm_mul_ps(h, _mm_set1_ps(x->invLen)), _mm_set1_ps(1.0f));
	t = _mm_and_ps(beyond, t);  // 0 where the start sphere may touch (NaN compares false too)
	__m128 key = _mm_max_ps(t, _mm_loadu_ps(entry));
	_mm_storeu_ps(entry, key);
	return mask & (unsigned)_mm_movemask_ps(_mm_cmple_ps(key, _mm_set1_ps(limit)));
}
#else
static inline unsigned bsBvhAxial_Bound(const bsBvhAxial* x, const bsBvhWideNode* n, unsigned mask,
	float limit, float entry[4])
{
	for (int i = 0; i < 4; ++i)
	{
		float h = 0.0f;
		for (int a = 0; a < 3; ++a)
		{
			h = h + x->axis[a] * (x->upper[a] ? n->max[a][i] : n->min[a][i]);
		}
		h = (h - x->h0) - x->margin;
		float t = h * x->invLen;
		t = t < 1.0f ? t : 1.0f;
		t = h > x->radius ? t : 0.0f;
		entry[i] = entry[i] > t ? entry[i] : t;
		mask &= entry[i] <= limit ? ~0u : ~(1u << i);
	}
	return mask;
}
#endif

#if BS_EXACT4
// The exact method on n triangles four at a time: leaf-order indices leaves[0, n), or first + j when
// leaves is NULL. Each group runs with the bounds of the best contact before it; its contacts are
// then offered in order, and bsBvhBest_Offer keeps one only when it beats the best as it stands then
// (t below the bound the triangle would have been tested with one at a time). The test's t does not
// depend on tmax (it only filters: collide_internal.h), so the best is the one-at-a-time loop's, bit
// for bit.
static bool bsBvh_TestLanes(const bsBvh* bvh, const bsSweep* sweep, const uint32_t* leaves, uint32_t first,
	uint32_t n, bsBvhBest* best)
{
	bool changed = false;
	for (uint32_t j = 0; j < n; j += 4)
	{
		uint32_t count = n - j < 4 ? n - j : 4;
		uint32_t k[4];
		const bsTriangle* tris[4];
		double tmax[4];
		for (uint32_t i = 0; i < count; ++i)
		{
			k[i] = leaves != NULL ? leaves[j + i] : first + j + i;
			tris[i] = bvh->tris + k[i];
			tmax[i] = bsBvhBest_Bound(best, bvh->triIndex[k[i]]);
		}
		bsTriangleHit h[4];
		for (unsigned m = bsExactTriangle4(tris, count, sweep, tmax, h); m != 0; m &= m - 1)
		{
			uint32_t i = (uint32_t)__builtin_ctz(m);
			changed |= bsBvhBest_Offer(best, h + i, k[i], bvh->triIndex[k[i]]);
		}
	}
	return changed;
}
#endif

// Tests triangles [first, first + count) (leaf order). Returns true when the best contact changed.
static inline bool bsBvh_TestRange(const bsBvh* bvh, bsMethod method, const bsSweep* sweep,
	uint32_t first, uint32_t count, bsBvhBest* best)
{
#if BS_EXACT4
	if (method == bs_methodExact && count > 1 && bsDispatch_Lanes())
	{
		return bsBvh_TestLanes(bvh, sweep, NULL, first, count, best);
	}
#endif
	bool changed = false;
	for (uint32_t k = first; k < first + count; ++k)
	{
		const bsTriangle* tri = bvh->tris + k;
		bsTriangleHit h;
		uint32_t index = bvh->triIndex[k];
		double tmax = bsBvhBest_Bound(best, index);
		if (bsSweepTriangle(method, tri, sweep, tmax, &h))
		{
			changed |= bsBvhBest_Offer(best, &h, k, index);
		}
	}
	return changed;
}

// A deferred child: a wide node (count 0) or a leaf's triangle range, with how near its box is (the
// sweep: the float entry time, exactly; the closest point: the squared distance).
typedef struct bsBvhStackEntry
{
	uint32_t child;
	uint32_t count;
	double key;
} bsBvhStackEntry;

// Each wide node defers at most 3 of its children, so while the walk is at depth D the stack holds
// at most 3 (D - 1) entries; the wide tree is no deeper than the binary one.
#define BS_BVH_STACK (3 * BS_BVH_MAX_DEPTH)

// The children of `node` in `mask`, nearest first: the nearest goes to *next, the others are pushed
// farthest first (on equal keys the earlier slot comes later, so it is taken first). Returns false
// when the mask is empty. The caller checks that 3 more entries fit.
static inline bool bsBvh_PushChildren(const bsBvhWideNode* node, unsigned mask, const double key[4],
	bsBvhStackEntry* stack, int* top, bsBvhStackEntry* next)
{
	int order[4];
	int n = 0;
	for (int i = 0; i < 4; ++i)
	{
		if ((mask >> i) & 1u)
		{
			int j = n++;
			while (j > 0 && key[order[j - 1]] <= key[i])
			{
				order[j] = order[j - 1];
				--j;
			}
			order[j] = i;
		}
	}
	for (int j = 0; j < n; ++j)
	{
		int i = order[j];
		bsBvhStackEntry c = {node->child[i], node->count[i], key[i]};
		if (j + 1 == n)
		{
			*next = c;
		}
		else
		{
			stack[(*top)++] = c;
		}
	}
	return n > 0;
}

// Pops the next deferred entry whose key is at most `limit` (one beyond it holds nothing as near as
// the best so far) into *next; false when none is left.
static inline bool bsBvh_PopWithin(const bsBvhStackEntry* stack, int* top, double limit,
	bsBvhStackEntry* next)
{
	while (*top > 0)
	{
		*next = stack[--(*top)];
		if (next->key <= limit)
		{
			return true;
		}
	}
	return false;
}

// Ordered depth-first traversal of the wide tree: at each node the nearest child whose grown box the
// segment enters is taken next and the others are pushed farthest first. Returns false if the
// stack would overflow (impossible for a tree from bsBvh_Build, whose depth is at most
// BS_BVH_MAX_DEPTH).
static BS_ALWAYS_INLINE bool bsBvh_TraverseBody(const bsBvh* bvh, bsMethod method, const bsSweep* sweep,
	const bsBvhRay* ray, const bsBvhAxial* axial, bool useAxial, bsBvhBest* best, uint64_t* visited,
	uint64_t* tested)
{
	bsBvhStackEntry stack[BS_BVH_STACK];
	int top = 0;
	// Contacts are at t <= 1. limit is a float >= the best t, so a box test never rejects a box
	// that is entered at or before it.
	double bestT = 1.0;
	float limit = 1.0f;
	// The entry taken next: the nearest child of the last node, or else the top of the stack.
	bsBvhStackEntry e = {0, 0, 0.0};
	for (;;)
	{
		if (e.count > 0)
		{
			*tested += e.count;
			if (bsBvh_TestRange(bvh, method, sweep, e.child, e.count, best))
			{
				bestT = best->hit.t;
				limit = bsFloatUp(bestT);
			}
		}
		else
		{
			const bsBvhWideNode* node = bvh->wide + e.child;
			*visited += 1;
			float entry[4];
			unsigned mask = bsBvhRay_Boxes(ray, node, limit, entry);
			// Before the first contact the limit is 1, which every bound (at most 1) passes: the
			// bound would only reorder the boxes, which pays less than it costs (most queries miss).
			if (useAxial && mask != 0 && bestT < 1.0)
			{
				mask = bsBvhAxial_Bound(axial, node, mask, limit, entry);
			}
			if (top + 3 > BS_BVH_STACK)
			{
				return false;
			}
			double key[4] = {entry[0], entry[1], entry[2], entry[3]};
			if (bsBvh_PushChildren(node, mask, key, stack, &top, &e))
			{
				continue;
			}
		}
		// The next deferred entry that may still hold a contact at or before the best t.
		if (!bsBvh_PopWithin(stack, &top, bestT, &e))
		{
			return true;
		}
	}
}

// The walk compiled twice (dispatch.h): the default copy and, where the CPU has it, AVX2; each with
// and without karabassi's box bound, so that exact's walk pays nothing for it.
static bool bsBvh_Traverse(const bsBvh* bvh, bsMethod method, const bsSweep* sweep,
	const bsBvhRay* ray, const bsBvhAxial* axial, bsBvhBest* best, uint64_t* visited, uint64_t* tested)
{
	if (axial->on)
	{
		return bsBvh_TraverseBody(bvh, method, sweep, ray, axial, true, best, visited, tested);
	}
	return bsBvh_TraverseBody(bvh, method, sweep, ray, axial, false, best, visited, tested);
}

#if BS_DISPATCH_AVX2
static BS_TARGET_AVX2 bool bsBvh_TraverseAvx2(const bsBvh* bvh, bsMethod method, const bsSweep* sweep,
	const bsBvhRay* ray, const bsBvhAxial* axial, bsBvhBest* best, uint64_t* visited, uint64_t* tested)
{
	if (axial->on)
	{
		return bsBvh_TraverseBody(bvh, method, sweep, ray, axial, true, best, visited, tested);
	}
	return bsBvh_TraverseBody(bvh, method, sweep, ray, axial, false, best, visited, tested);
}
#endif

static bool bsBvh_TraverseBest(const bsBvh* bvh, bsMethod method, const bsSweep* sweep,
	const bsBvhRay* ray, const bsBvhAxial* axial, bsBvhBest* best, uint64_t* visited, uint64_t* tested)
{
#if BS_DISPATCH_AVX2
	if (bsDispatch_Avx2())
	{
		return bsBvh_TraverseAvx2(bvh, method, sweep, ray, axial, best, visited, tested);
	}
#endif
	return bsBvh_Traverse(bvh, method, sweep, ray, axial, best, visited, tested);
}

// --- The ray's own walk ---

// The segment's slab test as the ray walk runs it, set up once per query: for each axis the origin
// seen from the min planes (o + grow) and from the max planes (o - grow), and the negated inverse, as
// rows of 4 equal floats, so a plane's time is (origin - plane) * -inv: exactly (plane - origin) *
// inv, one operation fewer than growing the box first. The float roundings differ from the sweep
// walk's (bsBvhRay_Boxes) by an ulp of the origin's magnitude, far inside the pad's 1e-6 of it, so a
// box that holds a crossing is still entered; which boxes are entered decides only the work, never
// the answer. No NaN can arise: the origins are finite and -inv is never zero, so an unused slot's
// inf plane gives an inf time. (Tried and dropped, by CPU time: the near and far planes chosen by
// the direction's signs (three operations fewer, 9% slower: six row offsets held in registers), x and
// y in one 8-lane AVX operation (4% slower: the fold of the halves lengthens the chain), an AVX2 copy
// of the walk (the same time).)
typedef struct bsBvhRayLanes
{
	_Alignas(16) float lower[3][4];  // o + grow
	_Alignas(16) float upper[3][4];  // o - grow
	_Alignas(16) float ninv[3][4];   // -inv
} bsBvhRayLanes;

static inline void bsMakeBvhRayLanes(const bsBvhRay* r, bsBvhRayLanes* l)
{
	for (int a = 0; a < 3; ++a)
	{
		float lower = r->o[a] + r->grow;
		float upper = r->o[a] - r->grow;
		float ninv = -r->inv[a];
#if defined(__SSE2__)
		_mm_store_ps(l->lower[a], _mm_set1_ps(lower));
		_mm_store_ps(l->upper[a], _mm_set1_ps(upper));
		_mm_store_ps(l->ninv[a], _mm_set1_ps(ninv));
#else
		for (int i = 0; i < 4; ++i)
		{
			l->lower[a][i] = lower;
			l->upper[a][i] = upper;
			l->ninv[a][i] = ninv;
		}
#endif
	}
}

// A bit per slot whose grown box the segment enters at or before the limit (clipped to [0, limit]),
// and the entry times. Unused slots (inf boxes) always miss: their near time is +inf, or their far
// time -inf.
#if defined(__SSE2__)
typedef __m128 bsBvhRayLimit;

static inline bsBvhRayLimit bsMakeBvhRayLimit(float limit)
{
	return _mm_set1_ps(limit);
}

static inline bool bsBvhRayLimit_Below(bsBvhRayLimit limit, float key)
{
	return key <= _mm_cvtss_f32(limit);
}

static inline unsigned bsBvhRayLanes_Boxes(const bsBvhRayLanes* l, const bsBvhWideNode* n,
	bsBvhRayLimit limit, __m128* entry)
{
	__m128 tmin = _mm_setzero_ps();
	__m128 tmax = limit;
	for (int a = 0; a < 3; ++a)
	{
		__m128 ninv = _mm_load_ps(l->ninv[a]);
		__m128 t1 = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(l->lower[a]), _mm_load_ps(n->min[a])), ninv);
		__m128 t2 = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(l->upper[a]), _mm_load_ps(n->max[a])), ninv);
		tmin = _mm_max_ps(tmin, _mm_min_ps(t1, t2));
		tmax = _mm_min_ps(tmax, _mm_max_ps(t1, t2));
	}
	*entry = tmin;
	return (unsigned)_mm_movemask_ps(_mm_cmple_ps(tmin, tmax));
}

static inline float bsBvhRayEntry_Lane(__m128 entry, int i)
{
	float lanes[4];
	_mm_storeu_ps(lanes, entry);
	return lanes[i];
}
#else
typedef float bsBvhRayLimit;

static inline bsBvhRayLimit bsMakeBvhRayLimit(float limit)
{
	return limit;
}

static inline bool bsBvhRayLimit_Below(bsBvhRayLimit limit, float key)
{
	return key <= limit;
}

typedef struct bsBvhRayEntries
{
	float t[4];
} bsBvhRayEntries;

static inline unsigned bsBvhRayLanes_Boxes(const bsBvhRayLanes* l, const bsBvhWideNode* n,
	bsBvhRayLimit limit, bsBvhRayEntries* entry)
{
	unsigned mask = 0;
	for (int i = 0; i < 4; ++i)
	{
		float tmin = 0.0f, tmax = limit;
		for (int a = 0; a < 3; ++a)
		{
			float t1 = (l->lower[a][i] - n->min[a][i]) * l->ninv[a][i];
			float t2 = (l->upper[a][i] - n->max[a][i]) * l->ninv[a][i];
			float near = t1 < t2 ? t1 : t2;
			float far = t1 > t2 ? t1 : t2;
			tmin = tmin > near ? tmin : near;
			tmax = tmax < far ? tmax : far;
		}
		entry->t[i] = tmin;
		mask |= tmin <= tmax ? 1u << i : 0u;
	}
	return mask;
}

static inline float bsBvhRayEntry_Lane(bsBvhRayEntries entry, int i)
{
	return entry.t[i];
}
#endif

// A deferred child of the ray walk: a wide node (count 0) or a leaf's range, with its float entry time.
typedef struct bsBvhRayEntry
{
	uint32_t child;
	uint32_t count;
	float key;
} bsBvhRayEntry;

// The walk of the ray queries: a segment crosses few boxes (short segments enter one child of most
// nodes), so it spends its time on the per-node overhead rather than on the triangle tests. Unlike
// bsBvh_Traverse it keeps float keys and makes no distance sort: the nearest entered child is taken
// next and the others are pushed in slot order; the search interval is the float `limit`, at or
// above the best t, so a box or deferred entry is dropped only when it cannot hold a contact at or
// before the best t (the answer does not depend on the order, only the work). Returns false if the
// stack would overflow (impossible for a tree from bsBvh_Build).
static bool bsBvh_RayWalk(const bsBvh* bvh, bsRayFrame* frame, const bsBvhRay* ray,
	bsBvhBest* best, uint64_t* visited, uint64_t* tested)
{
	bsBvhRayLanes lanes;
	bsMakeBvhRayLanes(ray, &lanes);
	const bsBvhWideNode* wide = bvh->wide;
	bsBvhRayEntry stack[BS_BVH_STACK];
	int top = 0;
	bsBvhRayLimit limit = bsMakeBvhRayLimit(1.0f);
	uint32_t child = 0, count = 0;
	uint64_t nodes = 0, triangles = 0;
	for (;;)
	{
		if (count > 0)
		{
			triangles += count;
			if (bsRay_TestRange(bvh->tris, bvh->triIndex, bvh->openEdges, frame, child, count, best))
			{
				limit = bsMakeBvhRayLimit(bsFloatUp(best->hit.t));
			}
		}
		else
		{
			const bsBvhWideNode* node = wide + child;
			nodes += 1;
#if defined(__SSE2__)
			__m128 entry;
#else
			bsBvhRayEntries entry;
#endif
			unsigned mask = bsBvhRayLanes_Boxes(&lanes, node, limit, &entry);
			if (mask != 0)
			{
				int nearest = __builtin_ctz(mask);
				// Most nodes of a short segment have one entered child: nothing to order or push.
				if ((mask & (mask - 1)) != 0)
				{
					if (top + 3 > BS_BVH_STACK)
					{
						return false;
					}
					for (unsigned m = mask & (mask - 1); m != 0; m &= m - 1)
					{
						int i = __builtin_ctz(m);
						nearest = bsBvhRayEntry_Lane(entry, i) < bsBvhRayEntry_Lane(entry, nearest) ? i
							: nearest;
					}
					// The others from the last slot down, so the lowest is popped first.
					for (unsigned m = mask & ~(1u << nearest); m != 0;)
					{
						int i = 31 - __builtin_clz(m);
						m &= ~(1u << i);
						bsBvhRayEntry c = {node->child[i], node->count[i], bsBvhRayEntry_Lane(entry, i)};
						stack[top++] = c;
					}
				}
				child = node->child[nearest];
				count = node->count[nearest];
				continue;
			}
		}
		// The next deferred entry the segment enters at or before the limit.
		for (;;)
		{
			if (top == 0)
			{
				*visited += nodes;
				*tested += triangles;
				return true;
			}
			bsBvhRayEntry e = stack[--top];
			if (bsBvhRayLimit_Below(limit, e.key))
			{
				child = e.child;
				count = e.count;
				break;
			}
		}
	}
}

// The nearest crossing of the segment in frame (the ray queries' common body): the walk, or a scan of
// every triangle when the walk cannot be trusted. Adds the nodes and triangles to the counts.
static BS_ALWAYS_INLINE void bsBvh_RayBest(const bsBvh* bvh, bsRayFrame* frame, bsBvhBest* best,
	uint64_t* visited, uint64_t* tested)
{
	memset(best, 0, sizeof *best);
	if (bvh->triCount == 0)
	{
		return;
	}
	double reach = bsRayFrame_Reach(frame);
	if (reach <= BS_BVH_FLOAT_LIMIT)
	{
		bsBvhRay ray = bsMakeBvhRay(bvh, frame->c1, frame->d, 0.0, reach);
		if (bsBvh_RayWalk(bvh, frame, &ray, best, visited, tested))
		{
			return;
		}
		memset(best, 0, sizeof *best);
	}
	*tested += bvh->triCount;
	bsRay_TestRange(bvh->tris, bvh->triIndex, bvh->openEdges, frame, 0, bvh->triCount, best);
}

// The answer to an invalid query: a miss that stays put where possible (t = 1, centre C2, or C1
// when C2 is not finite, or the origin when neither is), no NaN anywhere.
static void bsBvh_InvalidMiss(const bsSweepInput* input, bsSweepOutput* out)
{
	memset(out, 0, sizeof *out);
	bsVec3 c = bsV3(0.0, 0.0, 0.0);
	if (input != NULL)
	{
		if (bsIsValidVec3(input->c2))
		{
			c = input->c2;
		}
		else if (bsIsValidVec3(input->c1))
		{
			c = input->c1;
		}
	}
	out->t = 1.0;
	out->center = c;
	out->point = c;
	out->triangle = BS_NO_TRIANGLE;
}

// bsBvh_SweepPrepared for bs_methodRay: the ray walk, no contact refinement (bsSweep_RefinesContact
// is false for rays).
static void bsBvh_RayQuery(const bsBvh* bvh, const bsSweep* sweep, bsSweepOutput* out,
	bsQueryStats* stats)
{
	bsRayFrame frame;
	bsMakeRayFrame(&frame, sweep->c1, sweep->c2);
	bsBvhBest best;
	uint64_t visited = 0, tested = 0;
	bsBvh_RayBest(bvh, &frame, &best, &visited, &tested);
	if (best.found)
	{
		bsSweep_Finish(sweep, bvh->tris + best.k, bvh->triIndex[best.k], &best.hit, out);
	}
	else
	{
		bsSweep_Miss(sweep, out);
	}
	if (stats != NULL)
	{
		stats->queries += 1;
		stats->nodesVisited += visited;
		stats->trianglesTested += tested;
		stats->hits += best.found ? 1u : 0u;
	}
}

bsResult bsBvh_Ray(const bsBvh* bvh, const bsRayInput* input, bsRayOutput* out)
{
	bsRayFrame frame;
	bsResult result = bsRayQuery_Begin(bvh != NULL, input, out, &frame);
	if (result != bs_ok)
	{
		return result;
	}
	bsBvhBest best;
	uint64_t visited = 0, tested = 0;
	bsBvh_RayBest(bvh, &frame, &best, &visited, &tested);
	bsRayQuery_Finish(bvh->tris, &frame, &best, out);
	return bs_ok;
}

bsResult bsBvh_Sweep(const bsBvh* bvh, bsMethod method, const bsSweepInput* input,
	bsSweepOutput* out, bsQueryStats* stats)
{
	if (out == NULL)
	{
		return bs_errInvalidArgument;
	}
	bsResult result = bs_errInvalidArgument;
	bsSweep sweep;
	if (bvh == NULL || input == NULL || (int)method < 0 || method >= bs_methodCount ||
		(result = bsMakeSweep(input, &sweep)) != bs_ok)
	{
		if (stats != NULL)
		{
			stats->queries += 1;
		}
		bsBvh_InvalidMiss(input, out);
		return result;
	}
	bsBvh_SweepPrepared(bvh, method, &sweep, out, stats);
	return bs_ok;
}

static bool bsBvh_NearestOther(const bsBvh* bvh, const bsClosestPointInput* input, uint32_t k,
	bsClosestPointOutput* contact, uint64_t* visited, uint64_t* tested);

// The end of a sweep query: the best contact found (a miss when none) finished into out, refined by
// the nearest other triangle where the method asks (bsSweep_RefinesContact), the walk's counts added.
static void bsBvh_FinishSweep(const bsBvh* bvh, bsMethod method, const bsSweep* prepared, const bsBvhBest* best,
	bsSweepOutput* out, uint64_t visited, uint64_t tested, bsQueryStats* stats)
{
	const bsSweep sweep = *prepared;
	if (!best->found)
	{
		bsSweep_Miss(&sweep, out);
	}
	else if (bsSweep_RefinesContact(method, best->hit.t,
		bsSweep_Finish(&sweep, bvh->tris + best->k, bvh->triIndex[best->k], &best->hit, out)))
	{
		// The same lookup as bsSweepList's, so the answers stay identical; its walk is counted.
		bsClosestPointInput near = {out->center, bsDistance(out->center, out->point)};
		bsClosestPointOutput contact;
		if (bsClosestPointInput_Check(&near) == bs_ok &&
			bsBvh_NearestOther(bvh, &near, best->k, &contact, &visited, &tested))
		{
			bsSweep_UseMeshContact(&sweep, &contact, out);
		}
	}
	if (stats != NULL)
	{
		stats->nodesVisited += visited;
		stats->trianglesTested += tested;
		stats->hits += best->found ? 1u : 0u;
	}
}

void bsBvh_SweepPrepared(const bsBvh* bvh, bsMethod method, const bsSweep* prepared, bsSweepOutput* out,
	bsQueryStats* stats)
{
	if (method == bs_methodRay)
	{
		bsBvh_RayQuery(bvh, prepared, out, stats);
		return;
	}
	const bsSweep sweep = *prepared;
	if (stats != NULL)
	{
		stats->queries += 1;
	}
	// bsSweep_Finish and bsSweep_Miss zero the output before filling it: every byte is deterministic.
	bsBvhBest best;
	memset(&best, 0, sizeof best);
	uint64_t visited = 0, tested = 0;
	if (bvh->triCount > 0)
	{
		double radius = method == bs_methodRay ? 0.0 : sweep.radius;
		// Compares rather than libm's fmax (five calls a query): bsMakeSweep's centres are finite.
		double reach1 = bsMaxAbsFinite(sweep.c1);
		double reach2 = bsMaxAbsFinite(sweep.c2);
		double reach = reach1 > reach2 ? reach1 : reach2;
		bool scan = !(reach <= BS_BVH_FLOAT_LIMIT && radius <= BS_BVH_FLOAT_LIMIT);
		if (!scan)
		{
			bsBvhRay ray = bsMakeBvhRay(bvh, sweep.c1, sweep.d, radius, reach);
			bsBvhAxial axial;
			memset(&axial, 0, sizeof axial);
			if (method == bs_methodKarabassi)
			{
				axial = bsMakeBvhAxial(bvh, &sweep, reach);
			}
			scan = !bsBvh_TraverseBest(bvh, method, &sweep, &ray, &axial, &best, &visited, &tested);
			if (scan)
			{
				memset(&best, 0, sizeof best);
			}
		}
		if (scan)
		{
			tested += bvh->triCount;
			bsBvh_TestRange(bvh, method, &sweep, 0, bvh->triCount, &best);
		}
	}

	bsBvh_FinishSweep(bvh, method, &sweep, &best, out, visited, tested, stats);
}

void bsBvh_SweepLeaves(const bsBvh* bvh, bsMethod method, const bsSweep* sweep, const uint32_t* leaves,
	uint32_t count, bsSweepOutput* out, bsQueryStats* stats)
{
	if (stats != NULL)
	{
		stats->queries += 1;
	}
	bsBvhBest best;
	memset(&best, 0, sizeof best);
#if BS_EXACT4
	if (method == bs_methodExact && count > 1 && bsDispatch_Lanes())
	{
		bsBvh_TestLanes(bvh, sweep, leaves, 0, count, &best);
	}
	else
#endif
	{
		for (uint32_t c = 0; c < count; ++c)
		{
			bsBvh_TestRange(bvh, method, sweep, leaves[c], 1, &best);
		}
	}
	bsBvh_FinishSweep(bvh, method, sweep, &best, out, 0, count, stats);
}

typedef struct bsNearLeaves
{
	const bsBvh* bvh;
	bsVec3 q;
	double distance;
	uint32_t* leaves;
	uint32_t capacity, count;
} bsNearLeaves;

static void bsNearLeaves_Visit(void* context, const bsTriangle* t, uint32_t index)
{
	(void)index;
	bsNearLeaves* near = context;
	bsVec3 c = bsTriangle_ClosestPoint(t, near->q, NULL, NULL);
	if (!(bsDistance(near->q, c) <= near->distance))
	{
		return;
	}
	if (near->count < near->capacity)
	{
		near->leaves[near->count] = (uint32_t)(t - near->bvh->tris);
	}
	near->count += 1;
}

uint32_t bsBvh_NearLeaves(const bsBvh* bvh, bsVec3 q, double distance, uint32_t* leaves, uint32_t capacity)
{
	bsNearLeaves near = {bvh, q, distance, leaves, capacity, 0};
	bsBvh_VisitNear(bvh, q, distance, bsNearLeaves_Visit, &near);
	return near.count;
}

double bsBvh_PlaneSlack(const bsTriangle* tris, uint32_t count)
{
	double slack = 0.0;
	for (uint32_t i = 0; i < count; ++i)
	{
		const bsTriangle* t = tris + i;
		double d1 = fabs(bsTriangle_PlaneDistance(t, t->p1));
		double d2 = fabs(bsTriangle_PlaneDistance(t, t->p2));
		double d3 = fabs(bsTriangle_PlaneDistance(t, t->p3));
		double d = d1 > d2 ? d1 : d2;
		d = d > d3 ? d : d3;
		if (!(d <= DBL_MAX))
		{
			return INFINITY;
		}
		slack = d > slack ? d : slack;
	}
	return slack;
}

// --- Closest point ---

// The nearest triangle so far (the closest-point order of collide.h: distance, then the caller's index).
typedef struct bsBvhNearest
{
	double d2;
	uint32_t k;      // leaf-order index
	uint32_t index;  // caller's index
	bool found;
} bsBvhNearest;

// Tests triangles [first, first + count) (leaf order) against the nearest so far.
static void bsBvh_NearestRange(const bsBvh* bvh, bsVec3 q, double maxDistance, uint32_t first,
	uint32_t count, bsBvhNearest* best)
{
	for (uint32_t k = first; k < first + count; ++k)
	{
		double d2 = bsTriangle_Distance2(bvh->tris + k, q);
		uint32_t index = bvh->triIndex[k];
		if (bsClosestPoint_Better(d2, index, best->found, best->d2, best->index, maxDistance))
		{
			best->d2 = d2;
			best->k = k;
			best->index = index;
			best->found = true;
		}
	}
}

// Squared distances from q to the four boxes of a wide node, each grown by pad: never more than the
// computed squared distance of a triangle inside (the pad covers the rounding of both). Unused slots
// (inf boxes) are infinitely far.
#if defined(__SSE2__)
// Two slots per register, the same double operations in the same order as the scalar version: d is
// max(below, max(above, 0)), which is its choice (below > 0 makes above negative: min <= max), and
// the squares are summed x, y, z from 0.
static inline void bsBvhWideNode_Distance2(const bsBvhWideNode* n, const double q[3], double pad,
	double d2[4])
{
	__m128d sum[2] = {_mm_setzero_pd(), _mm_setzero_pd()};
	__m128d padv = _mm_set1_pd(pad);
	__m128d zero = _mm_setzero_pd();
	for (int a = 0; a < 3; ++a)
	{
		__m128 lo4 = _mm_load_ps(n->min[a]);
		__m128 hi4 = _mm_load_ps(n->max[a]);
		__m128d qa = _mm_set1_pd(q[a]);
		for (int h = 0; h < 2; ++h)
		{
			__m128d lo = _mm_cvtps_pd(h == 0 ? lo4 : _mm_movehl_ps(lo4, lo4));
			__m128d hi = _mm_cvtps_pd(h == 0 ? hi4 : _mm_movehl_ps(hi4, hi4));
			__m128d below = _mm_sub_pd(_mm_sub_pd(lo, padv), qa);
			__m128d above = _mm_sub_pd(qa, _mm_add_pd(hi, padv));
			__m128d d = _mm_max_pd(below, _mm_max_pd(above, zero));
			sum[h] = _mm_add_pd(sum[h], _mm_mul_pd(d, d));
		}
	}
	_mm_storeu_pd(d2, sum[0]);
	_mm_storeu_pd(d2 + 2, sum[1]);
}
#else
static inline void bsBvhWideNode_Distance2(const bsBvhWideNode* n, const double q[3], double pad,
	double d2[4])
{
	for (int i = 0; i < 4; ++i)
	{
		double sum = 0.0;
		for (int a = 0; a < 3; ++a)
		{
			double below = ((double)n->min[a][i] - pad) - q[a];
			double above = q[a] - ((double)n->max[a][i] + pad);
			double d = below > 0.0 ? below : (above > 0.0 ? above : 0.0);
			sum += d * d;
		}
		d2[i] = sum;
	}
}
#endif

// Nearest-first depth-first walk: at each node the nearest child box within the search radius is
// taken next and the others are pushed farthest first; the radius shrinks to the best distance as
// nearer triangles are found. Returns false if the stack would overflow (impossible for a tree from
// bsBvh_Build).
static BS_ALWAYS_INLINE bool bsBvh_NearestWalkBody(const bsBvh* bvh, bsVec3 q, double maxDistance,
	double pad, bsBvhNearest* best, uint64_t* visited, uint64_t* tested)
{
	bsBvhStackEntry stack[BS_BVH_STACK];
	int top = 0;
	const double p[3] = {q.x, q.y, q.z};
	// Before a triangle is found the radius is maxDistance, a hair wider for the rounding of its
	// square (bsClosestPoint_Better decides exactly).
	double limit2 = maxDistance * maxDistance * (1.0 + 1e-12);
	bsBvhStackEntry e = {0, 0, 0.0};
	for (;;)
	{
		if (e.count > 0)
		{
			*tested += e.count;
			bsBvh_NearestRange(bvh, q, maxDistance, e.child, e.count, best);
			if (best->found)
			{
				limit2 = best->d2;
			}
		}
		else
		{
			const bsBvhWideNode* node = bvh->wide + e.child;
			*visited += 1;
			double d2[4];
			bsBvhWideNode_Distance2(node, p, pad, d2);
			if (top + 3 > BS_BVH_STACK)
			{
				return false;
			}
			unsigned mask = 0;
			for (int i = 0; i < 4; ++i)
			{
				mask |= d2[i] <= limit2 ? 1u << i : 0u;
			}
			if (bsBvh_PushChildren(node, mask, d2, stack, &top, &e))
			{
				continue;
			}
		}
		// The next deferred box still within the radius (a tie may hold a lower index).
		if (!bsBvh_PopWithin(stack, &top, limit2, &e))
		{
			return true;
		}
	}
}

// Every leaf whose box (padded) lies within `radius` of q, depth first in the tree's child order: its
// triangles go to fn, so the order is the tree's and never depends on a caller's thread.
void bsBvh_VisitNear(const bsBvh* bvh, bsVec3 q, double radius, bsBvhVisitFn* fn, void* context)
{
	if (bvh == NULL || bvh->wide == NULL || !(radius >= 0.0))
	{
		return;
	}
	uint32_t stack[BS_BVH_STACK];
	int top = 0;
	stack[top++] = 0;
	const double p[3] = {q.x, q.y, q.z};
	double limit2 = radius * radius * (1.0 + 1e-12);
	while (top > 0)
	{
		const bsBvhWideNode* node = bvh->wide + stack[--top];
		double d2[4];
		bsBvhWideNode_Distance2(node, p, bvh->pad, d2);
		for (int i = 3; i >= 0; --i)  // pushed last first: visited in child order
		{
			if (!(d2[i] <= limit2) || (node->count[i] == 0 && node->child[i] == 0))
			{
				continue;
			}
			if (node->count[i] > 0)
			{
				continue;  // leaves below, after the wide children are queued
			}
			if (top < BS_BVH_STACK)
			{
				stack[top++] = node->child[i];
			}
		}
		for (int i = 0; i < 4; ++i)
		{
			if (d2[i] <= limit2 && node->count[i] > 0)
			{
				for (uint32_t k = node->child[i]; k < node->child[i] + node->count[i]; ++k)
				{
					fn(context, bvh->tris + k, bvh->triIndex[k]);
				}
			}
		}
	}
}

// The walk compiled twice (dispatch.h): the default copy and, where the CPU has it, AVX2.
static bool bsBvh_NearestWalkDefault(const bsBvh* bvh, bsVec3 q, double maxDistance, double pad,
	bsBvhNearest* best, uint64_t* visited, uint64_t* tested)
{
	return bsBvh_NearestWalkBody(bvh, q, maxDistance, pad, best, visited, tested);
}

#if BS_DISPATCH_AVX2
static BS_TARGET_AVX2 bool bsBvh_NearestWalkAvx2(const bsBvh* bvh, bsVec3 q, double maxDistance,
	double pad, bsBvhNearest* best, uint64_t* visited, uint64_t* tested)
{
	return bsBvh_NearestWalkBody(bvh, q, maxDistance, pad, best, visited, tested);
}
#endif

static bool bsBvh_NearestWalk(const bsBvh* bvh, bsVec3 q, double maxDistance, double pad,
	bsBvhNearest* best, uint64_t* visited, uint64_t* tested)
{
#if BS_DISPATCH_AVX2
	if (bsDispatch_Avx2())
	{
		return bsBvh_NearestWalkAvx2(bvh, q, maxDistance, pad, best, visited, tested);
	}
#endif
	return bsBvh_NearestWalkDefault(bvh, q, maxDistance, pad, best, visited, tested);
}

// The nearest triangle to q within maxDistance (q finite: bsClosestPointInput_Check), by the walk
// or, where the tree's floats cannot hold the query, by the list.
static void bsBvh_Nearest(const bsBvh* bvh, bsVec3 q, double maxDistance, bsBvhNearest* best,
	uint64_t* visited, uint64_t* tested)
{
	memset(best, 0, sizeof *best);
	if (bvh->triCount > 0)
	{
		double reach = bsMaxAbsFinite(q);  // q is finite (bsClosestPointInput_Check)
		bool scan = !(reach <= BS_BVH_FLOAT_LIMIT);
		if (!scan)
		{
			// The boxes contain their triangles (rounded outwards); the pad covers the rounding of
			// a triangle's computed distance and of the box distance (relative ~1e-15 of the
			// coordinates' magnitude; 1e-12 of it leaves a wide margin).
			const bsBvhNode* root = bvh->nodes;
			double extent = 0.0;
			for (int a = 0; a < 3; ++a)
			{
				// Compares rather than libm's fmax: the root's bounds are finite floats.
				double lo = fabs((double)root->min[a]);
				double hi = fabs((double)root->max[a]);
				double m = lo > hi ? lo : hi;
				extent = m > extent ? m : extent;
			}
			double pad = 1e-12 * (reach + extent) + 1e-300;
			scan = !bsBvh_NearestWalk(bvh, q, maxDistance, pad, best, visited, tested);
			if (scan)
			{
				memset(best, 0, sizeof *best);
			}
		}
		if (scan)
		{
			*tested += bvh->triCount;
			bsBvh_NearestRange(bvh, q, maxDistance, 0, bvh->triCount, best);
		}
	}
}

bsResult bsBvh_ClosestPoint(const bsBvh* bvh, const bsClosestPointInput* input,
	bsClosestPointOutput* out, bsQueryStats* stats)
{
	if (out == NULL)
	{
		return bs_errInvalidArgument;
	}
	if (stats != NULL)
	{
		stats->queries += 1;
	}
	bsResult result = bs_errInvalidArgument;
	if (bvh == NULL || input == NULL || (result = bsClosestPointInput_Check(input)) != bs_ok)
	{
		bsClosestPoint_Miss(input != NULL ? input->point : bsV3(0.0, 0.0, 0.0), out);
		return result;
	}
	bsVec3 q = input->point;
	bsBvhNearest best;
	uint64_t visited = 0, tested = 0;
	bsBvh_Nearest(bvh, q, input->maxDistance, &best, &visited, &tested);
	if (best.found)
	{
		bsClosestPoint_Finish(bvh->tris + best.k, best.index, q, out);
	}
	else
	{
		bsClosestPoint_Miss(q, out);
	}
	if (stats != NULL)
	{
		stats->nodesVisited += visited;
		stats->trianglesTested += tested;
		stats->hits += best.found ? 1u : 0u;
	}
	return bs_ok;
}

// The sweep's contact lookup (bsSweep_RefinesContact): bsBvh_ClosestPoint's answer for a valid input,
// filled in only when the nearest triangle is not k, the hit's own (leaf order), and false otherwise.
// When it is k, bsClosestPoint_Finish would compute the point and normal bsSweep_Finish already has
// (the same calls on the same triangle and centre; bsSweep_UseMeshContact's facing normal for a
// centre on the surface is bsSweep_Finish's too), so the output keeps them unchanged.
static bool bsBvh_NearestOther(const bsBvh* bvh, const bsClosestPointInput* input, uint32_t k,
	bsClosestPointOutput* contact, uint64_t* visited, uint64_t* tested)
{
	bsBvhNearest best;
	bsBvh_Nearest(bvh, input->point, input->maxDistance, &best, visited, tested);
	if (!best.found || best.k == k)
	{
		return false;
	}
	bsClosestPoint_Finish(bvh->tris + best.k, best.index, input->point, contact);
	return true;
}
