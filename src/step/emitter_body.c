// emitter_body.c — surface emitters on a moving body (world.h: bsWorld_AddBodyEmitter): each
// particle is born on the body's surface as it is posed at the emit phase's start (keyed, scaled,
// deformed), off the posed face, with the surface point's velocity added to its own.
#include "world_internal.h"
#include "emitter_class.h"

#include "blobsim/body.h"
#include "blobsim/quat.h"

#include <math.h>

// The half-step of the central difference that gives the surface's velocity, seconds: its error is
// (w h)^2 / 6 of the speed for a spin of w radians a second, its rounding about 1e-16 |x| / h. The
// difference is taken over [t, t + 2h] after the pose's time t, the start of the step the particles fly:
// at a key where the motion starts (a body at rest before its first key) a difference about t itself
// would give half the speed.
static const double bs_surfaceVelocityStep = 1e-5;

// The body's triangle i at time t: its three corners posed (scaled, deformed, moved).
static void bsBodyEmitter_Triangle(const bsWorldEmitter* em, size_t i, double t, bsVec3 corner[3])
{
	bsTransform pose;
	bsVec3 scale;
	bsBody_Pose(em->body, t, &pose, &scale);
	bsVec3* weights = em->weightCount > 0 ? em->weights : NULL;
	if (weights != NULL)
	{
		bsBody_DeformWeights(em->body, t, weights);
	}
	const bsTriangle* rest = em->def.shape.surface.triangles + i;
	const bsVec3 points[3] = {rest->p1, rest->p2, rest->p3};
	for (int k = 0; k < 3; ++k)
	{
		corner[k] = bsTransform_Apply(pose, bsBody_ShapePoint(em->body, weights, scale, points[k]));
	}
}

static bsVec3 bsBarycentric(const bsVec3 c[3], double a, double b)
{
	return bsMulAdd(bsMulAdd(c[0], a, bsSub(c[1], c[0])), b, bsSub(c[2], c[0]));
}

// Particle k: the triangle and the point in it drawn on the rest mesh (by rest area), the triangle
// posed at the emit phase's start (em->poseTime) gives the point and the face's normal (the rest
// normal turned by the pose where the deformation flattens the face), then the direction and speed
// drawn about it and the radius; the particle starts radius + gap off the face and moves at the
// surface point's velocity (a central difference of its posed position) plus its own. Not at its own
// birth time within the step: set back from there along its path it would start inside the body (it
// leaves the face at its own speed), and the move phase would find the face from within.
static void bsBodyEmitter_EmitOne(const bsEmitterDef* def, uint64_t k, void* user, bsRng* rng, bsParticleDef* particle)
{
	(void)k;
	const bsWorldEmitter* em = user;
	const bsSurface* s = &def->shape.surface;
	double tau = em->poseTime;
	double a, b;
	size_t i = bsSurface_DrawPoint(s, rng, &a, &b);
	bsVec3 c[3], before[3], after[3];
	bsBodyEmitter_Triangle(em, i, tau, c);
	bsBodyEmitter_Triangle(em, i, tau, before);
	bsBodyEmitter_Triangle(em, i, tau + 2.0 * bs_surfaceVelocityStep, after);
	bsVec3 point = bsBarycentric(c, a, b);
	bsVec3 surfaceVelocity = bsScale(0.5 / bs_surfaceVelocityStep,
		bsSub(bsBarycentric(after, a, b), bsBarycentric(before, a, b)));
	bsVec3 n = bsCross(bsSub(c[1], c[0]), bsSub(c[2], c[0]));
	double length = bsLength(n);
	if (!(length > 0.0))
	{
		bsTransform pose;
		bsVec3 scale;
		bsBody_Pose(em->body, tau, &pose, &scale);
		n = bsQuat_Rotate(pose.rotation, s->triangles[i].n);
		length = 1.0;
	}
	bsVec3 normal;
	bsVec3 own = bsSurface_DrawVelocity(s, i, bsScale(1.0 / length, n), rng, &normal);
	*particle = bsEmitterDef_Particle(def, rng, point, bsAdd(own, surfaceVelocity));
	particle->position = bsMulAdd(point, particle->radius + s->gap, normal);
}

bsResult bsWorldEmitter_EmitOnBody(bsWorldEmitter* em, double now, uint64_t first, uint64_t count, bsRng* rng,
	bsParticles* p, size_t* failed)
{
	em->poseTime = now;
	return bsEmitterDef_EmitRangeWith(&em->def, first, count, bsBodyEmitter_EmitOne, em, rng, p, failed);
}
