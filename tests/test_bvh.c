// test_bvh.c — the BVH: tree validity on several scenes, then queries compared with the brute-force
// loop (bsSweepList) over the caller's array for every method.
#include "collide_internal.h"
#include "test.h"

#include "blobsim/base.h"
#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "procedural.h"
#include "blobsim/rng.h"
#include "bvh_split.h"
#include "core.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double Now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// --- Scenes beyond procedural.h ---

// Many coincident centroids: copies of one triangle and of its reflection through its bounding box's
// centre (same box centre), plus a few random triangles. Exact duplicates also make ties.
static bsTriangle* MakeCoincidentScene(uint32_t copies, uint32_t extra, uint32_t* outCount)
{
	bsTriangle* soup = NULL;
	uint32_t soupCount = 0;
	if (bsMakeTriangleSoup(77, extra, &soup, &soupCount) != bs_ok)
	{
		return NULL;
	}
	bsTriangle* tris = malloc((size_t)(2 * copies + extra) * sizeof(bsTriangle));
	if (tris == NULL)
	{
		free(soup);
		return NULL;
	}
	bsVec3 a = bsV3(0.3, 0.4, 0.5), b = bsV3(0.6, 0.45, 0.5), c = bsV3(0.35, 0.7, 0.55);
	bsVec3 center = bsScale(0.5, bsAdd(bsMin(a, bsMin(b, c)), bsMax(a, bsMax(b, c))));
	bsVec3 ra = bsSub(bsScale(2.0, center), a);
	bsVec3 rb = bsSub(bsScale(2.0, center), b);
	bsVec3 rc = bsSub(bsScale(2.0, center), c);
	uint32_t n = 0;
	for (uint32_t i = 0; i < copies; ++i)
	{
		if (bsMakeTriangle(a, b, c, tris + n) == bs_ok)
		{
			++n;
		}
		if (bsMakeTriangle(ra, rb, rc, tris + n) == bs_ok)
		{
			++n;
		}
	}
	for (uint32_t i = 0; i < soupCount; ++i)
	{
		tris[n++] = soup[i];
	}
	free(soup);
	*outCount = n;
	return tris;
}

// Triangles at exponentially growing distances and sizes (factor 3, up to 3^79 ~ 5e37, still inside
// the float range): with 2 bins each split peels off only the farthest one, so the tree would be as
// deep as the count without the depth limit.
static bsTriangle* MakeDeepScene(uint32_t count, uint32_t* outCount)
{
	bsTriangle* tris = malloc((size_t)count * sizeof(bsTriangle));
	if (tris == NULL)
	{
		return NULL;
	}
	uint32_t n = 0;
	double s = 1.0;
	for (uint32_t i = 0; i < count; ++i, s *= 3.0)
	{
		bsVec3 p = bsV3(s, 0.5 * s, 0.25 * s);
		bsVec3 q = bsAdd(p, bsV3(0.1 * s, 0.0, 0.0));
		bsVec3 r = bsAdd(p, bsV3(0.0, 0.1 * s, 0.05 * s));
		if (bsMakeTriangle(p, q, r, tris + n) == bs_ok)
		{
			++n;
		}
	}
	*outCount = n;
	return tris;
}

static const bsBvhOptions deepOptions = {2, 1, 1.0, 1};

// --- The shared procedural scenes ---

static int ProceduralTest(void)
{
	bsTriangle* a = NULL;
	bsTriangle* b = NULL;
	uint32_t na = 0, nb = 0;
	ENSURE(bsMakeHeightfieldScene(3, 16, 7, &a, &na) == bs_ok);
	ENSURE(bsMakeHeightfieldScene(3, 16, 7, &b, &nb) == bs_ok);
	ENSURE(na == 2 * 16 * 16 + 12 * 7 && nb == na);
	ENSURE(memcmp(a, b, na * sizeof(bsTriangle)) == 0);  // deterministic from the seed
	for (uint32_t i = 0; i < na; ++i)
	{
		bsTriangle t;
		ENSURE(bsMakeTriangle(a[i].p1, a[i].p2, a[i].p3, &t) == bs_ok);
		ENSURE(memcmp(&t, a + i, sizeof t) == 0);
		bsVec3 lo = bsTriangle_Min(a + i), hi = bsTriangle_Max(a + i);
		ENSURE(lo.x >= 0.0 && hi.x <= 1.0 && lo.z >= 0.0 && hi.z <= 1.0);
		ENSURE(lo.y > -0.3 && hi.y < 0.5);
		if (i < 2 * 16 * 16)
		{
			ENSURE(a[i].n.y > 0.0);  // the ground faces up
		}
	}
	free(b);
	ENSURE(bsMakeHeightfieldScene(4, 16, 7, &b, &nb) == bs_ok);
	ENSURE(nb == na && memcmp(a, b, na * sizeof(bsTriangle)) != 0);  // another seed, another scene
	free(a);
	free(b);

	ENSURE(bsMakeTriangleSoup(5, 2000, &a, &na) == bs_ok);
	ENSURE(na == 2000);
	for (uint32_t i = 0; i < na; ++i)
	{
		bsVec3 lo = bsTriangle_Min(a + i), hi = bsTriangle_Max(a + i);
		ENSURE(lo.x >= 0.0 && lo.y >= 0.0 && lo.z >= 0.0);
		ENSURE(hi.x <= 1.0 && hi.y <= 1.0 && hi.z <= 1.0);
		double sides[3] = {bsDistance(a[i].p1, a[i].p2), bsDistance(a[i].p2, a[i].p3),
			bsDistance(a[i].p3, a[i].p1)};
		for (int k = 0; k < 3; ++k)
		{
			ENSURE(sides[k] >= 0.1 && sides[k] <= 0.5);
		}
	}
	free(a);

	ENSURE(bsMakeTriangleSoup(5, 0, &a, &na) == bs_ok && a == NULL && na == 0);
	ENSURE(bsMakeTriangleSoup(5, 1u << 31, &a, &na) == bs_errTooLarge && a == NULL);
	ENSURE(bsMakeTriangleSoup(5, 10, NULL, &na) == bs_errInvalidArgument);
	ENSURE(bsMakeHeightfieldScene(1, 0, 0, &a, &na) == bs_errInvalidArgument && a == NULL);
	ENSURE(bsMakeHeightfieldScene(1, 4, -1, &a, &na) == bs_errInvalidArgument);
	ENSURE(bsMakeHeightfieldScene(1, 40000, 0, &a, &na) == bs_errTooLarge);
	ENSURE(bsMakeHeightfieldScene(1, 4, 0, &a, NULL) == bs_errInvalidArgument);
	ENSURE(bsMakeHeightfieldScene(1, 1, 0, &a, &na) == bs_ok && na == 2);
	free(a);
	return 0;
}

// --- (a) Tree validity ---

// Walks the whole tree: every triangle in exactly one leaf (and the copy bit-identical), child boxes
// inside their parents, each triangle's double bounds inside its leaf's float box, the depth limit,
// leaf sizes, and the stats.
static int CheckTree(const bsBvh* bvh, const bsTriangle* tris, uint32_t count,
	const bsBvhOptions* options)
{
	ENSURE(bvh->triCount == count);
	ENSURE(bvh->stats.buildSeconds >= 0.0);
	if (count == 0)
	{
		ENSURE(bvh->nodeCount == 0);
		ENSURE(bvh->stats.nodes == 0 && bvh->stats.leaves == 0 && bvh->stats.depth == 0);
		ENSURE(bvh->stats.maxLeafTriangles == 0);
		return 0;
	}
	ENSURE(bvh->nodes != NULL && bvh->tris != NULL && bvh->triIndex != NULL);
	ENSURE(bvh->nodeCount >= 1 && bvh->nodeCount <= 2 * count - 1);
	ENSURE(bvh->stats.nodes == bvh->nodeCount);
	ENSURE(isfinite(bvh->pad) && bvh->pad >= 0.0f);

	uint8_t* nodeSeen = calloc(bvh->nodeCount, 1);
	uint8_t* slotSeen = calloc(count, 1);
	uint8_t* triSeen = calloc(count, 1);
	uint32_t* stackNode = malloc(bvh->nodeCount * sizeof(uint32_t));
	uint32_t* stackDepth = malloc(bvh->nodeCount * sizeof(uint32_t));
	int failed = 1;
	if (nodeSeen == NULL || slotSeen == NULL || triSeen == NULL || stackNode == NULL ||
		stackDepth == NULL)
	{
		fprintf(stderr, "CheckTree: out of memory\n");
		goto done;
	}

	uint32_t top = 0;
	stackNode[top] = 0;
	stackDepth[top] = 1;
	++top;
	uint32_t visited = 0, leaves = 0, maxDepth = 0, maxLeaf = 0, slots = 0;
	double sah = 0.0;
	double rootArea = 0.0;
	while (top > 0)
	{
		--top;
		uint32_t index = stackNode[top];
		uint32_t depth = stackDepth[top];
		if (index >= bvh->nodeCount || nodeSeen[index])
		{
			fprintf(stderr, "CheckTree: node %u out of range or reached twice\n", index);
			goto done;
		}
		nodeSeen[index] = 1;
		++visited;
		const bsBvhNode* node = bvh->nodes + index;
		for (int a = 0; a < 3; ++a)
		{
			if (!(node->min[a] <= node->max[a]))
			{
				fprintf(stderr, "CheckTree: node %u has an empty or NaN box\n", index);
				goto done;
			}
		}
		double dx = (double)node->max[0] - (double)node->min[0];
		double dy = (double)node->max[1] - (double)node->min[1];
		double dz = (double)node->max[2] - (double)node->min[2];
		double area = dx * dy + dy * dz + dz * dx;
		if (index == 0)
		{
			rootArea = area;
		}
		maxDepth = depth > maxDepth ? depth : maxDepth;
		if (depth > BS_BVH_MAX_DEPTH)
		{
			fprintf(stderr, "CheckTree: depth %u beyond the limit\n", depth);
			goto done;
		}
		if (node->count == 0)
		{
			uint32_t left = node->leftFirst;
			if (left <= index || left + 1 >= bvh->nodeCount)
			{
				fprintf(stderr, "CheckTree: node %u has children %u out of order/range\n", index,
					left);
				goto done;
			}
			for (int side = 0; side < 2; ++side)
			{
				const bsBvhNode* child = bvh->nodes + left + (uint32_t)side;
				for (int a = 0; a < 3; ++a)
				{
					if (child->min[a] < node->min[a] || child->max[a] > node->max[a])
					{
						fprintf(stderr, "CheckTree: child %u sticks out of node %u\n",
							left + (uint32_t)side, index);
						goto done;
					}
				}
				stackNode[top] = left + (uint32_t)side;
				stackDepth[top] = depth + 1;
				++top;
			}
			sah += area * options->traversalCost;
			continue;
		}

		++leaves;
		maxLeaf = node->count > maxLeaf ? node->count : maxLeaf;
		sah += area * (double)node->count;
		if (node->count > (uint32_t)options->maxLeafSize && depth != BS_BVH_MAX_DEPTH)
		{
			fprintf(stderr, "CheckTree: leaf %u holds %u triangles above depth %u\n", index,
				node->count, depth);
			goto done;
		}
		if (node->leftFirst > count || node->count > count - node->leftFirst)
		{
			fprintf(stderr, "CheckTree: leaf %u's range is out of bounds\n", index);
			goto done;
		}
		for (uint32_t k = node->leftFirst; k < node->leftFirst + node->count; ++k)
		{
			uint32_t t = bvh->triIndex[k];
			if (slotSeen[k] || t >= count || triSeen[t])
			{
				fprintf(stderr, "CheckTree: slot %u / triangle %u in two leaves\n", k, t);
				goto done;
			}
			slotSeen[k] = 1;
			triSeen[t] = 1;
			++slots;
			if (memcmp(bvh->tris + k, tris + t, sizeof(bsTriangle)) != 0)
			{
				fprintf(stderr, "CheckTree: slot %u is not a copy of triangle %u\n", k, t);
				goto done;
			}
			bsVec3 lo = bsTriangle_Min(tris + t), hi = bsTriangle_Max(tris + t);
			double l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
			for (int a = 0; a < 3; ++a)
			{
				if (!((double)node->min[a] <= l[a] && (double)node->max[a] >= h[a]))
				{
					fprintf(stderr, "CheckTree: triangle %u (%.17g..%.17g) outside leaf %u's "
						"float box (%.9g..%.9g) on axis %d\n",
						t, l[a], h[a], index, (double)node->min[a], (double)node->max[a], a);
					goto done;
				}
			}
		}
	}
	if (visited != bvh->nodeCount || slots != count)
	{
		fprintf(stderr, "CheckTree: reached %u of %u nodes, %u of %u triangles\n", visited,
			bvh->nodeCount, slots, count);
		goto done;
	}
	if (leaves != bvh->stats.leaves || maxDepth != bvh->stats.depth ||
		maxLeaf != bvh->stats.maxLeafTriangles || bvh->nodeCount != 2 * leaves - 1)
	{
		fprintf(stderr, "CheckTree: stats leaves %u depth %u maxLeaf %u; walked %u %u %u\n",
			bvh->stats.leaves, bvh->stats.depth, bvh->stats.maxLeafTriangles, leaves, maxDepth,
			maxLeaf);
		goto done;
	}
	double expected = sah / rootArea;
	if (!(fabs(bvh->stats.sahCost - expected) <= 1e-9 * expected))
	{
		fprintf(stderr, "CheckTree: SAH cost %.17g, recomputed %.17g\n", bvh->stats.sahCost,
			expected);
		goto done;
	}
	failed = 0;

done:
	free(nodeSeen);
	free(slotSeen);
	free(triSeen);
	free(stackNode);
	free(stackDepth);
	return failed;
}

// The 4-wide tree the queries walk: every slot in use holds a binary node's box (so it contains its
// triangles' float bounds, checked by CheckTree) and either a wide node reached once or a leaf range
// equal to a binary leaf's; the leaf ranges cover every triangle slot exactly once; unused slots come
// last with an inf box and count 0; the depth is within the stack's bound.
static int CheckWide(const bsBvh* bvh)
{
	if (bvh->triCount == 0)
	{
		ENSURE(bvh->wide == NULL && bvh->wideCount == 0 && bvh->stats.wideNodes == 0);
		return 0;
	}
	ENSURE(bvh->wide != NULL && bvh->wideCount >= 1 && bvh->stats.wideNodes == bvh->wideCount);
	ENSURE(bvh->wideCount <= bvh->nodeCount);
	uint8_t* nodeSeen = calloc(bvh->wideCount, 1);
	uint8_t* slotSeen = calloc(bvh->triCount, 1);
	uint32_t* stackNode = malloc(bvh->wideCount * sizeof(uint32_t));
	uint32_t* stackDepth = malloc(bvh->wideCount * sizeof(uint32_t));
	int failed = 1;
	if (nodeSeen == NULL || slotSeen == NULL || stackNode == NULL || stackDepth == NULL)
	{
		fprintf(stderr, "CheckWide: out of memory\n");
		goto done;
	}
	// Binary leaves by first triangle: a wide leaf slot must be one of them, whole.
	uint32_t* leafCount = calloc(bvh->triCount, sizeof(uint32_t));
	if (leafCount == NULL)
	{
		goto done;
	}
	for (uint32_t i = 0; i < bvh->nodeCount; ++i)
	{
		if (bvh->nodes[i].count > 0)
		{
			leafCount[bvh->nodes[i].leftFirst] = bvh->nodes[i].count;
		}
	}
	uint32_t top = 0, maxDepth = 0, leafSlots = 0, covered = 0;
	stackNode[top] = 0;
	stackDepth[top++] = 1;
	while (top > 0)
	{
		--top;
		uint32_t index = stackNode[top], depth = stackDepth[top];
		if (index >= bvh->wideCount || nodeSeen[index] || depth > BS_BVH_MAX_DEPTH)
		{
			fprintf(stderr, "CheckWide: wide node %u out of range, reached twice or too deep\n", index);
			goto doneLeaves;
		}
		nodeSeen[index] = 1;
		maxDepth = depth > maxDepth ? depth : maxDepth;
		const bsBvhWideNode* w = bvh->wide + index;
		int used = 0;
		for (int i = 0; i < 4; ++i)
		{
			bool empty = true;
			for (int a = 0; a < 3; ++a)
			{
				empty = empty && w->min[a][i] == INFINITY && w->max[a][i] == INFINITY;
			}
			if (empty)
			{
				if (w->child[i] != 0 || w->count[i] != 0)
				{
					fprintf(stderr, "CheckWide: unused slot %d of node %u not zeroed\n", i, index);
					goto doneLeaves;
				}
				continue;
			}
			if (used != i)
			{
				fprintf(stderr, "CheckWide: node %u has a used slot after an unused one\n", index);
				goto doneLeaves;
			}
			++used;
			for (int a = 0; a < 3; ++a)
			{
				if (!(w->min[a][i] <= w->max[a][i]))
				{
					fprintf(stderr, "CheckWide: node %u slot %d has an empty box\n", index, i);
					goto doneLeaves;
				}
			}
			if (w->count[i] > 0)
			{
				uint32_t first = w->child[i];
				if (first >= bvh->triCount || leafCount[first] != w->count[i])
				{
					fprintf(stderr, "CheckWide: node %u slot %d is not a binary leaf\n", index, i);
					goto doneLeaves;
				}
				for (uint32_t k = first; k < first + w->count[i]; ++k)
				{
					if (slotSeen[k])
					{
						fprintf(stderr, "CheckWide: triangle slot %u in two leaves\n", k);
						goto doneLeaves;
					}
					slotSeen[k] = 1;
					++covered;
				}
				++leafSlots;
			}
			else
			{
				if (w->child[i] <= index || top == bvh->wideCount)
				{
					fprintf(stderr, "CheckWide: node %u slot %d points back to %u\n", index, i,
						w->child[i]);
					goto doneLeaves;
				}
				stackNode[top] = w->child[i];
				stackDepth[top++] = depth + 1;
			}
		}
		// Two to four children; one only for a tree that is a single leaf.
		if (!(used >= 2 || (used == 1 && bvh->nodeCount == 1)))
		{
			fprintf(stderr, "CheckWide: node %u has %d children\n", index, used);
			goto doneLeaves;
		}
	}
	if (covered != bvh->triCount || leafSlots != bvh->stats.leaves || maxDepth != bvh->stats.wideDepth)
	{
		fprintf(stderr, "CheckWide: %u of %u triangles, %u of %u leaves, depth %u (stats %u)\n",
			covered, bvh->triCount, leafSlots, bvh->stats.leaves, maxDepth, bvh->stats.wideDepth);
		goto doneLeaves;
	}
	for (uint32_t i = 0; i < bvh->wideCount; ++i)
	{
		if (!nodeSeen[i])
		{
			fprintf(stderr, "CheckWide: wide node %u unreachable\n", i);
			goto doneLeaves;
		}
	}
	failed = 0;
doneLeaves:
	free(leafCount);
done:
	free(nodeSeen);
	free(slotSeen);
	free(stackNode);
	free(stackDepth);
	return failed;
}

static int BuildAndCheck(const char* name, const bsTriangle* tris, uint32_t count,
	const bsBvhOptions* options, bool print)
{
	bsBvh bvh;
	bsResult r = bsBvh_Build(&bvh, tris, count, options);
	if (r != bs_ok)
	{
		fprintf(stderr, "%s: build failed: %s\n", name, bsResultString(r));
		return 1;
	}
	bsBvhOptions o = options != NULL ? *options : bsDefaultBvhOptions();
	int rc = CheckTree(&bvh, tris, count, &o);
	rc = rc != 0 ? rc : CheckWide(&bvh);
	if (print)
	{
		printf("  %-28s %7u tris: %7u nodes (%6u wide), %6u leaves, depth %2u (%2u wide), "
			"max leaf %3u, SAH %.1f, %.1f ms\n",
			name, count, bvh.stats.nodes, bvh.stats.wideNodes, bvh.stats.leaves, bvh.stats.depth,
			bvh.stats.wideDepth, bvh.stats.maxLeafTriangles, bvh.stats.sahCost,
			1e3 * bvh.stats.buildSeconds);
	}
	bsBvh_Destroy(&bvh);
	if (rc != 0)
	{
		fprintf(stderr, "  in scene %s\n", name);
	}
	return rc;
}

// memcmp that accepts the NULL arrays of an empty BVH.
static bool SameBytes(const void* a, const void* b, size_t size)
{
	return size == 0 || memcmp(a, b, size) == 0;
}

// The same tree, byte for byte, for every thread count of the build (its subtrees are built apart
// and put in a fixed order): both trees, the triangle order and every statistic but the time.
static int SameTreeForThreads(const char* name, const bsTriangle* tris, uint32_t count,
	const bsBvhOptions* options)
{
	bsBvhOptions o = options != NULL ? *options : bsDefaultBvhOptions();
	o.threads = 1;
	bsBvh one;
	ENSURE(bsBvh_Build(&one, tris, count, &o) == bs_ok);
	int threads[] = {2, 3, 0};
	int rc = 0;
	for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]) && rc == 0; ++i)
	{
		o.threads = threads[i];
		bsBvh other;
		ENSURE(bsBvh_Build(&other, tris, count, &o) == bs_ok);
		other.stats.buildSeconds = one.stats.buildSeconds;
		bool same = other.nodeCount == one.nodeCount && other.wideCount == one.wideCount &&
			other.triCount == one.triCount && other.pad == one.pad &&
			memcmp(&other.stats, &one.stats, sizeof one.stats) == 0 &&
			SameBytes(other.nodes, one.nodes, one.nodeCount * sizeof(bsBvhNode)) &&
			SameBytes(other.wide, one.wide, one.wideCount * sizeof(bsBvhWideNode)) &&
			SameBytes(other.tris, one.tris, one.triCount * sizeof(bsTriangle)) &&
			SameBytes(other.triIndex, one.triIndex, one.triCount * sizeof(uint32_t));
		if (!same)
		{
			fprintf(stderr, "%s: the tree built on %d threads differs from the one on 1\n", name,
				threads[i]);
			rc = 1;
		}
		bsBvh_Destroy(&other);
	}
	bsBvh_Destroy(&one);
	return rc;
}

static int TreeValidityTest(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;

	ENSURE(bsMakeHeightfieldScene(1, 40, 30, &tris, &count) == bs_ok);
	ENSURE(count == 2 * 40 * 40 + 12 * 30);
	RUN_SUBTEST(BuildAndCheck("heightfield+boxes", tris, count, NULL, true));
	bsBvhOptions variants[] = {
		{2, 1, 1.0, 1},
		{64, 64, 1.0, 2},
		{16, 4, 0.0, 0},
		{8, 8, 10.0, 3},
		{3, 2, 0.5, 2},
	};
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); ++i)
	{
		char name[64];
		snprintf(name, sizeof name, "  bins %d leaf %d cost %g", variants[i].bins,
			variants[i].maxLeafSize, variants[i].traversalCost);
		RUN_SUBTEST(BuildAndCheck(name, tris, count, variants + i, true));
	}
	// Prefixes: 0, 1, 2, 3 triangles.
	for (uint32_t n = 0; n <= 3; ++n)
	{
		RUN_SUBTEST(BuildAndCheck("prefix", tris, n, NULL, false));
	}
	RUN_SUBTEST(SameTreeForThreads("heightfield+boxes", tris, count, NULL));
	RUN_SUBTEST(SameTreeForThreads("bins 2 leaf 1", tris, count, variants));
	for (uint32_t n = 0; n <= 40; n += 5)
	{
		RUN_SUBTEST(SameTreeForThreads("prefix", tris, n, NULL));
	}
	free(tris);

	ENSURE(bsMakeTriangleSoup(2, 3000, &tris, &count) == bs_ok);
	ENSURE(count == 3000);
	RUN_SUBTEST(BuildAndCheck("soup", tris, count, NULL, true));
	free(tris);

	tris = MakeCoincidentScene(400, 200, &count);
	ENSURE(tris != NULL && count == 1000);
	RUN_SUBTEST(BuildAndCheck("coincident centroids", tris, count, NULL, true));
	// Only coincident centroids: no SAH split exists, the range is halved.
	RUN_SUBTEST(BuildAndCheck("coincident only", tris, 800, NULL, true));
	free(tris);

	tris = MakeDeepScene(80, &count);
	ENSURE(tris != NULL && count == 80);
	RUN_SUBTEST(BuildAndCheck("deep chain, default options", tris, count, NULL, true));
	{
		bsBvh bvh;
		ENSURE(bsBvh_Build(&bvh, tris, count, &deepOptions) == bs_ok);
		int rc = CheckTree(&bvh, tris, count, &deepOptions);
		rc = rc != 0 ? rc : CheckWide(&bvh);
		printf("  %-28s %7u tris: depth %u, max leaf %u (the depth limit holds)\n",
			"deep chain, 2 bins, leaf 1",
			count, bvh.stats.depth, bvh.stats.maxLeafTriangles);
		// One triangle peeled off per level above the last: the bottom leaf keeps the rest.
		bool capped = bvh.stats.depth == BS_BVH_MAX_DEPTH &&
			bvh.stats.maxLeafTriangles == count - (BS_BVH_MAX_DEPTH - 1);
		bsBvh_Destroy(&bvh);
		ENSURE(rc == 0);
		ENSURE(capped);
		RUN_SUBTEST(SameTreeForThreads("deep chain", tris, count, &deepOptions));
	}
	free(tris);

	// Errors leave an empty BVH that Destroy accepts.
	bsTriangle one[2];
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0, 1, 0), one) == bs_ok);
	one[1] = one[0];
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, one, 1u << 31, NULL) == bs_errTooLarge);
	ENSURE(bvh.nodes == NULL && bvh.triCount == 0);
	bsBvh_Destroy(&bvh);
	ENSURE(bsBvh_Build(&bvh, one, UINT32_MAX, NULL) == bs_errTooLarge);
	ENSURE(bsBvh_Build(&bvh, NULL, 5, NULL) == bs_errInvalidArgument);
	ENSURE(bsBvh_Build(NULL, one, 1, NULL) == bs_errInvalidArgument);
	bsBvhOptions bad[] = {{1, 4, 1.0, 1}, {65, 4, 1.0, 1}, {16, 0, 1.0, 1}, {16, 65, 1.0, 1},
		{16, 4, -1.0, 1}, {16, 4, (double)NAN, 1}, {16, 4, (double)INFINITY, 1}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
	{
		ENSURE(bsBvh_Build(&bvh, one, 1, bad + i) == bs_errInvalidArgument);
		ENSURE(bvh.nodes == NULL);
	}
	one[1].p2.y = (double)NAN;
	ENSURE(bsBvh_Build(&bvh, one, 2, NULL) == bs_errNonFinite);
	ENSURE(bvh.nodes == NULL);
	bsBvh_Destroy(&bvh);
	bsBvh_Destroy(NULL);
	return 0;
}

// --- A small node's split, from its triangles, against the general binned SAH ---

// One coordinate of a random small node: from a lattice of 5 values (coincident centroids, equal
// boxes and so tied costs), from a wide range, or tiny offsets from 1 (an extent too small for a
// bin scale: a flat axis).
static float SplitCoordinate(bsRng* rng, int kind)
{
	switch (kind)
	{
		case 0:
			return 0.5f * (float)bsRng_Below(rng, 5);
		case 1:
			return (float)bsRng_Range(rng, -10.0, 10.0);
		default:
			return 1.0f + (float)bsRng_Below(rng, 3) * 1e-38f;
	}
}

// A random node of 1 to maxCount boxes (*count), of one coordinate kind per set, some degenerate (a
// point, or flat on one axis), some copies of the box before; returns a random bin count for it.
static int MakeSplitNode(bsRng* rng, uint32_t maxCount, uint32_t* outCount, float (*min)[3],
	float (*max)[3])
{
	static const int binChoices[] = {2, 3, 4, 7, 16, 64};
	uint32_t count = 1 + bsRng_Below(rng, maxCount);
	*outCount = count;
	int kind = (int)bsRng_Below(rng, 5);  // lattice most often
	kind = kind < 3 ? 0 : kind - 2;
	for (uint32_t i = 0; i < count; ++i)
	{
		uint32_t shape = bsRng_Below(rng, 6);
		for (int a = 0; a < 3; ++a)
		{
			if (i > 0 && shape == 0)
			{
				min[i][a] = min[i - 1][a];
				max[i][a] = max[i - 1][a];
				continue;
			}
			float p = SplitCoordinate(rng, kind);
			float q = SplitCoordinate(rng, kind);
			bool flat = shape == 1 || (shape == 2 && a == (int)(i % 3));
			min[i][a] = p < q ? p : q;
			max[i][a] = flat ? min[i][a] : (p < q ? q : p);
		}
	}
	return binChoices[bsRng_Below(rng, 6)];
}

// The build's split decision (a small node's from its few triangles) must be the general path's
// (every bin filled and swept): the same found, axis, bin and cost, on many random nodes of 1 to 6
// boxes (the fast path takes up to 4) with coincident centroids, degenerate boxes and ties.
static int SmallSplitTest(void)
{
	// The hook itself on a closed form: unit cubes at x = 0 and x = 10 split on x after bin 0, at
	// cost t + (3 + 3) / 23 (half areas of the cubes and of the node [0, 11] x [0, 1]^2).
	float cubeMin[2][3] = {{0.0f, 0.0f, 0.0f}, {10.0f, 0.0f, 0.0f}};
	float cubeMax[2][3] = {{1.0f, 1.0f, 1.0f}, {11.0f, 1.0f, 1.0f}};
	for (int general = 0; general < 2; ++general)
	{
		bsBvhSplitDecision d = bsBvh_SplitDecision(cubeMin, cubeMax, 2, 16, 1.0, general != 0);
		ENSURE(d.found && d.axis == 0 && d.bin == 0);
		ENSURE(d.cost == 1.0 + 6.0 / 23.0);
	}

	static const double costChoices[] = {0.0, 0.5, 1.0, 2.0};
	bsRng rng = bsMakeRng(1515);
	uint32_t found = 0, notFound = 0, offAxis = 0;
	for (int n = 0; n < 60000; ++n)
	{
		uint32_t count;
		float min[6][3], max[6][3];
		int bins = MakeSplitNode(&rng, 6, &count, min, max);
		double traversalCost = costChoices[bsRng_Below(&rng, 4)];
		bsBvhSplitDecision general = bsBvh_SplitDecision(min, max, count, bins, traversalCost, true);
		bsBvhSplitDecision built = bsBvh_SplitDecision(min, max, count, bins, traversalCost, false);
		if (general.found != built.found || (general.found && (general.axis != built.axis ||
			general.bin != built.bin)) || !(general.cost == built.cost))
		{
			fprintf(stderr, "node %d (%u boxes, %d bins, cost %g): general %d axis %d bin %d cost "
				"%.17g, built %d axis %d bin %d cost %.17g\n", n, count, bins, traversalCost,
				general.found, general.axis, general.bin, general.cost, built.found, built.axis,
				built.bin, built.cost);
			return 1;
		}
		found += general.found;
		notFound += !general.found;
		offAxis += general.found && general.axis != 0;
	}
	// Both outcomes, and splits on other axes than the first, were exercised.
	ENSURE(found > 10000 && notFound > 1000 && offAxis > 5000);
	return 0;
}

// The partitions decide a triangle's side by comparing its unconverted bin coordinate with the split:
// it must be the side of its bin as the binning converts it (bin <= split), for every axis and split,
// on random nodes of 1 to 64 boxes with coincident centroids, degenerate boxes and flat axes.
static int PartitionSideTest(void)
{
	bsRng rng = bsMakeRng(1516);
	uint32_t left = 0, right = 0, binned = 0;
	for (int n = 0; n < 4000; ++n)
	{
		uint32_t count;
		float min[64][3], max[64][3];
		int bins = MakeSplitNode(&rng, 64, &count, min, max);
		for (int axis = 0; axis < 3; ++axis)
		{
			for (int split = 0; split < bins; ++split)
			{
				int bin[64];
				bool isLeft[64];
				if (!bsBvh_PartitionSides(min, max, count, bins, axis, split, bin, isLeft))
				{
					continue;
				}
				binned += 1;
				for (uint32_t i = 0; i < count; ++i)
				{
					ENSURE(bin[i] >= 0 && bin[i] < bins);
					ENSURE(isLeft[i] == (bin[i] <= split));
					left += isLeft[i];
					right += !isLeft[i];
				}
			}
		}
	}
	// Most nodes were binned, and both sides were taken often.
	ENSURE(binned > 100000 && left > 1000000 && right > 1000000);
	return 0;
}

// Builds ~250,000 triangles and prints the time (the target is well under 0.5 s on one core).
// Scenes of several chunks of the build's top levels (4096 triangles each), where every thread
// bins and partitions its own chunks of a node: the tree must be valid and the same on any thread
// count. The coincident clusters cannot be split, so the top levels halve them (and move their
// triangles between the build's buffers) at the root and below it.
static int ChunkedTopLevelsTest(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeHeightfieldScene(3, 100, 40, &tris, &count) == bs_ok);
	ENSURE(count == 2 * 100 * 100 + 12 * 40);
	RUN_SUBTEST(BuildAndCheck("heightfield 20k", tris, count, NULL, true));
	RUN_SUBTEST(SameTreeForThreads("heightfield 20k", tris, count, NULL));
	bsBvhOptions leafOne = {16, 1, 1.0, 1};
	RUN_SUBTEST(SameTreeForThreads("heightfield 20k leaf 1", tris, count, &leafOne));
	free(tris);

	tris = MakeCoincidentScene(6000, 3000, &count);
	ENSURE(tris != NULL && count == 15000);
	RUN_SUBTEST(BuildAndCheck("coincident 15k", tris, count, NULL, true));
	RUN_SUBTEST(SameTreeForThreads("coincident 15k", tris, count, NULL));
	RUN_SUBTEST(BuildAndCheck("coincident only 12k", tris, 12000, NULL, true));
	RUN_SUBTEST(SameTreeForThreads("coincident only 12k", tris, 12000, NULL));
	free(tris);
	return 0;
}

static int BigBuildTest(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeHeightfieldScene(5, 354, 0, &tris, &count) == bs_ok);
	ENSURE(count >= 250000);
	double best = (double)INFINITY;
	bsBvh bvh;
	for (int run = 0; run < 3; ++run)
	{
		ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
		best = fmin(best, bvh.stats.buildSeconds);
		if (run < 2)
		{
			bsBvh_Destroy(&bvh);
		}
	}
	bsBvhOptions o = bsDefaultBvhOptions();
	int rc = CheckTree(&bvh, tris, count, &o);
	rc = rc != 0 ? rc : CheckWide(&bvh);
	printf("  %-28s %7u tris: %7u nodes (%u wide), depth %2u, max leaf %u, SAH %.1f, "
		"build %.1f ms (min of 3)\n",
		"heightfield 250k", count, bvh.stats.nodes, bvh.stats.wideNodes, bvh.stats.depth,
		bvh.stats.maxLeafTriangles, bvh.stats.sahCost, 1e3 * best);
	bsBvh_Destroy(&bvh);
	free(tris);
	ENSURE(rc == 0);
	return 0;
}

// --- (b) Queries against the brute force ---

typedef struct SceneBox
{
	bsVec3 lo, hi;
} SceneBox;

static SceneBox SceneBounds(const bsTriangle* tris, uint32_t count)
{
	SceneBox b = {bsV3(0, 0, 0), bsV3(1, 1, 1)};
	for (uint32_t i = 0; i < count; ++i)
	{
		b.lo = i == 0 ? bsTriangle_Min(tris) : bsMin(b.lo, bsTriangle_Min(tris + i));
		b.hi = i == 0 ? bsTriangle_Max(tris) : bsMax(b.hi, bsTriangle_Max(tris + i));
	}
	return b;
}

static bsVec3 RandomIn(bsRng* rng, SceneBox b, double margin)
{
	return bsV3(bsRng_Range(rng, b.lo.x - margin, b.hi.x + margin),
		bsRng_Range(rng, b.lo.y - margin, b.hi.y + margin),
		bsRng_Range(rng, b.lo.z - margin, b.hi.z + margin));
}

enum
{
	kindShortAbove = 0,
	kindLong,
	kindZeroLength,
	kindStartInContact,
	kindSnow,
	kindShortDown,
	kindTangent,
	kindAxisLong,
	kindCount
};

// One query of a random kind near a random triangle of the scene. `scale` is the scene's size
// (1 for the unit scenes): lengths and radii scale with it.
static void MakeQuery(const bsTriangle* tris, uint32_t count, SceneBox box, double scale,
	bsRng* rng, bsSweepInput* q)
{
	double r = scale * 0.002 * pow(25.0, bsRng_Uniform(rng));
	const bsTriangle* t = tris + bsRng_Below(rng, count);
	bsVec3 p = bsRandomPointOn(t, rng);
	bsVec3 n = t->n;
	bsVec3 c1, c2;
	switch ((int)bsRng_Below(rng, kindCount))
	{
		case kindShortAbove:
		{
			double gap = r * (1.0 + 0.2 * bsRng_Uniform(rng)) + scale * 1e-4 * bsRng_Uniform(rng);
			c1 = bsMulAdd(p, gap, n);
			bsVec3 dir = bsRng_UnitVector(rng);
			if (bsRng_Below(rng, 2) == 0)
			{
				dir = bsNormalize(bsMulAdd(bsNeg(n), 0.7, dir));
			}
			c2 = bsMulAdd(c1, scale * 0.1 * bsRng_Uniform(rng), dir);
			break;
		}
		case kindLong:
			c1 = RandomIn(rng, box, 0.2 * scale);
			c2 = RandomIn(rng, box, 0.2 * scale);
			break;
		case kindZeroLength:
			c1 = bsMulAdd(p, 2.0 * r * bsRng_Uniform(rng), n);
			c2 = c1;
			break;
		case kindStartInContact:
			c1 = bsMulAdd(p, r * bsRng_Range(rng, -1.0, 1.0), n);
			c2 = bsMulAdd(c1, scale * 0.2 * bsRng_Uniform(rng), bsRng_UnitVector(rng));
			break;
		case kindSnow:
		{
			// Straight down along -y from above the scene to below it, as the paper's snow.
			bsVec3 s = RandomIn(rng, box, 0.05 * scale);
			c1 = bsV3(s.x, box.hi.y + r + 0.1 * scale * bsRng_Uniform(rng), s.z);
			c2 = bsV3(s.x, box.lo.y - 0.1 * scale, s.z);
			break;
		}
		case kindShortDown:
			c1 = bsAdd(p, bsV3(0.0, r + 0.02 * scale * bsRng_Uniform(rng), 0.0));
			c2 = bsSub(c1, bsV3(0.0, 0.05 * scale * bsRng_Uniform(rng), 0.0));
			break;
		case kindTangent:
		{
			// Touching at the start and sliding along the plane.
			c1 = bsMulAdd(p, r, n);
			bsVec3 dir = bsRng_UnitVector(rng);
			dir = bsNormalize(bsMulSub(dir, bsDot(dir, n), n));
			c2 = bsMulAdd(c1, scale * 0.1 * bsRng_Uniform(rng), dir);
			break;
		}
		default:
		{
			c1 = RandomIn(rng, box, 0.1 * scale);
			c2 = c1;
			bsVec3 other = RandomIn(rng, box, 0.1 * scale);
			uint32_t axis = bsRng_Below(rng, 3);
			if (axis == 0)
			{
				c2.x = other.x;
			}
			else if (axis == 1)
			{
				c2.y = other.y;
			}
			else
			{
				c2.z = other.z;
			}
			break;
		}
	}
	q->c1 = c1;
	q->c2 = c2;
	q->radius = r;
}

// bsBvh_Ray against bsBvh_Sweep's ray answer `sweep` (result `sweepResult`, already equal to the
// brute-force bsSweepList's): the same result, hit, t and triangle bit for bit, the hit triangle's
// face normal turned against the motion, and every other byte zero. (The sweep's normal is that of
// the mesh's point nearest the stop centre, which is the same vector unless the centre lies off the
// plane by more than 1e-12 of its magnitude, as with coordinates of 1e16.) Returns 0, or 7 (result,
// hit, t or triangle) or 8 (normal, padding).
static int CompareRayQuery(const bsBvh* bvh, const bsTriangle* tris, const bsSweepInput* in,
	bsResult sweepResult, const bsSweepOutput* sweep, bsRayOutput* r, bsResult* rr)
{
	bsRayInput ray = {in->c1, in->c2};
	memset(r, 0xA5, sizeof *r);
	*rr = bsBvh_Ray(bvh, &ray, r);
	if (*rr != sweepResult || r->hit != sweep->hit || memcmp(&r->t, &sweep->t, sizeof r->t) != 0 ||
		r->triangle != sweep->triangle)
	{
		return 7;
	}
	bsRayOutput expect;
	memset(&expect, 0, sizeof expect);
	expect.t = sweep->t;
	expect.triangle = sweep->triangle;
	expect.hit = sweep->hit;
	if (sweep->hit)
	{
		bsVec3 n = tris[sweep->triangle].n;
		expect.normal = bsDot(n, bsSub(in->c2, in->c1)) > 0.0 ? bsNeg(n) : n;
	}
	return memcmp(&expect, r, sizeof expect) != 0 ? 8 : 0;
}

// Compares the BVH with bsSweepList for one query (and, for the ray method, bsBvh_Ray with both). Returns 0 when they agree; otherwise a code
// and, when verbose, the details.
static int CompareQuery(const bsBvh* bvh, const bsTriangle* tris, uint32_t count, bsMethod method,
	const bsSweepInput* in, bsQueryStats* stats, bool verbose)
{
	bsSweepOutput a, b;
	memset(&a, 0xA5, sizeof a);
	memset(&b, 0x5A, sizeof b);
	bsResult ra = bsBvh_Sweep(bvh, method, in, &a, stats);
	// The ray method's open edges are the build's (only that method reads them).
	uint8_t* open = method == bs_methodRay ? malloc(count > 0 ? count : 1) : NULL;
	ENSURE(method != bs_methodRay || open != NULL);
	if (open != NULL)
	{
		bsBvh_OpenEdges(bvh, open);
	}
	bsResult rb = bsSweepListOpen(method, tris, open, count, in, &b);
	free(open);
	// Bit for bit, ties included: among contacts at the same t both keep the lowest caller's index,
	// whatever order the BVH visits them in.
	int code = 0;
	if (ra != rb)
	{
		code = 1;
	}
	else if (ra != bs_ok)
	{
		code = 0;
	}
	else if (a.hit != b.hit)
	{
		code = 2;
	}
	else if (memcmp(&a, &b, sizeof a) != 0)
	{
		code = a.t == b.t && a.triangle != b.triangle ? 6 : 3;
	}
	bsRayOutput r;
	bsResult rr = bs_ok;
	if (method == bs_methodRay && code == 0)
	{
		code = CompareRayQuery(bvh, tris, in, ra, &a, &r, &rr);
	}
	if (code != 0 && verbose)
	{
		FILE* f = stderr;
		fprintf(f, "  mismatch %d, method %s: c1 (%.17g, %.17g, %.17g) c2 (%.17g, %.17g, %.17g) "
			"R %.17g\n",
			code, bsMethodName(method), in->c1.x, in->c1.y, in->c1.z, in->c2.x, in->c2.y, in->c2.z,
			in->radius);
		fprintf(f, "    bvh:   %s hit %d t %.17g triangle %u %s/%s\n", bsResultString(ra), a.hit,
			a.t, a.triangle, bsTestName((bsTest)a.test), bsBranchName((bsBranch)a.branch));
		fprintf(f, "    brute: %s hit %d t %.17g triangle %u %s/%s\n", bsResultString(rb), b.hit,
			b.t, b.triangle, bsTestName((bsTest)b.test), bsBranchName((bsBranch)b.branch));
		if (code >= 7)
		{
			fprintf(f, "    bsBvh_Ray: %s hit %d t %.17g triangle %u normal (%.17g, %.17g, %.17g)\n",
				bsResultString(rr), r.hit, r.t, r.triangle, r.normal.x, r.normal.y, r.normal.z);
		}
	}
	return code;
}

typedef struct CompareWorker
{
	bsQueryStats stats;
	size_t firstFailure;
	char padding[64];
} CompareWorker;

typedef struct CompareJob
{
	const bsBvh* bvh;
	const bsTriangle* tris;
	uint32_t count;
	bsMethod method;
	const bsSweepInput* inputs;
	CompareWorker* workers;
} CompareJob;

static void CompareRange(void* context, size_t begin, size_t end, int worker)
{
	CompareJob* job = context;
	CompareWorker* w = job->workers + worker;
	for (size_t i = begin; i < end; ++i)
	{
		int code = CompareQuery(job->bvh, job->tris, job->count, job->method, job->inputs + i,
			&w->stats, false);
		if (code != 0)
		{
			if (i < w->firstFailure)
			{
				w->firstFailure = i;
			}
		}
	}
}

// Runs `queries` random queries per method on the scene and compares each with the brute force.
static int CompareScene(const char* name, const bsTriangle* tris, uint32_t count,
	const bsBvhOptions* options, size_t queries, uint64_t seed, double scale)
{
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, options) == bs_ok);
	bsSweepInput* inputs = malloc(queries * sizeof(bsSweepInput));
	int threads = bsResolveThreads(0, queries);
	CompareWorker* workers = malloc((size_t)threads * sizeof(CompareWorker));
	if (inputs == NULL || workers == NULL)
	{
		free(inputs);
		free(workers);
		bsBvh_Destroy(&bvh);
		ENSURE(false);
	}
	SceneBox box = SceneBounds(tris, count);
	int failed = 0;
	for (int m = 0; m < bs_methodCount && !failed; ++m)
	{
		bsRng rng = bsMakeRng(seed + (uint64_t)m);
		for (size_t i = 0; i < queries; ++i)
		{
			MakeQuery(tris, count, box, scale, &rng, inputs + i);
		}
		memset(workers, 0, (size_t)threads * sizeof(CompareWorker));
		for (int w = 0; w < threads; ++w)
		{
			workers[w].firstFailure = SIZE_MAX;
		}
		CompareJob job = {&bvh, tris, count, (bsMethod)m, inputs, workers};
		double t0 = Now();
		bsParallelFor(threads, queries, 256, CompareRange, &job);
		double secs = Now() - t0;
		bsQueryStats total = {0, 0, 0, 0};
		size_t firstFailure = SIZE_MAX;
		for (int w = 0; w < threads; ++w)
		{
			total.queries += workers[w].stats.queries;
			total.nodesVisited += workers[w].stats.nodesVisited;
			total.trianglesTested += workers[w].stats.trianglesTested;
			total.hits += workers[w].stats.hits;
			if (workers[w].firstFailure < firstFailure)
			{
				firstFailure = workers[w].firstFailure;
			}
		}
		printf("  %-20s %-9s %7zu queries: %5.1f%% hit, %6.1f nodes and %6.1f triangles per query "
			"(brute force %u), %.2f s\n",
			name, bsMethodName((bsMethod)m), queries, 100.0 * (double)total.hits / (double)queries,
			(double)total.nodesVisited / (double)queries,
			(double)total.trianglesTested / (double)queries, count, secs);
		if (firstFailure != SIZE_MAX)
		{
			fprintf(stderr, "%s: query %zu disagrees with the brute force\n", name, firstFailure);
			CompareQuery(&bvh, tris, count, (bsMethod)m, inputs + firstFailure, NULL, true);
			failed = 1;
		}
		else if (total.queries != queries)
		{
			fprintf(stderr, "%s: stats count %llu queries for %zu\n", name,
				(unsigned long long)total.queries, queries);
			failed = 1;
		}
	}
	free(inputs);
	free(workers);
	bsBvh_Destroy(&bvh);
	return failed;
}

// Queries the float slab test cannot take (huge coordinates) and edge cases of the API.
static int SpecialQueryTest(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeHeightfieldScene(9, 20, 10, &tris, &count) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	bsSweepInput cases[] = {
		// From far away (beyond the float slab range: scanned) straight through the scene.
		{{0.5, 1e35, 0.5}, {0.5, -1.0, 0.5}, 0.01},
		{{0.5, 1e20, 0.5}, {0.5, -1.0, 0.5}, 0.01},
		{{-1e25, 0.05, 0.5}, {1e25, 0.05, 0.5}, 0.02},
		// A radius larger than the scene.
		{{0.5, 3.0, 0.5}, {0.5, -3.0, 0.5}, 5.0},
		{{0.5, 3.0, 0.5}, {0.5, 2.0, 0.5}, 1e31},
		// Zero radius, zero length, far outside.
		{{0.5, 0.0, 0.5}, {0.5, 0.0, 0.5}, 0.0},
		{{5.0, 5.0, 5.0}, {5.0, 5.0, 5.0}, 0.1},
		// Motion along one axis only, tiny components.
		{{0.5, 0.5, 0.5}, {0.5, -0.5, 0.5 + 1e-300}, 0.01},
		{{0.5, 0.5, 0.5}, {0.5 + 1e-40, -0.5, 0.5}, 0.01},
	};
	for (int m = 0; m < bs_methodCount; ++m)
	{
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		{
			if (CompareQuery(&bvh, tris, count, (bsMethod)m, cases + i, NULL, true) != 0)
			{
				fprintf(stderr, "special case %zu\n", i);
				ENSURE(false);
			}
		}
	}

	// Invalid inputs: the error of bsMakeSweep, and a miss that stays put.
	bsSweepInput badRadius = {{0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, -1.0};
	bsSweepInput badC2 = {{0.5, 0.5, 0.5}, {0.5, (double)NAN, 0.5}, 0.01};
	bsSweepOutput out;
	bsQueryStats stats = {0, 0, 0, 0};
	ENSURE(bsBvh_Sweep(&bvh, bs_methodExact, &badRadius, &out, &stats) == bs_errNegativeRadius);
	ENSURE(out.hit == 0 && out.t == 1.0 && out.triangle == BS_NO_TRIANGLE);
	ENSURE(out.center.y == -0.5);
	ENSURE(bsBvh_Sweep(&bvh, bs_methodExact, &badC2, &out, &stats) == bs_errNonFinite);
	ENSURE(out.hit == 0 && out.t == 1.0 && out.triangle == BS_NO_TRIANGLE);
	ENSURE(out.center.y == 0.5);
	ENSURE(bsBvh_Sweep(&bvh, bs_methodCount, cases, &out, &stats) == bs_errInvalidArgument);
	ENSURE(out.hit == 0 && out.triangle == BS_NO_TRIANGLE);
	ENSURE(stats.queries == 3 && stats.hits == 0 && stats.nodesVisited == 0);

	// bsBvh_Ray's own invalid inputs: NULLs, and what bsMakeSweep rejects (finite coordinates whose
	// squared length overflows; CompareQuery checks the error and the miss against the sweep's).
	bsRayInput rayIn = {{0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}};
	bsRayOutput rayOut;
	ENSURE(bsBvh_Ray(NULL, &rayIn, &rayOut) == bs_errInvalidArgument);
	ENSURE(rayOut.hit == 0 && rayOut.t == 1.0 && rayOut.triangle == BS_NO_TRIANGLE);
	ENSURE(bsBvh_Ray(&bvh, NULL, &rayOut) == bs_errInvalidArgument);
	ENSURE(bsBvh_Ray(&bvh, &rayIn, NULL) == bs_errInvalidArgument);
	ENSURE(bsBvh_Ray(&bvh, &rayIn, &rayOut) == bs_ok && rayOut.hit == 1);
	bsSweepInput overflow = {{1e200, 0.5, 0.5}, {-1e200, 0.5, 0.5}, 0.0};
	bsRayInput rayOverflow = {overflow.c1, overflow.c2};
	ENSURE(bsBvh_Ray(&bvh, &rayOverflow, &rayOut) == bs_errNonFinite);
	ENSURE(CompareQuery(&bvh, tris, count, bs_methodRay, &overflow, NULL, true) == 0);
	ENSURE(CompareQuery(&bvh, tris, count, bs_methodRay, &badC2, NULL, true) == 0);
	bsBvh_Destroy(&bvh);

	// Empty and one-triangle BVHs.
	for (uint32_t n = 0; n <= 1; ++n)
	{
		ENSURE(bsBvh_Build(&bvh, tris, n, NULL) == bs_ok);
		bsRng rng = bsMakeRng(99);
		SceneBox box = SceneBounds(tris, count);
		for (int m = 0; m < bs_methodCount; ++m)
		{
			for (int i = 0; i < 2000; ++i)
			{
				bsSweepInput q;
				MakeQuery(tris, n > 0 ? n : 1, box, 1.0, &rng, &q);
				ENSURE(CompareQuery(&bvh, tris, n, (bsMethod)m, &q, NULL, true) == 0);
			}
		}
		bsSweepInput q = {{0.0, 1.0, 0.0}, {0.0, -1.0, 0.0}, 0.1};
		ENSURE(bsBvh_Sweep(&bvh, bs_methodExact, &q, &out, NULL) == bs_ok);
		ENSURE(n == 1 || (out.hit == 0 && out.t == 1.0 && out.center.y == -1.0));
		ENSURE(bsBvh_Sweep(&bvh, bs_methodExact, &badRadius, &out, NULL) == bs_errNegativeRadius);
		bsBvh_Destroy(&bvh);
	}
	free(tris);
	return 0;
}

// Copies tris scaled by `scale` about the origin and then moved by `offset`, remade with
// bsMakeTriangle (normal and plane constant recomputed at the new place). Returns NULL when out of
// memory.
static bsTriangle* TransformScene(const bsTriangle* tris, uint32_t count, double scale, bsVec3 offset,
	uint32_t* outCount)
{
	bsTriangle* out = malloc((size_t)count * sizeof(bsTriangle));
	if (out == NULL)
	{
		return NULL;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < count; ++i)
	{
		bsVec3 p1 = bsMulAdd(offset, scale, tris[i].p1);
		bsVec3 p2 = bsMulAdd(offset, scale, tris[i].p2);
		bsVec3 p3 = bsMulAdd(offset, scale, tris[i].p3);
		n += bsMakeTriangle(p1, p2, p3, out + n) == bs_ok;
	}
	*outCount = n;
	return out;
}

// A flat n x n grid of unit squares in the plane y = 0, two triangles each, at exactly representable
// coordinates: every box of the tree is flat (zero height), neighbouring leaves' boxes touch exactly
// at the boundaries of the wide nodes, and sweeps onto shared edges and vertices tie between
// triangles.
static bsTriangle* MakeGridScene(uint32_t n, uint32_t* outCount)
{
	bsTriangle* tris = malloc((size_t)2 * n * n * sizeof(bsTriangle));
	if (tris == NULL)
	{
		return NULL;
	}
	uint32_t k = 0;
	double h = 1.0 / (double)n;
	for (uint32_t i = 0; i < n; ++i)
	{
		for (uint32_t j = 0; j < n; ++j)
		{
			bsVec3 a = bsV3(i * h, 0.0, j * h), b = bsV3((i + 1) * h, 0.0, j * h);
			bsVec3 c = bsV3((i + 1) * h, 0.0, (j + 1) * h), d = bsV3(i * h, 0.0, (j + 1) * h);
			k += bsMakeTriangle(a, c, b, tris + k) == bs_ok;
			k += bsMakeTriangle(a, d, c, tris + k) == bs_ok;
		}
	}
	*outCount = k;
	return tris;
}

// Cases aimed at the 4-wide tree and its traversal: leaves of 1 to 4 triangles, flat boxes and exact
// box boundaries with many ties, a scene offset by 1e6 (float boxes coarse against the sweeps) and
// one scaled to 1e-3 (tiny pads and radii).
static int WideQueryTest(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeHeightfieldScene(21, 24, 8, &tris, &count) == bs_ok);
	for (int leaf = 1; leaf <= 4; ++leaf)
	{
		bsBvhOptions o = {16, leaf, leaf == 1 ? 0.0 : 1.0, 1};
		char name[32];
		snprintf(name, sizeof name, "leaves of <= %d", leaf);
		RUN_SUBTEST(BuildAndCheck(name, tris, count, &o, false));
		RUN_SUBTEST(CompareScene(name, tris, count, &o, 3000, 5000 + (uint64_t)leaf, 1.0));
	}

	uint32_t moved = 0;
	bsTriangle* far = TransformScene(tris, count, 1.0, bsV3(1e6, -1e6, 1e6), &moved);
	ENSURE(far != NULL && moved == count);
	RUN_SUBTEST(BuildAndCheck("offset 1e6", far, moved, NULL, false));
	RUN_SUBTEST(CompareScene("offset 1e6", far, moved, NULL, 3000, 5100, 1.0));
	free(far);
	bsTriangle* tiny = TransformScene(tris, count, 1e-3, bsV3(0.0, 0.0, 0.0), &moved);
	ENSURE(tiny != NULL && moved == count);
	RUN_SUBTEST(BuildAndCheck("scaled 1e-3", tiny, moved, NULL, false));
	RUN_SUBTEST(CompareScene("scaled 1e-3", tiny, moved, NULL, 3000, 5200, 1e-3));
	free(tiny);
	free(tris);

	tris = MakeGridScene(32, &count);
	ENSURE(tris != NULL && count == 2 * 32 * 32);
	RUN_SUBTEST(BuildAndCheck("flat grid", tris, count, NULL, false));
	RUN_SUBTEST(CompareScene("flat grid", tris, count, NULL, 5000, 5300, 1.0));
	free(tris);
	return 0;
}

// karabassi's box cull (bvh.c, bsBvhAxial) bounds a box's t by its smallest axial distance less the
// mesh's plane slack and a float margin. The scene: a bumpy grid and slivers near bsMakeTriangle's
// degeneracy limit, whose stored planes miss their vertices the most (Int4's point on the stored
// plane leaves the vertices' box by up to the slack). Queries aimed at vertices, edges and faces from
// above and at angles, starting touching (t = 0), grazing the plane at R, tangent to edges, of zero
// length; each compared byte for byte with the list loop.
static bsTriangle* MakeSliverScene(uint64_t seed, int cells, uint32_t* outCount)
{
	uint32_t count = (uint32_t)(2 * cells * cells + 400);
	bsTriangle* tris = malloc(count * sizeof *tris);
	if (tris == NULL)
	{
		return NULL;
	}
	bsRng rng = bsMakeRng(seed);
	double h = 0.1;
	uint32_t n = 0;
	for (int i = 0; i < cells; ++i)
	{
		for (int j = 0; j < cells; ++j)
		{
			bsVec3 p00 = bsV3(i * h, 0.02 * bsRng_Uniform(&rng), j * h);
			bsVec3 p10 = bsV3((i + 1) * h, 0.02 * bsRng_Uniform(&rng), j * h);
			bsVec3 p01 = bsV3(i * h, 0.02 * bsRng_Uniform(&rng), (j + 1) * h);
			bsVec3 p11 = bsV3((i + 1) * h, 0.02 * bsRng_Uniform(&rng), (j + 1) * h);
			bsVec3 quad[2][3] = {{p00, p01, p10}, {p10, p01, p11}};
			for (int k = 0; k < 2; ++k)
			{
				bsTriangle* t = tris + n;
				if (bsMakeTriangle(quad[k][0], quad[k][1], quad[k][2], t) != bs_ok)
				{
					continue;
				}
				++n;
			}
		}
	}
	// Slivers just above bsMakeTriangle's limit (twice the area > 1e-14 of the longest edge squared),
	// standing and lying above the grid.
	for (int k = 0; k < 400; ++k)
	{
		bsVec3 a = bsV3(bsRng_Range(&rng, 0.1, cells * h - 0.1), bsRng_Range(&rng, 0.03, 0.2),
			bsRng_Range(&rng, 0.1, cells * h - 0.1));
		bsVec3 e = bsScale(bsRng_Range(&rng, 0.05, 0.3), bsRng_UnitVector(&rng));
		bsVec3 off = bsScale(bsRng_Range(&rng, 2e-14, 1e-9) * bsLength(e), bsRng_UnitVector(&rng));
		bsVec3 b = bsAdd(a, e);
		bsVec3 c = bsAdd(bsAdd(a, bsScale(bsRng_Uniform(&rng), e)), off);
		if (bsMakeTriangle(a, b, c, tris + n) == bs_ok)
		{
			++n;
		}
	}
	*outCount = n;
	return tris;
}

static void MakeAdversarialQuery(const bsTriangle* tris, uint32_t count, bsRng* rng, bsSweepInput* in)
{
	const bsTriangle* t = tris + bsRng_Below(rng, count);
	double radius = bsRng_Range(rng, 0.002, 0.06);
	bsVec3 v[3] = {t->p1, t->p2, t->p3};
	bsVec3 target;
	switch (bsRng_Below(rng, 3))
	{
		case 0:
			target = v[bsRng_Below(rng, 3)];  // a vertex
			break;
		case 1:
		{
			int i = (int)bsRng_Below(rng, 3);
			target = bsLerp(v[i], v[i == 2 ? 0 : i + 1], bsRng_Uniform(rng));  // an edge point
			break;
		}
		default:
		{
			double a = bsRng_Uniform(rng), b = bsRng_Uniform(rng) * (1.0 - a);
			target = bsAdd(v[0], bsAdd(bsScale(a, bsSub(v[1], v[0])), bsScale(b, bsSub(v[2], v[0]))));
			break;
		}
	}
	bsVec3 up = t->n.y < 0.0 ? bsNeg(t->n) : t->n;
	double length = bsRng_Range(rng, 0.005, 0.3);
	switch (bsRng_Below(rng, 6))
	{
		case 0:  // head-on from above, ending at or past the target
			in->c1 = bsMulAdd(target, radius + bsRng_Range(rng, 0.0, length), up);
			in->c2 = bsMulAdd(in->c1, -length, up);
			break;
		case 1:  // starting touching at R from the target (t = 0), moving on in any direction
			in->c1 = bsMulAdd(target, radius, bsRng_UnitVector(rng));
			in->c2 = bsMulAdd(in->c1, length, bsRng_UnitVector(rng));
			break;
		case 2:  // grazing: along the plane at R from it
		{
			bsVec3 along = bsCross(up, bsRng_UnitVector(rng));
			double l = bsLength(along);
			along = l > 0.0 ? bsScale(1.0 / l, along) : bsV3(1.0, 0.0, 0.0);
			in->c1 = bsMulAdd(bsMulAdd(target, radius, up), -0.5 * length, along);
			in->c2 = bsMulAdd(in->c1, length, along);
			break;
		}
		case 3:  // tangent: the path passes at exactly R from the target, sideways
		{
			bsVec3 dir = bsRng_UnitVector(rng);
			bsVec3 side = bsCross(dir, bsRng_UnitVector(rng));
			double l = bsLength(side);
			side = l > 0.0 ? bsScale(1.0 / l, side) : up;
			bsVec3 mid = bsMulAdd(target, radius, side);
			in->c1 = bsMulAdd(mid, -0.5 * length, dir);
			in->c2 = bsMulAdd(mid, 0.5 * length, dir);
			break;
		}
		case 4:  // zero length, at R or just inside
			in->c1 = bsMulAdd(target, radius * bsRng_Range(rng, 0.9, 1.0), bsRng_UnitVector(rng));
			in->c2 = in->c1;
			break;
		default:  // oblique from above and to the side
		{
			bsVec3 dir = bsRng_UnitVector(rng);
			dir = bsDot(dir, up) > 0.0 ? bsNeg(dir) : dir;
			in->c2 = bsMulAdd(target, bsRng_Range(rng, -radius, radius), up);
			in->c1 = bsMulAdd(in->c2, -length, dir);
			break;
		}
	}
	in->radius = radius;
}

// The largest distance of a vertex from its own stored plane, written apart from bvh.c's.
static double LargestPlaneDistance(const bsTriangle* tris, uint32_t count)
{
	double largest = 0.0;
	for (uint32_t i = 0; i < count; ++i)
	{
		bsVec3 v[3] = {tris[i].p1, tris[i].p2, tris[i].p3};
		for (int k = 0; k < 3; ++k)
		{
			double d = fabs(bsDot(tris[i].n, v[k]) + tris[i].delta);
			largest = d > largest ? d : largest;
		}
	}
	return largest;
}

static int CompareAdversarial(const bsBvh* bvh, const bsTriangle* tris, uint32_t count, bsRng* rng,
	int queries, int* failures)
{
	for (int q = 0; q < queries; ++q)
	{
		bsSweepInput in;
		MakeAdversarialQuery(tris, count, rng, &in);
		if (CompareQuery(bvh, tris, count, bs_methodKarabassi, &in, NULL, *failures == 0) != 0)
		{
			*failures += 1;
		}
	}
	return 0;
}

// The cull's float margin: a flat grid far from the origin (x, z near 1024, where a float's rounding
// is 6e-5 and the box bound's products cancel) and oblique queries through a grid vertex, all in
// dyadic coordinates: the six triangles around the vertex report the same Int4 t exactly, the
// lowest index must win, and their leaves' bounds sit right at that t.
static int KarabassiCullFarTest(void)
{
	int cells = 32;
	double h = 0.125;
	uint32_t count = 0;
	bsTriangle* tris = malloc((size_t)(2 * cells * cells) * sizeof *tris);
	ENSURE(tris != NULL);
	for (int i = 0; i < cells; ++i)
	{
		for (int j = 0; j < cells; ++j)
		{
			bsVec3 p00 = bsV3(1024.0 + i * h, 0.0, 1024.0 + j * h);
			bsVec3 p10 = bsV3(1024.0 + (i + 1) * h, 0.0, 1024.0 + j * h);
			bsVec3 p01 = bsV3(1024.0 + i * h, 0.0, 1024.0 + (j + 1) * h);
			bsVec3 p11 = bsV3(1024.0 + (i + 1) * h, 0.0, 1024.0 + (j + 1) * h);
			bool flip = ((i + j) & 1) != 0;
			ENSURE(bsMakeTriangle(p00, p01, flip ? p11 : p10, tris + count++) == bs_ok);
			ENSURE(bsMakeTriangle(flip ? p00 : p10, p01, p11, tris + count++) == bs_ok);
		}
	}
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	bsRng rng = bsMakeRng(79);
	int failures = 0;
	for (int q = 0; q < 4000; ++q)
	{
		int i = 1 + (int)bsRng_Below(&rng, (uint32_t)cells - 1);
		int j = 1 + (int)bsRng_Below(&rng, (uint32_t)cells - 1);
		bsVec3 target = bsV3(1024.0 + i * h, 0.0, 1024.0 + j * h);
		bsVec3 back = bsV3(((int)bsRng_Below(&rng, 65) - 32) / 64.0, (8 + (int)bsRng_Below(&rng, 25)) / 64.0,
			((int)bsRng_Below(&rng, 65) - 32) / 64.0);
		double past = (double)(1 + bsRng_Below(&rng, 4)) / 4.0;
		bsSweepInput in = {bsAdd(target, back), bsMulSub(target, past, back), 1.0 / 128.0};
		if (CompareQuery(&bvh, tris, count, bs_methodKarabassi, &in, NULL, failures == 0) != 0)
		{
			++failures;
		}
	}
	printf("  karabassi cull far from the origin: %u triangles, 4000 queries through vertices, %d "
		"disagree\n", count, failures);
	bsBvh_Destroy(&bvh);
	free(tris);
	ENSURE(failures == 0);
	return 0;
}

static int KarabassiCullTest(void)
{
	uint32_t count = 0;
	bsTriangle* tris = MakeSliverScene(77, 24, &count);
	ENSURE(tris != NULL && count > 1500);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	double largest = LargestPlaneDistance(tris, count);
	ENSURE(bvh.planeSlack >= largest && largest > 0.0);
	bsRng rng = bsMakeRng(78);
	int failures = 0;
	RUN_SUBTEST(CompareAdversarial(&bvh, tris, count, &rng, 30000, &failures));
	// The refit recomputes the slack: the same triangles moved up by 1 (new planes, new rounding).
	bsTriangle* moved = malloc(count * sizeof *moved);
	ENSURE(moved != NULL);
	for (uint32_t i = 0; i < count; ++i)
	{
		bsVec3 up = bsV3(0.0, 1.0, 0.0);
		ENSURE(bsMakeTriangle(bsAdd(tris[i].p1, up), bsAdd(tris[i].p2, up), bsAdd(tris[i].p3, up),
			moved + i) == bs_ok);
	}
	ENSURE(bsBvh_Refit(&bvh, moved) == bs_ok);
	double movedLargest = LargestPlaneDistance(moved, count);
	ENSURE(bvh.planeSlack >= movedLargest && movedLargest > 0.0);
	RUN_SUBTEST(CompareAdversarial(&bvh, moved, count, &rng, 10000, &failures));
	printf("  karabassi cull: %u triangles (400 slivers), plane slack %.3g, 40000 queries, %d "
		"disagree\n", count, largest, failures);
	bsBvh_Destroy(&bvh);
	free(moved);
	free(tris);
	ENSURE(failures == 0);
	RUN_SUBTEST(KarabassiCullFarTest());
	return 0;
}

// The sweep's contact lookup (bsSweep_RefinesContact) keeps bsSweep_Finish's point and normal when the
// mesh's nearest triangle is the hit's own, and takes the neighbour's otherwise: both cases, against
// the list loop, bit for bit. The scene makes the other case common: fans of triangles around shared
// vertices (an edge or vertex contact has a neighbour at the same distance), coincident copies with
// lower and higher indices, reversed copies, and small triangles floating just above the surface,
// inside a stopped sphere, nearer its centre than the hit.
static int ContactLookupTest(void)
{
	bsRng rng = bsMakeRng(97);
	bsTriangle tris[200];
	uint32_t count = 0;
	for (int f = 0; f < 4; ++f)
	{
		bsVec3 hub = bsV3(f * 2.0, 0.0, 0.0);
		int spokes = 5 + f;
		for (int k = 0; k < spokes; ++k)
		{
			double a0 = 2.0 * BS_PI * k / spokes;
			double a1 = 2.0 * BS_PI * (k + 1) / spokes;
			bsVec3 p0 = bsAdd(hub, bsV3(cos(a0), 0.1 * (double)(k % 3) - 0.1, sin(a0)));
			bsVec3 p1 = bsAdd(hub, bsV3(cos(a1), 0.1 * (double)((k + 1) % 3) - 0.1, sin(a1)));
			ENSURE(bsMakeTriangle(hub, p1, p0, tris + count++) == bs_ok);
			if (k % 3 == 0)
			{
				tris[count] = tris[count - 1];  // a coincident copy after it
				++count;
			}
			if (k % 4 == 1)
			{
				ENSURE(bsMakeTriangle(hub, p0, p1, tris + count++) == bs_ok);  // reversed
			}
		}
	}
	// Coincident copies before their originals: swap a few pairs so the lower index comes second.
	bsTriangle first = tris[0];
	tris[0] = tris[1];
	tris[1] = first;
	for (int k = 0; k < 12; ++k)
	{
		bsVec3 c = bsV3(bsRng_Range(&rng, -0.5, 6.5), bsRng_Range(&rng, 0.02, 0.2), bsRng_Range(&rng, -0.6, 0.6));
		bsVec3 u = bsV3(bsRng_Range(&rng, -0.1, 0.1), bsRng_Range(&rng, -0.05, 0.05), bsRng_Range(&rng, -0.1, 0.1));
		bsVec3 w = bsV3(bsRng_Range(&rng, -0.1, 0.1), bsRng_Range(&rng, -0.05, 0.05), bsRng_Range(&rng, -0.1, 0.1));
		if (bsMakeTriangle(c, bsAdd(c, u), bsAdd(c, w), tris + count) == bs_ok)
		{
			++count;
		}
	}
	ENSURE(count <= 200);
	bsBvhOptions options = bsDefaultBvhOptions();
	options.maxLeafSize = 2;
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, &options) == bs_ok);
	int failures = 0;
	int own = 0, other = 0;
	for (int q = 0; q < 6000; ++q)
	{
		// Towards a hub, a spoke or anywhere on the fans; straight down, slanted or along the surface.
		int f = (int)bsRng_Below(&rng, 4);
		bsVec3 target = bsV3(f * 2.0, 0.0, 0.0);
		if (q % 3 == 1)
		{
			double a = 2.0 * BS_PI * (double)bsRng_Below(&rng, (uint32_t)(5 + f)) / (5 + f);
			double r = bsRng_Range(&rng, 0.0, 1.0);
			target = bsAdd(target, bsV3(r * cos(a), 0.0, r * sin(a)));
		}
		else if (q % 3 == 2)
		{
			target = bsAdd(target, bsV3(bsRng_Range(&rng, -1.0, 1.0), 0.0, bsRng_Range(&rng, -1.0, 1.0)));
		}
		double radius = bsRng_Range(&rng, 0.01, 0.4);
		bsVec3 back = bsV3(bsRng_Range(&rng, -0.5, 0.5), bsRng_Range(&rng, 0.0, 1.0), bsRng_Range(&rng, -0.5, 0.5));
		if (q % 5 == 0)
		{
			back = bsV3(0.0, bsRng_Range(&rng, 0.2, 1.0), 0.0);
		}
		bsSweepInput in = {bsAdd(target, back), bsMulSub(target, bsRng_Range(&rng, 0.0, 1.0), back), radius};
		for (int m = 0; m < 2; ++m)
		{
			bsMethod method = m == 0 ? bs_methodKarabassi : bs_methodExact;
			if (m == 1)
			{
				in.c1 = bsMulAdd(target, bsRng_Range(&rng, -0.5, 0.5) * radius, bsV3(0.0, 1.0, 0.0));  // may start in contact
			}
			if (CompareQuery(&bvh, tris, count, method, &in, NULL, failures == 0) != 0)
			{
				++failures;
			}
			// Which case the lookup was: the list's nearest triangle to the stop centre, within the
			// hit's own distance, against the hit.
			bsSweepOutput out;
			bsFeature feature = bs_featureFace;
			if (bsSweepList(method, tris, count, &in, &out) == bs_ok && out.hit)
			{
				bsSweep s;
				ENSURE(bsMakeSweep(&in, &s) == bs_ok);
				bsTriangleHit hit = {out.t, out.test, out.branch, out.feature};
				bsSweepOutput finished;
				feature = bsSweep_Finish(&s, tris + out.triangle, out.triangle, &hit, &finished);
				if (bsSweep_RefinesContact(method, out.t, feature))
				{
					bsClosestPointInput near = {finished.center, bsDistance(finished.center, finished.point)};
					bsClosestPointOutput contact;
					ENSURE(bsClosestPointList(tris, count, &near, &contact) == bs_ok && contact.hit);
					own += contact.triangle == out.triangle;
					other += contact.triangle != out.triangle;
				}
			}
		}
	}
	printf("  contact lookup: %u triangles, 12000 queries, %d kept the hit's own point, %d took another "
		"triangle's, %d disagree\n", count, own, other, failures);
	bsBvh_Destroy(&bvh);
	ENSURE(failures == 0);
	ENSURE(own > 100 && other > 100);
	return 0;
}

static int QueryTest(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;

	// The main scene: a 70 x 70 heightfield with 20 boxes, 10,040 triangles.
	ENSURE(bsMakeHeightfieldScene(11, 70, 20, &tris, &count) == bs_ok);
	ENSURE(count >= 10000);
	RUN_SUBTEST(CompareScene("heightfield+boxes", tris, count, NULL, 100000, 1000, 1.0));
	free(tris);

	ENSURE(bsMakeTriangleSoup(12, 10000, &tris, &count) == bs_ok);
	RUN_SUBTEST(CompareScene("soup", tris, count, NULL, 5000, 2000, 1.0));
	free(tris);

	tris = MakeCoincidentScene(400, 200, &count);
	ENSURE(tris != NULL);
	RUN_SUBTEST(CompareScene("coincident", tris, count, NULL, 5000, 3000, 1.0));
	free(tris);

	// The deep chain spans 1 .. 5e37 (a tree at the depth limit, a big leaf at the bottom): queries
	// sized for its small end, its middle and its big end.
	tris = MakeDeepScene(80, &count);
	ENSURE(tris != NULL);
	RUN_SUBTEST(CompareScene("deep chain (small)", tris, count, &deepOptions, 5000, 4000, 1.0));
	RUN_SUBTEST(CompareScene("deep chain (middle)", tris, count, &deepOptions, 5000, 4001, 1e18));
	RUN_SUBTEST(CompareScene("deep chain (big)", tris, count, &deepOptions, 5000, 4002, 1e28));
	// Beyond 1e30 the float slab test is not trusted: these queries scan every triangle.
	RUN_SUBTEST(CompareScene("deep chain (huge)", tris, count, &deepOptions, 2000, 4003, 1e36));
	free(tris);

	RUN_SUBTEST(SpecialQueryTest());
	RUN_SUBTEST(WideQueryTest());
	RUN_SUBTEST(KarabassiCullTest());
	RUN_SUBTEST(ContactLookupTest());
	return 0;
}

int BvhTest(void)
{
	RUN_SUBTEST(ProceduralTest());
	RUN_SUBTEST(TreeValidityTest());
	RUN_SUBTEST(SmallSplitTest());
	RUN_SUBTEST(PartitionSideTest());

	RUN_SUBTEST(ChunkedTopLevelsTest());
	RUN_SUBTEST(BigBuildTest());
	RUN_SUBTEST(QueryTest());
	return 0;
}
