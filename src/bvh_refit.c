// bvh_refit.c — bsBvh_Refit: new triangle positions in a BVH built once, keeping its topology (the
// deforming bodies' BVHs, refit every substep). A refit is one pass over the nodes, no sorting or
// SAH; the tree's quality degrades as the mesh deforms away from the shape it was built for, but
// answers stay exact (every box still bounds its triangles). docs/bodies.md compares it to a rebuild.
#include "bvh_internal.h"
#include "bvh_quant.h"

#include "blobsim/bvh.h"

#include <float.h>
#include <math.h>

// The binary tree: children come after their parent (the build numbers them as it splits), so one
// pass from the last node to the root sees every child before its parent.
static void bsRefit_Binary(bsBvh* bvh)
{
	for (uint32_t k = bvh->nodeCount; k-- > 0;)
	{
		bsBvhNode* n = bvh->nodes + k;
		if (n->count > 0)
		{
			bsBvhWide_RangeBox(bvh->tris, NULL, n->leftFirst, n->count, n->min, n->max);
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

// The 4-wide tree, depth first from wide node k: a leaf slot's exact float box from its triangles, a
// node slot's as the union of that node's exact slot boxes (so they are the binary tree's, bit for
// bit), requantized against their union, which is returned in min, max. The quantized boxes do not
// hold the exact ones, so the recursion carries them up; depth is bounded as the walks' is.
static void bsRefit_Wide(bsBvh* bvh, uint32_t k, float min[3], float max[3])
{
	bsBvhWideNode* n = bvh->wide + k;
	float rowMin[3][4], rowMax[3][4];
	uint32_t used = 0;
	for (uint32_t s = 0; s < 4 && ((n->used >> s) & 1u); ++s, ++used)
	{
		float lo[3], hi[3];
		if (n->count[s] > 0)
		{
			bsBvhWide_RangeBox(bvh->tris, NULL, n->child[s], n->count[s], lo, hi);
		}
		else
		{
			bsRefit_Wide(bvh, n->child[s], lo, hi);
		}
		for (int a = 0; a < 3; ++a)
		{
			rowMin[a][s] = lo[a];
			rowMax[a][s] = hi[a];
		}
	}
	bsBvhWideNode_Quantize(n, (const float(*)[4])rowMin, (const float(*)[4])rowMax, used);
	for (int a = 0; a < 3; ++a)
	{
		min[a] = rowMin[a][0];
		max[a] = rowMax[a][0];
		for (uint32_t s = 1; s < used; ++s)
		{
			min[a] = fminf(min[a], rowMin[a][s]);
			max[a] = fmaxf(max[a], rowMax[a][s]);
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
	float min[3], max[3];
	bsRefit_Wide(bvh, 0, min, max);
	float extent = 0.0f;
	for (int a = 0; a < 3; ++a)
	{
		extent = fmaxf(extent, fmaxf(fabsf(bvh->nodes[0].min[a]), fabsf(bvh->nodes[0].max[a])));
	}
	bvh->pad = 1e-6f * extent;
	bvh->planeSlack = bsBvh_PlaneSlack(bvh->tris, bvh->triCount);
	return bs_ok;
}
