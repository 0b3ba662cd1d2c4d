// force_wind.c — wind (step.h: bsStepDef.wind): a drag towards the air's velocity, keyframed, with
// seeded gusts; solved exactly over each substep after the other forces.
#include "forces.h"
#include "noise.h"

#include <math.h>

bsWindDef bsDefaultWindDef(void)
{
	bsWindDef def = {
		.rate = 0.0,
		.velocity = bsConstantTrack(bsV3(0.0, 0.0, 0.0)),
		.strength = 0.0,
		.direction = 0.0,
		.period = 1.0,
		.seed = 1,
	};
	return def;
}

bool bsWindDef_IsValid(const bsWindDef* def)
{
	return def->rate >= 0.0 && isfinite(def->rate) && def->strength >= 0.0 && isfinite(def->strength) &&
		def->direction >= 0.0 && isfinite(def->direction) && def->period > 0.0 && isfinite(def->period) &&
		bsTrack_IsValid(&def->velocity);
}

bsVec3 bsWind_Velocity(const bsWindDef* def, double t)
{
	bsVec3 k = bsTrack_At(&def->velocity, t);
	if (def->strength == 0.0 && def->direction == 0.0)
	{
		return k;
	}
	double s = t / def->period;
	bsVec3 w = bsScale(1.0 + def->strength * bsValueNoise(def->seed, 0, s), k);
	bsVec3 side = bsV3(bsValueNoise(def->seed, 1, s), bsValueNoise(def->seed, 2, s), bsValueNoise(def->seed, 3, s));
	return bsMulAdd(w, def->direction * bsLength(k), side);
}

// --- the force class ---

static bool bsWindForce_Active(const bsForceContext* c)
{
	return c->def->wind.rate > 0.0;
}

// v <- w + e (v - w): the exact solution of dv/dt = rate (w - v) over h for a constant w. Each particle
// from its own velocity and the time alone.
static void bsWindForce_Adjust(const bsForceContext* c, bsParticles* p, size_t begin, size_t end)
{
	const bsWindDef* def = &c->def->wind;
	bsVec3 w = bsWind_Velocity(def, c->time + 0.5 * c->h);
	double e = exp(-def->rate * c->h);
	for (size_t i = begin; i < end; ++i)
	{
		if (p->state[i] == bs_particleFree)
		{
			p->velocity[i] = bsForce_Relax(p->velocity[i], w, e);
		}
	}
}

static void bsWindForce_SetDefaults(bsStepDef* def)
{
	def->wind = bsDefaultWindDef();
}

static bool bsWindForce_IsValid(const bsStepDef* def)
{
	return bsWindDef_IsValid(&def->wind);
}

const bsForceClass bs_windForce = {
	.name = "wind",
	.active = bsWindForce_Active,
	.adjust = bsWindForce_Adjust,
	.setDefaults = bsWindForce_SetDefaults,
	.isValid = bsWindForce_IsValid,
};
