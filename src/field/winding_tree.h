// winding_tree.h — the generalized winding number of a triangle mesh at many points, fast: a BVH's
// tree whose far nodes stand for their triangles by a dipole term (Barill et al., "Fast winding numbers
// for soups and clouds", 2018). The distance grid decides inside and outside with it, the mesh
// orientation (orientation.c) which side of each face is out.
#pragma once

#include "blobsim/bvh.h"
#include "blobsim/triangle.h"

// Per node of a BVH's binary tree: the vector area (sum of area times normal), the area-weighted
// centroid and the radius of a ball around it holding every vertex.
typedef struct bsWindingNode
{
	bsVec3 area;
	bsVec3 centre;
	double radius;
} bsWindingNode;

typedef struct bsWindingTree
{
	const bsBvh* bvh;  // own, or a BVH of exactly these triangles lent by the caller
	bsBvh own;
	bsWindingNode* nodes;
} bsWindingTree;

// Over `shared` (a BVH of exactly these triangles) when not NULL, else over a BVH of its own. count 0
// gives an empty tree (winding number 0 everywhere).
bsResult bsWindingTree_Build(bsWindingTree* wt, const bsTriangle* tris, uint32_t count, const bsBvh* shared);

void bsWindingTree_Free(bsWindingTree* wt);

// The winding number at p (1 inside a closed outward-wound surface, 0 outside): far nodes by their
// dipole term, near leaves triangle by triangle, always in the same order (the tree's).
double bsWindingTree_Evaluate(const bsWindingTree* wt, bsVec3 p);
