#include "blobsim/triangle.h"

#include <stddef.h>

bsResult bsMakeTriangle(bsVec3 p1, bsVec3 p2, bsVec3 p3, bsTriangle* out)
{
	if (!bsIsValidVec3(p1) || !bsIsValidVec3(p2) || !bsIsValidVec3(p3))
	{
		return bs_errNonFinite;
	}
	// The normal from the two shorter edges (those meeting opposite the longest): on a sliver the
	// cross product of the longest edge with another loses digits. All three choices are
	// (p2 - p1) x (p3 - p1) in exact arithmetic, so the orientation is the same.
	bsVec3 e12 = bsSub(p2, p1);
	bsVec3 e23 = bsSub(p3, p2);
	bsVec3 e31 = bsSub(p1, p3);
	double l12 = bsLengthSquared(e12);
	double l23 = bsLengthSquared(e23);
	double l31 = bsLengthSquared(e31);
	bsVec3 c;
	double longest2;
	if (l12 >= l23 && l12 >= l31)
	{
		c = bsCross(bsNeg(e31), e23);  // at p3: (p1 - p3) x (p2 - p3)
		longest2 = l12;
	}
	else if (l23 >= l31)
	{
		c = bsCross(e12, bsNeg(e31));  // at p1: (p2 - p1) x (p3 - p1)
		longest2 = l23;
	}
	else
	{
		c = bsCross(e23, bsNeg(e12));  // at p2: (p3 - p2) x (p1 - p2)
		longest2 = l31;
	}
	double twiceArea = bsLength(c);
	if (!(twiceArea > 1e-14 * longest2) || !isfinite(twiceArea) || !isfinite(longest2))
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
	// Over the face: the projection along the normal. This stays accurate on slivers, where the
	// barycentric (Voronoi-region) formulation cancels badly.
	bsVec3 onPlane = bsMulSub(q, bsTriangle_PlaneDistance(t, q), t->n);
	if (bsTriangle_Contains(t, onPlane))
	{
		bsSetFeature(feature, index, bs_featureFace, 0);
		return onPlane;
	}

	// Otherwise an edge or a vertex. Squared distances to an edge point and to a vertex a hair away
	// tie in double, so the feature is chosen by region: an edge's interior point when q projects
	// inside the edge, a vertex only when both of its edges clamp to it.
	bsVec3 v[3] = {t->p1, t->p2, t->p3};
	double u[3];
	bsVec3 e[3];
	for (int i = 0; i < 3; ++i)
	{
		e[i] = bsSub(v[i == 2 ? 0 : i + 1], v[i]);
		u[i] = bsDot(bsSub(q, v[i]), e[i]) / bsDot(e[i], e[i]);
	}
	bsVec3 best = v[0];
	double bestDistance2 = HUGE_VAL;
	for (int i = 0; i < 3; ++i)
	{
		if (u[i] > 0.0 && u[i] < 1.0)
		{
			bsVec3 p = bsMulAdd(v[i], u[i], e[i]);
			double d2 = bsDistanceSquared(p, q);
			if (d2 < bestDistance2)
			{
				bestDistance2 = d2;
				best = p;
				bsSetFeature(feature, index, bs_featureEdge, i);
			}
		}
		int previous = i == 0 ? 2 : i - 1;
		if (u[i] <= 0.0 && u[previous] >= 1.0)
		{
			double d2 = bsDistanceSquared(v[i], q);
			if (d2 < bestDistance2)
			{
				bestDistance2 = d2;
				best = v[i];
				bsSetFeature(feature, index, bs_featureVertex, i);
			}
		}
	}
	if (bestDistance2 == HUGE_VAL)
	{
		// Not reached for a valid triangle; the nearest clamped end point keeps the answer sane.
		for (int i = 0; i < 3; ++i)
		{
			double d2 = bsDistanceSquared(v[i], q);
			if (d2 < bestDistance2)
			{
				bestDistance2 = d2;
				best = v[i];
				bsSetFeature(feature, index, bs_featureVertex, i);
			}
		}
	}
	return best;
}

bool bsTriangle_NormalTowards(const bsTriangle* t, bsVec3 q, bsVec3 point, bsFeature feature,
	bsVec3* normal)
{
	double onSurface = 1e-12 * (1.0 + bsMaxAbs(q));
	if (feature == bs_featureFace)
	{
		double side = bsTriangle_PlaneDistance(t, q);
		if (!(fabs(side) > onSurface))
		{
			return false;
		}
		*normal = side > 0.0 ? t->n : bsNeg(t->n);
		return true;
	}
	bsVec3 gap = bsSub(q, point);
	double length = bsLength(gap);
	if (!(length > onSurface))
	{
		return false;
	}
	*normal = bsScale(1.0 / length, gap);
	return true;
}
