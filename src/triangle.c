#include "triangle.h"

#include <stddef.h>

bsResult bsMakeTriangle(bsVec3 p1, bsVec3 p2, bsVec3 p3, bsTriangle* out)
{
	if (!bsIsValidVec3(p1) || !bsIsValidVec3(p2) || !bsIsValidVec3(p3))
	{
		return bs_errNonFinite;
	}
	bsVec3 e1 = bsSub(p2, p1);
	bsVec3 e2 = bsSub(p3, p1);
	bsVec3 e3 = bsSub(p3, p2);
	bsVec3 c = bsCross(e1, e2);
	double twiceArea = bsLength(c);
	double longest2 = fmax(bsLengthSquared(e1), fmax(bsLengthSquared(e2), bsLengthSquared(e3)));
	if (!(twiceArea > 1e-14 * longest2) || !isfinite(twiceArea))
	{
		return bs_errDegenerateTriangle;
	}
	out->p1 = p1;
	out->p2 = p2;
	out->p3 = p3;
	out->n = bsScale(1.0 / twiceArea, c);
	// The plane through the centroid: balances the rounding of the three vertices.
	bsVec3 centroid = bsScale(1.0 / 3.0, bsAdd(p1, bsAdd(p2, p3)));
	out->delta = -bsDot(out->n, centroid);
	return bs_ok;
}

static void bsSetFeature(bsFeature* feature, int* index, bsFeature f, int i)
{
	if (feature != NULL)
	{
		*feature = f;
	}
	if (index != NULL)
	{
		*index = i;
	}
}

bsVec3 bsTriangle_ClosestPoint(const bsTriangle* t, bsVec3 q, bsFeature* feature, int* index)
{
	bsVec3 a = t->p1, b = t->p2, c = t->p3;
	bsVec3 ab = bsSub(b, a);
	bsVec3 ac = bsSub(c, a);
	bsVec3 ap = bsSub(q, a);
	double d1 = bsDot(ab, ap);
	double d2 = bsDot(ac, ap);
	if (d1 <= 0.0 && d2 <= 0.0)
	{
		bsSetFeature(feature, index, bs_featureVertex, 0);
		return a;
	}

	bsVec3 bp = bsSub(q, b);
	double d3 = bsDot(ab, bp);
	double d4 = bsDot(ac, bp);
	if (d3 >= 0.0 && d4 <= d3)
	{
		bsSetFeature(feature, index, bs_featureVertex, 1);
		return b;
	}

	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
	{
		bsSetFeature(feature, index, bs_featureEdge, 0);
		return bsMulAdd(a, d1 / (d1 - d3), ab);
	}

	bsVec3 cp = bsSub(q, c);
	double d5 = bsDot(ab, cp);
	double d6 = bsDot(ac, cp);
	if (d6 >= 0.0 && d5 <= d6)
	{
		bsSetFeature(feature, index, bs_featureVertex, 2);
		return c;
	}

	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
	{
		bsSetFeature(feature, index, bs_featureEdge, 2);
		return bsMulAdd(a, d2 / (d2 - d6), ac);
	}

	double va = d3 * d6 - d5 * d4;
	if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
	{
		bsSetFeature(feature, index, bs_featureEdge, 1);
		return bsMulAdd(b, (d4 - d3) / ((d4 - d3) + (d5 - d6)), bsSub(c, b));
	}

	double denom = 1.0 / (va + vb + vc);
	double v = vb * denom;
	double w = vc * denom;
	bsSetFeature(feature, index, bs_featureFace, 0);
	return bsAdd(a, bsAdd(bsScale(v, ab), bsScale(w, ac)));
}
