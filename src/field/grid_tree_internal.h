// grid_tree_internal.h — the compressed tree's inline lookups (field.h: bsGridTree), for its build
// (grid_tree.c) and the rules' hot loop (field.c): a cell's key, its node, its subgrid cell, its
// plane, and the cell they make together. A program asks bsGridTree_Cell, _Nearest or _Trilinear.
#pragma once

#include "blobsim/field.h"

#include <stdint.h>

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
