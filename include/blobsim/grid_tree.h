// grid_tree.h — the compressed distance/normal grid of Ilmonen, Takala & Laitinen (WSCG 2006,
// section 3.2): a two-level tree over a dense bsDistanceGrid (distance_grid.h). The grid is cut into
// blocks of B x B x B cells. A block whose cells the tree can stand for within the tolerances becomes
// one "plane": a distance affine in the cell's position, c + g . (i, j, k) (indices local to the
// block), and one normal, the normalized mean of its cells'. Any other block (where the surface
// curves, or across an edge of the mesh) keeps its B^3 cells as they are, as a dense subgrid. Far from
// the surface the blurred normals of the paper's method turn slowly and the distance is nearly
// linear, so most blocks are planes and the grid is dense only near high curvature.
//
// A block is a plane when, at every one of its cells' centres, the plane's distance is within
// distanceTolerance cells of the dense grid's and the mean normal within maxAngle of the cell's.
// Optionally (farDistance > 0) a block whose cells are all farther than farDistance from the surface,
// on one side, is a plane whatever its error: its distance is then the block's smallest (a lower
// bound, never nearer than farDistance) and the rules that act only nearer than farDistance
// (field.h) see exactly what the dense grid gives them.
//
// Lookups mirror the dense grid's: nearest (the cell containing the point, the plane evaluated at its
// centre) and trilinear (the blend of the 8 cells around the point, each as the tree stores it; inside
// one plane block, the plane at the point, which is the same blend). bsGridTreeStats says, measured at
// every cell of the grid, how far the tree's cells are from the dense grid's: the nearest lookup is
// within those bounds of the dense nearest lookup at any point; the trilinear distance too (a convex
// blend); the trilinear normal within asin(2 sin(a/2) / |m|) where a is the cell bound and |m| the
// length of the dense blend of the 8 normals before it is normalized.
#pragma once

#include "blobsim/base.h"
#include "blobsim/distance_grid.h"
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bsGridTreeDef
{
	int blockSize;             // B, cells along a block's edge: 2, 4, 8 or 16 [4]
	double distanceTolerance;  // a plane's largest distance error, in cells (>= 0) [0.25]
	double maxAngle;           // a plane's largest normal error, degrees (0..180) [10]
	double farDistance;        // > 0: blocks all beyond it are planes (see above); 0: none [0]
} bsGridTreeDef;

bsGridTreeDef bsDefaultGridTreeDef(void);

// bs_errInvalidArgument for a setting out of range.
bsResult bsGridTreeDef_Check(const bsGridTreeDef* def);

// A block: its cell (li, lj, lk) (local indices) has the distance c + g . (li, lj, lk) + the
// subgrid's cell's distance and the normal n + the subgrid's cell's normal. A plane's subgrid is
// subgrid 0, all zeros; a dense block's plane is all zeros and its subgrid holds its cells. So every
// lookup is the same arithmetic, without a branch on the block's kind, and exact for both (x + 0 = x).
typedef struct bsGridTreeNode
{
	float c;
	float g[3];
	float n[3];
	uint32_t first;  // index in subgrids of the block's first cell (0: a plane, subgrid 0)
} bsGridTreeNode;

_Static_assert(sizeof(bsGridTreeNode) == 32, "a node is eight words");

// What one cell index along one axis gives a lookup, so that it needs no shift or mask by the
// block size: the index's part of its node's index (low 32 bits) and of its cell's offset in the
// subgrid (high 32 bits; the three axes' sum without a carry between them), and the index local to
// its block as a float (the plane's coordinate).
typedef struct bsGridTreeAxis
{
	uint64_t key;
	float local;
	uint32_t pad;
} bsGridTreeAxis;

typedef struct bsGridTree
{
	int nx, ny, nz;           // the dense grid's cells
	double cellSize;
	bsVec3 origin;
	int blockShift;           // B = 1 << blockShift
	int bx, by, bz;           // blocks along each axis (the last ones may be partly outside)
	bsGridTreeNode* nodes;    // bx by bz, x fastest
	bsGridCell* subgrids;     // B^3 cells a subgrid, local x fastest; subgrid 0 is all zeros
	uint32_t subgridCount;    // the zero one included
	float farDistance;
	bsGridTreeAxis* axis[3];  // nx, ny and nz entries (one allocation, at axis[0])
} bsGridTree;

typedef struct bsGridTreeStats
{
	uint32_t blocks;
	uint32_t planes;           // of them, planes (farPlanes included)
	uint32_t farPlanes;        // planes only because all their cells are beyond farDistance
	uint64_t denseBytes;       // the dense grid's cells
	uint64_t treeBytes;        // nodes and subgrids
	// Measured at every cell centre, cells of far planes left out (their distance is a lower bound):
	double maxDistanceError;   // |tree - dense|, scene units
	double maxAngle;           // degrees between the normals
	bool farLowerBound;        // every cell of a far plane: same sign, nearer than dense, beyond far
} bsGridTreeStats;

// Builds the tree from a dense grid. *tree owns its arrays (bsGridTree_Free). Fails with
// bs_errInvalidArgument (NULL, an empty grid, a bad def) or bs_errOutOfMemory; *tree is then zeroed.
// stats may be NULL.
bsResult bsGridTree_Build(bsGridTree* tree, const bsDistanceGrid* grid, const bsGridTreeDef* def,
	bsGridTreeStats* stats);

void bsGridTree_Free(bsGridTree* tree);

// The bytes the tree's arrays take (nodes, subgrids and the axes' tables).
uint64_t bsGridTree_Bytes(const bsGridTree* tree);

// Cell (i, j, k) as the tree stores it (0 <= i < nx, ...): bsGridTree_CellAt, not inlined.
bsGridCell bsGridTree_Cell(const bsGridTree* tree, int i, int j, int k);

// The key of cell (i, j, k) (0 <= i < nx, ...): its node's index in the low 32 bits, its offset in
// its block's subgrid in the high ones.
static inline uint64_t bsGridTree_Key(const bsGridTree* tree, int i, int j, int k)
{
	return tree->axis[0][i].key + tree->axis[1][j].key + tree->axis[2][k].key;
}

static inline const bsGridTreeNode* bsGridTree_KeyNode(const bsGridTree* tree, uint64_t key)
{
	return tree->nodes + (uint32_t)key;
}

// The subgrid cell of a key whose node is node (subgrid 0's, all zeros, for a plane).
static inline const bsGridCell* bsGridTree_KeySub(const bsGridTree* tree, const bsGridTreeNode* node, uint64_t key)
{
	return tree->subgrids + node->first + (size_t)(key >> 32);
}

// The plane of cell (i, j, k)'s node at its local indices: c + g . (li, lj, lk), summed in this order
// (0 for a dense block).
static inline float bsGridTree_PlaneAt(const bsGridTree* tree, const bsGridTreeNode* node, int i, int j, int k)
{
	return node->c + node->g[0] * tree->axis[0][i].local + node->g[1] * tree->axis[1][j].local +
		node->g[2] * tree->axis[2][k].local;
}

// A cell as the tree stores it from its node, its plane's value there (bsGridTree_PlaneAt) and its
// subgrid cell: the plane plus the subgrid cell.
static inline bsGridCell bsGridTreeNode_Sum(const bsGridTreeNode* node, float plane, const bsGridCell* sub)
{
	bsGridCell c;
	c.distance = plane + sub->distance;
	for (int a = 0; a < 3; ++a)
	{
		c.normal[a] = node->n[a] + sub->normal[a];
	}
	return c;
}

// No value the tree stores is -0 (the build stores x + 0, the same for any other x). So the plane
// at a cell is never -0 (a sum is -0 only when both its terms are, and c is not), adding the other
// part's +0 changes no value, and a lookup may read one part alone: a plane block's cell is its
// plane's value and its node's normal, a dense block's its subgrid cell as stored (the same bits as
// bsGridTreeNode_Sum).
static inline bsGridCell bsGridTreeNode_Plane(const bsGridTreeNode* node, float plane)
{
	bsGridCell c;
	c.distance = plane;
	for (int a = 0; a < 3; ++a)
	{
		c.normal[a] = node->n[a];
	}
	return c;
}

// Cell (i, j, k) as the tree stores it (0 <= i < nx, ...).
static inline bsGridCell bsGridTree_CellAt(const bsGridTree* tree, int i, int j, int k)
{
	uint64_t key = bsGridTree_Key(tree, i, j, k);
	const bsGridTreeNode* node = bsGridTree_KeyNode(tree, key);
	return bsGridTreeNode_Sum(node, bsGridTree_PlaneAt(tree, node, i, j, k), bsGridTree_KeySub(tree, node, key));
}

// The cell containing p, as the tree stores it. Returns false outside the grid (or for a NaN point).
bool bsGridTree_Nearest(const bsGridTree* tree, bsVec3 p, bsGridCell* out);

// The trilinear blend of the 8 cells around p (clamped to the centres at the border, as
// bsDistanceGrid_Trilinear). Returns false outside the grid.
bool bsGridTree_Trilinear(const bsGridTree* tree, bsVec3 p, bsGridCell* out);
