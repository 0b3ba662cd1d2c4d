// force_gravity.c — gravity (bsStepDef.gravity): a uniform acceleration.
#include "forces.h"

static bool bsGravity_Active(const bsForceContext* c)
{
	(void)c;
	return true;  // always asked, so that a zero gravity adds +0 as v += 0 dt always did
}

static void bsGravity_Accelerate(const bsForceContext* c, size_t i, bsVec3* a)
{
	(void)i;
	*a = bsAdd(*a, c->def->gravity);
}

const bsForceClass bs_gravityForce = {
	.name = "gravity",
	.active = bsGravity_Active,
	.uniform = true,
	.accelerate = bsGravity_Accelerate,
};
