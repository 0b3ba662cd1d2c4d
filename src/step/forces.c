#include "forces.h"
#include "core.h"
#include "radial.h"

#include <math.h>

// The table of BS_FORCE_LIST (forces.h), in its order: the order in which the forces are added up.
#define BS_FORCE_ENTRY(name) &name,
static const bsForceClass* const bs_forces[] = {BS_FORCE_LIST(BS_FORCE_ENTRY)};
#undef BS_FORCE_ENTRY

_Static_assert(BS_COUNT(bs_forces) <= BS_MAX_FORCES, "raise BS_MAX_FORCES");

// Asks force f for particle i: its acceleration into *a, its damping rate into *rate.
static void bsForce_Add(const bsForceClass* f, const bsForceContext* context, size_t i, bsVec3* a, double* rate)
{
	if (f->accelerate != NULL)
	{
		f->accelerate(context, i, a);
	}
	if (f->damp != NULL)
	{
		f->damp(context, i, rate);
	}
}

void bsForces_SetDefaults(bsStepDef* def)
{
	for (int k = 0; k < BS_COUNT(bs_forces); ++k)
	{
		if (bs_forces[k]->setDefaults != NULL)
		{
			bs_forces[k]->setDefaults(def);
		}
	}
}

bool bsForces_AreValid(const bsStepDef* def)
{
	for (int k = 0; k < BS_COUNT(bs_forces); ++k)
	{
		if (bs_forces[k]->isValid != NULL && !bs_forces[k]->isValid(def))
		{
			return false;
		}
	}
	return true;
}

void bsForces_Prepare(const bsForceContext* context, bsForces* forces)
{
	forces->count = 0;
	forces->uniformAcceleration = bsV3(0.0, 0.0, 0.0);
	forces->uniformRate = 0.0;
	for (int k = 0; k < BS_COUNT(bs_forces); ++k)
	{
		const bsForceClass* f = bs_forces[k];
		if (!f->active(context))
		{
			continue;
		}
		if (f->uniform)
		{
			bsForce_Add(f, context, 0, &forces->uniformAcceleration, &forces->uniformRate);
		}
		else
		{
			forces->active[forces->count++] = f;
		}
	}
}

void bsForces_Apply(const bsForces* forces, const bsForceContext* context, bsParticles* p, size_t begin, size_t end)
{
	double h = context->h;
	double damping = forces->uniformRate > 0.0 ? exp(-forces->uniformRate * h) : 1.0;
	for (size_t i = begin; i < end; ++i)
	{
		if (p->state[i] != bs_particleFree)
		{
			continue;
		}
		bsVec3 a = forces->uniformAcceleration;
		double rate = forces->uniformRate;
		for (int k = 0; k < forces->count; ++k)
		{
			bsForce_Add(forces->active[k], context, i, &a, &rate);
		}
		bsVec3 v = bsMulAdd(p->velocity[i], h, a);
		if (rate > 0.0)
		{
			v = bsScale(rate == forces->uniformRate ? damping : exp(-rate * h), v);
		}
		p->velocity[i] = v;
	}
	for (int k = 0; k < forces->count; ++k)
	{
		if (forces->active[k]->adjust != NULL)
		{
			forces->active[k]->adjust(context, p, begin, end);
		}
	}
}
