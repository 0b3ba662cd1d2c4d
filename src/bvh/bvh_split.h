// bvh_split.h — for tests only: one node's binned-SAH split decision, by the general path (every bin
// filled and swept) or by the path the build takes (a small node's from its few triangles directly),
// so a test can check that both always decide the same; and the side each triangle of a node takes
// in the partitions, which must be its bin's. Not part of the public API.
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct bsBvhSplitDecision
{
	bool found;   // some split leaves both sides non-empty
	int axis;     // the split, when found: bins [0, bin] on `axis` to the left
	int bin;
	double cost;  // the lowest cost (infinite when nothing is found)
} bsBvhSplitDecision;

// The decision for a node holding the float boxes min[i], max[i] (i < count, count <= 64, min <= max,
// finite) with `bins` bins (2 to 64) and the traversal cost, as bsBvh_Build makes it: `general`
// forces the all-bins path.
bsBvhSplitDecision bsBvh_SplitDecision(const float (*min)[3], const float (*max)[3], uint32_t count,
	int bins, double traversalCost, bool general);

// For a node holding those boxes (as above; `bins` 2 to 64, axis 0 to 2): the bin of each box's
// centroid on `axis` as the binning finds it (bin[i]), and whether the partitions put it left of a
// split after bin `split` (left[i]), which must be bin[i] <= split. Returns false (nothing written)
// when all centroids are equal on every axis (the node is not binned).
bool bsBvh_PartitionSides(const float (*min)[3], const float (*max)[3], uint32_t count, int bins,
	int axis, int split, int* bin, bool* left);
