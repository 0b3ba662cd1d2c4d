// sphere.c — the dynamic sphere/sphere test (collide.h).
#include "collide_internal.h"

#include "blobsim/collide.h"

bool bsSphereSweep(const bsSweep* s, double movingRadius, bsVec3 center, double radius, double tmax,
	bsTriangleHit* hit)
{
	double sum = movingRadius + radius;
	bsVec3 m = bsSub(s->c1, center);
	double distance = bsLength(m);
	double t;
	if (distance <= sum)
	{
		t = 0.0;  // overlapping or touching from the start
	}
	else
	{
		if (!(s->len > 0.0))
		{
			return false;  // no motion and apart
		}
		double along = bsDot(m, s->axis);  // < 0 when the motion heads towards the centre
		if (!(along < 0.0))
		{
			return false;  // moving away or sideways: the distance only grows
		}
		// The distance of the static centre from the line of motion: the foot of the perpendicular
		// is m - along u.
		double h = bsLength(bsMulSub(m, along, s->axis));
		if (h > sum)
		{
			return false;  // the line passes wide
		}
		double halfChord = sqrt((sum - h) * (sum + h));
		double entry = (distance - sum) * (distance + sum) / (-along + halfChord);
		if (!(entry <= s->len))
		{
			return false;  // it would touch beyond C2
		}
		t = fmin(entry / s->len, 1.0);
	}
	if (!(t < tmax))
	{
		return false;
	}
	hit->t = t;
	hit->test = bs_testSphere;
	hit->branch = t == 0.0 ? bs_branchStart : bs_branchFace;
	hit->feature = 0;
	return true;
}
