// interaction_granular.c — the granular interaction (step.h): soft-sphere contacts (a linear
// spring-dashpot from a contact time or a stiffness, or Hertz-Mindlin from Young's modulus and
// Poisson's ratio) with friction, viscous or with tangential springs, rotation and rolling
// resistance, a pair kind of the shared pair phase (interaction_class.h). Its force is the gather's
// granular term (interaction.c: bsGranularPair), which reads the model made here.
#include "interaction_class.h"

#include "core.h"

#include <float.h>
#include <math.h>
#include <string.h>

static void bsGranular_SetDefaults(bsInteractionDef* d)
{
	d->restitution = 0.5;
	d->contactTime = 0.005;
	d->stiffness = 0.0;
	d->friction = 0.5;
	d->tangentialDamping = 1.0;
	d->tangentialStiffness = 0.0;
	d->contactModel = bs_contactHooke;
	d->youngsModulus = 5e6;
	d->poissonRatio = 0.3;
	d->rotation = false;
	d->rollingFriction = 0.0;
	d->rollingModel = bs_rollingCdt;
	d->bondStrength = 0.0;
	d->sinteringTime = 1.0;
	d->wallBond = 0.0;
	d->rollingFresh = -1.0;
	d->frictionFresh = -1.0;
	d->springTurn = bs_springTurnRescale;
}

static const char* const bs_contactModelNames[bs_contactModelCount] = {"hooke", "hertz"};
static const char* const bs_rollingModelNames[bs_rollingModelCount] = {"cdt", "epsd2"};
static const char* const bs_springTurnNames[bs_springTurnCount] = {"rescale", "project"};

// The index of name in names[count], or -1.
static int bsFindName(const char* const* names, int count, const char* name)
{
	for (int k = 0; k < count; ++k)
	{
		if (strcmp(name, names[k]) == 0)
		{
			return k;
		}
	}
	return -1;
}

const char* bsContactModelName(bsContactModel model)
{
	return (unsigned)model < (unsigned)bs_contactModelCount ? bs_contactModelNames[model] : "unknown";
}

bool bsParseContactModel(const char* name, bsContactModel* model)
{
	int k = bsFindName(bs_contactModelNames, bs_contactModelCount, name);
	*model = k >= 0 ? (bsContactModel)k : *model;
	return k >= 0;
}

const char* bsRollingModelName(bsRollingModel model)
{
	return (unsigned)model < (unsigned)bs_rollingModelCount ? bs_rollingModelNames[model] : "unknown";
}

bool bsParseRollingModel(const char* name, bsRollingModel* model)
{
	int k = bsFindName(bs_rollingModelNames, bs_rollingModelCount, name);
	*model = k >= 0 ? (bsRollingModel)k : *model;
	return k >= 0;
}

const char* bsSpringTurnName(bsSpringTurn turn)
{
	return (unsigned)turn < (unsigned)bs_springTurnCount ? bs_springTurnNames[turn] : "unknown";
}

static bool bsGranular_Hertz(const bsInteractionDef* d)
{
	return d->contactModel == bs_contactHertz;
}

static bool bsGranular_IsValid(const bsInteractionDef* d)
{
	const double big = DBL_MAX;
	bool law = bsGranular_Hertz(d) ? bsWithin(d->youngsModulus, DBL_MIN, big) && bsWithin(d->poissonRatio, 0.0, 0.5) :
		d->contactModel == bs_contactHooke && bsWithin(d->contactTime, 0.0, big) && bsWithin(d->stiffness, 0.0, big) &&
		(d->contactTime > 0.0 || d->stiffness > 0.0) && bsWithin(d->tangentialDamping, 0.0, 10.0) &&
		bsWithin(d->tangentialStiffness, 0.0, 1.0);
	return bsPairInteraction_IsValid(d) && law && bsWithin(d->restitution, DBL_MIN, 1.0) &&
		bsWithin(d->friction, 0.0, big) && bsWithin(d->rollingFriction, 0.0, big) &&
		(unsigned)d->rollingModel < (unsigned)bs_rollingModelCount &&
		(d->rollingModel != bs_rollingEpsd2 || bsGranular_Hertz(d) || d->tangentialStiffness > 0.0) &&
		(unsigned)d->springTurn < (unsigned)bs_springTurnCount &&
		(d->springTurn == bs_springTurnRescale || bsGranular_Hertz(d) || d->tangentialStiffness > 0.0) &&
		bsWithin(d->bondStrength, 0.0, big) && bsWithin(d->sinteringTime, DBL_MIN, big) &&
		bsWithin(d->wallBond, 0.0, big) &&
		(d->bondStrength == 0.0 || bsGranular_Hertz(d) || d->tangentialStiffness > 0.0) &&
		(d->rollingFresh < 0.0 || (bsWithin(d->rollingFresh, 0.0, big) && d->rotation &&
			d->rollingModel == bs_rollingEpsd2 && d->bondStrength > 0.0)) &&
		(d->frictionFresh < 0.0 || (bsWithin(d->frictionFresh, 0.0, big) && d->bondStrength > 0.0));
}

// Hertz-Mindlin's effective moduli of two particles of one material (LIGGGHTS's Yeff and Geff):
// E* = E / (2 (1 - nu^2)), G* = E / (4 (2 - nu)(1 + nu)).
static double bsHertzYoungs(const bsInteractionDef* d)
{
	return d->youngsModulus / (2.0 * (1.0 - d->poissonRatio * d->poissonRatio));
}

static double bsHertzShear(const bsInteractionDef* d)
{
	return d->youngsModulus / (4.0 * (2.0 - d->poissonRatio) * (1.0 + d->poissonRatio));
}

// The Rayleigh time of a particle of radius r, pi r sqrt(rho / G) / (0.1631 nu + 0.8766) with the
// shear modulus G = E / (2 (1 + nu)): a shear wave's crossing, the standard DEM time-step bound of
// Hertz contacts (LIGGGHTS's check/timestep/gran). Shorter than the Hertz contact time of a head-on
// pair below 1/60 of the wave speed sqrt(E / rho) (2.4 x longer at 1/60, 4 x at 1/1000): the
// substeps it asks keep 100 and more a contact.
static double bsRayleighTime(const bsInteractionDef* d, double r)
{
	double shear = d->youngsModulus / (2.0 * (1.0 + d->poissonRatio));
	return BS_PI * r * sqrt(d->density / shear) / (0.1631 * d->poissonRatio + 0.8766);
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
	return bsPairInteraction_Period(d, r, bsGranular_Hertz(d) ? bsRayleighTime(d, r) : bsContactTime(d, r), 0.0);
}

// The tangential damping rate gamma = tangential_damping / t_c is integrated explicitly: h <= 1 / gamma.
static double bsGranular_Substeps(const bsInteractionDef* d, double dt, double smallestRadius,
	const bsSubstepPlan* plan)
{
	// Hertz's tangential damping is below its normal one's, which the period bounds.
	return bsGranular_Hertz(d) ? 1.0 : dt * d->tangentialDamping / bsContactTime(d, smallestRadius);
}

static void bsGranular_Model(const bsInteractionDef* d, double h, double smallestRadius, bsPairModel* m)
{
	m->granular = true;
	m->friction = d->friction;
	m->rotation = d->rotation;
	m->rolling = d->rotation ? d->rollingFriction : 0.0;
	m->epsd = d->rotation && d->rollingModel == bs_rollingEpsd2;
	m->bond = d->bondStrength;
	m->sinteringTime = d->sinteringTime;
	m->rollingFresh = d->rollingFresh >= 0.0 && m->epsd && m->bond > 0.0 ? d->rollingFresh : m->rolling;
	m->frictionFresh = d->frictionFresh >= 0.0 && m->bond > 0.0 ? d->frictionFresh : m->friction;
	m->projectSpring = d->springTurn == bs_springTurnProject;
	double l = bsLogRestitution(d);
	if (bsGranular_Hertz(d))
	{
		// Per unit mass of density 4/3 pi r^3, as the stiffness: the pair divides by r^3 (r_i^3 +
		// r_j^3) / (r_i^3 r_j^3), 1 / m_eff.
		double unit = d->density * (4.0 / 3.0) * BS_PI;
		m->hertz = true;
		m->hertzYoungs = bsHertzYoungs(d) / unit;
		m->hertzShear = bsHertzShear(d) / unit;
		m->hertzDamping = 2.0 * sqrt(5.0 / 6.0) * bsDampingRatio(d);
		return;
	}
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
	// The smallest free radius sets the contact time with a stiffness (the tangential damping).
	m->gamma = d->tangentialDamping / bsContactTime(d, smallestRadius);
	m->tangential = d->tangentialStiffness;
}

static bool bsGranular_Springs(const bsInteractionDef* d)
{
	return d->tangentialStiffness > 0.0 || bsGranular_Hertz(d);
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
	.speciesTable = true,
};
