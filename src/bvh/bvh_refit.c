// bvh_refit.c — bsBvh_Refit: new triangle positions in a BVH built once, keeping its topology (the
// deforming bodies' BVHs, refit every substep). A refit is one pass over the nodes, no sorting or
// SAH; the tree's quality degrades as the mesh deforms away from the shape it was built for, but
// answers stay exact (every box still bounds its triangles). docs/bodies.md compares it to a rebuild.
#include "boxf.h"
#include "bvh_internal.h"

#include "blobsim/bvh.h"

#include <float.h>
#include <math.h>

// The float box of triangles [first, first + count) of the leaf order.
static void bsRefit_LeafBox(const bsBvh* bvh, uint32_t first, uint32_t count, float* min, float* max)
{
	bsVec3 lo = bsV3(INFINITY, INFINITY, INFINITY);
	bsVec3 hi = bsNeg(lo);
	for (uint32_t i = first; i < first + count; ++i)
	{
		lo = bsMin(lo, bsTriangle_Min(bvh->tris + i));
		hi = bsMax(hi, bsTriangle_Max(bvh->tris + i));
	}
	min[0] = bsFloatDown(lo.x), min[1] = bsFloatDown(lo.y), min[2] = bsFloatDown(lo.z);
	max[0] = bsFloatUp(hi.x), max[1] = bsFloatUp(hi.y), max[2] = bsFloatUp(hi.z);
}

// The binary tree: children come after their parent (the build numbers them as it splits), so one
// pass from the last node to the root sees every child before its parent.
static void bsRefit_Binary(bsBvh* bvh)
{
	for (uint32_t k = bvh->nodeCount; k-- > 0;)
	{
		bsBvhNode* n = bvh->nodes + k;
		if (n->count > 0)
		{
			bsRefit_LeafBox(bvh, n->leftFirst, n->count, n->min, n->max);
			continue;
		}
		const bsBvhNode* l = bvh->nodes + n->leftFirst;
		const bsBvhNode* r = l + 1;
		for (int a = 0; a < 3; ++a)
		{
			n->min[a] = fminf(l->min[a], r->min[a]);
			n->max[a] = fmaxf(l->max[a], r->max[a]);
		}
	}
}

// The 4-wide tree, the same way (a child wide node is numbered after its parent): a leaf slot's box
// from its triangles, a node slot's as the union of that node's slots, which hold exactly the
// leaves below it (so the boxes are the binary tree's, bit for bit).
static void bsRefit_Wide(bsBvh* bvh)
{
	for (uint32_t k = bvh->wideCount; k-- > 0;)
	{
		bsBvhWideNode* n = bvh->wide + k;
		for (int s = 0; s < 4; ++s)
		{
			float min[3], max[3];
			if (n->count[s] > 0)
			{
				bsRefit_LeafBox(bvh, n->child[s], n->count[s], min, max);
			}
			else if (n->min[0][s] != INFINITY)
			{
				const bsBvhWideNode* c = bvh->wide + n->child[s];
				for (int a = 0; a < 3; ++a)
				{
					min[a] = fminf(fminf(c->min[a][0], c->min[a][1]), fminf(c->min[a][2], c->min[a][3]));
					// Unused slots hold +inf in max as well: leave them out of the union.
					max[a] = -INFINITY;
					for (int cs = 0; cs < 4; ++cs)
					{
						max[a] = c->min[a][cs] != INFINITY ? fmaxf(max[a], c->max[a][cs]) : max[a];
					}
				}
			}
			else
			{
				continue;  // unused slot
			}
			for (int a = 0; a < 3; ++a)
			{
				n->min[a][s] = min[a];
				n->max[a][s] = max[a];
			}
		}
	}
}

bsResult bsBvh_Refit(bsBvh* bvh, const bsTriangle* tris)
{
	if (bvh == NULL || (tris == NULL && bvh->triCount > 0))
	{
		return bs_errInvalidArgument;
	}
	for (uint32_t i = 0; i < bvh->triCount; ++i)
	{
		const bsTriangle* t = tris + bvh->triIndex[i];
		if (!bsIsValidVec3(t->p1) || !bsIsValidVec3(t->p2) || !bsIsValidVec3(t->p3) ||
			fmax(bsMaxAbs(t->p1), fmax(bsMaxAbs(t->p2), bsMaxAbs(t->p3))) >= (double)FLT_MAX)
		{
			return bs_errNonFinite;
		}
	}
	if (bvh->triCount == 0)
	{
		return bs_ok;
	}
	for (uint32_t i = 0; i < bvh->triCount; ++i)
	{
		bvh->tris[i] = tris[bvh->triIndex[i]];
	}
	bsRefit_Binary(bvh);
	bsRefit_Wide(bvh);
	float extent = 0.0f;
	for (int a = 0; a < 3; ++a)
	{
		extent = fmaxf(extent, fmaxf(fabsf(bvh->nodes[0].min[a]), fabsf(bvh->nodes[0].max[a])));
	}
	bvh->pad = 1e-6f * extent;
	bvh->planeSlack = bsBvh_PlaneSlack(bvh->tris, bvh->triCount);
	return bs_ok;
}
