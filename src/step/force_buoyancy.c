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

static bool bsBuoyancyForce_Active(const bsForceContext* c)
{
	bsVec3 a = c->def->buoyancy.acceleration;
	return a.x != 0.0 || a.y != 0.0 || a.z != 0.0;
}

// Particle i's age from the world's emission records (without a world: the time since 0).
static void bsBuoyancyForce_Accelerate(const bsForceContext* c, size_t i, bsVec3* a)
{
	double born = c->world != NULL ? bsWorld_BirthTime(c->world, i) : 0.0;
	*a = bsAdd(*a, bsBuoyancy_Acceleration(&c->def->buoyancy, c->time - born));
}

static bool bsBuoyancyForce_IsValid(const bsStepDef* def)
{
	return bsBuoyancyDef_IsValid(&def->buoyancy);
}

const bsForceClass bs_buoyancyForce = {
	.name = "buoyancy",
	.active = bsBuoyancyForce_Active,
	.accelerate = bsBuoyancyForce_Accelerate,
	.isValid = bsBuoyancyForce_IsValid,
};
