// closest.c — the mesh's point nearest a query point, over a triangle list (the brute force the
// BVH's query must reproduce), and the output shared by both.
#include "collide_internal.h"

#include "blobsim/collide.h"

#include <string.h>

bsResult bsClosestPointInput_Check(const bsClosestPointInput* input)
{
	if (!bsIsValidVec3(input->point) || !isfinite(bsLengthSquared(input->point)))
	{
		return bs_errNonFinite;
	}
	if (!(input->maxDistance >= 0.0))
	{
		return bs_errInvalidArgument;  // negative or NaN
	}
	return bs_ok;
}

void bsClosestPoint_Finish(const bsTriangle* tri, uint32_t index, bsVec3 q, bsClosestPointOutput* out)
{
	memset(out, 0, sizeof(*out));
	bsFeature feature = bs_featureFace;
	int k = 0;
	out->point = bsTriangle_ClosestPoint(tri, q, &feature, &k);
	out->distance = sqrt(bsDistanceSquared(q, out->point));
	out->triangle = index;
	out->hit = 1;
	out->feature = (uint8_t)feature;
	out->index = (uint8_t)k;
	if (!bsTriangle_NormalTowards(tri, q, out->point, feature, &out->normal))
	{
		out->normal = tri->n;
		out->onSurface = 1;
	}
}

void bsClosestPoint_Miss(bsVec3 q, bsClosestPointOutput* out)
{
	memset(out, 0, sizeof(*out));
	out->point = bsIsValidVec3(q) ? q : bsV3(0.0, 0.0, 0.0);
	out->distance = HUGE_VAL;
	out->triangle = BS_NO_TRIANGLE;
}

bsResult bsClosestPointList(const bsTriangle* tris, uint32_t count, const bsClosestPointInput* input,
	bsClosestPointOutput* out)
{
	bsResult result = bsClosestPointInput_Check(input);
	if (result != bs_ok)
	{
		bsClosestPoint_Miss(input->point, out);
		return result;
	}
	bsVec3 q = input->point;
	bool found = false;
	double bestD2 = HUGE_VAL;
	uint32_t best = 0;
	for (uint32_t i = 0; i < count; ++i)
	{
		double d2 = bsTriangle_Distance2(tris + i, q);
		if (bsClosestPoint_Better(d2, i, found, bestD2, best, input->maxDistance))
		{
			found = true;
			bestD2 = d2;
			best = i;
		}
	}
	if (found)
	{
		bsClosestPoint_Finish(tris + best, best, q, out);
	}
	else
	{
		bsClosestPoint_Miss(q, out);
	}
	return bs_ok;
}
