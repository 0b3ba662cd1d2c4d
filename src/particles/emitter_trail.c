// emitter_trail.c — the trail emitter (bs_emitterTrail): particles born from another species'
// particles (emitter.h: bsTrail). The world finds the sources and counts their births
// (src/step/emitter_trail.c); this class says only what one particle is like, and counts none of
// its own.
#include "emitter_class.h"
#include "core.h"

#include <math.h>

// A trail makes no particles by itself: its sources do, as the world counts them.
static bsResult bsTrailEmitter_Count(const bsEmitterDef* def, uint64_t* count)
{
	(void)def;
	*count = 0;
	return bs_ok;
}

static bsResult bsTrailEmitter_Emit(const bsEmitterDef* def, bsRng* rng, bsParticles* p, size_t* failed)
{
	(void)def;
	(void)rng;
	(void)p;
	*failed = 0;
	return bs_ok;
}

// A splash's count >= 1, count per speed >= 0, cone and speeds; no rate.
static bool bsTrailEmitter_IsValidSplash(const bsEmitterDef* def)
{
	const bsTrail* t = &def->shape.trail;
	return !bsEmitterDef_OverTime(def) && t->count >= 1.0 && isfinite(t->count) && t->countPerSpeed >= 0.0 &&
		isfinite(t->countPerSpeed) && t->coneAngle >= 0.0 && t->coneAngle <= BS_PI && t->speedMin >= 0.0 &&
		t->speedMax >= t->speedMin && isfinite(t->speedMax);
}

// A rate (or a rate curve: bsEmitterDef_IsValid checks its keys) or a splash's settings, sources of
// another species, a finite inherit and an offset >= 0.
static bool bsTrailEmitter_IsValid(const bsEmitterDef* def)
{
	const bsTrail* t = &def->shape.trail;
	return (t->onContact ? bsTrailEmitter_IsValidSplash(def) : bsEmitterDef_OverTime(def)) &&
		t->source != def->species && isfinite(t->inherit) && t->offset >= 0.0 && isfinite(t->offset);
}

static bool bsTrailEmitter_IsEmpty(const bsEmitterDef* def)
{
	(void)def;
	return true;
}

bsParticleDef bsTrail_Particle(const bsEmitterDef* def, bsVec3 x, bsVec3 v, bsRng* rng)
{
	double offset = def->shape.trail.offset;
	if (offset > 0.0)
	{
		// Uniform in the ball: a direction uniform on the sphere (the cone of half-angle pi), then a
		// distance whose cube is uniform.
		bsVec3 u, w, axis = bsV3(0.0, 1.0, 0.0);
		bsEmitter_Basis(axis, &u, &w);
		bsVec3 d = bsEmitter_ConeDirection(axis, u, w, BS_PI, rng);
		x = bsMulAdd(x, offset * cbrt(bsRng_Uniform(rng)), d);
	}
	bsVec3 velocity = bsMulAdd(def->velocity, def->shape.trail.inherit, v);
	return bsEmitterDef_Particle(def, rng, x, velocity);
}

const bsEmitterClass bs_trailEmitter = {
	.name = "trail",
	.count = bsTrailEmitter_Count,
	.emit = bsTrailEmitter_Emit,
	.isValid = bsTrailEmitter_IsValid,
	.isEmpty = bsTrailEmitter_IsEmpty,
};
