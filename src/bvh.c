#include "float_bounds.h"
#include "dispatch.h"

#include "blobsim/bvh.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// --- Query ---

// The sweep in float for the slab tests: origin, safe inverse direction, and how far every box is
// grown (the radius plus the rounding pad).
typedef struct bsBvhRay
{
	float o[3];
	float inv[3];
	float grow;
} bsBvhRay;

// The float segment of the slab tests for a sweep of the given radius whose coordinates are at most
// `reach` in magnitude (both at most BS_BVH_FLOAT_LIMIT).
static bsBvhRay bsMakeBvhRay(const bsBvh* bvh, const bsSweep* sweep, double radius, double reach)
{
	bsBvhRay ray;
	double o[3] = {sweep->c1.x, sweep->c1.y, sweep->c1.z};
	double d[3] = {sweep->d.x, sweep->d.y, sweep->d.z};
	for (int a = 0; a < 3; ++a)
	{
		ray.o[a] = (float)o[a];
		float df = (float)d[a];
		// A (nearly) zero component would give inf and then 0 * inf = NaN: use a large
		// finite inverse instead. The motion ignored (< 1e-30) is covered by the pad.
		ray.inv[a] = fabsf(df) < 1e-30f ? copysignf(1e30f, df) : 1.0f / df;
	}
	// The pad covers the rounding of the box arithmetic (bvh->pad), of the query converted
	// to float (relative 1e-6 of its magnitude) and the ignored tiny motion (1e-29).
	float pad = bvh->pad + (float)(1e-6 * (radius + reach)) + 1e-29f;
	ray.grow = (float)radius + pad;
	return ray;
}

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

// The nearest contact so far. Among contacts at the same t the triangle with the lowest caller's
// index wins, as in the list loop, so the answer does not depend on the order of the walk.
typedef struct bsBvhBest
{
	bsTriangleHit hit;
	uint32_t k;      // leaf-order index
	uint32_t index;  // caller's index
	bool found;
} bsBvhBest;

// nextafter(t, INFINITY) for a contact's t in [0, 1], without the call into libm: the next bit
// pattern above a positive finite double (karabassi's end sphere gives t = 1), zero through
// nextafter.
static inline double bsNextUp(double t)
{
	if (!(t > 0.0) || !(t <= 1.0))
	{
		return nextafter(t, INFINITY);
	}
	uint64_t bits;
	memcpy(&bits, &t, sizeof bits);
	bits += 1u;
	memcpy(&t, &bits, sizeof t);
	return t;
}

// The bound a triangle's test is run with: only contacts nearer than the best count, or as near for
// a lower caller's index (the kernels report t < tmax and their t does not depend on tmax).
static inline double bsBvhBest_Bound(const bsBvhBest* best, uint32_t index)
{
	if (!best->found)
	{
		return 2.0;
	}
	return index < best->index ? bsNextUp(best->hit.t) : best->hit.t;
}

// Keeps contact h of triangle k (leaf order; index the caller's) when it beats the best. Returns
// whether it did.
static inline bool bsBvhBest_Offer(bsBvhBest* best, const bsTriangleHit* h, uint32_t k, uint32_t index)
{
	if (best->found && !(h->t < best->hit.t || (h->t == best->hit.t && index < best->index)))
	{
		return false;
	}
	best->hit = *h;
	best->k = k;
	best->index = index;
	best->found = true;
	return true;
}

// Tests triangles [first, first + count) (leaf order). Returns true when the best contact changed.
static inline bool bsBvh_TestRange(const bsBvh* bvh, bsMethod method, const bsSweep* sweep,
	uint32_t first, uint32_t count, bsBvhBest* best)
{
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
	const bsBvhRay* ray, bsBvhBest* best, uint64_t* visited, uint64_t* tested)
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

// The walk compiled twice (dispatch.h): the default copy and, where the CPU has it, AVX2.
static bool bsBvh_Traverse(const bsBvh* bvh, bsMethod method, const bsSweep* sweep,
	const bsBvhRay* ray, bsBvhBest* best, uint64_t* visited, uint64_t* tested)
{
	return bsBvh_TraverseBody(bvh, method, sweep, ray, best, visited, tested);
}

#if BS_DISPATCH_AVX2
static BS_TARGET_AVX2 bool bsBvh_TraverseAvx2(const bsBvh* bvh, bsMethod method, const bsSweep* sweep,
	const bsBvhRay* ray, bsBvhBest* best, uint64_t* visited, uint64_t* tested)
{
	return bsBvh_TraverseBody(bvh, method, sweep, ray, best, visited, tested);
}
#endif

static bool bsBvh_TraverseBest(const bsBvh* bvh, bsMethod method, const bsSweep* sweep,
	const bsBvhRay* ray, bsBvhBest* best, uint64_t* visited, uint64_t* tested)
{
#if BS_DISPATCH_AVX2
	if (bsDispatch_Avx2())
	{
		return bsBvh_TraverseAvx2(bvh, method, sweep, ray, best, visited, tested);
	}
#endif
	return bsBvh_Traverse(bvh, method, sweep, ray, best, visited, tested);
}

// --- The ray's own walk ---

// Triangles [first, first + count) (leaf order) against the segment, with the segment's frame made
// once per query: bsBvh_TestRange for bs_methodRay, the same answers. Returns true when the best
// contact changed.
static inline bool bsBvh_RayRange(const bsBvh* bvh, const bsSweep* sweep, const bsRayFrame* frame,
	uint32_t first, uint32_t count, bsBvhBest* best)
{
	bool changed = false;
	for (uint32_t k = first; k < first + count; ++k)
	{
		uint32_t index = bvh->triIndex[k];
		bsTriangleHit h;
		if (bsRayTriangleFramed(bvh->tris + k, sweep, frame, bsBvhBest_Bound(best, index), &h))
		{
			changed |= bsBvhBest_Offer(best, &h, k, index);
		}
	}
	return changed;
}

// The segment's slab-test operands as the walk uses them: with SSE2 broadcast once per query
// (bsBvhRay_Boxes broadcasts them at every node), the same float operations in the same order, so
// the same mask and entry times.
#if defined(__SSE2__)
typedef struct bsBvhRayLanes
{
	__m128 o[3];
	__m128 inv[3];
	__m128 grow;
} bsBvhRayLanes;

static inline bsBvhRayLanes bsMakeBvhRayLanes(const bsBvhRay* r)
{
	bsBvhRayLanes l;
	for (int a = 0; a < 3; ++a)
	{
		l.o[a] = _mm_set1_ps(r->o[a]);
		l.inv[a] = _mm_set1_ps(r->inv[a]);
	}
	l.grow = _mm_set1_ps(r->grow);
	return l;
}

static inline unsigned bsBvhRayLanes_Boxes(const bsBvhRayLanes* l, const bsBvhWideNode* n, float limit,
	float entry[4])
{
	__m128 tmin = _mm_setzero_ps();
	__m128 tmax = _mm_set1_ps(limit);
	for (int a = 0; a < 3; ++a)
	{
		__m128 t1 = _mm_mul_ps(_mm_sub_ps(_mm_sub_ps(_mm_load_ps(n->min[a]), l->grow), l->o[a]), l->inv[a]);
		__m128 t2 = _mm_mul_ps(_mm_sub_ps(_mm_add_ps(_mm_load_ps(n->max[a]), l->grow), l->o[a]), l->inv[a]);
		tmin = _mm_max_ps(tmin, _mm_min_ps(t1, t2));
		tmax = _mm_min_ps(tmax, _mm_max_ps(t1, t2));
	}
	_mm_storeu_ps(entry, tmin);
	return (unsigned)_mm_movemask_ps(_mm_cmple_ps(tmin, tmax));
}
#else
typedef bsBvhRay bsBvhRayLanes;

static inline bsBvhRayLanes bsMakeBvhRayLanes(const bsBvhRay* r)
{
	return *r;
}

static inline unsigned bsBvhRayLanes_Boxes(const bsBvhRayLanes* l, const bsBvhWideNode* n, float limit,
	float entry[4])
{
	return bsBvhRay_Boxes(l, n, limit, entry);
}
#endif

// A deferred child of the ray walk: a wide node (count 0) or a leaf's range, with its float entry time.
typedef struct bsBvhRayEntry
{
	uint32_t child;
	uint32_t count;
	float key;
} bsBvhRayEntry;

// The walk of bs_methodRay: a segment crosses few boxes (short segments enter one child of most
// nodes), so it spends its time on the per-node overhead rather than on the triangle tests. Unlike
// bsBvh_Traverse it keeps float keys and makes no distance sort: the nearest entered child is taken
// next and the others are pushed in slot order; the search interval is the float `limit`, at or
// above the best t, so a box or deferred entry is dropped only when it cannot hold a contact at or
// before the best t (the answer does not depend on the order, only the work). Returns false if the
// stack would overflow (impossible for a tree from bsBvh_Build).
static bool bsBvh_RayWalk(const bsBvh* bvh, const bsSweep* sweep, const bsBvhRay* ray,
	bsBvhBest* best, uint64_t* visited, uint64_t* tested)
{
	bsRayFrame frame = bsMakeRayFrame(sweep);
	const bsBvhRayLanes lanes = bsMakeBvhRayLanes(ray);
	bsBvhRayEntry stack[BS_BVH_STACK];
	int top = 0;
	float limit = 1.0f;
	uint32_t child = 0, count = 0;
	for (;;)
	{
		if (count > 0)
		{
			*tested += count;
			if (bsBvh_RayRange(bvh, sweep, &frame, child, count, best))
			{
				limit = bsFloatUp(best->hit.t);
			}
		}
		else
		{
			const bsBvhWideNode* node = bvh->wide + child;
			*visited += 1;
			float entry[4];
			unsigned mask = bsBvhRayLanes_Boxes(&lanes, node, limit, entry);
			if (mask != 0)
			{
				if (top + 3 > BS_BVH_STACK)
				{
					return false;
				}
				int nearest = __builtin_ctz(mask);
				// Most nodes of a short segment have one entered child: nothing to order or push.
				if ((mask & (mask - 1)) != 0)
				{
					for (unsigned m = mask & (mask - 1); m != 0; m &= m - 1)
					{
						int i = __builtin_ctz(m);
						nearest = entry[i] < entry[nearest] ? i : nearest;
					}
					// The others from the last slot down, so the lowest is popped first.
					for (unsigned m = mask & ~(1u << nearest); m != 0;)
					{
						int i = 31 - __builtin_clz(m);
						m &= ~(1u << i);
						bsBvhRayEntry c = {node->child[i], node->count[i], entry[i]};
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
				return true;
			}
			bsBvhRayEntry e = stack[--top];
			if (e.key <= limit)
			{
				child = e.child;
				count = e.count;
				break;
			}
		}
	}
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

// Beyond this magnitude the float slab test cannot be trusted: such queries scan every triangle.
#define BS_BVH_FLOAT_LIMIT 1e30

// bsBvh_SweepPrepared for bs_methodRay: its own walk, no contact refinement (bsSweep_RefinesContact
// is false for rays).
static void bsBvh_RayQuery(const bsBvh* bvh, const bsSweep* sweep, bsSweepOutput* out,
	bsQueryStats* stats)
{
	bsBvhBest best;
	memset(&best, 0, sizeof best);
	uint64_t visited = 0, tested = 0;
	if (bvh->triCount > 0)
	{
		double reach = bsMaxAbsFinite(sweep->c1);
		double reach2 = bsMaxAbsFinite(sweep->c2);
		reach = reach > reach2 ? reach : reach2;
		bool scan = !(reach <= BS_BVH_FLOAT_LIMIT);
		if (!scan)
		{
			bsBvhRay ray = bsMakeBvhRay(bvh, sweep, 0.0, reach);
			scan = !bsBvh_RayWalk(bvh, sweep, &ray, &best, &visited, &tested);
			if (scan)
			{
				memset(&best, 0, sizeof best);
			}
		}
		if (scan)
		{
			tested += bvh->triCount;
			bsBvh_TestRange(bvh, bs_methodRay, sweep, 0, bvh->triCount, &best);
		}
	}
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
		double reach = fmax(bsMaxAbs(sweep.c1), bsMaxAbs(sweep.c2));
		bool scan = !(reach <= BS_BVH_FLOAT_LIMIT && radius <= BS_BVH_FLOAT_LIMIT);
		if (!scan)
		{
			bsBvhRay ray = bsMakeBvhRay(bvh, &sweep, radius, reach);
			scan = !bsBvh_TraverseBest(bvh, method, &sweep, &ray, &best, &visited, &tested);
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

	if (!best.found)
	{
		bsSweep_Miss(&sweep, out);
	}
	else if (bsSweep_RefinesContact(method, best.hit.t,
		bsSweep_Finish(&sweep, bvh->tris + best.k, bvh->triIndex[best.k], &best.hit, out)))
	{
		// The same lookup as bsSweepList's, so the answers stay identical; its walk is counted.
		bsClosestPointInput near = {out->center, bsDistance(out->center, out->point)};
		bsClosestPointOutput contact;
		bsQueryStats counts = {0, 0, 0, 0};
		if (bsBvh_ClosestPoint(bvh, &near, &contact, &counts) == bs_ok && contact.hit)
		{
			bsSweep_UseMeshContact(&sweep, &contact, out);
		}
		visited += counts.nodesVisited;
		tested += counts.trianglesTested;
	}
	if (stats != NULL)
	{
		stats->nodesVisited += visited;
		stats->trianglesTested += tested;
		stats->hits += best.found ? 1u : 0u;
	}
}

// --- Closest point ---

// The nearest triangle so far (closest.h's order: distance, then the caller's index).
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
static void bsBvhWideNode_Distance2(const bsBvhWideNode* n, const double q[3], double pad,
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
	memset(&best, 0, sizeof best);
	uint64_t visited = 0, tested = 0;
	if (bvh->triCount > 0)
	{
		double reach = bsMaxAbs(q);
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
				extent = fmax(extent, fmax(fabs((double)root->min[a]), fabs((double)root->max[a])));
			}
			double pad = 1e-12 * (reach + extent) + 1e-300;
			scan = !bsBvh_NearestWalk(bvh, q, input->maxDistance, pad, &best, &visited, &tested);
			if (scan)
			{
				memset(&best, 0, sizeof best);
			}
		}
		if (scan)
		{
			tested += bvh->triCount;
			bsBvh_NearestRange(bvh, q, input->maxDistance, 0, bvh->triCount, &best);
		}
	}
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
