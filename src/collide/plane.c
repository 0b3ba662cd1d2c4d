#include "collide_internal.h"

#include "blobsim/collide.h"

bsResult bsMakePlane(bsVec3 point, bsVec3 normal, bsPlane* out)
{
	if (!bsIsValidVec3(point) || !bsIsValidVec3(normal))
	{
		return bs_errNonFinite;
	}
	double len = bsLength(normal);
	if (!(len > 0.0) || !isfinite(len))
	{
		return bs_errInvalidArgument;
	}
	out->n = bsScale(1.0 / len, normal);
	out->d = -bsDot(out->n, point);
	return bs_ok;
}

bool bsPlaneSweep(const bsPlane* plane, const bsSweep* s, bsMethod method, double tmax,
	bsTriangleHit* hit)
{
	double r = method == bs_methodRay ? 0.0 : s->radius;
	double sc = bsDot(plane->n, s->c1) + plane->d;
	double se = bsDot(plane->n, s->c2) + plane->d;
	double t;
	if (fabs(sc) <= r)
	{
		t = 0.0;  // touching (or, for ray, on the plane) from the start
	}
	else if ((sc > r && se > r) || (sc < -r && se < -r))
	{
		return false;  // both positions beyond r on the same side
	}
	else
	{
		double side = sc > 0.0 ? 1.0 : -1.0;
		t = fmin((sc - side * r) / (sc - se), 1.0);  // eq. 16.61, on the side the sphere starts from
	}
	if (!(t < tmax))
	{
		return false;
	}
	hit->t = t;
	hit->test = bs_testPlane;
	hit->branch = t == 0.0 ? bs_branchStart : bs_branchFace;
	hit->feature = 0;
	return true;
}
