// force_vortex.c — a vortex (step.h: bsStepDef.vortex): a drag towards air turning round an axis, at a
// Rankine or Lamb-Oseen profile's speed, and an optional pull towards the axis.
#include "forces.h"

#include <math.h>

const char* bsVortexProfileName(bsVortexProfile profile)
{
	static const char* const names[bs_vortexProfileCount] = {"lamb_oseen", "rankine"};
	return (unsigned)profile < (unsigned)bs_vortexProfileCount ? names[profile] : "?";
}

bsVortexDef bsDefaultVortexDef(void)
{
	bsVortexDef def = {
		.rate = 0.0,
		.center = {0.0, 0.0, 0.0},
		.axis = {0.0, 1.0, 0.0},
		.circulation = 0.0,
		.coreRadius = 1.0,
		.profile = bs_vortexLambOseen,
		.pull = 0.0,
	};
	return def;
}

static bool bsFinite3(bsVec3 v)
{
	return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

bool bsVortexDef_IsValid(const bsVortexDef* def)
{
	return def->rate >= 0.0 && isfinite(def->rate) && bsFinite3(def->center) && bsFinite3(def->axis) &&
		bsLength(def->axis) > 0.0 && isfinite(def->circulation) && def->coreRadius > 0.0 &&
		isfinite(def->coreRadius) && (unsigned)def->profile < (unsigned)bs_vortexProfileCount &&
		isfinite(def->pull);
}

double bsVortex_Speed(const bsVortexDef* def, double r)
{
	const double twoPi = 6.283185307179586;
	double rc = def->coreRadius;
	if (!(r > 0.0))
	{
		return 0.0;
	}
	if (def->profile == bs_vortexRankine)
	{
		return r <= rc ? def->circulation * r / (twoPi * rc * rc) : def->circulation / (twoPi * r);
	}
	return -def->circulation / (twoPi * r) * expm1(-(r * r) / (rc * rc));
}

// p's offset from the axis (at right angles to it), with the unit axis.
static bsVec3 bsVortex_Offset(const bsVortexDef* def, bsVec3 p, bsVec3* axis)
{
	*axis = bsNormalize(def->axis);
	bsVec3 d = bsSub(p, def->center);
	return bsMulSub(d, bsDot(d, *axis), *axis);
}

bsVec3 bsVortex_Velocity(const bsVortexDef* def, bsVec3 p)
{
	bsVec3 axis;
	bsVec3 d = bsVortex_Offset(def, p, &axis);
	double r = bsLength(d);
	if (!(r > 0.0))
	{
		return bsV3(0.0, 0.0, 0.0);
	}
	return bsScale(bsVortex_Speed(def, r) / r, bsCross(axis, d));
}

// --- the force class ---

static bool bsVortexForce_Active(const bsForceContext* c)
{
	const bsVortexDef* def = &c->def->vortex;
	return def->rate > 0.0 && (def->circulation != 0.0 || def->pull != 0.0);
}

// The pull: pull v(r) / v(r_c) towards the axis (the shape of the profile, whatever Gamma's sign).
static void bsVortexForce_Accelerate(const bsForceContext* c, size_t i, bsVec3* a)
{
	const bsVortexDef* def = &c->def->vortex;
	if (def->pull == 0.0)
	{
		return;
	}
	bsVortexDef unit = *def;
	unit.circulation = 1.0;
	bsVec3 axis;
	bsVec3 d = bsVortex_Offset(def, c->particles->position[i], &axis);
	double r = bsLength(d);
	if (r > 0.0)
	{
		double shape = bsVortex_Speed(&unit, r) / bsVortex_Speed(&unit, def->coreRadius);
		*a = bsMulSub(*a, def->pull * shape / r, d);
	}
}

static void bsVortexForce_Adjust(const bsForceContext* c, bsParticles* p, size_t begin, size_t end)
{
	const bsVortexDef* def = &c->def->vortex;
	double e = exp(-def->rate * c->h);
	for (size_t i = begin; i < end; ++i)
	{
		if (p->state[i] == bs_particleFree)
		{
			p->velocity[i] = bsForce_Relax(p->velocity[i], bsVortex_Velocity(def, p->position[i]), e);
		}
	}
}

static void bsVortexForce_SetDefaults(bsStepDef* def)
{
	def->vortex = bsDefaultVortexDef();
}

static bool bsVortexForce_IsValid(const bsStepDef* def)
{
	return bsVortexDef_IsValid(&def->vortex);
}

const bsForceClass bs_vortexForce = {
	.name = "vortex",
	.active = bsVortexForce_Active,
	.accelerate = bsVortexForce_Accelerate,
	.adjust = bsVortexForce_Adjust,
	.setDefaults = bsVortexForce_SetDefaults,
	.isValid = bsVortexForce_IsValid,
};
