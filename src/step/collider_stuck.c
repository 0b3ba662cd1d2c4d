// collider_stuck.c — stuck and sleeping particles as a collider: the dynamic sphere/sphere test
// (collide.h) against the spheres of a hash grid (stuck_grid.h) that the step keeps in step with the
// particles' states. A contact's index is the particle's; its normal points from the particle's
// centre to the moving one's. A sleeper hit hard wakes (its touch).
#include "sleep.h"
#include "stuck_grid.h"
#include "world_internal.h"

#include <string.h>

static bool bsStuck_Sweep(const bsCollider* c, bsMethod method, const bsSweep* s, bsSweepOutput* out,
	bsQueryStats* stats)
{
	(void)stats;
	bsTriangleHit hit;
	uint32_t particle;
	bsVec3 center;
	double radius;
	double movingRadius = method == bs_methodRay ? 0.0 : s->radius;
	double tmax = out->hit ? out->t : 2.0;
	if (!bsStuckGrid_Sweep(c->shape, s, movingRadius, tmax, &hit, &particle, &center, &radius))
	{
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->t = hit.t;
	out->center = hit.t >= 1.0 ? s->c2 : bsMulAdd(s->c1, hit.t, s->d);
	bsVec3 away = bsSub(out->center, center);
	double length = bsLength(away);
	// Centres that coincide (a start inside the sphere) have no direction between them: the normal
	// then faces against the motion, or up (+y) without motion.
	if (length > 0.0)
	{
		out->normal = bsScale(1.0 / length, away);
	}
	else
	{
		out->normal = s->len > 0.0 ? bsNeg(s->axis) : bsV3(0.0, 1.0, 0.0);
	}
	out->point = bsMulAdd(center, radius, out->normal);
	out->triangle = particle;
	out->hit = 1;
	out->test = hit.test;
	out->branch = hit.branch;
	return true;
}

// A sleeping particle hit faster than the wake speed wakes after the phase (its state is not this
// worker's to write). A resting contact (no faster than the move phase's rest speed) never wakes it: a
// particle lying on a sleeper does not hit it.
static bool bsStuck_Touch(const bsContactContext* cx, const bsSweepOutput* contact, bsVec3 v)
{
	return cx->particles->state[contact->triangle] != bs_particleSleeping ||
		!(-bsDot(v, contact->normal) > cx->wakeSpeed) || bsWakeList_Push(&cx->worker->wakes, contact->triangle);
}

const bsColliderClass bs_stuckCollider = {.name = "stuck", .sweep = bsStuck_Sweep, .touch = bsStuck_Touch};
