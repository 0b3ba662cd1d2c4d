#include "forces.h"
#include "radial.h"

#include <math.h>

// --- gravity: a uniform acceleration ---

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

static const bsForceClass bs_gravity = {"gravity", bsGravity_Active, true, bsGravity_Accelerate, NULL, NULL};

// --- air drag: linear in the velocity, dv/dt = -drag v ---

static bool bsDrag_Active(const bsForceContext* c)
{
	return c->def->drag > 0.0;
}

static void bsDrag_Damp(const bsForceContext* c, size_t i, double* rate)
{
	(void)i;
	*rate += c->def->drag;
}

static const bsForceClass bs_drag = {"drag", bsDrag_Active, true, NULL, bsDrag_Damp, NULL};

// --- the distance/normal field (field.h): spring, impact, drag and surface flow from the grid ---

static bool bsFieldForce_Active(const bsForceContext* c)
{
	return c->def->fieldGrid != NULL || c->def->fieldTree != NULL;
}

// Reads only each particle's own position and velocity and the grid: the same for any thread count.
static void bsFieldForce_Adjust(const bsForceContext* c, bsParticles* p, size_t begin, size_t end)
{
	bsField_ApplyRange(c->def->fieldGrid, c->def->fieldTree, &c->def->field, c->h, p->position, p->velocity, p->state,
		begin, end);
}

static const bsForceClass bs_field = {"field", bsFieldForce_Active, false, NULL, NULL, bsFieldForce_Adjust};

// --- the radial forces (radial.h): pushes away from centres (explosions), in time windows ---

static bool bsRadialForce_Active(const bsForceContext* c)
{
	for (int k = 0; k < c->def->radialCount; ++k)
	{
		if (bsRadial_Acts(c->def->radial + k, c->time, c->h))
		{
			return true;
		}
	}
	return false;
}

// Reads only the particle's own position, and adds the forces in their order: the same for any
// thread count. bsRadial_Acceleration already gives zero outside a force's window (as beyond its
// reach), so the window is not tested again here; a lone force is asked only in substeps it acts in
// (bsRadialForce_Active), as before there were several.
static void bsRadialForce_Accelerate(const bsForceContext* c, size_t i, bsVec3* a)
{
	for (int k = 0; k < c->def->radialCount; ++k)
	{
		*a = bsAdd(*a, bsRadial_Acceleration(c->def->radial + k, c->particles->position[i], c->time, c->h));
	}
}

static const bsForceClass bs_radial = {"radial", bsRadialForce_Active, false, bsRadialForce_Accelerate, NULL, NULL};

// The forces, in the order they are added up: a new force is a module and one line here.
static const bsForceClass* const bs_forces[] = {
	&bs_gravity,
	&bs_drag,
	&bs_radial,
	&bs_field,
};

_Static_assert(sizeof(bs_forces) / sizeof(bs_forces[0]) <= BS_MAX_FORCES, "raise BS_MAX_FORCES");

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

void bsForces_Prepare(const bsForceContext* context, bsForces* forces)
{
	forces->count = 0;
	forces->uniformAcceleration = bsV3(0.0, 0.0, 0.0);
	forces->uniformRate = 0.0;
	for (size_t k = 0; k < sizeof(bs_forces) / sizeof(bs_forces[0]); ++k)
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
