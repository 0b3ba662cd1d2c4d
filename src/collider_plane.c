// collider_plane.c — analytic planes as a collider (plane.h: the dynamic sphere/plane test).
#include "world_internal.h"

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
		double side = bsDot(plane->n, out->center) + plane->d;
		out->point = bsMulSub(out->center, side, plane->n);
		if (side == 0.0)
		{
			// On the plane (the ray method): the normal faces where the motion comes from.
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

const bsColliderClass bs_planeCollider = {"plane", bsPlanes_Sweep};
