// force_drag.c — air drag (bsStepDef.drag): linear in the velocity, dv/dt = -drag v.
#include "forces.h"

static bool bsDrag_Active(const bsForceContext* c)
{
	return c->def->drag > 0.0;
}

static void bsDrag_Damp(const bsForceContext* c, size_t i, double* rate)
{
	(void)i;
	*rate += c->def->drag;
}

const bsForceClass bs_dragForce = {
	.name = "drag",
	.active = bsDrag_Active,
	.uniform = true,
	.damp = bsDrag_Damp,
};
