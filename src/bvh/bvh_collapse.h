// bvh_collapse.h — collapsing the binary tree into wide nodes, shared by the 4-wide tree of every
// query (bvh_build.c) and the rays' 8-wide copy (ray_bvh.c): which binary nodes become one wide
// node's slots, and their boxes as structure-of-arrays rows.
#ifndef BLOBSIM_BVH_COLLAPSE_H
#define BLOBSIM_BVH_COLLAPSE_H

#include "blobsim/bvh.h"

#include <math.h>
#include <string.h>

// Half the surface area, in double (no overflow for large float boxes).
static inline double bsHalfArea(const float* min, const float* max)
{
	double dx = (double)max[0] - (double)min[0];
	double dy = (double)max[1] - (double)min[1];
	double dz = (double)max[2] - (double)min[2];
	return dx * dy + dy * dz + dz * dx;
}

// The slots of the wide node made from binary node `root` (interior), at most `width` of them:
// they start as root's two children; while fewer than `width`, the interior slot with the largest
// surface area (the likeliest to be entered) is replaced by its two children, left before right.
// Returns how many (2..width).
static inline uint32_t bsBvh_OpenSlots(const bsBvhNode* nodes, uint32_t root, uint32_t width,
	uint32_t* slot)
{
	uint32_t n = 2;
	slot[0] = nodes[root].leftFirst;
	slot[1] = slot[0] + 1;
	while (n < width)
	{
		int open = -1;
		double openArea = -1.0;
		for (uint32_t i = 0; i < n; ++i)
		{
			const bsBvhNode* c = nodes + slot[i];
			double area = c->count == 0 ? bsHalfArea(c->min, c->max) : -1.0;
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
		uint32_t left = nodes[slot[open]].leftFirst;
		memmove(slot + open + 2, slot + open + 1, (n - (uint32_t)open - 1) * sizeof slot[0]);
		slot[open] = left;
		slot[open + 1] = left + 1;
		++n;
	}
	return n;
}

// The boxes of binary nodes slot[0, n) as rows min[axis * width + i], max likewise; the slots from
// n to width unused: an inf box that every slab test misses.
static inline void bsBvh_SlotBoxes(const bsBvhNode* nodes, const uint32_t* slot, uint32_t n,
	uint32_t width, float* min, float* max)
{
	for (uint32_t i = 0; i < width; ++i)
	{
		for (uint32_t a = 0; a < 3; ++a)
		{
			min[a * width + i] = i < n ? nodes[slot[i]].min[a] : INFINITY;
			max[a * width + i] = i < n ? nodes[slot[i]].max[a] : INFINITY;
		}
	}
}

#endif
