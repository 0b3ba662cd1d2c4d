// bvh_build.c — bsBvh_Build: the binned-SAH binary tree (top levels serially, the subtrees below on
// the build's threads, the same tree for any thread count) and the 4-wide tree collapsed from it;
// bsBvh_Destroy and bsBvh_Bytes. The queries that walk it are in bvh.c.

#include "boxf.h"
#include "bvh_collapse.h"
#include "bvh_internal.h"
#include "bvh_split.h"

#include "blobsim/base.h"
#include "blobsim/bvh.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
	struct bsTopLevels* top;  // the top builder's chunked passes and buffers (NULL in a task)
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

// One side of a split of the binning: bin <= `bin` on `axis` (bsBinning_Index's bin), for the
// partitions. With SSE2 the bin is not converted: the clamped f = min((c - origin) scale, bins - 1)
// is >= 0 (c >= origin: both are the same centroids' floats), so trunc(f) <= bin exactly when
// f < bin + 1, one compare of the axis's lane.
typedef struct bsBinningSide
{
	const bsBinning* binning;
	int axis;
	int bin;
#if defined(__SSE2__)
	bsF4 limit;  // bin + 1
#endif
} bsBinningSide;

static inline bsBinningSide bsBinningSide_Set(const bsBinning* g, int axis, int bin)
{
	bsBinningSide s;
	s.binning = g;
	s.axis = axis;
	s.bin = bin;
#if defined(__SSE2__)
	s.limit = bsF4_Set1((float)(bin + 1));
#endif
	return s;
}

static inline bool bsBinningSide_Left(const bsBinningSide* s, bsF4 c)
{
#if defined(__SSE2__)
	const bsBinning* g = s->binning;
	bsF4 f = _mm_min_ps(bsF4_SubMul(c, g->origin, g->scale), g->last);
	return (_mm_movemask_ps(_mm_cmplt_ps(f, s->limit)) >> s->axis) & 1;
#else
	int32_t bin[4];
	bsBinning_Index(s->binning, c, bin);
	return bin[s->axis] <= s->bin;
#endif
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

// The non-empty bins of one axis, in ascending bin order: their boxes, counts and bin numbers.
// Both ways of finding a split (all bins, or a small node's few triangles) reduce to this, and the
// same sweep then makes the decision from it.
typedef struct bsUsedBins
{
	const bsBox* box[BS_BVH_MAX_BINS];  // in the bins or the small node's merged boxes
	uint32_t count[BS_BVH_MAX_BINS];
	int bin[BS_BVH_MAX_BINS];
	int n;
} bsUsedBins;

// The cost of the best split of one axis's used bins (and the split: bins [0, s] on the left), if
// any leaves both sides non-empty. Only splits right after a non-empty bin are evaluated: a split
// after an empty bin makes the same two sides as the one after the last non-empty bin before it, at
// the same cost, and the first of equal costs is kept.
static bool bsUsedBins_BestSplit(const bsUsedBins* used, double invArea, double traversalCost,
	double* outCost, int* outBin)
{
	int n = used->n;
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
		bsBox_Merge(&acc, used->box[j]);
		total += used->count[j];
		rightArea[j - 1] = bsBox_HalfArea(&acc);
		rightCount[j - 1] = total;
	}
	bool found = false;
	double best = (double)INFINITY;
	bsBox_SetEmpty(&acc);
	total = 0;
	for (int j = 0; j + 1 < n; ++j)
	{
		bsBox_Merge(&acc, used->box[j]);
		total += used->count[j];
		double cost = traversalCost + invArea * (bsBox_HalfArea(&acc) * (double)total +
			rightArea[j] * (double)rightCount[j]);
		if (cost < best || !found)
		{
			found = true;
			best = cost;
			*outBin = used->bin[j];
		}
	}
	*outCost = best;
	return found;
}

// The non-empty bins of one axis of a node's bins.
static void bsBins_Used(const bsBins* bins, int axis, int nb, bsUsedBins* used)
{
	int n = 0;
	for (int i = 0; i < nb; ++i)
	{
		if (bins->count[axis][i] > 0)
		{
			used->box[n] = &bins->box[axis][i];
			used->count[n] = bins->count[axis][i];
			used->bin[n] = i;
			++n;
		}
	}
	used->n = n;
}

// The choice among the axes: the lowest cost, the first axis of equal costs.
typedef struct bsSplitChoice
{
	bool found;
	int axis;
	int bin;
	double cost;
} bsSplitChoice;

static void bsSplitChoice_Offer(bsSplitChoice* choice, const bsUsedBins* used, int axis,
	double invArea, double traversalCost)
{
	double cost;
	int bin;
	if (bsUsedBins_BestSplit(used, invArea, traversalCost, &cost, &bin) &&
		(cost < choice->cost || !choice->found))
	{
		choice->found = true;
		choice->cost = cost;
		choice->axis = axis;
		choice->bin = bin;
	}
}

static double bsInvArea(double nodeArea)
{
	return nodeArea > 0.0 && isfinite(nodeArea) ? 1.0 / nodeArea : 1.0;
}

// The builder's template of empty bins (BS_BVH_MAX_BINS of them).
static void bsBins_SetEmptyTemplate(bsBox* emptyBins)
{
	for (int i = 0; i < BS_BVH_MAX_BINS; ++i)
	{
		bsBox_SetEmpty(&emptyBins[i]);
	}
}

// Empties the first nb bins of every axis. They are copied from the builder's template: most nodes
// are small, and setting up the bins one by one cost as much as binning their triangles.
static void bsBins_Clear(bsBins* bins, const bsBvhBuilder* b)
{
	for (int a = 0; a < 3; ++a)
	{
		memcpy(bins->box[a], b->emptyBins, (size_t)b->bins * sizeof(bsBox));
		memset(bins->count[a], 0, (size_t)b->bins * sizeof(uint32_t));
	}
}

// Bins prims[first, first + count) on all three axes in one pass. A flat axis (scale 0) is binned
// too, without a branch, and never split.
static void bsBins_Add(bsBins* bins, const bsBinning* binning, const bsBuildPrim* prims,
	uint32_t first, uint32_t count)
{
	for (uint32_t k = first; k < first + count; ++k)
	{
		bsF4 min = bsF4_Load(prims[k].min);
		bsF4 max = bsF4_Load(prims[k].max);
		int32_t bin[4];
		bsBinning_Index(binning, bsBuildPrim_Centroid(min, max), bin);
		for (int a = 0; a < 3; ++a)
		{
			bsBox_Grow(&bins->box[a][bin[a]], min, max);
			bins->count[a][bin[a]] += 1;
		}
	}
}

// The lowest-cost split of a node's bins over the axes that are not flat. Cost is
// traversalCost + (area(L) n(L) + area(R) n(R)) / area(node), comparable with the leaf's cost n.
// Returns false when no split leaves both sides non-empty (all centroids equal).
static bool bsBins_Choose(const bsBins* bins, const bsBinning* binning, double nodeArea,
	double traversalCost, int* outAxis, int* outBin, double* outCost)
{
	_Alignas(16) float scale[4];
	bsF4_Store(scale, binning->scale);
	bsSplitChoice choice = {false, 0, 0, (double)INFINITY};
	double invArea = bsInvArea(nodeArea);
	for (int a = 0; a < 3; ++a)
	{
		if (scale[a] != 0.0f)
		{
			bsUsedBins used;
			bsBins_Used(bins, a, binning->bins, &used);
			bsSplitChoice_Offer(&choice, &used, a, invArea, traversalCost);
		}
	}
	if (choice.found)
	{
		*outAxis = choice.axis;
		*outBin = choice.bin;
	}
	*outCost = choice.cost;
	return choice.found;
}

// bsBins_Choose for a node of at most BS_BVH_SMALL_NODE triangles, from its triangles directly
// rather than from all the bins: each triangle's bin is found as in bsBins_Add, then per axis the
// triangles are put in ascending bin order (insertion sort, so stable) and those of one bin merged,
// which gives exactly bsBins_Used's list (min and max are exact, so the merge order does not matter);
// the same sweep and axis choice then make the same decision. Most nodes that look for a split hold
// 2-4 triangles: clearing and sweeping every bin of three axes cost more than binning them (up to 4
// measured fastest; 16 was slower than no fast path).
#define BS_BVH_SMALL_NODE 4

static bool bsSmallNode_Choose(const bsBuildPrim* prims, uint32_t first, uint32_t count,
	const bsBinning* binning, double nodeArea, double traversalCost, int* outAxis, int* outBin,
	double* outCost)
{
	_Alignas(16) float scale[4];
	bsF4_Store(scale, binning->scale);
	bsBox box[BS_BVH_SMALL_NODE];
	int32_t bin[BS_BVH_SMALL_NODE][4];
	for (uint32_t k = 0; k < count; ++k)
	{
		box[k].min = bsF4_Load(prims[first + k].min);
		box[k].max = bsF4_Load(prims[first + k].max);
		bsBinning_Index(binning, bsBuildPrim_Centroid(box[k].min, box[k].max), bin[k]);
	}
	bsSplitChoice choice = {false, 0, 0, (double)INFINITY};
	double invArea = bsInvArea(nodeArea);
	for (int a = 0; a < 3; ++a)
	{
		if (scale[a] == 0.0f)
		{
			continue;
		}
		uint32_t order[BS_BVH_SMALL_NODE];
		for (uint32_t k = 0; k < count; ++k)
		{
			uint32_t j = k;
			while (j > 0 && bin[order[j - 1]][a] > bin[k][a])
			{
				order[j] = order[j - 1];
				--j;
			}
			order[j] = k;
		}
		bsUsedBins used;
		bsBox merged[BS_BVH_SMALL_NODE];
		int n = -1;
		for (uint32_t k = 0; k < count; ++k)
		{
			const bsBox* b = &box[order[k]];
			int32_t i = bin[order[k]][a];
			if (n < 0 || used.bin[n] != i)
			{
				++n;
				used.bin[n] = i;
				merged[n] = *b;
				used.box[n] = &merged[n];
				used.count[n] = 1;
			}
			else
			{
				bsBox_Merge(&merged[n], b);
				used.count[n] += 1;
			}
		}
		used.n = n + 1;
		bsSplitChoice_Offer(&choice, &used, a, invArea, traversalCost);
	}
	if (choice.found)
	{
		*outAxis = choice.axis;
		*outBin = choice.bin;
	}
	*outCost = choice.cost;
	return choice.found;
}

// Finds the binned-SAH split of prims[first, first + count) with the lowest cost (bsBins_Choose),
// a small node's from its triangles directly (the same decision) unless `general`.
static bool bsBvhBuilder_FindSplitWith(const bsBvhBuilder* b, uint32_t first, uint32_t count,
	double nodeArea, const bsBox* cbox, bool general, bsBinning* binning, int* outAxis, int* outBin,
	double* outCost)
{
	if (!bsBinning_Set(binning, cbox, b->bins))
	{
		return false;
	}
	if (!general && count <= BS_BVH_SMALL_NODE)
	{
		return bsSmallNode_Choose(b->prims, first, count, binning, nodeArea, b->traversalCost,
			outAxis, outBin, outCost);
	}
	bsBins bins;
	bsBins_Clear(&bins, b);
	bsBins_Add(&bins, binning, b->prims, first, count);
	return bsBins_Choose(&bins, binning, nodeArea, b->traversalCost, outAxis, outBin, outCost);
}

static bool bsBvhBuilder_FindSplit(const bsBvhBuilder* b, uint32_t first, uint32_t count,
	double nodeArea, const bsBox* cbox, bsBinning* binning, int* outAxis, int* outBin,
	double* outCost)
{
	return bsBvhBuilder_FindSplitWith(b, first, count, nodeArea, cbox, false, binning, outAxis,
		outBin, outCost);
}

// Partitions prims[first, first + count) in place: bin <= `bin` on `axis` to the left (the bin
// function of the binning, so both sides are non-empty). The children's boxes are grown on the way
// (each prim read once), in registers: grown through box[side] in memory, every triangle waited for
// the store of the one before. Returns the first index of the right side.
static uint32_t bsBvhBuilder_Partition(bsBvhBuilder* b, uint32_t first, uint32_t count,
	const bsBinning* binning, int axis, int bin, bsBox box[2], bsBox cbox[2])
{
	bsBox lbox, lcbox, rbox, rcbox;
	bsBox_SetEmpty(&lbox);
	bsBox_SetEmpty(&lcbox);
	bsBox_SetEmpty(&rbox);
	bsBox_SetEmpty(&rcbox);
	bsBinningSide side = bsBinningSide_Set(binning, axis, bin);
	bsBuildPrim* prims = b->prims;
	uint32_t* index = b->index;
	uint32_t i = first, j = first + count;
	while (i < j)
	{
		bsF4 min = bsF4_Load(prims[i].min);
		bsF4 max = bsF4_Load(prims[i].max);
		bsF4 c = bsBuildPrim_Centroid(min, max);
		if (bsBinningSide_Left(&side, c))
		{
			bsBox_Grow(&lbox, min, max);
			bsBox_Grow(&lcbox, c, c);
			++i;
		}
		else
		{
			bsBox_Grow(&rbox, min, max);
			bsBox_Grow(&rcbox, c, c);
			--j;
			bsF4_Store(prims[i].min, bsF4_Load(prims[j].min));
			bsF4_Store(prims[i].max, bsF4_Load(prims[j].max));
			bsF4_Store(prims[j].min, min);
			bsF4_Store(prims[j].max, max);
			uint32_t ti = index[i];
			index[i] = index[j];
			index[j] = ti;
		}
	}
	box[0] = lbox;
	cbox[0] = lcbox;
	box[1] = rbox;
	cbox[1] = rcbox;
	return i;
}

// --- The top levels, chunked ---

// The top builder stops at this depth (the root at 1), leaving up to 2^(depth - 1) subtrees to tasks
// that any number of threads share: 8, so 2 threads balance uneven halves. Fixed, so the tree (and
// every statistic) is the same for every thread count.
#define BS_BVH_TASK_DEPTH 4
#define BS_BVH_MAX_TASKS (1u << (BS_BVH_TASK_DEPTH - 1))

// The top levels (above the tasks) are split with every thread: a node's triangles are cut into
// fixed chunks of BS_BVH_BUILD_GRAIN, each chunk binned on its own and its bins merged in chunk order
// (min, max and counts are exact, and of equal values the later wins in both a chunk and the merge,
// so the bins are those of one pass), then each chunk writes its two sides into its own slices of
// the other buffer, found from its bins' counts: a stable partition, the same for any thread count.
// A node at depth d has its triangles in buffer (d - 1) % 2; the tasks (and every leaf) use the
// buffer of the task depth.
#define BS_BVH_BUILD_GRAIN 4096

typedef struct bsTopChunk
{
	bsBins bins;
	uint32_t left;   // where its left side goes
	uint32_t right;  // where its right side goes
	bsBox box[2];    // its sides' bounds (box[0] also the chunk's bounds in the first pass)
	bsBox cbox[2];   // and centroid bounds
} bsTopChunk;

typedef struct bsTopLevels
{
	bsPool* pool;  // NULL: the caller's thread alone
	bsBuildPrim* prims[2];
	uint32_t* index[2];
	bsTopChunk* chunks;  // enough for all triangles
	// The pass running (one at a time):
	const bsBvhBuilder* b;
	uint32_t first;
	uint32_t count;
	int src;
	const bsBinning* binning;
	int axis;
	int bin;
} bsTopLevels;

#define BS_BVH_FINAL_BUFFER ((BS_BVH_TASK_DEPTH - 1) % 2)

static void bsBuildFor(bsPool* pool, size_t count, size_t grain, bsRangeFn* fn, void* context)
{
	if (pool != NULL)
	{
		bsPool_For(pool, count, grain, fn, context);
	}
	else
	{
		bsParallelFor(1, count, grain, fn, context);
	}
}

static uint32_t bsTopLevels_ChunkCount(uint32_t count)
{
	return count / BS_BVH_BUILD_GRAIN + (count % BS_BVH_BUILD_GRAIN != 0);
}

// Chunk c of the pass's node: its first triangle and count.
static uint32_t bsTopLevels_Chunk(const bsTopLevels* t, size_t c, uint32_t* count)
{
	uint32_t begin = (uint32_t)c * BS_BVH_BUILD_GRAIN;
	*count = t->count - begin < BS_BVH_BUILD_GRAIN ? t->count - begin : BS_BVH_BUILD_GRAIN;
	return t->first + begin;
}

static void bsTopLevels_Bin(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsTopLevels* t = context;
	for (size_t c = begin; c < end; ++c)
	{
		uint32_t count;
		uint32_t first = bsTopLevels_Chunk(t, c, &count);
		bsBins_Clear(&t->chunks[c].bins, t->b);
		bsBins_Add(&t->chunks[c].bins, t->binning, t->prims[t->src], first, count);
	}
}

// bsBvhBuilder_FindSplit over the chunks of the node's triangles in buffer `src`.
static bool bsTopLevels_FindSplit(bsTopLevels* t, const bsBvhBuilder* b, int src, uint32_t first,
	uint32_t count, double nodeArea, const bsBox* cbox, bsBinning* binning, int* outAxis,
	int* outBin, double* outCost)
{
	if (!bsBinning_Set(binning, cbox, b->bins))
	{
		return false;
	}
	t->b = b;
	t->first = first;
	t->count = count;
	t->src = src;
	t->binning = binning;
	uint32_t chunks = bsTopLevels_ChunkCount(count);
	bsBuildFor(t->pool, chunks, 1, bsTopLevels_Bin, t);
	bsBins bins = t->chunks[0].bins;
	for (uint32_t c = 1; c < chunks; ++c)
	{
		for (int a = 0; a < 3; ++a)
		{
			for (int i = 0; i < b->bins; ++i)
			{
				bsBox_Merge(&bins.box[a][i], &t->chunks[c].bins.box[a][i]);
				bins.count[a][i] += t->chunks[c].bins.count[a][i];
			}
		}
	}
	return bsBins_Choose(&bins, binning, nodeArea, b->traversalCost, outAxis, outBin, outCost);
}

static void bsTopLevels_Scatter(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	const bsTopLevels* t = context;
	const bsBuildPrim* prims = t->prims[t->src];
	const uint32_t* index = t->index[t->src];
	bsBuildPrim* outPrims = t->prims[1 - t->src];
	uint32_t* outIndex = t->index[1 - t->src];
	bsBinningSide side = bsBinningSide_Set(t->binning, t->axis, t->bin);
	for (size_t c = begin; c < end; ++c)
	{
		bsTopChunk* chunk = t->chunks + c;
		uint32_t count;
		uint32_t first = bsTopLevels_Chunk(t, c, &count);
		uint32_t left = chunk->left, right = chunk->right;
		bsBox lbox, lcbox, rbox, rcbox;
		bsBox_SetEmpty(&lbox);
		bsBox_SetEmpty(&lcbox);
		bsBox_SetEmpty(&rbox);
		bsBox_SetEmpty(&rcbox);
		for (uint32_t k = first; k < first + count; ++k)
		{
			bsF4 min = bsF4_Load(prims[k].min);
			bsF4 max = bsF4_Load(prims[k].max);
			bsF4 c4 = bsBuildPrim_Centroid(min, max);
			uint32_t to;
			if (bsBinningSide_Left(&side, c4))
			{
				bsBox_Grow(&lbox, min, max);
				bsBox_Grow(&lcbox, c4, c4);
				to = left++;
			}
			else
			{
				bsBox_Grow(&rbox, min, max);
				bsBox_Grow(&rcbox, c4, c4);
				to = right++;
			}
			bsF4_Store(outPrims[to].min, min);
			bsF4_Store(outPrims[to].max, max);
			outIndex[to] = index[k];
		}
		chunk->box[0] = lbox;
		chunk->cbox[0] = lcbox;
		chunk->box[1] = rbox;
		chunk->cbox[1] = rcbox;
	}
}

// bsBvhBuilder_Partition from buffer `src` into the other, stable, after bsTopLevels_FindSplit
// binned the same chunks: each chunk's left count is its bins' count up to `bin` on `axis`.
static uint32_t bsTopLevels_Partition(bsTopLevels* t, int axis, int bin, bsBox box[2],
	bsBox cbox[2])
{
	uint32_t chunks = bsTopLevels_ChunkCount(t->count);
	uint32_t left = t->first;
	for (uint32_t c = 0; c < chunks; ++c)
	{
		t->chunks[c].left = left;
		for (int i = 0; i <= bin; ++i)
		{
			left += t->chunks[c].bins.count[axis][i];
		}
	}
	uint32_t right = left;
	for (uint32_t c = 0; c < chunks; ++c)
	{
		uint32_t count;
		bsTopLevels_Chunk(t, c, &count);
		uint32_t chunkLeft = (c + 1 < chunks ? t->chunks[c + 1].left : left) - t->chunks[c].left;
		t->chunks[c].right = right;
		right += count - chunkLeft;
	}
	t->axis = axis;
	t->bin = bin;
	bsBuildFor(t->pool, chunks, 1, bsTopLevels_Scatter, t);
	for (int s = 0; s < 2; ++s)
	{
		box[s] = t->chunks[0].box[s];
		cbox[s] = t->chunks[0].cbox[s];
		for (uint32_t c = 1; c < chunks; ++c)
		{
			bsBox_Merge(&box[s], &t->chunks[c].box[s]);
			bsBox_Merge(&cbox[s], &t->chunks[c].cbox[s]);
		}
	}
	return left;
}

// Copies triangles [first, first + count) from buffer `from` to the other (a node of the top levels
// that is not partitioned: a leaf, or a range halved).
static void bsTopLevels_Move(bsTopLevels* t, int from, uint32_t first, uint32_t count)
{
	memcpy(t->prims[1 - from] + first, t->prims[from] + first, count * sizeof(bsBuildPrim));
	memcpy(t->index[1 - from] + first, t->index[from] + first, count * sizeof(uint32_t));
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
	bsTopLevels* top = b->top;
	int where = (int)((depth - 1) % 2);  // the top levels' buffer holding the node's triangles
	// A node at the maximum depth is a leaf whatever its size: the query's stack depends on it.
	if (count > 1 && depth < BS_BVH_MAX_DEPTH)
	{
		bsBinning binning;
		int axis = 0, bin = 0;
		double cost = (double)INFINITY;
		bool found = top != NULL
			? bsTopLevels_FindSplit(top, b, where, first, count, area, cbox, &binning, &axis, &bin, &cost)
			: bsBvhBuilder_FindSplit(b, first, count, area, cbox, &binning, &axis, &bin, &cost);
		if (found && (count > b->maxLeafSize || cost < (double)count))
		{
			if (top != NULL)
			{
				mid = bsTopLevels_Partition(top, axis, bin, box, childCbox);
				where = 1 - where;
			}
			else
			{
				mid = bsBvhBuilder_Partition(b, first, count, &binning, axis, bin, box, childCbox);
			}
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
	if (top != NULL)
	{
		// The triangles go where the children read them, or a leaf's where the tasks' are.
		int to = split ? (int)(depth % 2) : BS_BVH_FINAL_BUFFER;
		if (where != to)
		{
			bsTopLevels_Move(top, where, first, count);
		}
		b->prims = top->prims[to];
		b->index = top->index[to];
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


typedef struct bsBuildJob
{
	const bsBvhBuilder* top;
	bsBuildTask* tasks;
	const uint32_t* order;  // tasks by size, largest first (handed out in this order)
	bsBvhNode* scratch;     // the tasks' regions
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
		b->top = NULL;
		b->nodes = job->scratch;
		b->nodes[task->regionStart] = job->top->nodes[task->node];
		b->nodeCount = task->regionStart + 1;
		b->taskDepth = 0;
		b->tasks = NULL;
		b->taskCount = 0;
		b->leaves = 0;
		b->depth = 0;
		b->maxLeafTriangles = 0;
		b->sah = 0.0;
		bsBvhBuilder_Subdivide(b, task->regionStart, task->depth, &task->cbox);
	}
}

// Copies region `from` (count nodes) of the scratch to `to` in the tree, child indices shifted.
static void bsBvhNode_CopyShifted(bsBvhNode* to, const bsBvhNode* from, uint32_t count,
	uint32_t fromIndex, uint32_t toIndex)
{
	for (uint32_t i = 0; i < count; ++i)
	{
		to[i] = from[i];
		if (from[i].count == 0)
		{
			to[i].leftFirst = from[i].leftFirst - fromIndex + toIndex;
		}
	}
}

typedef struct bsPlaceJob
{
	bsBvhNode* nodes;
	const bsBvhNode* scratch;
	const bsBuildTask* tasks;
	const uint32_t* place;  // where each task's nodes below its root go in the tree
} bsPlaceJob;

// Puts task regions [begin, end) into the tree: the root into its node, the nodes below after
// those of the tasks before it.
static void bsPlaceJob_Run(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	const bsPlaceJob* job = context;
	for (size_t t = begin; t < end; ++t)
	{
		const bsBuildTask* task = job->tasks + t;
		uint32_t below = task->regionStart + 1;
		bsBvhNode_CopyShifted(job->nodes + task->node, job->scratch + task->regionStart, 1, below,
			job->place[t]);
		bsBvhNode_CopyShifted(job->nodes + job->place[t], job->scratch + below,
			task->result.nodeCount - below, below, job->place[t]);
	}
}

// Builds the binary tree into b->nodes (the root, node 0, with its range and box set): the top
// levels here (their passes chunked over b->top's threads), then the subtrees below as tasks on the
// same threads, each in its own region of `scratch` (which holds 2 n nodes for n triangles), then
// copied into the tree after the top levels' nodes, in task order. Every statistic is summed in
// task order, so nothing depends on the thread count.
static void bsBvhBuilder_Build(bsBvhBuilder* b, const bsBox* cbox, bsBvhNode* scratch)
{
	bsBuildTask tasks[BS_BVH_MAX_TASKS];
	b->tasks = tasks;
	b->taskCount = 0;
	b->taskDepth = BS_BVH_TASK_DEPTH;
	bsBvhBuilder_Subdivide(b, 0, 1, cbox);
	bsTopLevels* top = b->top;
	b->top = NULL;
	b->prims = top->prims[BS_BVH_FINAL_BUFFER];
	b->index = top->index[BS_BVH_FINAL_BUFFER];

	// Regions: a subtree of n triangles has its root and at most 2 n - 2 nodes below it.
	uint32_t order[BS_BVH_MAX_TASKS];
	uint32_t next = 0;
	for (uint32_t t = 0; t < b->taskCount; ++t)
	{
		tasks[t].regionStart = next;
		next += 2 * b->nodes[tasks[t].node].count - 1;
		uint32_t j = t;
		while (j > 0 && b->nodes[tasks[order[j - 1]].node].count < b->nodes[tasks[t].node].count)
		{
			order[j] = order[j - 1];
			--j;
		}
		order[j] = t;
	}
	bsBuildJob job = {b, tasks, order, scratch};
	bsBuildFor(top->pool, b->taskCount, 1, bsBuildJob_Run, &job);

	uint32_t place[BS_BVH_MAX_TASKS];
	for (uint32_t t = 0; t < b->taskCount; ++t)
	{
		const bsBvhBuilder* r = &tasks[t].result;
		place[t] = b->nodeCount;
		b->nodeCount += r->nodeCount - tasks[t].regionStart - 1;
		b->leaves += r->leaves;
		b->depth = r->depth > b->depth ? r->depth : b->depth;
		b->maxLeafTriangles = r->maxLeafTriangles > b->maxLeafTriangles ? r->maxLeafTriangles
			: b->maxLeafTriangles;
		b->sah += r->sah;
	}
	bsPlaceJob placeJob = {b->nodes, scratch, tasks, place};
	bsBuildFor(top->pool, b->taskCount, 1, bsPlaceJob_Run, &placeJob);
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

// Copies the boxes of binary nodes slot[0, n) into the wide node's slots, the rest unused (an
// inf box that every slab test misses), child and count zero.
static void bsBvhWideNode_SetSlots(bsBvhWideNode* node, const bsBvhNode* nodes, const uint32_t* slot,
	uint32_t n)
{
	memset(node, 0, sizeof *node);
	bsBvh_SlotBoxes(nodes, slot, n, 4, &node->min[0][0], &node->max[0][0]);
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
	uint32_t n = bsBvh_OpenSlots(w->nodes, root, 4, slot);

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

// Allocates bvh->wide for the collapse of bvh->nodes. Returns false when out of memory.
static bool bsBvh_AllocWide(bsBvh* bvh)
{
	// Every wide node but a leaf root consumes at least one interior binary node.
	uint32_t interior = bvh->nodeCount - bvh->stats.leaves;
	size_t capacity = interior > 0 ? interior : 1;
	bvh->wide = malloc(capacity * sizeof(bsBvhWideNode));
	return bvh->wide != NULL;
}

// Builds bvh->wide (allocated) from bvh->nodes.
static void bsBvh_BuildWide(bsBvh* bvh)
{
	bsBvhWideNode* wide = bvh->wide;
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
	bvh->wideCount = w.wideCount;
	bvh->stats.wideNodes = w.wideCount;
	bvh->stats.wideDepth = w.wideDepth;
}

static bool bsValidOptions(const bsBvhOptions* o)
{
	return o->bins >= 2 && o->bins <= BS_BVH_MAX_BINS && o->maxLeafSize >= 1 &&
		o->maxLeafSize <= BS_BVH_MAX_LEAF && isfinite(o->traversalCost) && o->traversalCost >= 0.0;
}

// The build's per-triangle passes, cut into the top levels' chunks over the build's threads.
typedef struct bsBuildInput
{
	const bsTriangle* tris;
	bsBuildPrim* prims;
	uint32_t* index;
	bsTriangle* ordered;
	bsTopChunk* chunks;  // the first pass's bounds, per chunk
	atomic_bool nonFinite;
	bsBvh* bvh;          // the last pass's
	size_t count;
} bsBuildInput;

// The float bounds of triangles [begin, end) (whole chunks), their chunk's bounds and centroid
// bounds, and whether a vertex is not finite.
static void bsBuildInput_Prims(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsBuildInput* in = context;
	bsTopChunk* chunk = in->chunks + begin / BS_BVH_BUILD_GRAIN;
	bsBox_SetEmpty(&chunk->box[0]);
	bsBox_SetEmpty(&chunk->cbox[0]);
	bool finite = true;
	for (size_t i = begin; i < end; ++i)
	{
		const bsTriangle* t = in->tris + i;
		finite = finite && bsIsValidVec3(t->p1) && bsIsValidVec3(t->p2) && bsIsValidVec3(t->p3);
		// Finite (or the build fails), so compares rather than libm's fmin/fmax calls.
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
		bsF4 min = bsF4_Load(p->min);
		bsF4 max = bsF4_Load(p->max);
		bsBox_Grow(&chunk->box[0], min, max);
		bsF4 c = bsBuildPrim_Centroid(min, max);
		bsBox_Grow(&chunk->cbox[0], c, c);
	}
	if (!finite)
	{
		atomic_store_explicit(&in->nonFinite, true, memory_order_relaxed);
	}
}

// The last pass, items [begin, end): item 0 the wide collapse (on one thread), item k > 0 the
// triangles of chunk k - 1 in leaf order (on the others meanwhile).
static void bsBuildInput_Finish(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	const bsBuildInput* in = context;
	for (size_t k = begin; k < end; ++k)
	{
		if (k == 0)
		{
			bsBvh_BuildWide(in->bvh);
			continue;
		}
		size_t first = (k - 1) * BS_BVH_BUILD_GRAIN;
		size_t last = first + BS_BVH_BUILD_GRAIN < in->count ? first + BS_BVH_BUILD_GRAIN : in->count;
		for (size_t i = first; i < last; ++i)
		{
			in->ordered[i] = in->tris[in->index[i]];
		}
	}
}

_Static_assert(sizeof(bsTriangle) >= 2 * sizeof(bsBvhNode), "the tasks' regions fit in the triangles");
_Static_assert(_Alignof(bsTriangle) >= _Alignof(bsBvhNode), "and are aligned there");

_Static_assert(sizeof(bsTriangle) >= sizeof(bsBuildPrim) + sizeof(uint32_t),
	"the top levels' first buffer fits in the triangles");
_Static_assert(BS_BVH_FINAL_BUFFER == 1, "the first buffer is dead when the tasks write their regions");

// The arrays of one build: both trees' nodes and the triangles (kept), the top levels' two buffers
// and chunks (freed when the tree is built). The first buffer (the first pass's output, read and
// written by the top levels only) lives in the leaf-order triangles' array, like the tasks' regions
// after it: that array is not written before the tasks, and the tasks read the other buffer. So a
// build holds 36 bytes a triangle less, and touches (faults in) that many fewer pages.
typedef struct bsBuildArrays
{
	bsBvhNode* nodes;
	bsTriangle* ordered;
	bsBuildPrim* prims[2];  // prims[0] and index[0] inside `ordered`
	uint32_t* index[2];
	bsTopChunk* chunks;
} bsBuildArrays;

static void bsBuildArrays_Free(bsBuildArrays* a)
{
	free(a->nodes);
	free(a->ordered);
	free(a->prims[1]);
	free(a->index[1]);
	free(a->chunks);
	memset(a, 0, sizeof *a);
}

static bool bsBuildArrays_Alloc(bsBuildArrays* a, size_t n)
{
	memset(a, 0, sizeof *a);
	size_t nodeCapacity = 2 * n - 1;
	if (n > SIZE_MAX / sizeof(bsTriangle) || nodeCapacity > SIZE_MAX / sizeof(bsBvhNode))
	{
		return false;
	}
	a->nodes = malloc(nodeCapacity * sizeof(bsBvhNode));
	a->ordered = malloc(n * sizeof(bsTriangle));
	a->prims[1] = malloc(n * sizeof(bsBuildPrim));
	a->index[1] = malloc(n * sizeof(uint32_t));
	a->chunks = malloc(bsTopLevels_ChunkCount((uint32_t)n) * sizeof(bsTopChunk));
	if (a->nodes == NULL || a->ordered == NULL || a->prims[1] == NULL || a->index[1] == NULL ||
		a->chunks == NULL)
	{
		bsBuildArrays_Free(a);
		return false;
	}
	// malloc's alignment, as the second buffer's.
	a->prims[0] = (bsBuildPrim*)(void*)a->ordered;
	a->index[0] = (uint32_t*)(void*)(a->prims[0] + n);
	return true;
}

// The open edges of the tree's triangles, found in leaf order: neighbours are near in memory there.
static bool bsBvh_LeafOpenEdges(bsBvh* bvh)
{
	bvh->openEdges = malloc(bvh->triCount);
	return bvh->openEdges != NULL && bsFindOpenEdges(bvh->tris, bvh->triCount, bvh->openEdges) == bs_ok;
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

	size_t n = count;
	bsBuildArrays arrays;
	if (!bsBuildArrays_Alloc(&arrays, n))
	{
		return bs_errOutOfMemory;
	}
	// One pool for every pass (threads started once), none for a build of one chunk (its threads
	// would cost more than they save); without a pool, the same chunks on this thread.
	int threads = bsResolveThreads(o.threads, bsTopLevels_ChunkCount(count));
	bsPool* pool = threads > 1 ? bsPool_Create(threads) : NULL;
	bsBuildInput input = {tris, arrays.prims[0], arrays.index[0], arrays.ordered, arrays.chunks, false,
		bvh, n};
	bsBuildFor(pool, n, BS_BVH_BUILD_GRAIN, bsBuildInput_Prims, &input);
	if (atomic_load(&input.nonFinite))
	{
		bsPool_Destroy(pool);
		bsBuildArrays_Free(&arrays);
		return bs_errNonFinite;
	}

	bsBox emptyBins[BS_BVH_MAX_BINS];
	bsBins_SetEmptyTemplate(emptyBins);
	bsTopLevels top;
	memset(&top, 0, sizeof top);
	top.pool = pool;
	top.chunks = arrays.chunks;
	for (int i = 0; i < 2; ++i)
	{
		top.prims[i] = arrays.prims[i];
		top.index[i] = arrays.index[i];
	}
	bsBvhBuilder b;
	memset(&b, 0, sizeof b);
	b.emptyBins = emptyBins;
	b.top = &top;
	b.nodes = arrays.nodes;
	b.nodeCount = 1;
	b.bins = o.bins;
	b.maxLeafSize = (uint32_t)o.maxLeafSize;
	b.traversalCost = o.traversalCost;

	// The root's bounds: the first pass's chunks merged in order.
	bsBvhNode* nodes = arrays.nodes;
	bsBox box = arrays.chunks[0].box[0], cbox = arrays.chunks[0].cbox[0];
	for (uint32_t c = 1; c < bsTopLevels_ChunkCount(count); ++c)
	{
		bsBox_Merge(&box, &arrays.chunks[c].box[0]);
		bsBox_Merge(&cbox, &arrays.chunks[c].cbox[0]);
	}
	nodes[0].leftFirst = 0;
	nodes[0].count = count;
	bsBvhNode_SetBox(nodes, &box);
	// The tasks' regions in the leaf-order triangles' array, not yet written (2.25 n nodes).
	bsBvhBuilder_Build(&b, &cbox, (bsBvhNode*)(void*)arrays.ordered);

	float extent = 0.0f;
	for (int a = 0; a < 3; ++a)
	{
		extent = fmaxf(extent, fmaxf(fabsf(nodes[0].min[a]), fabsf(nodes[0].max[a])));
	}
	bvh->nodes = nodes;
	bvh->nodeCount = b.nodeCount;
	bvh->tris = arrays.ordered;
	bvh->triIndex = arrays.index[BS_BVH_FINAL_BUFFER];
	bvh->triCount = count;
	arrays.nodes = NULL;
	arrays.ordered = NULL;
	arrays.index[BS_BVH_FINAL_BUFFER] = NULL;
	bsBuildArrays_Free(&arrays);
	// Covers the float rounding of the slab test's arithmetic on coordinates up to `extent`.
	bvh->pad = 1e-6f * extent;
	// From the caller's triangles: the tree's copies are made last (bsBuildInput_Finish).
	bvh->planeSlack = bsBvh_PlaneSlack(tris, count);
	double rootArea = bsHalfArea(nodes[0].min, nodes[0].max);
	bvh->stats.nodes = b.nodeCount;
	bvh->stats.leaves = b.leaves;
	bvh->stats.depth = b.depth;
	bvh->stats.maxLeafTriangles = b.maxLeafTriangles;
	bvh->stats.sahCost = rootArea > 0.0 && isfinite(rootArea) ? b.sah / rootArea : 0.0;
	if (!bsBvh_AllocWide(bvh))
	{
		bsPool_Destroy(pool);
		bsBvh_Destroy(bvh);
		return bs_errOutOfMemory;
	}
	input.index = bvh->triIndex;
	bsBuildFor(pool, 1 + (size_t)bsTopLevels_ChunkCount(count), 1, bsBuildInput_Finish, &input);
	bsPool_Destroy(pool);
	if (!bsBvh_LeafOpenEdges(bvh))
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
	free(bvh->openEdges);
	memset(bvh, 0, sizeof *bvh);
}

void bsBvh_OpenEdges(const bsBvh* bvh, uint8_t* open)
{
	for (uint32_t k = 0; bvh != NULL && k < bvh->triCount; ++k)
	{
		open[bvh->triIndex[k]] = bvh->openEdges[k];
	}
}

size_t bsBvh_Bytes(const bsBvh* bvh)
{
	if (bvh == NULL)
	{
		return 0;
	}
	return (size_t)bvh->nodeCount * sizeof(bsBvhNode) + (size_t)bvh->wideCount * sizeof(bsBvhWideNode) +
		(size_t)bvh->triCount * (sizeof(bsTriangle) + sizeof(uint32_t) + sizeof(uint8_t));
}

// A node of the tests' boxes (count <= BS_BVH_MAX_LEAF) as the build sees it: its prims, centroid box
// and the box's area through the node's floats.
typedef struct bsTestNode
{
	bsBuildPrim prims[BS_BVH_MAX_LEAF];
	bsBox emptyBins[BS_BVH_MAX_BINS];
	bsBvhBuilder b;
	bsBox cbox;
	double area;
} bsTestNode;

static void bsTestNode_Set(bsTestNode* t, const float (*min)[3], const float (*max)[3],
	uint32_t count, int bins)
{
	for (uint32_t i = 0; i < count; ++i)
	{
		for (int a = 0; a < 3; ++a)
		{
			t->prims[i].min[a] = min[i][a];
			t->prims[i].max[a] = max[i][a];
		}
		t->prims[i].min[3] = 0.0f;
		t->prims[i].max[3] = 0.0f;
	}
	bsBins_SetEmptyTemplate(t->emptyBins);
	memset(&t->b, 0, sizeof t->b);
	t->b.prims = t->prims;
	t->b.emptyBins = t->emptyBins;
	t->b.bins = bins;
	bsBox box;
	bsBvhBuilder_Bounds(&t->b, 0, count, &box, &t->cbox);
	bsBvhNode node;
	bsBvhNode_SetBox(&node, &box);
	t->area = bsHalfArea(node.min, node.max);
}

bsBvhSplitDecision bsBvh_SplitDecision(const float (*min)[3], const float (*max)[3], uint32_t count,
	int bins, double traversalCost, bool general)
{
	bsBvhSplitDecision d = {false, 0, 0, (double)INFINITY};
	if (count == 0 || count > BS_BVH_MAX_LEAF || bins < 2 || bins > BS_BVH_MAX_BINS)
	{
		return d;
	}
	bsTestNode t;
	bsTestNode_Set(&t, min, max, count, bins);
	t.b.traversalCost = traversalCost;
	bsBinning binning;
	d.found = bsBvhBuilder_FindSplitWith(&t.b, 0, count, t.area, &t.cbox, general, &binning,
		&d.axis, &d.bin, &d.cost);
	return d;
}

bool bsBvh_PartitionSides(const float (*min)[3], const float (*max)[3], uint32_t count, int bins,
	int axis, int split, int* bin, bool* left)
{
	if (count == 0 || count > BS_BVH_MAX_LEAF || bins < 2 || bins > BS_BVH_MAX_BINS || axis < 0 ||
		axis > 2)
	{
		return false;
	}
	bsTestNode t;
	bsTestNode_Set(&t, min, max, count, bins);
	bsBinning binning;
	if (!bsBinning_Set(&binning, &t.cbox, bins))
	{
		return false;
	}
	bsBinningSide side = bsBinningSide_Set(&binning, axis, split);
	for (uint32_t i = 0; i < count; ++i)
	{
		bsF4 c = bsBuildPrim_Centroid(bsF4_Load(t.prims[i].min), bsF4_Load(t.prims[i].max));
		int32_t bins4[4];
		bsBinning_Index(&binning, c, bins4);
		bin[i] = bins4[axis];
		left[i] = bsBinningSide_Left(&side, c);
	}
	return true;
}
