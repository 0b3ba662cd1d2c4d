// force_buoyancy.c — buoyancy (step.h: bsStepDef.buoyancy): an upward (any) acceleration that decays
// with each particle's age, the lift of a cooling gas.
#include "forces.h"

#include "blobsim/world.h"

#include <math.h>

bool bsBuoyancyDef_IsValid(const bsBuoyancyDef* def)
{
	return bsIsValidVec3(def->acceleration) && def->decay >= 0.0 && isfinite(def->decay);
}

bsVec3 bsBuoyancy_Acceleration(const bsBuoyancyDef* def, double age)
{
	if (def->decay == 0.0)
	{
		return def->acceleration;
	}
	return bsScale(exp(-fmax(age, 0.0) / def->decay), def->acceleration);
}

// --- the force class ---

static bool bsBuoyancy_IsOn(const bsBuoyancyDef* def)
{
	bsVec3 a = def->acceleration;
	return a.x != 0.0 || a.y != 0.0 || a.z != 0.0;
}

static bool bsBuoyancyForce_Active(const bsForceContext* c)
{
	bool on = bsBuoyancy_IsOn(&c->def->buoyancy);
	for (int s = 0; s < c->def->speciesBuoyancyCount && !on; ++s)
	{
		on = bsBuoyancy_IsOn(c->def->speciesBuoyancy + s);
	}
	return on;
}

// Particle i's lift settings: its species' (bsStepDef.speciesBuoyancy) or everyone's.
static const bsBuoyancyDef* bsBuoyancyForce_Def(const bsForceContext* c, size_t i)
{
	int s = c->particles->species != NULL ? c->particles->species[i] : 0;
	return c->def->speciesBuoyancy != NULL && s < c->def->speciesBuoyancyCount ? c->def->speciesBuoyancy + s
	                                                                          : &c->def->buoyancy;
}

// Particle i's age from the world's emission records (without a world: the time since 0).
static void bsBuoyancyForce_Accelerate(const bsForceContext* c, size_t i, bsVec3* a)
{
	double born = c->world != NULL ? bsWorld_BirthTime(c->world, i) : 0.0;
	*a = bsAdd(*a, bsBuoyancy_Acceleration(bsBuoyancyForce_Def(c, i), c->time - born));
}

static bool bsBuoyancyForce_IsValid(const bsStepDef* def)
{
	bool ok = bsBuoyancyDef_IsValid(&def->buoyancy) && def->speciesBuoyancyCount >= 0 &&
		(def->speciesBuoyancyCount == 0 || def->speciesBuoyancy != NULL);
	for (int s = 0; ok && s < def->speciesBuoyancyCount; ++s)
	{
		ok = bsBuoyancyDef_IsValid(def->speciesBuoyancy + s);
	}
	return ok;
}

const bsForceClass bs_buoyancyForce = {
	.name = "buoyancy",
	.active = bsBuoyancyForce_Active,
	.accelerate = bsBuoyancyForce_Accelerate,
	.isValid = bsBuoyancyForce_IsValid,
};
