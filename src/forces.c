#include "forces.h"

#include <math.h>

// --- gravity: a uniform acceleration ---

static bool bsGravity_Active(const bsStepDef* def)
{
	(void)def;
	return true;  // always asked, so that a zero gravity adds +0 as v += 0 dt always did
}

static void bsGravity_Accelerate(const bsForceContext* c, size_t i, bsVec3* a)
{
	(void)i;
	*a = bsAdd(*a, c->def->gravity);
}

static const bsForceClass bs_gravity = {"gravity", bsGravity_Active, bsGravity_Accelerate, NULL};

// --- air drag: linear in the velocity, dv/dt = -drag v ---

static bool bsDrag_Active(const bsStepDef* def)
{
	return def->drag > 0.0;
}

static void bsDrag_Damp(const bsForceContext* c, size_t i, double* rate)
{
	(void)i;
	*rate += c->def->drag;
}

static const bsForceClass bs_drag = {"drag", bsDrag_Active, NULL, bsDrag_Damp};

// The forces, in the order they are added up: a new force is a module and one line here.
static const bsForceClass* const bs_forces[] = {
	&bs_gravity,
	&bs_drag,
};

_Static_assert(sizeof(bs_forces) / sizeof(bs_forces[0]) <= BS_MAX_FORCES, "raise BS_MAX_FORCES");

void bsForces_Prepare(const bsStepDef* def, bsForces* forces)
{
	forces->count = 0;
	for (size_t k = 0; k < sizeof(bs_forces) / sizeof(bs_forces[0]); ++k)
	{
		if (bs_forces[k]->active(def))
		{
			forces->active[forces->count++] = bs_forces[k];
		}
	}
}

void bsForces_Apply(const bsForces* forces, const bsForceContext* context, double h,
	bsParticles* p, size_t begin, size_t end)
{
	for (size_t i = begin; i < end; ++i)
	{
		if (p->state[i] != bs_particleFree)
		{
			continue;
		}
		bsVec3 a = bsV3(0.0, 0.0, 0.0);
		double rate = 0.0;
		for (int k = 0; k < forces->count; ++k)
		{
			const bsForceClass* f = forces->active[k];
			if (f->accelerate != NULL)
			{
				f->accelerate(context, i, &a);
			}
			if (f->damp != NULL)
			{
				f->damp(context, i, &rate);
			}
		}
		bsVec3 v = bsMulAdd(p->velocity[i], h, a);
		if (rate > 0.0)
		{
			v = bsScale(exp(-rate * h), v);
		}
		p->velocity[i] = v;
	}
}
