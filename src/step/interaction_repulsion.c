// interaction_repulsion.c — the repulsion interaction (step.h): Karabassi's spherical repulsive force
// fields, a pair kind of the shared pair phase (interaction_class.h). Its force is the gather's
// repulsion term (interaction.c: bsGather_Pair).
#include "interaction_class.h"

#include "core.h"

#include <float.h>
#include <math.h>

static void bsRepulsion_SetDefaults(bsInteractionDef* d)
{
	d->strength = 100.0;
	d->range = 1.5;
}

static bool bsRepulsion_IsValid(const bsInteractionDef* d)
{
	return bsPairInteraction_IsValid(d) && bsWithin(d->strength, 0.0, DBL_MAX) && bsWithin(d->range, 1.0, 1e6);
}

static double bsRepulsion_Reach(const bsInteractionDef* d)
{
	return bsPairInteraction_Reach(d, fmax(1.0, d->range));
}

// Its largest relative stiffness per unit distance: 2 strength / R at d = 0.
static double bsRepulsion_Period(const bsInteractionDef* d, double r)
{
	return bsPairInteraction_Period(d, r, INFINITY, 2.0 * d->strength / (d->range * 2.0 * r));
}

static void bsRepulsion_Model(const bsInteractionDef* d, double h, double smallestRadius, bsPairModel* m)
{
	m->repulsion = true;
	m->strength = d->strength;
	m->range = d->range;
}

static const bsPairKind bs_repulsionPair = {bsRepulsion_Model, false, NULL};

static bsResult bsRepulsion_Run(bsWorld* world, const bsStepDef* def, double h, double wakeSpeed,
	bsParticles* particles)
{
	return bsPairInteraction_Run(&bs_repulsionPair, world, def, h, wakeSpeed, particles);
}

const bsInteractionClass bs_repulsionInteraction = {
	.name = "repulsion",
	.setDefaults = bsRepulsion_SetDefaults,
	.isValid = bsRepulsion_IsValid,
	.reach = bsRepulsion_Reach,
	.period = bsRepulsion_Period,
	.run = bsRepulsion_Run,
	.speciesTable = true,
};
