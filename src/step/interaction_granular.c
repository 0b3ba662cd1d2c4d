// interaction_granular.c — the granular interaction (step.h): soft-sphere contacts (a linear
// spring-dashpot from a contact time or a stiffness) with friction, viscous or with tangential
// springs, a pair kind of the shared pair phase (interaction_class.h). Its force is the gather's
// granular term (interaction.c: bsGranularPair), which reads the model made here.
#include "interaction_class.h"

#include "core.h"

#include <float.h>
#include <math.h>

static void bsGranular_SetDefaults(bsInteractionDef* d)
{
	d->restitution = 0.5;
	d->contactTime = 0.005;
	d->stiffness = 0.0;
	d->friction = 0.5;
	d->tangentialDamping = 1.0;
	d->tangentialStiffness = 0.0;
}

static bool bsGranular_IsValid(const bsInteractionDef* d)
{
	const double big = DBL_MAX;
	return bsPairInteraction_IsValid(d) && bsWithin(d->restitution, DBL_MIN, 1.0) &&
		bsWithin(d->contactTime, 0.0, big) && bsWithin(d->stiffness, 0.0, big) &&
		(d->contactTime > 0.0 || d->stiffness > 0.0) && bsWithin(d->friction, 0.0, big) &&
		bsWithin(d->tangentialDamping, 0.0, 10.0) && bsWithin(d->tangentialStiffness, 0.0, 1.0);
}

static double bsGranular_Reach(const bsInteractionDef* d)
{
	return bsPairInteraction_Reach(d, 1.0);
}

// ln e, beta = -ln e / sqrt(pi^2 + ln^2 e): the damping ratio that keeps e of the approach speed.
static double bsLogRestitution(const bsInteractionDef* d)
{
	return log(d->restitution);
}

static double bsDampingRatio(const bsInteractionDef* d)
{
	double l = bsLogRestitution(d);
	return -l / sqrt(BS_PI * BS_PI + l * l);
}

// The shortest contact time of any pair: t_c, or with a stiffness the contact of the two lightest
// particles (m_eff = m / 2): pi / (omega sqrt(1 - beta^2)), omega^2 = k / m_eff.
static double bsContactTime(const bsInteractionDef* d, double smallestRadius)
{
	if (d->contactTime > 0.0)
	{
		return d->contactTime;
	}
	double mass = d->density * (4.0 / 3.0) * BS_PI * smallestRadius * smallestRadius * smallestRadius;
	double beta = bsDampingRatio(d);
	return BS_PI / (sqrt(d->stiffness / (0.5 * mass)) * sqrt(1.0 - beta * beta));
}

static double bsGranular_Period(const bsInteractionDef* d, double r)
{
	return bsPairInteraction_Period(d, r, bsContactTime(d, r), 0.0);
}

// The tangential damping rate gamma = tangential_damping / t_c is integrated explicitly: h <= 1 / gamma.
static double bsGranular_Substeps(const bsInteractionDef* d, double dt, double smallestRadius,
	const bsSubstepPlan* plan)
{
	return dt * d->tangentialDamping / bsContactTime(d, smallestRadius);
}

static void bsGranular_Model(const bsInteractionDef* d, double h, double smallestRadius, bsPairModel* m)
{
	m->granular = true;
	double l = bsLogRestitution(d);
	if (d->contactTime > 0.0)
	{
		m->K = (BS_PI * BS_PI + l * l) / (d->contactTime * d->contactTime);
		m->C = -2.0 * l / d->contactTime;
	}
	else
	{
		m->stiffness = d->stiffness / (d->density * (4.0 / 3.0) * BS_PI);
		m->beta2 = 2.0 * bsDampingRatio(d);
	}
	m->friction = d->friction;
	// The smallest free radius sets the contact time with a stiffness (the tangential damping).
	m->gamma = d->tangentialDamping / bsContactTime(d, smallestRadius);
	m->tangential = d->tangentialStiffness;
}

static bool bsGranular_Springs(const bsInteractionDef* d)
{
	return d->tangentialStiffness > 0.0;
}

static const bsPairKind bs_granularPair = {bsGranular_Model, true, bsGranular_Springs};

static bsResult bsGranular_Run(bsWorld* world, const bsStepDef* def, double h, double wakeSpeed,
	bsParticles* particles)
{
	return bsPairInteraction_Run(&bs_granularPair, world, def, h, wakeSpeed, particles);
}

const bsInteractionClass bs_granularInteraction = {
	.name = "granular",
	.setDefaults = bsGranular_SetDefaults,
	.isValid = bsGranular_IsValid,
	.reach = bsGranular_Reach,
	.period = bsGranular_Period,
	.substeps = bsGranular_Substeps,
	.run = bsGranular_Run,
};
