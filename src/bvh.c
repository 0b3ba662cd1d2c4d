#include "blobsim/bvh.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define BS_BVH_MAX_BINS 64
#define BS_BVH_MAX_LEAF 64

bsBvhOptions bsDefaultBvhOptions(void)
{
	bsBvhOptions options;
	options.bins = 16;
	options.maxLeafSize = 4;
	options.traversalCost = 1.0;
	return options;
}

// --- Float bounds that contain double geometry ---

// The largest float <= x (-inf below the float range).
static float bsFloatDown(double x)
{
	if (x >= (double)FLT_MAX)
	{
		return FLT_MAX;
	}
	if (x < -(double)FLT_MAX)
	{
		return -INFINITY;
	}
	float f = (float)x;
	if ((double)f > x)
	{
		f = nextafterf(f, -INFINITY);
	}
	return f;
}

// The smallest float >= x (+inf above the float range).
static float bsFloatUp(double x)
{
	if (x <= -(double)FLT_MAX)
	{
		return -FLT_MAX;
	}
	if (x > (double)FLT_MAX)
	{
		return INFINITY;
	}
	float f = (float)x;
	if ((double)f < x)
	{
		f = nextafterf(f, INFINITY);
	}
	return f;
}

// x rounded to float and clamped to the finite range (centroids: only ordering matters).
static float bsFloatClamp(double x)
{
	if (x > (double)FLT_MAX)
	{
		return FLT_MAX;
	}
	if (x < -(double)FLT_MAX)
	{
		return -FLT_MAX;
	}
	return (float)x;
}

// --- Build ---

typedef struct bsBox
{
	float min[3];
	float max[3];
} bsBox;

// Per-triangle build data: float bounds (containing the double triangle) and centroid.
typedef struct bsBuildPrim
{
	float min[3];
	float max[3];
	float c[3];
} bsBuildPrim;

typedef struct bsBvhBuilder
{
	bsBvhNode* nodes;
	uint32_t nodeCount;
	bsBuildPrim* prims;  // slot order: prims[i] belongs to index[i], partitioned together
	uint32_t* index;     // leaf order -> caller's index, partitioned in place
	int bins;
	uint32_t maxLeafSize;
	double traversalCost;
	uint32_t leaves;
	uint32_t depth;
	uint32_t maxLeafTriangles;
	double sah;  // not yet divided by the root's area
} bsBvhBuilder;

static inline void bsBox_SetEmpty(bsBox* b)
{
	for (int a = 0; a < 3; ++a)
	{
		b->min[a] = INFINITY;
		b->max[a] = -INFINITY;
	}
}

static inline void bsBox_Grow(bsBox* b, const float* min, const float* max)
{
	for (int a = 0; a < 3; ++a)
	{
		b->min[a] = min[a] < b->min[a] ? min[a] : b->min[a];
		b->max[a] = max[a] > b->max[a] ? max[a] : b->max[a];
	}
}

// Half the surface area, in double (no overflow for large float boxes).
static double bsHalfArea(const float* min, const float* max)
{
	double dx = (double)max[0] - (double)min[0];
	double dy = (double)max[1] - (double)min[1];
	double dz = (double)max[2] - (double)min[2];
	return dx * dy + dy * dz + dz * dx;
}

// Bounds and centroid bounds of index[first, first + count).
static void bsBvhBuilder_Bounds(const bsBvhBuilder* b, uint32_t first, uint32_t count, bsBox* box,
	bsBox* cbox)
{
	bsBox_SetEmpty(box);
	bsBox_SetEmpty(cbox);
	for (uint32_t i = first; i < first + count; ++i)
	{
		const bsBuildPrim* p = b->prims + i;
		bsBox_Grow(box, p->min, p->max);
		bsBox_Grow(cbox, p->c, p->c);
	}
}

static void bsBvhNode_SetBox(bsBvhNode* node, const bsBox* box)
{
	for (int a = 0; a < 3; ++a)
	{
		node->min[a] = box->min[a];
		node->max[a] = box->max[a];
	}
}

// The split plan of one axis: where centroid c falls among the bins.
typedef struct bsBinning
{
	float origin[3];
	float scale[3];  // bins / extent; 0 on an axis where all centroids are equal
	int bins;
} bsBinning;

static inline int bsBinning_Index(const bsBinning* g, int axis, const float* c)
{
	float f = (c[axis] - g->origin[axis]) * g->scale[axis];
	// f >= 0; the comparison also sends a NaN (inf * 0 on a flat axis) to the last bin, never to
	// an undefined float-to-int conversion.
	return f < (float)(g->bins - 1) ? (int)f : g->bins - 1;
}

// Finds the binned-SAH split of index[first, first + count) with the lowest cost. Cost is
// traversalCost + (area(L) n(L) + area(R) n(R)) / area(node), comparable with the leaf's cost n.
// Returns false when no split leaves both sides non-empty (all centroids equal).
static bool bsBvhBuilder_FindSplit(const bsBvhBuilder* b, uint32_t first, uint32_t count,
	double nodeArea, const bsBox* cbox, bsBinning* binning, int* outAxis, int* outBin,
	double* outCost)
{
	int nb = b->bins;
	binning->bins = nb;
	bool any = false;
	for (int a = 0; a < 3; ++a)
	{
		binning->origin[a] = cbox->min[a];
		double extent = (double)cbox->max[a] - (double)cbox->min[a];
		float scale = (float)((double)nb / extent);
		// A tiny or huge extent could give an infinite scale or a zero one: treat the axis as flat.
		if (extent > 0.0 && extent <= (double)FLT_MAX && isfinite(scale) && scale > 0.0f)
		{
			binning->scale[a] = scale;
			any = true;
		}
		else
		{
			binning->scale[a] = 0.0f;
		}
	}
	if (!any)
	{
		return false;
	}

	// A flat axis (scale 0) is binned too, without a branch, and never evaluated.
	bsBox binBox[3][BS_BVH_MAX_BINS];
	uint32_t binCount[3][BS_BVH_MAX_BINS];
	for (int a = 0; a < 3; ++a)
	{
		for (int i = 0; i < nb; ++i)
		{
			bsBox_SetEmpty(&binBox[a][i]);
			binCount[a][i] = 0;
		}
	}
	for (uint32_t k = first; k < first + count; ++k)
	{
		const bsBuildPrim* p = b->prims + k;
		int i0 = bsBinning_Index(binning, 0, p->c);
		int i1 = bsBinning_Index(binning, 1, p->c);
		int i2 = bsBinning_Index(binning, 2, p->c);
		bsBox_Grow(&binBox[0][i0], p->min, p->max);
		bsBox_Grow(&binBox[1][i1], p->min, p->max);
		bsBox_Grow(&binBox[2][i2], p->min, p->max);
		binCount[0][i0] += 1;
		binCount[1][i1] += 1;
		binCount[2][i2] += 1;
	}

	bool found = false;
	double bestCost = (double)INFINITY;
	double invArea = nodeArea > 0.0 && isfinite(nodeArea) ? 1.0 / nodeArea : 1.0;
	for (int a = 0; a < 3; ++a)
	{
		if (binning->scale[a] == 0.0f)
		{
			continue;
		}
		// Split s puts bins [0, s] on the left and [s + 1, nb) on the right.
		double leftArea[BS_BVH_MAX_BINS], rightArea[BS_BVH_MAX_BINS];
		uint32_t leftCount[BS_BVH_MAX_BINS], rightCount[BS_BVH_MAX_BINS];
		bsBox acc;
		bsBox_SetEmpty(&acc);
		uint32_t n = 0;
		for (int s = 0; s < nb - 1; ++s)
		{
			if (binCount[a][s] > 0)
			{
				bsBox_Grow(&acc, binBox[a][s].min, binBox[a][s].max);
				n += binCount[a][s];
			}
			leftCount[s] = n;
			leftArea[s] = n > 0 ? bsHalfArea(acc.min, acc.max) : 0.0;
		}
		bsBox_SetEmpty(&acc);
		n = 0;
		for (int s = nb - 2; s >= 0; --s)
		{
			if (binCount[a][s + 1] > 0)
			{
				bsBox_Grow(&acc, binBox[a][s + 1].min, binBox[a][s + 1].max);
				n += binCount[a][s + 1];
			}
			rightCount[s] = n;
			rightArea[s] = n > 0 ? bsHalfArea(acc.min, acc.max) : 0.0;
		}
		for (int s = 0; s < nb - 1; ++s)
		{
			if (leftCount[s] == 0 || rightCount[s] == 0)
			{
				continue;
			}
			double cost = b->traversalCost + invArea * (leftArea[s] * (double)leftCount[s] +
				rightArea[s] * (double)rightCount[s]);
			if (cost < bestCost || !found)
			{
				found = true;
				bestCost = cost;
				*outAxis = a;
				*outBin = s;
			}
		}
	}
	*outCost = bestCost;
	return found;
}

// Turns node `nodeIndex` (its range and box set, at `depth`, the root at 1) into a leaf or splits it
// and recurses. The recursion is at most BS_BVH_MAX_DEPTH deep.
static void bsBvhBuilder_Subdivide(bsBvhBuilder* b, uint32_t nodeIndex, uint32_t depth,
	const bsBox* cbox)
{
	bsBvhNode* node = b->nodes + nodeIndex;
	uint32_t first = node->leftFirst;
	uint32_t count = node->count;
	double area = bsHalfArea(node->min, node->max);
	if (depth > b->depth)
	{
		b->depth = depth;
	}

	uint32_t mid = first;
	bool split = false;
	bool haveBounds = false;  // the partition computed the children's boxes
	bsBox leftBox, leftCbox, rightBox, rightCbox;
	// A node at the maximum depth is a leaf whatever its size: the query's stack depends on it.
	if (count > 1 && depth < BS_BVH_MAX_DEPTH)
	{
		bsBinning binning;
		int axis = 0, bin = 0;
		double cost = (double)INFINITY;
		bool found = bsBvhBuilder_FindSplit(b, first, count, area, cbox, &binning, &axis, &bin,
			&cost);
		if (found && (count > b->maxLeafSize || cost < (double)count))
		{
			// In-place partition of the index range by the same bin function as the binning, so
			// both sides are non-empty; the children's boxes are grown on the way (each triangle
			// is classified once).
			bsBox_SetEmpty(&leftBox);
			bsBox_SetEmpty(&leftCbox);
			bsBox_SetEmpty(&rightBox);
			bsBox_SetEmpty(&rightCbox);
			// The build data moves with the indices, so every pass over a node reads memory in
			// order.
			uint32_t i = first, j = first + count;
			while (i < j)
			{
				bsBuildPrim* p = b->prims + i;
				if (bsBinning_Index(&binning, axis, p->c) <= bin)
				{
					bsBox_Grow(&leftBox, p->min, p->max);
					bsBox_Grow(&leftCbox, p->c, p->c);
					++i;
				}
				else
				{
					bsBox_Grow(&rightBox, p->min, p->max);
					bsBox_Grow(&rightCbox, p->c, p->c);
					--j;
					bsBuildPrim tp = *p;
					*p = b->prims[j];
					b->prims[j] = tp;
					uint32_t ti = b->index[i];
					b->index[i] = b->index[j];
					b->index[j] = ti;
				}
			}
			mid = i;
			split = mid > first && mid < first + count;
			haveBounds = split;
		}
		if (!split && count > b->maxLeafSize)
		{
			// No split separates the centroids (all equal): halve the index range.
			mid = first + count / 2;
			split = true;
		}
	}

	if (!split)
	{
		b->leaves += 1;
		b->maxLeafTriangles = count > b->maxLeafTriangles ? count : b->maxLeafTriangles;
		b->sah += area * (double)count;
		return;
	}

	uint32_t left = b->nodeCount;
	b->nodeCount += 2;
	node->leftFirst = left;
	node->count = 0;
	b->sah += area * b->traversalCost;

	bsBvhNode* l = b->nodes + left;
	l->leftFirst = first;
	l->count = mid - first;
	bsBvhNode* r = b->nodes + left + 1;
	r->leftFirst = mid;
	r->count = first + count - mid;
	if (!haveBounds)
	{
		bsBvhBuilder_Bounds(b, l->leftFirst, l->count, &leftBox, &leftCbox);
		bsBvhBuilder_Bounds(b, r->leftFirst, r->count, &rightBox, &rightCbox);
	}
	bsBvhNode_SetBox(l, &leftBox);
	bsBvhNode_SetBox(r, &rightBox);

	bsBvhBuilder_Subdivide(b, left, depth + 1, &leftCbox);
	bsBvhBuilder_Subdivide(b, left + 1, depth + 1, &rightCbox);
}


// --- The 4-wide tree the queries walk ---

typedef struct bsWideBuilder
{
	const bsBvhNode* nodes;  // the binary tree
	bsBvhWideNode* wide;
	uint32_t wideCount;
	uint32_t wideDepth;
} bsWideBuilder;

static double bsBvhNode_HalfArea(const bsBvhNode* n)
{
	return bsHalfArea(n->min, n->max);
}

// Copies the boxes of binary nodes slot[0, n) into the wide node's slots, the rest unused (an
// inf box that every slab test misses), child and count zero.
static void bsBvhWideNode_SetSlots(bsBvhWideNode* node, const bsBvhNode* nodes, const uint32_t* slot,
	uint32_t n)
{
	memset(node, 0, sizeof *node);
	for (uint32_t i = 0; i < 4; ++i)
	{
		for (int a = 0; a < 3; ++a)
		{
			node->min[a][i] = i < n ? nodes[slot[i]].min[a] : INFINITY;
			node->max[a][i] = i < n ? nodes[slot[i]].max[a] : INFINITY;
		}
	}
}

// Makes wide node `index` from binary node `root` (an interior node) and recurses into the interior
// slots. The slots start as root's two children; while fewer than 4, the interior slot with the
// largest surface area (the likeliest to be entered) is replaced by its two children. Depth-first
// numbering keeps a subtree's nodes close in memory.
static void bsWideBuilder_Collapse(bsWideBuilder* w, uint32_t root, uint32_t index, uint32_t depth)
{
	if (depth > w->wideDepth)
	{
		w->wideDepth = depth;
	}
	uint32_t slot[4];
	uint32_t n = 2;
	slot[0] = w->nodes[root].leftFirst;
	slot[1] = slot[0] + 1;
	while (n < 4)
	{
		int open = -1;
		double openArea = -1.0;
		for (uint32_t i = 0; i < n; ++i)
		{
			const bsBvhNode* c = w->nodes + slot[i];
			if (c->count == 0 && bsBvhNode_HalfArea(c) > openArea)
			{
				open = (int)i;
				openArea = bsBvhNode_HalfArea(c);
			}
		}
		if (open < 0)
		{
			break;  // all leaves
		}
		// The opened node's children take its slot and the next free one, keeping left before right.
		uint32_t left = w->nodes[slot[open]].leftFirst;
		for (uint32_t i = n; i > (uint32_t)open + 1; --i)
		{
			slot[i] = slot[i - 1];
		}
		slot[open] = left;
		slot[open + 1] = left + 1;
		++n;
	}

	bsBvhWideNode* node = w->wide + index;
	bsBvhWideNode_SetSlots(node, w->nodes, slot, n);
	for (uint32_t i = 0; i < n; ++i)
	{
		const bsBvhNode* c = w->nodes + slot[i];
		if (c->count > 0)
		{
			node->child[i] = c->leftFirst;
			node->count[i] = c->count;
		}
		else
		{
			uint32_t childIndex = w->wideCount++;
			node->child[i] = childIndex;
			bsWideBuilder_Collapse(w, slot[i], childIndex, depth + 1);
		}
	}
}

// Builds bvh->wide from bvh->nodes. Returns false when out of memory.
static bool bsBvh_BuildWide(bsBvh* bvh)
{
	// Every wide node but a leaf root consumes at least one interior binary node.
	uint32_t interior = bvh->nodeCount - bvh->stats.leaves;
	size_t capacity = interior > 0 ? interior : 1;
	bsBvhWideNode* wide = malloc(capacity * sizeof(bsBvhWideNode));
	if (wide == NULL)
	{
		return false;
	}
	bsWideBuilder w;
	w.nodes = bvh->nodes;
	w.wide = wide;
	w.wideCount = 1;
	w.wideDepth = 1;
	const bsBvhNode* root = bvh->nodes;
	if (root->count > 0)
	{
		// The whole tree is one leaf: a wide root with one leaf slot.
		uint32_t slot = 0;
		bsBvhWideNode_SetSlots(wide, bvh->nodes, &slot, 1);
		wide->child[0] = root->leftFirst;
		wide->count[0] = root->count;
	}
	else
	{
		bsWideBuilder_Collapse(&w, 0, 0, 1);
	}
	bvh->wide = wide;
	bvh->wideCount = w.wideCount;
	bvh->stats.wideNodes = w.wideCount;
	bvh->stats.wideDepth = w.wideDepth;
	return true;
}

static double bsNow(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool bsValidOptions(const bsBvhOptions* o)
{
	return o->bins >= 2 && o->bins <= BS_BVH_MAX_BINS && o->maxLeafSize >= 1 &&
		o->maxLeafSize <= BS_BVH_MAX_LEAF && isfinite(o->traversalCost) && o->traversalCost >= 0.0;
}

bsResult bsBvh_Build(bsBvh* bvh, const bsTriangle* tris, uint32_t count, const bsBvhOptions* options)
{
	if (bvh == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(bvh, 0, sizeof *bvh);
	double start = bsNow();
	bsBvhOptions o = options != NULL ? *options : bsDefaultBvhOptions();
	if (!bsValidOptions(&o))
	{
		return bs_errInvalidArgument;
	}
	if (count >= (1u << 31))
	{
		return bs_errTooLarge;
	}
	if (count == 0)
	{
		bvh->stats.buildSeconds = bsNow() - start;
		return bs_ok;
	}
	if (tris == NULL)
	{
		return bs_errInvalidArgument;
	}
	for (uint32_t i = 0; i < count; ++i)
	{
		if (!bsIsValidVec3(tris[i].p1) || !bsIsValidVec3(tris[i].p2) || !bsIsValidVec3(tris[i].p3))
		{
			return bs_errNonFinite;
		}
	}

	size_t n = count;
	size_t nodeCapacity = 2 * n - 1;
	if (n > SIZE_MAX / sizeof(bsTriangle) || nodeCapacity > SIZE_MAX / sizeof(bsBvhNode))
	{
		return bs_errOutOfMemory;
	}
	bsBvhNode* nodes = malloc(nodeCapacity * sizeof(bsBvhNode));
	bsTriangle* ordered = malloc(n * sizeof(bsTriangle));
	uint32_t* index = malloc(n * sizeof(uint32_t));
	bsBuildPrim* prims = malloc(n * sizeof(bsBuildPrim));
	if (nodes == NULL || ordered == NULL || index == NULL || prims == NULL)
	{
		free(nodes);
		free(ordered);
		free(index);
		free(prims);
		return bs_errOutOfMemory;
	}

	for (uint32_t i = 0; i < count; ++i)
	{
		bsVec3 lo = bsTriangle_Min(tris + i);
		bsVec3 hi = bsTriangle_Max(tris + i);
		bsBuildPrim* p = prims + i;
		p->min[0] = bsFloatDown(lo.x);
		p->min[1] = bsFloatDown(lo.y);
		p->min[2] = bsFloatDown(lo.z);
		p->max[0] = bsFloatUp(hi.x);
		p->max[1] = bsFloatUp(hi.y);
		p->max[2] = bsFloatUp(hi.z);
		// Half-sums, so huge coordinates do not overflow.
		p->c[0] = bsFloatClamp(0.5 * lo.x + 0.5 * hi.x);
		p->c[1] = bsFloatClamp(0.5 * lo.y + 0.5 * hi.y);
		p->c[2] = bsFloatClamp(0.5 * lo.z + 0.5 * hi.z);
		index[i] = i;
	}

	bsBvhBuilder b;
	b.nodes = nodes;
	b.nodeCount = 1;
	b.prims = prims;
	b.index = index;
	b.bins = o.bins;
	b.maxLeafSize = (uint32_t)o.maxLeafSize;
	b.traversalCost = o.traversalCost;
	b.leaves = 0;
	b.depth = 0;
	b.maxLeafTriangles = 0;
	b.sah = 0.0;

	bsBox box, cbox;
	nodes[0].leftFirst = 0;
	nodes[0].count = count;
	bsBvhBuilder_Bounds(&b, 0, count, &box, &cbox);
	bsBvhNode_SetBox(nodes, &box);
	bsBvhBuilder_Subdivide(&b, 0, 1, &cbox);
	free(prims);

	for (uint32_t i = 0; i < count; ++i)
	{
		ordered[i] = tris[index[i]];
	}

	float extent = 0.0f;
	for (int a = 0; a < 3; ++a)
	{
		extent = fmaxf(extent, fmaxf(fabsf(nodes[0].min[a]), fabsf(nodes[0].max[a])));
	}

	bvh->nodes = nodes;
	bvh->nodeCount = b.nodeCount;
	bvh->tris = ordered;
	bvh->triIndex = index;
	bvh->triCount = count;
	// Covers the float rounding of the slab test's arithmetic on coordinates up to `extent`.
	bvh->pad = 1e-6f * extent;
	double rootArea = bsHalfArea(nodes[0].min, nodes[0].max);
	bvh->stats.nodes = b.nodeCount;
	bvh->stats.leaves = b.leaves;
	bvh->stats.depth = b.depth;
	bvh->stats.maxLeafTriangles = b.maxLeafTriangles;
	bvh->stats.sahCost = rootArea > 0.0 && isfinite(rootArea) ? b.sah / rootArea : 0.0;
	if (!bsBvh_BuildWide(bvh))
	{
		bsBvh_Destroy(bvh);
		return bs_errOutOfMemory;
	}
	bvh->stats.buildSeconds = bsNow() - start;
	return bs_ok;
}

void bsBvh_Destroy(bsBvh* bvh)
{
	if (bvh == NULL)
	{
		return;
	}
	free(bvh->nodes);
	free(bvh->wide);
	free(bvh->tris);
	free(bvh->triIndex);
	memset(bvh, 0, sizeof *bvh);
}

size_t bsBvh_Bytes(const bsBvh* bvh)
{
	if (bvh == NULL)
	{
		return 0;
	}
	return (size_t)bvh->nodeCount * sizeof(bsBvhNode) + (size_t)bvh->wideCount * sizeof(bsBvhWideNode) +
		(size_t)bvh->triCount * (sizeof(bsTriangle) + sizeof(uint32_t));
}

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

// The bound a triangle's test is run with: only contacts nearer than the best count, or as near for
// a lower caller's index (the kernels report t < tmax and their t does not depend on tmax).
static inline double bsBvhBest_Bound(const bsBvhBest* best, uint32_t index)
{
	if (!best->found)
	{
		return 2.0;
	}
	return index < best->index ? nextafter(best->hit.t, INFINITY) : best->hit.t;
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
static bool bsBvh_Traverse(const bsBvh* bvh, bsMethod method, const bsSweep* sweep,
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
			scan = !bsBvh_Traverse(bvh, method, &sweep, &ray, &best, &visited, &tested);
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
static bool bsBvh_NearestWalk(const bsBvh* bvh, bsVec3 q, double maxDistance, double pad,
	bsBvhNearest* best, uint64_t* visited, uint64_t* tested)
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
