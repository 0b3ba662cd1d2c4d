// collider_plane.c — analytic planes as a collider (collide.h: the dynamic sphere/plane test).
#include "collide_internal.h"
#include "world_internal.h"

#include <math.h>
#include <string.h>

static bool bsPlanes_Sweep(const bsCollider* c, bsMethod method, const bsSweep* s, bsSweepOutput* out,
	bsQueryStats* stats)
{
	(void)stats;
	const bsPlane* planes = c->shape;
	bool replaced = false;
	for (uint32_t k = 0; k < c->count; ++k)
	{
		const bsPlane* plane = planes + k;
		bsTriangleHit hit;
		double tmax = out->hit ? out->t : 2.0;
		if (!bsPlaneSweep(plane, s, method, tmax, &hit))
		{
			continue;
		}
		memset(out, 0, sizeof(*out));
		out->t = hit.t;
		out->center = hit.t >= 1.0 ? s->c2 : bsMulAdd(s->c1, hit.t, s->d);
		out->point = bsMulSub(out->center, bsDot(plane->n, out->center) + plane->d, plane->n);
		// The normal faces the side the sweep starts on, never the side the rounded contact centre
		// happens to be on: a ray's contact centre lies on the plane, and its rounding must not put the
		// point behind it. A start exactly on the plane faces against the motion.
		double side = bsDot(plane->n, s->c1) + plane->d;
		if (side == 0.0)
		{
			side = -bsDot(plane->n, s->d);
		}
		out->normal = side >= 0.0 ? plane->n : bsNeg(plane->n);
		out->triangle = k;
		out->hit = 1;
		out->test = hit.test;
		out->branch = hit.branch;
		replaced = true;
	}
	return replaced;
}

// Every plane within maxDistance of x is a wall (on x's side of it).
static int bsPlanes_Walls(const bsCollider* c, bsVec3 x, double maxDistance, bsWallPoint* out, int capacity)
{
	const bsPlane* planes = c->shape;
	int count = 0;
	for (uint32_t k = 0; k < c->count && count < capacity; ++k)
	{
		double side = bsDot(planes[k].n, x) + planes[k].d;
		if (fabs(side) < maxDistance)
		{
			bsWallPoint w = {fabs(side), side >= 0.0 ? planes[k].n : bsNeg(planes[k].n), bsV3(0.0, 0.0, 0.0)};
			out[count++] = w;
		}
	}
	return count;
}

const bsColliderClass bs_planeCollider = {.name = "plane", .sweep = bsPlanes_Sweep, .walls = bsPlanes_Walls};
