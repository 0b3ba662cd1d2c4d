// emitter_nozzle.c — the nozzle emitter (bs_emitterNozzle, bsNozzle): count[0] particles on a disk,
// directions uniform in a cone, speeds in a range.
#include "emitter_class.h"
#include "core.h"

#include <math.h>

// One nozzle particle: a point uniform by area on the disk (radius sqrt(U) R), a direction uniform
// over the cone's solid angle, a speed uniform in the range; five draws in that order, then the
// radius.
static void bsNozzleEmitter_EmitOne(const bsEmitterDef* def, uint64_t k, bsRng* rng, bsParticleDef* particle)
{
	(void)k;
	const bsNozzle* n = &def->shape.nozzle;
	bsVec3 u, w;
	bsEmitter_Basis(n->direction, &u, &w);
	const double twoPi = 2.0 * BS_PI;
	double r = n->diskRadius * sqrt(bsRng_Uniform(rng));
	double phi = twoPi * bsRng_Uniform(rng);
	bsVec3 position = bsMulAdd(bsMulAdd(n->center, r * cos(phi), u), r * sin(phi), w);
	bsVec3 dir = bsEmitter_ConeDirection(n->direction, u, w, n->coneAngle, rng);
	double speed = n->speedMin + bsRng_Uniform(rng) * (n->speedMax - n->speedMin);
	*particle = bsEmitterDef_Particle(def, rng, position, bsScale(speed, dir));
}

static bool bsNozzleEmitter_IsValid(const bsEmitterDef* def)
{
	const bsNozzle* n = &def->shape.nozzle;
	return fabs(bsLength(n->direction) - 1.0) < 1e-9 && n->diskRadius >= 0.0 && isfinite(n->diskRadius) &&
		n->coneAngle >= 0.0 && n->coneAngle <= BS_PI && n->speedMin >= 0.0 &&
		n->speedMax >= n->speedMin && isfinite(n->speedMax);
}

const bsEmitterClass bs_nozzleEmitter = {
	.name = "nozzle",
	.count = bsEmitterDef_CountGiven,
	.emitOne = bsNozzleEmitter_EmitOne,
	.emit = bsEmitterDef_EmitEach,
	.isValid = bsNozzleEmitter_IsValid,
};
