#include "float_bounds.h"
#include "dispatch.h"
#include "ray_test.h"

#include "blobsim/bvh.h"
#include "blobsim/parallel.h"

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
	options.threads = 1;
	return options;
}


// --- Build ---

// Four float lanes (x, y, z and an unused fourth) for the build's boxes: SSE where there is SSE2,
// plain floats otherwise (the same operations lane by lane, so the same trees).
#if defined(__SSE2__)
typedef __m128 bsF4;

static inline bsF4 bsF4_Load(const float* p)
{
	return _mm_load_ps(p);
}

static inline void bsF4_Store(float* p, bsF4 a)
{
	_mm_store_ps(p, a);
}

static inline bsF4 bsF4_Set1(float x)
{
	return _mm_set1_ps(x);
}

static inline bsF4 bsF4_Min(bsF4 a, bsF4 b)
{
	return _mm_min_ps(a, b);
}

static inline bsF4 bsF4_Max(bsF4 a, bsF4 b)
{
	return _mm_max_ps(a, b);
}

// a + b and (a - b) c, lane by lane.
static inline bsF4 bsF4_Add(bsF4 a, bsF4 b)
{
	return _mm_add_ps(a, b);
}

static inline bsF4 bsF4_SubMul(bsF4 a, bsF4 b, bsF4 c)
{
	return _mm_mul_ps(_mm_sub_ps(a, b), c);
}

static inline bsF4 bsF4_Half(bsF4 a)
{
	return _mm_mul_ps(a, _mm_set1_ps(0.5f));
}

// The bin of every lane: f truncated, f at or above `last` (or NaN) to `last`, as bsBinning_Index.
static inline void bsF4_Bins(bsF4 f, bsF4 last, int32_t out[4])
{
	_mm_storeu_si128((__m128i*)out, _mm_cvttps_epi32(_mm_min_ps(f, last)));
}
#else
typedef struct bsF4
{
	float v[4];
} bsF4;

static inline bsF4 bsF4_Load(const float* p)
{
	bsF4 a = {{p[0], p[1], p[2], p[3]}};
	return a;
}

static inline void bsF4_Store(float* p, bsF4 a)
{
	memcpy(p, a.v, sizeof a.v);
}

static inline bsF4 bsF4_Set1(float x)
{
	bsF4 a = {{x, x, x, x}};
	return a;
}

// The operand order of SSE's minps/maxps: the second operand when the comparison is false.
static inline bsF4 bsF4_Min(bsF4 a, bsF4 b)
{
	for (int i = 0; i < 4; ++i)
	{
		a.v[i] = a.v[i] < b.v[i] ? a.v[i] : b.v[i];
	}
	return a;
}

static inline bsF4 bsF4_Max(bsF4 a, bsF4 b)
{
	for (int i = 0; i < 4; ++i)
	{
		a.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i];
	}
	return a;
}

static inline bsF4 bsF4_Add(bsF4 a, bsF4 b)
{
	for (int i = 0; i < 4; ++i)
	{
		a.v[i] = a.v[i] + b.v[i];
	}
	return a;
}

static inline bsF4 bsF4_SubMul(bsF4 a, bsF4 b, bsF4 c)
{
	for (int i = 0; i < 4; ++i)
	{
		a.v[i] = (a.v[i] - b.v[i]) * c.v[i];
	}
	return a;
}

static inline bsF4 bsF4_Half(bsF4 a)
{
	for (int i = 0; i < 4; ++i)
	{
		a.v[i] = a.v[i] * 0.5f;
	}
	return a;
}

static inline void bsF4_Bins(bsF4 f, bsF4 last, int32_t out[4])
{
	for (int i = 0; i < 4; ++i)
	{
		out[i] = (int32_t)(f.v[i] < last.v[i] ? f.v[i] : last.v[i]);
	}
}
#endif

// A box as two lanes of four (the fourth lane unused).
typedef struct bsBox
{
	bsF4 min;
	bsF4 max;
} bsBox;

// Per-triangle build data: float bounds containing the double triangle, fourth lanes 0. Its centroid
// is the bounds' midpoint, halves summed (no overflow).
typedef struct bsBuildPrim
{
	_Alignas(16) float min[4];
	float max[4];
} bsBuildPrim;

// Builds one subtree: the top levels (serially) or one of the subtrees below them (each on its own
// builder, possibly on another thread, writing its own range of nodes, prims and indices).
typedef struct bsBvhBuilder
{
	bsBvhNode* nodes;
	uint32_t nodeCount;  // the next free node (a task: within its own region)
	bsBuildPrim* prims;  // slot order: prims[i] belongs to index[i], partitioned together
	uint32_t* index;     // leaf order -> caller's index, partitioned in place
	int bins;
	uint32_t maxLeafSize;
	double traversalCost;
	const bsBox* emptyBins;  // BS_BVH_MAX_BINS empty boxes
	uint32_t taskDepth;  // the top builder stops here and leaves the node to a task (0: never)
	struct bsBuildTask* tasks;
	uint32_t taskCount;
	uint32_t leaves;
	uint32_t depth;
	uint32_t maxLeafTriangles;
	double sah;  // not yet divided by the root's area
} bsBvhBuilder;

// A subtree left by the top builder: its root node (already placed), range, centroid box and depth.
typedef struct bsBuildTask
{
	uint32_t node;
	uint32_t depth;
	bsBox cbox;
	uint32_t regionStart;  // where its nodes go while it runs (2 count - 2 of them at most)
	bsBvhBuilder result;   // its builder, with its statistics
} bsBuildTask;

static inline void bsBox_SetEmpty(bsBox* b)
{
	b->min = bsF4_Set1(INFINITY);
	b->max = bsF4_Set1(-INFINITY);
}

static inline void bsBox_Grow(bsBox* b, bsF4 min, bsF4 max)
{
	b->min = bsF4_Min(b->min, min);
	b->max = bsF4_Max(b->max, max);
}

static inline void bsBox_Merge(bsBox* b, const bsBox* other)
{
	bsBox_Grow(b, other->min, other->max);
}

// Half the surface area, in double (no overflow for large float boxes).
static double bsHalfArea(const float* min, const float* max)
{
	double dx = (double)max[0] - (double)min[0];
	double dy = (double)max[1] - (double)min[1];
	double dz = (double)max[2] - (double)min[2];
	return dx * dy + dy * dz + dz * dx;
}

static double bsBox_HalfArea(const bsBox* b)
{
	_Alignas(16) float min[4], max[4];
	bsF4_Store(min, b->min);
	bsF4_Store(max, b->max);
	return bsHalfArea(min, max);
}

static inline bsF4 bsBuildPrim_Centroid(bsF4 min, bsF4 max)
{
	return bsF4_Add(bsF4_Half(min), bsF4_Half(max));
}

// Bounds and centroid bounds of prims[first, first + count).
static void bsBvhBuilder_Bounds(const bsBvhBuilder* b, uint32_t first, uint32_t count, bsBox* box,
	bsBox* cbox)
{
	bsBox_SetEmpty(box);
	bsBox_SetEmpty(cbox);
	for (uint32_t i = first; i < first + count; ++i)
	{
		bsF4 min = bsF4_Load(b->prims[i].min);
		bsF4 max = bsF4_Load(b->prims[i].max);
		bsBox_Grow(box, min, max);
		bsF4 c = bsBuildPrim_Centroid(min, max);
		bsBox_Grow(cbox, c, c);
	}
}

static void bsBvhNode_SetBox(bsBvhNode* node, const bsBox* box)
{
	_Alignas(16) float min[4], max[4];
	bsF4_Store(min, box->min);
	bsF4_Store(max, box->max);
	for (int a = 0; a < 3; ++a)
	{
		node->min[a] = min[a];
		node->max[a] = max[a];
	}
}

// The split plan: where a centroid falls among the bins, on all three axes at once.
typedef struct bsBinning
{
	bsF4 origin;
	bsF4 scale;  // bins / extent; 0 on an axis where all centroids are equal (and in the fourth lane)
	bsF4 last;   // bins - 1
	int bins;
} bsBinning;

// The bins of centroid c on the three axes. (c - origin) scale >= 0; a NaN (inf * 0 on a flat axis)
// goes to the last bin, never to an undefined conversion.
static inline void bsBinning_Index(const bsBinning* g, bsF4 c, int32_t bin[4])
{
	bsF4_Bins(bsF4_SubMul(c, g->origin, g->scale), g->last, bin);
}

// The bins of one node on the three axes.
typedef struct bsBins
{
	bsBox box[3][BS_BVH_MAX_BINS];
	uint32_t count[3][BS_BVH_MAX_BINS];
} bsBins;

// Sets up the binning of a node whose centroids span cbox. Returns false when every axis is flat.
static bool bsBinning_Set(bsBinning* g, const bsBox* cbox, int bins)
{
	_Alignas(16) float cmin[4], cmax[4], scale[4] = {0.0f, 0.0f, 0.0f, 0.0f};
	bsF4_Store(cmin, cbox->min);
	bsF4_Store(cmax, cbox->max);
	cmin[3] = 0.0f;
	bool any = false;
	for (int a = 0; a < 3; ++a)
	{
		double extent = (double)cmax[a] - (double)cmin[a];
		float s = (float)((double)bins / extent);
		// A tiny or huge extent could give an infinite scale or a zero one: treat the axis as flat.
		if (extent > 0.0 && extent <= (double)FLT_MAX && isfinite(s) && s > 0.0f)
		{
			scale[a] = s;
			any = true;
		}
	}
	g->origin = bsF4_Load(cmin);
	g->scale = bsF4_Load(scale);
	g->last = bsF4_Set1((float)(bins - 1));
	g->bins = bins;
	return any;
}

// The cost of the best split of one axis's bins (and the split: bins [0, s] on the left), if any
// leaves both sides non-empty. Only splits right after a non-empty bin are evaluated: a split after
// an empty bin makes the same two sides as the one after the last non-empty bin before it, at the
// same cost, and the first of equal costs is kept.
static bool bsBins_BestSplit(const bsBins* bins, int axis, int nb, double invArea,
	double traversalCost, double* outCost, int* outBin)
{
	int used[BS_BVH_MAX_BINS];
	int n = 0;
	for (int i = 0; i < nb; ++i)
	{
		if (bins->count[axis][i] > 0)
		{
			used[n++] = i;
		}
	}
	if (n < 2)
	{
		return false;
	}
	// rightArea[j], rightCount[j]: the bins used[j + 1 ..] together.
	double rightArea[BS_BVH_MAX_BINS];
	uint32_t rightCount[BS_BVH_MAX_BINS];
	bsBox acc;
	bsBox_SetEmpty(&acc);
	uint32_t total = 0;
	for (int j = n - 1; j >= 1; --j)
	{
		bsBox_Merge(&acc, &bins->box[axis][used[j]]);
		total += bins->count[axis][used[j]];
		rightArea[j - 1] = bsBox_HalfArea(&acc);
		rightCount[j - 1] = total;
	}
	bool found = false;
	double best = (double)INFINITY;
	bsBox_SetEmpty(&acc);
	total = 0;
	for (int j = 0; j + 1 < n; ++j)
	{
		bsBox_Merge(&acc, &bins->box[axis][used[j]]);
		total += bins->count[axis][used[j]];
		double cost = traversalCost + invArea * (bsBox_HalfArea(&acc) * (double)total +
			rightArea[j] * (double)rightCount[j]);
		if (cost < best || !found)
		{
			found = true;
			best = cost;
			*outBin = used[j];
		}
	}
	*outCost = best;
	return found;
}

// Finds the binned-SAH split of prims[first, first + count) with the lowest cost. Cost is
// traversalCost + (area(L) n(L) + area(R) n(R)) / area(node), comparable with the leaf's cost n.
// One pass bins every centroid on all three axes. Returns false when no split leaves both sides
// non-empty (all centroids equal).
static bool bsBvhBuilder_FindSplit(const bsBvhBuilder* b, uint32_t first, uint32_t count,
	double nodeArea, const bsBox* cbox, bsBinning* binning, int* outAxis, int* outBin,
	double* outCost)
{
	int nb = b->bins;
	if (!bsBinning_Set(binning, cbox, nb))
	{
		return false;
	}
	// A flat axis (scale 0) is binned too, without a branch, and never split. The empty bins are
	// copied from the builder's template: most nodes are small, and setting up the bins one by one
	// cost as much as binning their triangles.
	bsBins bins;
	for (int a = 0; a < 3; ++a)
	{
		memcpy(bins.box[a], b->emptyBins, (size_t)nb * sizeof(bsBox));
		memset(bins.count[a], 0, (size_t)nb * sizeof(uint32_t));
	}
	for (uint32_t k = first; k < first + count; ++k)
	{
		bsF4 min = bsF4_Load(b->prims[k].min);
		bsF4 max = bsF4_Load(b->prims[k].max);
		int32_t bin[4];
		bsBinning_Index(binning, bsBuildPrim_Centroid(min, max), bin);
		for (int a = 0; a < 3; ++a)
		{
			bsBox_Grow(&bins.box[a][bin[a]], min, max);
			bins.count[a][bin[a]] += 1;
		}
	}

	_Alignas(16) float scale[4];
	bsF4_Store(scale, binning->scale);
	bool found = false;
	double bestCost = (double)INFINITY;
	double invArea = nodeArea > 0.0 && isfinite(nodeArea) ? 1.0 / nodeArea : 1.0;
	for (int a = 0; a < 3; ++a)
	{
		double cost;
		int bin;
		if (scale[a] != 0.0f &&
			bsBins_BestSplit(&bins, a, nb, invArea, b->traversalCost, &cost, &bin) &&
			(cost < bestCost || !found))
		{
			found = true;
			bestCost = cost;
			*outAxis = a;
			*outBin = bin;
		}
	}
	*outCost = bestCost;
	return found;
}

// Partitions prims[first, first + count) in place: bin <= `bin` on `axis` to the left (the bin
// function of the binning, so both sides are non-empty). The children's boxes are grown on the way
// (each prim read once). Returns the first index of the right side.
static uint32_t bsBvhBuilder_Partition(bsBvhBuilder* b, uint32_t first, uint32_t count,
	const bsBinning* binning, int axis, int bin, bsBox box[2], bsBox cbox[2])
{
	for (int s = 0; s < 2; ++s)
	{
		bsBox_SetEmpty(&box[s]);
		bsBox_SetEmpty(&cbox[s]);
	}
	uint32_t i = first, j = first + count;
	while (i < j)
	{
		bsBuildPrim* p = b->prims + i;
		bsF4 min = bsF4_Load(p->min);
		bsF4 max = bsF4_Load(p->max);
		bsF4 c = bsBuildPrim_Centroid(min, max);
		int32_t bins[4];
		bsBinning_Index(binning, c, bins);
		int side = bins[axis] <= bin ? 0 : 1;
		bsBox_Grow(&box[side], min, max);
		bsBox_Grow(&cbox[side], c, c);
		if (side == 0)
		{
			++i;
		}
		else
		{
			--j;
			bsBuildPrim tp = *p;
			*p = b->prims[j];
			b->prims[j] = tp;
			uint32_t ti = b->index[i];
			b->index[i] = b->index[j];
			b->index[j] = ti;
		}
	}
	return i;
}

// Turns node `nodeIndex` (its range and box set, at `depth`, the root at 1) into a leaf or splits it
// and recurses; the top builder leaves a node at its task depth to a task instead. The recursion is
// at most BS_BVH_MAX_DEPTH deep.
static void bsBvhBuilder_Subdivide(bsBvhBuilder* b, uint32_t nodeIndex, uint32_t depth,
	const bsBox* cbox)
{
	bsBvhNode* node = b->nodes + nodeIndex;
	uint32_t first = node->leftFirst;
	uint32_t count = node->count;
	if (depth == b->taskDepth && count > 1)
	{
		bsBuildTask* task = b->tasks + b->taskCount++;
		task->node = nodeIndex;
		task->depth = depth;
		task->cbox = *cbox;
		return;
	}
	double area = bsHalfArea(node->min, node->max);
	if (depth > b->depth)
	{
		b->depth = depth;
	}

	uint32_t mid = first;
	bool split = false;
	bool haveBounds = false;  // the partition computed the children's boxes
	bsBox box[2], childCbox[2];
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
			mid = bsBvhBuilder_Partition(b, first, count, &binning, axis, bin, box, childCbox);
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
		bsBvhBuilder_Bounds(b, l->leftFirst, l->count, &box[0], &childCbox[0]);
		bsBvhBuilder_Bounds(b, r->leftFirst, r->count, &box[1], &childCbox[1]);
	}
	bsBvhNode_SetBox(l, &box[0]);
	bsBvhNode_SetBox(r, &box[1]);

	bsBvhBuilder_Subdivide(b, left, depth + 1, &childCbox[0]);
	bsBvhBuilder_Subdivide(b, left + 1, depth + 1, &childCbox[1]);
}

// The top builder stops at this depth (the root at 1), leaving up to 2^(depth - 1) subtrees to tasks
// that any number of threads share: 8, so 2 threads balance uneven halves. Fixed, so the tree (and
// every statistic) is the same for every thread count.
#define BS_BVH_TASK_DEPTH 4
#define BS_BVH_MAX_TASKS (1u << (BS_BVH_TASK_DEPTH - 1))

typedef struct bsBuildJob
{
	const bsBvhBuilder* top;
	bsBuildTask* tasks;
	const uint32_t* order;  // tasks by size, largest first (handed out in this order)
} bsBuildJob;

static void bsBuildJob_Run(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	const bsBuildJob* job = context;
	for (size_t i = begin; i < end; ++i)
	{
		bsBuildTask* task = job->tasks + job->order[i];
		bsBvhBuilder* b = &task->result;
		*b = *job->top;
		b->nodeCount = task->regionStart;
		b->taskDepth = 0;
		b->tasks = NULL;
		b->taskCount = 0;
		b->leaves = 0;
		b->depth = 0;
		b->maxLeafTriangles = 0;
		b->sah = 0.0;
		bsBvhBuilder_Subdivide(b, task->node, task->depth, &task->cbox);
	}
}

// Builds the binary tree into b->nodes (the root, node 0, with its range and box set): the
// top levels here, the subtrees below on `threads` threads, each in its own region of the node
// array, then the regions moved down to follow each other in task order. Every statistic is summed
// in task order, so nothing depends on the thread count.
static void bsBvhBuilder_Build(bsBvhBuilder* b, const bsBox* cbox, int threads)
{
	bsBuildTask tasks[BS_BVH_MAX_TASKS];
	b->tasks = tasks;
	b->taskCount = 0;
	b->taskDepth = BS_BVH_TASK_DEPTH;
	bsBvhBuilder_Subdivide(b, 0, 1, cbox);

	// Regions: a subtree of n triangles has at most 2 n - 2 nodes below its root.
	uint32_t order[BS_BVH_MAX_TASKS];
	uint32_t next = b->nodeCount;
	for (uint32_t t = 0; t < b->taskCount; ++t)
	{
		tasks[t].regionStart = next;
		next += 2 * b->nodes[tasks[t].node].count - 2;
		uint32_t j = t;
		while (j > 0 && b->nodes[tasks[order[j - 1]].node].count < b->nodes[tasks[t].node].count)
		{
			order[j] = order[j - 1];
			--j;
		}
		order[j] = t;
	}
	bsBuildJob job = {b, tasks, order};
	bsParallelFor(threads, b->taskCount, 1, bsBuildJob_Run, &job);

	// Moves each region down to the end of the last and shifts its child indices (and its root's).
	for (uint32_t t = 0; t < b->taskCount; ++t)
	{
		const bsBvhBuilder* r = &tasks[t].result;
		uint32_t used = r->nodeCount - tasks[t].regionStart;
		uint32_t shift = tasks[t].regionStart - b->nodeCount;
		if (shift > 0)
		{
			memmove(b->nodes + b->nodeCount, b->nodes + tasks[t].regionStart, used * sizeof(bsBvhNode));
			for (uint32_t i = b->nodeCount; i < b->nodeCount + used; ++i)
			{
				b->nodes[i].leftFirst -= b->nodes[i].count == 0 ? shift : 0;
			}
			bsBvhNode* root = b->nodes + tasks[t].node;
			root->leftFirst -= root->count == 0 ? shift : 0;
		}
		b->nodeCount += used;
		b->leaves += r->leaves;
		b->depth = r->depth > b->depth ? r->depth : b->depth;
		b->maxLeafTriangles = r->maxLeafTriangles > b->maxLeafTriangles ? r->maxLeafTriangles
			: b->maxLeafTriangles;
		b->sah += r->sah;
	}
	b->tasks = NULL;
	b->taskCount = 0;
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
			double area = c->count == 0 ? bsBvhNode_HalfArea(c) : -1.0;
			if (area > openArea)
			{
				open = (int)i;
				openArea = area;
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

// The build's per-triangle passes, cut into fixed chunks over the build's threads.
#define BS_BVH_BUILD_GRAIN 8192

typedef struct bsBuildInput
{
	const bsTriangle* tris;
	bsBuildPrim* prims;
	uint32_t* index;
	bsTriangle* ordered;
} bsBuildInput;

// The float bounds of triangles [begin, end).
static void bsBuildInput_Prims(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	const bsBuildInput* in = context;
	for (size_t i = begin; i < end; ++i)
	{
		// Finite (checked before), so compares rather than libm's fmin/fmax calls.
		const bsTriangle* t = in->tris + i;
		bsVec3 lo = bsMinFinite(t->p1, bsMinFinite(t->p2, t->p3));
		bsVec3 hi = bsMaxFinite(t->p1, bsMaxFinite(t->p2, t->p3));
		bsBuildPrim* p = in->prims + i;
		p->min[0] = bsFloatDown(lo.x);
		p->min[1] = bsFloatDown(lo.y);
		p->min[2] = bsFloatDown(lo.z);
		p->min[3] = 0.0f;
		p->max[0] = bsFloatUp(hi.x);
		p->max[1] = bsFloatUp(hi.y);
		p->max[2] = bsFloatUp(hi.z);
		p->max[3] = 0.0f;
		in->index[i] = (uint32_t)i;
	}
}

// The triangles in leaf order, [begin, end) of them.
static void bsBuildInput_Order(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	const bsBuildInput* in = context;
	for (size_t i = begin; i < end; ++i)
	{
		in->ordered[i] = in->tris[in->index[i]];
	}
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

	int threads = bsResolveThreads(o.threads, n);
	bsBuildInput input = {tris, prims, index, ordered};
	bsParallelFor(threads, n, BS_BVH_BUILD_GRAIN, bsBuildInput_Prims, &input);

	bsBox emptyBins[BS_BVH_MAX_BINS];
	for (int i = 0; i < BS_BVH_MAX_BINS; ++i)
	{
		bsBox_SetEmpty(&emptyBins[i]);
	}
	bsBvhBuilder b;
	memset(&b, 0, sizeof b);
	b.emptyBins = emptyBins;
	b.nodes = nodes;
	b.nodeCount = 1;
	b.prims = prims;
	b.index = index;
	b.bins = o.bins;
	b.maxLeafSize = (uint32_t)o.maxLeafSize;
	b.traversalCost = o.traversalCost;

	bsBox box, cbox;
	nodes[0].leftFirst = 0;
	nodes[0].count = count;
	bsBvhBuilder_Bounds(&b, 0, count, &box, &cbox);
	bsBvhNode_SetBox(nodes, &box);
	bsBvhBuilder_Build(&b, &cbox, threads);
	free(prims);
	bsParallelFor(threads, n, BS_BVH_BUILD_GRAIN, bsBuildInput_Order, &input);

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
static bsBvhRay bsMakeBvhRay(const bsBvh* bvh, bsVec3 c1, bsVec3 motion, double radius, double reach)
{
	bsBvhRay ray;
	double o[3] = {c1.x, c1.y, c1.z};
	double d[3] = {motion.x, motion.y, motion.z};
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
static BS_COLD_PATH bool bsBvh_RayRange(const bsBvh* bvh, bsRayFrame* frame, uint32_t first,
	uint32_t count, bsBvhBest* best)
{
	bool changed = false;
	for (uint32_t k = first; k < first + count; ++k)
	{
		uint32_t index = bvh->triIndex[k];
		bsTriangleHit h;
		if (bsRay_Triangle(bvh->tris + k, frame, bsBvhBest_Bound(best, index), &h))
		{
			changed |= bsBvhBest_Offer(best, &h, k, index);
		}
	}
	return changed;
}

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
			if (bsBvh_RayRange(bvh, frame, child, count, best))
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

// Beyond this magnitude the float slab test cannot be trusted: such queries scan every triangle.
#define BS_BVH_FLOAT_LIMIT 1e30

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
	double reach = bsMaxAbsFinite(frame->c1);
	double reach2 = bsMaxAbsFinite(frame->c2);
	reach = reach > reach2 ? reach : reach2;
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
	bsBvh_RayRange(bvh, frame, 0, bvh->triCount, best);
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
	if (out == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(out, 0, sizeof *out);
	out->t = 1.0;
	out->triangle = BS_NO_TRIANGLE;
	if (bvh == NULL || input == NULL)
	{
		return bs_errInvalidArgument;
	}
	// What bsMakeSweep rejects for the ray method: a coordinate that is not finite, or a squared
	// length beyond the double range.
	if (!bsIsValidVec3(input->c1) || !bsIsValidVec3(input->c2))
	{
		return bs_errNonFinite;
	}
	bsRayFrame frame;
	bsMakeRayFrame(&frame, input->c1, input->c2);
	if (!isfinite(bsLengthSquared(frame.d)))
	{
		return bs_errNonFinite;
	}
	bsBvhBest best;
	uint64_t visited = 0, tested = 0;
	bsBvh_RayBest(bvh, &frame, &best, &visited, &tested);
	if (best.found)
	{
		const bsTriangle* tri = bvh->tris + best.k;
		out->t = best.hit.t;
		// bsSweep_Finish's facing normal for a centre on the plane.
		out->normal = bsDot(tri->n, frame.d) > 0.0 ? bsNeg(tri->n) : tri->n;
		out->triangle = best.index;
		out->hit = 1;
	}
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
			bsBvhRay ray = bsMakeBvhRay(bvh, sweep.c1, sweep.d, radius, reach);
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
