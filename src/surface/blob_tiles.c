// blob_tiles.c — the k-d tree that cuts a blob into tiles (surface.h), split a depth at a time on
// the pool's threads.
#include "blobsim/surface.h"
#include "array.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct bsBlobTiles
{
	bsBlobTile* nodes;
	uint32_t nodeCount;
	size_t nodeCapacity;
	uint32_t* ids;
	uint32_t* edges;      // every leaf's edge components (bsBlobTiles_Edges), when there are several leaves
	uint32_t* leafOrder;  // the leaves' nodes, depth first
	bsPool* pool;         // the threads that split (NULL: the caller's alone)
	uint32_t leaves;
	const bsVec3* centers;
	bsBlobTilesDef def;
	double maxReach;      // largest component radius
	bool failed;
};

static double bsCoord(bsVec3 v, int axis)
{
	return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

static bool bsKeyLess(const bsVec3* c, int axis, uint32_t a, uint32_t b)
{
	double ca = bsCoord(c[a], axis), cb = bsCoord(c[b], axis);
	return ca < cb || (ca == cb && a < b);
}

// Reorders ids[0..n) so that ids[k] is the k-th smallest by (coordinate, index), smaller ones before.
static void bsSelect(const bsVec3* c, int axis, uint32_t* ids, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n - 1;
	while (hi > lo)
	{
		// Median of three as the pivot, moved to hi.
		uint32_t mid = lo + (hi - lo) / 2;
		if (bsKeyLess(c, axis, ids[mid], ids[lo]))
		{
			uint32_t t = ids[mid]; ids[mid] = ids[lo]; ids[lo] = t;
		}
		if (bsKeyLess(c, axis, ids[hi], ids[lo]))
		{
			uint32_t t = ids[hi]; ids[hi] = ids[lo]; ids[lo] = t;
		}
		if (bsKeyLess(c, axis, ids[mid], ids[hi]))
		{
			uint32_t t = ids[mid]; ids[mid] = ids[hi]; ids[hi] = t;
		}
		uint32_t pivot = ids[hi];
		uint32_t store = lo;
		for (uint32_t i = lo; i < hi; ++i)
		{
#if defined(__GNUC__)
			// Below the root the ids are scattered over the particles: fetch ahead so that the
			// comparisons' cache misses overlap. A hint only.
			if (i + 16 < hi)
			{
				__builtin_prefetch(c + ids[i + 16], 0);
			}
#endif
			if (bsKeyLess(c, axis, ids[i], pivot))
			{
				uint32_t t = ids[i]; ids[i] = ids[store]; ids[store] = t;
				++store;
			}
		}
		ids[hi] = ids[store];
		ids[store] = pivot;
		if (store == k)
		{
			return;
		}
		if (store < k)
		{
			lo = store + 1;
		}
		else
		{
			hi = store - 1;
		}
	}
}

static uint32_t bsBlobTiles_Push(bsBlobTiles* t)
{
	if (!BS_ARRAY_RESERVE(t->nodes, t->nodeCapacity, (size_t)t->nodeCount + 1))
	{
		t->failed = true;
		return 0;
	}
	memset(t->nodes + t->nodeCount, 0, sizeof(bsBlobTile));
	return t->nodeCount++;
}

// Where a node splits: the longest axis of its cell whose median falls strictly inside it, found by
// reordering its ids (bsSelect); axis -1 when it stays a leaf (few enough particles, too deep, or every
// particle at one point).
typedef struct bsSplit
{
	int axis;
	double plane;
} bsSplit;

static bsSplit bsBlobTiles_FindSplit(bsBlobTiles* t, const bsBlobTile* n, size_t chunk, int depth)
{
	bsSplit split = {-1, 0.0};
	if (n->count <= chunk || depth >= 60)
	{
		return split;
	}
	int order[3] = {0, 1, 2};
	double ext[3] = {n->hi[0] - n->lo[0], n->hi[1] - n->lo[1], n->hi[2] - n->lo[2]};
	for (int i = 0; i < 3; ++i)
	{
		for (int j = i + 1; j < 3; ++j)
		{
			if (ext[order[j]] > ext[order[i]])
			{
				int tmp = order[i]; order[i] = order[j]; order[j] = tmp;
			}
		}
	}
	uint32_t k = n->count / 2;
	for (int a = 0; a < 3; ++a)
	{
		int axis = order[a];
		bsSelect(t->centers, axis, t->ids + n->first, n->count, k);
		double plane = bsCoord(t->centers[t->ids[n->first + k]], axis);
		if (plane > n->lo[axis] && plane < n->hi[axis])
		{
			split.axis = axis;
			split.plane = plane;
			return split;
		}
	}
	return split;
}

typedef struct bsSplitLevel
{
	bsBlobTiles* t;
	const uint32_t* nodes;  // this depth's nodes
	bsSplit* splits;
	size_t chunk;
	int depth;
} bsSplitLevel;

static void bsSplitLevel_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsSplitLevel* level = context;
	for (size_t i = begin; i < end; ++i)
	{
		level->splits[i] = bsBlobTiles_FindSplit(level->t, level->t->nodes + level->nodes[i], level->chunk, level->depth);
	}
}

// The k-d tree, a depth at a time: the nodes of one depth own disjoint ranges of ids, so their
// splits run on the pool's threads, and each range sees the same selects in the same order as it
// would depth first: the same tree and ids for any thread count. Children are added in node order.
static void bsBlobTiles_Split(bsBlobTiles* t, size_t chunk)
{
	uint32_t* level = malloc(sizeof(uint32_t));
	bsSplit* splits = malloc(sizeof(bsSplit));
	if (level == NULL || splits == NULL)
	{
		free(level);
		free(splits);
		t->failed = true;
		return;
	}
	level[0] = 0;
	uint32_t count = 1;
	for (int depth = 0; count > 0 && !t->failed; ++depth)
	{
		bsSplitLevel job = {t, level, splits, chunk, depth};
		if (t->pool != NULL)
		{
			bsPool_For(t->pool, count, 1, bsSplitLevel_Range, &job);
		}
		else
		{
			bsSplitLevel_Range(&job, 0, count, 0);
		}
		uint32_t next = 0;
		for (uint32_t i = 0; i < count; ++i)
		{
			next += splits[i].axis >= 0 ? 2 : 0;
		}
		uint32_t* nextLevel = malloc((next > 0 ? next : 1) * sizeof(uint32_t));
		bsSplit* nextSplits = malloc((next > 0 ? next : 1) * sizeof(bsSplit));
		if (nextLevel == NULL || nextSplits == NULL)
		{
			free(nextLevel);
			free(nextSplits);
			t->failed = true;
			break;
		}
		uint32_t added = 0;
		for (uint32_t i = 0; i < count && !t->failed; ++i)
		{
			if (splits[i].axis < 0)
			{
				t->leaves += 1;
				continue;
			}
			uint32_t left = bsBlobTiles_Push(t);
			bsBlobTiles_Push(t);
			if (t->failed)
			{
				break;
			}
			bsBlobTile* n = t->nodes + level[i];
			int axis = splits[i].axis;
			n->child = left;
			bsBlobTile* l = t->nodes + left;
			bsBlobTile* r = l + 1;
			memcpy(l->lo, n->lo, sizeof(n->lo));
			memcpy(l->hi, n->hi, sizeof(n->hi));
			memcpy(r->lo, n->lo, sizeof(n->lo));
			memcpy(r->hi, n->hi, sizeof(n->hi));
			l->hi[axis] = splits[i].plane;
			r->lo[axis] = splits[i].plane;
			uint32_t k = n->count / 2;
			l->first = n->first;
			l->count = k;
			r->first = n->first + k;
			r->count = n->count - k;
			nextLevel[added++] = left;
			nextLevel[added++] = left + 1;
		}
		free(level);
		free(splits);
		level = nextLevel;
		splits = nextSplits;
		count = added;
	}
	free(level);
	free(splits);
}

// Is the particle within `margin` of a face of its leaf's cell (on the inner side: it is in the cell)?
static bool bsNearFace(bsVec3 c, const bsBlobTile* leaf, double margin)
{
	for (int a = 0; a < 3; ++a)
	{
		double v = bsCoord(c, a);
		if (!(v - leaf->lo[a] > margin && leaf->hi[a] - v > margin))
		{
			return true;
		}
	}
	return false;
}

// Each leaf's edge particles: those within the largest reach m (and a hair) of its cell's faces, the
// only ones whose sphere can reach another leaf's cell, so that a tile looks at its neighbours' edges
// instead of all their particles (most of them, with thousands of particles a tile). Exact, not a
// heuristic: two leaves' cells lie on either side of their common ancestor's split plane, so a
// particle farther than M = m (1 + 2^-40) inside its own cell is farther than M from the other cell
// on that axis, its rounded squared distance exceeds the rounded m^2 >= r^2 (the relative margin is
// far above the rounding), and bsBlobTile_Reaches rejects it. Outside [1e-150, 1e150], where m^2 could
// leave the normal range, every particle counts as an edge one.
static bool bsBlobTiles_Edges(bsBlobTiles* t)
{
	double m = t->maxReach;
	double margin = m >= 1e-150 && m <= 1e150 ? m * (1.0 + 0x1p-40) : (double)INFINITY;
	size_t n = t->def.count;
	t->edges = malloc((n > 0 ? n : 1) * sizeof(uint32_t));
	if (t->edges == NULL)
	{
		return false;
	}
	uint32_t used = 0;
	for (uint32_t node = 0; node < t->nodeCount; ++node)
	{
		bsBlobTile* leaf = t->nodes + node;
		if (leaf->child != 0)
		{
			continue;
		}
		leaf->edgeFirst = used;
		for (uint32_t k = 0; k < leaf->count; ++k)
		{
#if defined(__GNUC__)
			if (k + 16 < leaf->count)
			{
				__builtin_prefetch(t->centers + t->ids[leaf->first + k + 16], 0);
			}
#endif
			uint32_t id = t->ids[leaf->first + k];
			if (bsNearFace(t->centers[id], leaf, margin))
			{
				t->edges[used++] = id;
			}
		}
		leaf->edgeCount = used - leaf->edgeFirst;
	}
	(void)BS_ARRAY_RESIZE(t->edges, used);  // the block shrunk to its use (kept whole on failure)
	return true;
}

static void bsBlobTiles_OrderLeaves(bsBlobTiles* t, uint32_t node, uint32_t* count)
{
	const bsBlobTile* n = t->nodes + node;
	if (n->child != 0)
	{
		bsBlobTiles_OrderLeaves(t, n->child, count);
		bsBlobTiles_OrderLeaves(t, n->child + 1, count);
		return;
	}
	t->leafOrder[(*count)++] = node;
}

// Builds the tiling; false when out of memory.
static bool bsBlobTiles_Build(bsBlobTiles* t, const bsBlobTilesDef* def, bsPool* pool)
{
	t->centers = def->centers;
	t->def = *def;
	t->pool = pool;
	size_t n = def->count;
	t->ids = malloc((n > 0 ? n : 1) * sizeof(uint32_t));
	if (t->ids == NULL || bsBlobTiles_Push(t) != 0 || t->failed)
	{
		return false;
	}
	double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
	for (size_t i = 0; i < n; ++i)
	{
		t->ids[i] = (uint32_t)i;
		double reach = bsBlobTilesDef_Reach(def, (uint32_t)i);
		t->maxReach = reach > t->maxReach ? reach : t->maxReach;
		for (int a = 0; a < 3; ++a)
		{
			double c = bsCoord(def->centers[i], a);
			lo[a] = c < lo[a] ? c : lo[a];
			hi[a] = c > hi[a] ? c : hi[a];
		}
	}
	// The root cell holds every component's sphere.
	for (int a = 0; a < 3; ++a)
	{
		t->nodes[0].lo[a] = lo[a] - t->maxReach;
		t->nodes[0].hi[a] = hi[a] + t->maxReach;
	}
	t->nodes[0].count = (uint32_t)n;
	bsBlobTiles_Split(t, def->chunk);
	if (t->failed || (t->leaves > 1 && !bsBlobTiles_Edges(t)))
	{
		return false;
	}
	t->leafOrder = malloc(t->leaves * sizeof(uint32_t));
	uint32_t count = 0;
	if (t->leafOrder != NULL)
	{
		bsBlobTiles_OrderLeaves(t, 0, &count);
	}
	return t->leafOrder != NULL;
}

bsBlobTiles* bsBlobTiles_Create(const bsBlobTilesDef* def, bsPool* pool)
{
	bsBlobTiles* t = calloc(1, sizeof *t);
	if (t != NULL && !bsBlobTiles_Build(t, def, pool))
	{
		bsBlobTiles_Destroy(t);
		t = NULL;
	}
	return t;
}

void bsBlobTiles_Destroy(bsBlobTiles* t)
{
	if (t == NULL)
	{
		return;
	}
	free(t->nodes);
	free(t->ids);
	free(t->edges);
	free(t->leafOrder);
	free(t);
}

uint32_t bsBlobTiles_Count(const bsBlobTiles* t)
{
	return t->leaves;
}

const bsBlobTile* bsBlobTiles_Tile(const bsBlobTiles* t, uint32_t k)
{
	return t->nodes + t->leafOrder[k];
}

// Every other leaf near the tile, in tree order: the components of its edge list (bsBlobTiles_Edges),
// the only ones that can reach another cell.
static void bsBlobTiles_Gather(const bsBlobTiles* t, uint32_t node, const bsBlobTile* leaf, bsBlobTilesVisit* visit,
	void* context)
{
	const bsBlobTile* n = t->nodes + node;
	for (int a = 0; a < 3; ++a)
	{
		if (n->hi[a] < leaf->lo[a] - t->maxReach || n->lo[a] > leaf->hi[a] + t->maxReach)
		{
			return;  // nothing in this cell reaches the leaf
		}
	}
	if (n->child != 0)
	{
		bsBlobTiles_Gather(t, n->child, leaf, visit, context);
		bsBlobTiles_Gather(t, n->child + 1, leaf, visit, context);
		return;
	}
	if (n == leaf)
	{
		visit(context, t->ids + n->first, n->count, true);
	}
	else
	{
		visit(context, t->edges + n->edgeFirst, n->edgeCount, false);
	}
}

void bsBlobTiles_Components(const bsBlobTiles* t, uint32_t k, bsBlobTilesVisit* visit, void* context)
{
	const bsBlobTile* leaf = bsBlobTiles_Tile(t, k);
	if (t->leaves == 1)
	{
		visit(context, t->ids + leaf->first, leaf->count, true);
	}
	else
	{
		bsBlobTiles_Gather(t, 0, leaf, visit, context);
	}
}
