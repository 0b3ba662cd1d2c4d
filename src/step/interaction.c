// interaction.c — the interaction kinds' table (interaction_class.h) and what step.h asks of it (the
// names, the defaults, the validity, the reach, the substep plan), and the pair phase the pair kinds
// share: forces between free particles, gathered per particle from the neighbour grid's copy of the
// state before the substep. It has no branch on a type: each kind is its class, in its own file; the
// pair forces are terms of the shared gather (bsGather_Pair), read from the pair model's flags.
#include "interaction_class.h"

#include "array.h"
#include "core.h"
#include "sleep.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum
{
	bs_interactGrain = 256,  // slots per chunk
	bs_interactAhead = 8,    // slots the gather prefetches ahead (bsInteract_RangeWith)
};

// none: particles ignore each other. It has no settings and no phase (run NULL: the step skips it,
// and the substep plan has no bound), so it needs no file of its own; it is in the table so that its
// name and its type are found as every other kind's are.
const bsInteractionClass bs_noInteraction = {.name = "none"};

#define BS_INTERACTION_ENTRY(type, name) [type] = &name,
static const bsInteractionClass* const bs_interactionClasses[bs_interactionCount] = {
	BS_INTERACTION_LIST(BS_INTERACTION_ENTRY)};
#undef BS_INTERACTION_ENTRY

#define BS_INTERACTION_ONE(type, name) +1
_Static_assert(0 BS_INTERACTION_LIST(BS_INTERACTION_ONE) == bs_interactionCount, "a class for every interaction type");
#undef BS_INTERACTION_ONE

const bsInteractionClass* bsInteractionClass_Of(bsInteractionType type)
{
	return (unsigned)type < (unsigned)bs_interactionCount ? bs_interactionClasses[type] : NULL;
}

// A particle's volume as d's kind has it (bsInteractionClass.volume).
static double bsInteraction_Volume(const bsInteractionDef* d, double r)
{
	const bsInteractionClass* c = bsInteractionClass_Of(d->type);
	return c != NULL && c->volume != NULL ? c->volume(r) : 4.0 / 3.0 * BS_PI * r * r * r;
}

// --- the table of species (step.h: bsStepDef.speciesPairs, speciesDensity) ---

// The species of def's table: 0 without one, or for a kind that ignores it (the fluid).
static int bsStep_SpeciesCount(const bsStepDef* def)
{
	const bsInteractionClass* c = bsInteractionClass_Of(def->interaction.type);
	return c != NULL && c->speciesTable && def->speciesPairs != NULL ? def->speciesCount : 0;
}

// Species s as a table of n species has it: the last row's beyond it.
static inline int bsSpecies_Row(int s, int n)
{
	return s < n ? s : n - 1;
}

// The interaction's settings with rule's in place.
static bsInteractionDef bsSpeciesPair_Def(const bsInteractionDef* d, const bsSpeciesPair* rule)
{
	bsInteractionDef pd = *d;
	pd.restitution = rule->restitution;
	pd.friction = rule->friction;
	pd.cohesion = rule->cohesion;
	pd.cohesionRange = rule->cohesionRange;
	return pd;
}

double bsStep_ParticleMass(const bsStepDef* def, const bsParticles* p, size_t i)
{
	int n = bsStep_SpeciesCount(def);
	double density = def->interaction.density;
	if (n > 0 && def->speciesDensity != NULL)
	{
		density = def->speciesDensity[bsSpecies_Row(p->species != NULL ? p->species[i] : 0, n)];
	}
	return density * bsInteraction_Volume(&def->interaction, p->radius[i]);
}

bool bsStep_SpeciesAreValid(const bsStepDef* def)
{
	if (def->speciesPairs == NULL)
	{
		return true;
	}
	int n = def->speciesCount;
	bool ok = n >= 1 && n <= 255;
	for (int k = 0; ok && k < n * n; ++k)
	{
		const bsSpeciesPair* rule = def->speciesPairs + k;
		ok = rule->restitution > 0.0 && rule->restitution <= 1.0 && bsWithin(rule->friction, 0.0, DBL_MAX) &&
			bsWithin(rule->cohesion, 0.0, DBL_MAX) && bsWithin(rule->cohesionRange, 1.0, 1e6);
	}
	for (int k = 0; ok && def->speciesDensity != NULL && k < n; ++k)
	{
		ok = bsWithin(def->speciesDensity[k], DBL_MIN, DBL_MAX);
	}
	return ok;
}

// The neighbour lists' reach: the interaction's, or the farthest interacting rule's when farther.
static double bsStep_Reach(const bsStepDef* def)
{
	const bsInteractionDef* d = &def->interaction;
	double reach = bsInteractionDef_Reach(d);
	int n = bsStep_SpeciesCount(def);
	for (int k = 0; k < n * n; ++k)
	{
		if (def->speciesPairs[k].interact)
		{
			bsInteractionDef pd = bsSpeciesPair_Def(d, def->speciesPairs + k);
			reach = fmax(reach, bsInteractionDef_Reach(&pd));
		}
	}
	return reach;
}

const char* bsInteractionName(bsInteractionType type)
{
	const bsInteractionClass* c = bsInteractionClass_Of(type);
	return c != NULL ? c->name : "unknown";
}

bool bsParseInteraction(const char* name, bsInteractionType* type)
{
	for (int t = 0; t < bs_interactionCount; ++t)
	{
		if (strcmp(name, bs_interactionClasses[t]->name) == 0)
		{
			*type = (bsInteractionType)t;
			return true;
		}
	}
	return false;
}

// The settings every pair kind shares here; each class sets its own.
bsInteractionDef bsDefaultInteractionDef(void)
{
	bsInteractionDef def;
	memset(&def, 0, sizeof(def));
	def.type = bs_interactionNone;
	def.density = 1000.0;
	def.cohesion = 0.0;
	def.cohesionRange = 1.25;
	def.viscosity = 0.0;
	def.skin = 0.3;
	for (int t = 0; t < bs_interactionCount; ++t)
	{
		if (bs_interactionClasses[t]->setDefaults != NULL)
		{
			bs_interactionClasses[t]->setDefaults(&def);
		}
	}
	return def;
}

bool bsInteractionDef_IsValid(const bsInteractionDef* d)
{
	const bsInteractionClass* c = bsInteractionClass_Of(d->type);
	return c != NULL && (c->isValid == NULL || c->isValid(d));
}

double bsInteractionDef_Reach(const bsInteractionDef* d)
{
	const bsInteractionClass* c = bsInteractionClass_Of(d->type);
	return c != NULL && c->reach != NULL ? c->reach(d) : 1.0;
}

// The shortest period of def's kind at radius r (INFINITY: none).
static double bsInteraction_Period(const bsInteractionDef* d, double r)
{
	const bsInteractionClass* c = bsInteractionClass_Of(d->type);
	return c != NULL && c->period != NULL ? c->period(d, r) : (double)INFINITY;
}

// The settings the plan takes: the interaction's, with a table of densities at the lightest species'.
static bsInteractionDef bsStep_PlanDef(const bsStepDef* def)
{
	bsInteractionDef e = def->interaction;
	int n = bsStep_SpeciesCount(def);
	for (int k = 0; k < n && def->speciesDensity != NULL; ++k)
	{
		e.density = k == 0 ? def->speciesDensity[0] : fmin(e.density, def->speciesDensity[k]);
	}
	return e;
}

// The shortest period at radius r of e (bsStep_PlanDef) or, with a table of species, of the
// interacting rules' settings on e (e's when none interacts): their cohesions, and a granular
// contact's restitution (a rule keeping more of the approach speed has the shorter contact).
static double bsStep_Period(const bsStepDef* def, const bsInteractionDef* e, double r)
{
	int n = def != NULL ? bsStep_SpeciesCount(def) : 0;
	double period = INFINITY;
	bool any = false;
	for (int k = 0; k < n * n; ++k)
	{
		if (def->speciesPairs[k].interact)
		{
			bsInteractionDef pd = bsSpeciesPair_Def(e, def->speciesPairs + k);
			period = fmin(period, bsInteraction_Period(&pd, r));
			any = true;
		}
	}
	return any ? period : bsInteraction_Period(e, r);
}

// Records in plan the free particle with the largest speed over radius (speed |v| + fall) and
// returns the smallest free radius (INFINITY: no free particle).
static double bsInteraction_ScanFree(const bsParticles* p, double fall, bsSubstepPlan* plan, double* rate)
{
	double smallest = INFINITY;
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] != bs_particleFree)
		{
			continue;
		}
		double r = p->radius[i];
		double s = bsLength(p->velocity[i]) + fall;
		smallest = fmin(smallest, r);
		if (s / r > *rate)
		{
			*rate = s / r;
			plan->speed = s;
			plan->radius = r;
		}
	}
	return smallest;
}

// The plan of d (bsStep_PlanDef's for a step def, whose table of species it takes; def may be NULL).
static void bsInteraction_Plan(const bsInteractionDef* d, const bsStepDef* def, double dt, bsVec3 gravity,
	const bsParticles* p, bsSubstepPlan* plan)
{
	plan->substeps = 1.0;
	plan->period = INFINITY;
	plan->speed = 0.0;
	plan->radius = 0.0;
	const bsInteractionClass* c = bsInteractionClass_Of(d->type);
	if (c == NULL || c->run == NULL)
	{
		return;  // no phase, no bound
	}
	double rate = 0.0;  // the largest speed over radius
	double smallest = bsInteraction_ScanFree(p, bsLength(gravity) * dt, plan, &rate);
	if (!isfinite(smallest))
	{
		return;
	}
	plan->period = bsStep_Period(def, d, smallest);
	double n = c->ownTravel ? 1.0 : fmax(1.0, dt * rate / BS_SUBSTEP_TRAVEL);
	n = fmax(n, BS_SUBSTEPS_PER_PERIOD * dt / plan->period);
	if (c->substeps != NULL)
	{
		n = fmax(n, c->substeps(d, dt, smallest, plan));
	}
	plan->substeps = ceil(n);
}

void bsInteraction_PlanSubsteps(const bsInteractionDef* d, double dt, bsVec3 gravity, const bsParticles* p,
	bsSubstepPlan* plan)
{
	bsInteraction_Plan(d, NULL, dt, gravity, p, plan);
}

void bsStep_PlanSubsteps(const bsStepDef* def, const bsParticles* p, bsSubstepPlan* plan)
{
	bsInteractionDef e = bsStep_PlanDef(def);
	bsInteraction_Plan(&e, def, def->dt, def->gravity, p, plan);
}

// --- what the pair kinds share ---

bool bsPairInteraction_IsValid(const bsInteractionDef* d)
{
	const double big = DBL_MAX;
	return bsWithin(d->density, DBL_MIN, big) && bsWithin(d->cohesion, 0.0, big) &&
		bsWithin(d->cohesionRange, 1.0, 1e6) && bsWithin(d->viscosity, 0.0, big) && bsWithin(d->skin, 0.0, 10.0);
}

double bsPairInteraction_Reach(const bsInteractionDef* d, double own)
{
	return d->cohesion > 0.0 ? fmax(own, d->cohesionRange) : own;
}

// Cohesion's largest relative stiffness per unit distance is its ramp's, cohesion / ((range - 1) 2 r).
double bsPairInteraction_Period(const bsInteractionDef* d, double r, double period, double stiff)
{
	if (d->cohesion > 0.0 && d->cohesionRange > 1.0)
	{
		stiff = fmax(stiff, d->cohesion / ((d->cohesionRange - 1.0) * 2.0 * r));
	}
	if (stiff > 0.0)
	{
		period = fmin(period, 2.0 * BS_PI / sqrt(stiff));
	}
	return period;
}

// --- the pair phase ---

// The shared terms of the pair model, after the kind's own.
static void bsPairModel_Make(const bsPairKind* kind, const bsInteractionDef* d, double h, double smallestRadius,
	bsPairModel* m)
{
	memset(m, 0, sizeof(*m));
	kind->model(d, h, smallestRadius, m);
	m->cohesion = d->cohesion > 0.0;
	m->viscosity = d->viscosity > 0.0;
	m->reach = bsInteractionDef_Reach(d);
	m->cohesionAcc = d->cohesion;
	m->cohesionRange = d->cohesionRange;
	m->blend = m->viscosity ? -expm1(-d->viscosity * h) : 0.0;
	m->h = h;
	m->contactOnly = m->granular && !m->repulsion && !m->cohesion && !m->viscosity;
}

// A granular pair's law per unit relative mass: the normal spring K and dashpot C, the tangential
// spring kt and damping gt. Against a fixed neighbour (infinite mass) m_eff is particle i's own mass.
typedef struct bsGranularLaw
{
	double K, C, kt, gt;
} bsGranularLaw;

// The laws that depend on the pair's masses: the linear law from a stiffness, Hertz-Mindlin's at the
// spring's overlap (step.h); kt is Hertz's only.
static bsGranularLaw bsGranularLaw_Mass(const bsPairModel* m, double ri, double rj, double mi, double mj,
	bool fixed, double overlap)
{
	bsGranularLaw law = {0.0, 0.0, 0.0, 0.0};
	double inverse = fixed ? 1.0 / mi : (mi + mj) / (mi * mj);  // density 4/3 pi / m_eff (m: bsGather_Pair's)
	if (m->hertz)
	{
		double root = sqrt(ri * rj / (ri + rj) * overlap);
		law.K = (4.0 / 3.0) * m->hertzYoungs * root * inverse;
		law.C = m->hertzDamping * sqrt(2.0 * m->hertzYoungs * root * inverse);
		law.kt = 8.0 * m->hertzShear * root * inverse;
		law.gt = m->hertzDamping * sqrt(law.kt);
		return law;
	}
	law.K = m->stiffness * inverse;
	law.C = m->beta2 * sqrt(law.K);
	law.gt = m->gamma;
	return law;
}

// The pair's law: from a contact time the same for every pair (the model's: no division in this inner
// loop), else from the masses.
static bsGranularLaw bsGranularLaw_Make(const bsPairModel* m, double ri, double rj, double mi, double mj,
	bool fixed, double overlap)
{
	bsGranularLaw law = {m->K, m->C, 0.0, m->gamma};
	if (m->hertz || m->stiffness > 0.0)
	{
		law = bsGranularLaw_Mass(m, ri, rj, mi, mj, fixed, overlap);
	}
	law.kt = m->hertz ? law.kt : m->tangential * law.K;
	return law;
}

// The spring's overlap: the mean of max(overlap + s, 0) over s in [-w, w], w = h |v_n| the pair's
// normal travel in a substep (at most the grid's approach). It is the overlap itself once the pair
// is a substep's travel into contact, and a parabola from w before touching to w after. The plain
// max(overlap, 0) has a kink that symplectic Euler crosses at a random phase: an elastic contact then
// gains or loses up to 3.2e-5 of its energy at 50 substeps a contact. Averaged over the travel, every
// elastic contact loses 2e-6 to 4e-6 and none gains (1D, every phase, 8 to 1,000 substeps a contact).
static double bsSpringOverlap(double overlap, double w)
{
	if (overlap >= w)
	{
		return overlap;
	}
	if (overlap <= -w)
	{
		return 0.0;
	}
	return (overlap + w) * (overlap + w) / (4.0 * w);
}

// Cohesion's pull (positive together) at distance d of a pair whose radii sum to sum.
static double bsCohesion(const bsPairModel* m, double d, double sum)
{
	if (d <= sum)
	{
		return m->cohesionAcc;
	}
	double far = m->cohesionRange * sum;
	return d < far ? m->cohesionAcc * (far - d) / (far - sum) : 0.0;
}

typedef struct bsInteractJob
{
	const bsNeighbourGrid* grid;
	const bsNeighbourList* list;
	const bsPairModel* model;
	// Species (bsStepDef.speciesPairs): each pair of species' model, NULL where they do not interact
	// (pairModels NULL: every pair takes model); species NULL: every particle is species 0.
	const bsPairModel* const* pairModels;
	const uint8_t* species;
	int speciesCount;
	// With densities by species (bsStepDef.speciesDensity): each species' over the interaction's, the
	// factor of its particles' masses in units of density 4/3 pi (NULL: 1 for all).
	const double* scale;
	bsParticles* particles;
	bsStepWorker* workers;
	bsContactSpring* springs;  // the world's, with tangential springs, else NULL
	const bsVec3* spin;  // with rotation, every particle's spin before the phase (by index), else NULL
	double spinBound;  // with rotation, the largest |spin|_1 of any particle (bsGranular_Apart)
	bsRollingSpring* rolling;  // the world's, with the rolling spring (epsd2), else NULL
	float* bondAge;  // the world's, with sintered bonds, else NULL
	double wakeSpeed;  // a touch approaching a sleeper faster than this wakes it
} bsInteractJob;

// Particle i's tangential springs: those of the last substep (read) and this one's (written in
// place: a particle's list is only its own worker's).
typedef struct bsSpringList
{
	bsContactSpring old[BS_CONTACT_SPRINGS];
	int oldCount;
	bsContactSpring* out;
	int count;
	// With the rolling spring (epsd2): each spring's rolling torque, read (old) and written (out) at
	// the spring's index; and the indices of the contact the gather is at, in old and out (-1: none).
	bsRollingSpring rollOld[BS_CONTACT_SPRINGS];
	bsRollingSpring* rollOut;
	int found, written;
	// With sintered bonds: each spring's contact age in seconds, read (old) and written (out) at the
	// spring's index.
	float ageOld[BS_CONTACT_SPRINGS];
	float* ageOut;
} bsSpringList;

// What one neighbour adds to particle i's acceleration (a) and viscosity sums (mean, weight).
typedef struct bsGather
{
	bsVec3 a;
	bsVec3 alpha;  // angular acceleration, with rotation
	bsVec3 mean;  // sum of weight x (v_j - v_i)
	double weight;
	uint64_t pairs, contacts;
} bsGather;

// Friction without history: a viscous drag along the relative tangential velocity vt, at most
// Coulomb's bound.
static bsVec3 bsViscousFriction(double gamma, bsVec3 vt, double bound)
{
	double speed = bsLength(vt);
	// Comparisons rather than fmin and fmax, which are calls into libm in this inner loop.
	double viscous = gamma * speed;
	double friction = viscous < bound ? viscous : bound;
	return speed > 0.0 && friction > 0.0 ? bsScale(friction / speed, vt) : bsV3(0.0, 0.0, 0.0);
}

// The tangential displacement xi the spring of particle i with `partner` had after the last
// substep (0 for a new contact), turned into the tangent plane of n: at its length (spring_turn
// "rescale"), or only projected (m->projectSpring: "project", step.h).
static bsVec3 bsSpringList_Find(const bsPairModel* m, bsSpringList* list, uint32_t partner, bsVec3 n)
{
	list->found = -1;
	for (int k = 0; k < list->oldCount; ++k)
	{
		if (list->old[k].partner == partner)
		{
			list->found = k;
			const float* f = list->old[k].xi;
			bsVec3 xi = bsV3(f[0], f[1], f[2]);
			bsVec3 turned = bsMulSub(xi, bsDot(xi, n), n);
			if (m->projectSpring)
			{
				return turned;
			}
			double length = bsLength(turned);
			return length > 0.0 ? bsScale(bsLength(xi) / length, turned) : turned;
		}
	}
	return bsV3(0.0, 0.0, 0.0);
}

// The age of the contact bsSpringList_Find has just looked up, after this substep: the last
// substep's (0 for a new contact) + h, held at 40 tau (where the bond's pull is b to 4e-18).
static double bsSpringList_Age(const bsPairModel* m, const bsSpringList* list)
{
	double age = (list->found >= 0 ? (double)list->ageOld[list->found] : 0.0) + m->h;
	return age < 40.0 * m->sinteringTime ? age : 40.0 * m->sinteringTime;
}

// Coulomb's mu of the contact bsSpringList_Find has just looked up: with friction_fresh (step.h),
// mu + (fresh - mu) exp(-t / tau) for its age t after this substep, as bsSpringList_Bond counts it;
// else mu, and mu for a contact beyond the particle's 8 springs (it keeps no age, and no bond).
static double bsFrictionAged(const bsPairModel* m, const bsSpringList* list)
{
	if (m->frictionFresh == m->friction || list->ageOut == NULL || list->count >= BS_CONTACT_SPRINGS)
	{
		return m->friction;
	}
	return m->friction + (m->frictionFresh - m->friction) * exp(-bsSpringList_Age(m, list) / m->sinteringTime);
}

// Cundall-Strack friction: the spring k_t xi + gamma vt, xi grown by this substep's tangential
// travel, at most Coulomb's bound mu normal (sliding: xi then holds the spring at the bound; 0 for a
// pull). The two particles of a pair work out exact negatives of each other's xi (n, dv and xi change
// sign, the arithmetic is the same), so the pair's momentum is kept as with the normal force.
static bsVec3 bsSpringFriction(const bsPairModel* m, bsSpringList* list, uint32_t partner, bsVec3 n, bsVec3 vt,
	const bsGranularLaw* law, double normal)
{
	double kt = law->kt;
	bsVec3 xi = bsMulAdd(bsSpringList_Find(m, list, partner, n), m->h, vt);
	double bound = normal > 0.0 ? bsFrictionAged(m, list) * normal : 0.0;
	bsVec3 force = bsMulAdd(bsScale(kt, xi), law->gt, vt);
	double size = bsLength(force);
	if (size > bound)
	{
		force = size > 0.0 ? bsScale(bound / size, force) : force;
		xi = bsScale(1.0 / kt, force);
	}
	list->written = list->count < BS_CONTACT_SPRINGS ? list->count : -1;
	if (list->count < BS_CONTACT_SPRINGS)
	{
		bsContactSpring* out = list->out + list->count++;
		out->partner = partner;
		out->xi[0] = (float)xi.x;
		out->xi[1] = (float)xi.y;
		out->xi[2] = (float)xi.z;
	}
	return force;
}

// A sintered bond's pull (step.h: bond_strength), per unit relative mass, on the contact the spring
// list has just written: b (1 - exp(-t / tau)) for the contact's age t, which grows by h each substep
// in contact (held at 40 tau, where the pull is b to 4e-18) and starts again when the contact ends.
// Both particles of a free pair count the same ages, so their pulls are equal and opposite.
static double bsSpringList_Bond(const bsPairModel* m, bsSpringList* list)
{
	if (list == NULL || list->ageOut == NULL || list->written < 0)
	{
		return 0.0;  // no bonds, or a contact beyond the particle's 8 springs
	}
	double age = bsSpringList_Age(m, list);
	list->ageOut[list->written] = (float)age;
	return m->bond * -expm1(-age / m->sinteringTime);
}

// What a granular contact tells the rolling resistance, per unit relative mass: the elastic normal
// force K delta (cdt's), the whole normal force and the tangential stiffness (epsd2's); all 0 for a
// pair not in contact.
typedef struct bsGranularContact
{
	double elastic, normal, kt;
} bsGranularContact;

// The pair's granular relative acceleration apart (returned), friction (*tangential) and what its
// contact tells the rolling resistance (*contact, filled in contact only). The spring acts
// from w = h |v_n| before contact (bsSpringOverlap), the dashpot and friction in contact only. With
// rotation dv is the contact points' relative velocity.
static double bsGranularPair(const bsPairModel* m, bsGather* g, bsSpringList* springs, uint32_t partner,
	bsVec3 n, double overlap, double approach, bsVec3 dv, const double r[4], bool fixed, bsVec3* tangential,
	bsGranularContact* contact)
{
	double vn = bsDot(dv, n);
	double w = m->h * fabs(vn);
	w = w < approach ? w : approach;
	if (!(overlap > -w))
	{
		return 0.0;
	}
	double spring = bsSpringOverlap(overlap, w);
	bsGranularLaw law = bsGranularLaw_Make(m, r[0], r[1], r[2], r[3], fixed, spring);
	double normal = law.K * spring;
	if (overlap > 0.0)
	{
		g->contacts += 1;
		contact->elastic = law.K * overlap;
		normal -= law.C * vn;
		contact->normal = normal;
		contact->kt = law.kt;
		bsVec3 vt = bsMulSub(dv, vn, n);
		*tangential = springs != NULL ? bsSpringFriction(m, springs, partner, n, vt, &law, normal) :
			bsViscousFriction(law.gt, vt, normal > 0.0 ? m->friction * normal : 0.0);
		if (m->bond > 0.0)
		{
			return normal - bsSpringList_Bond(m, springs);
		}
	}
	return normal;
}

// epsd2's mu_r for the contact the spring list has just written: with rolling_friction_fresh (step.h),
// mu_r + (fresh - mu_r) exp(-t / tau) for the age t bsSpringList_Bond wrote; else mu_r.
static double bsRollingAged(const bsPairModel* m, const bsSpringList* list)
{
	if (m->rollingFresh == m->rolling || list->ageOut == NULL)
	{
		return m->rolling;
	}
	double age = list->ageOut[list->written];
	return m->rolling + (m->rollingFresh - m->rolling) * exp(-age / m->sinteringTime);
}

// The rolling spring of epsd2 (step.h) of the contact the spring list is at: the torque M (on i: -M)
// grown by h k_t R*^2 w, at most mu_r |F_n| R*, kept for the next substep; i's angular acceleration
// from it. False when the contact has no spring slot (beyond a particle's 8: cdt then).
static bool bsGather_RollingSpring(const bsPairModel* m, bsGather* g, bsSpringList* springs, bsVec3 w,
	double reff, double share, double ri, const bsGranularContact* contact)
{
	if (springs == NULL || springs->rollOut == NULL || springs->written < 0)
	{
		return false;
	}
	bsVec3 torque = bsV3(0.0, 0.0, 0.0);
	if (springs->found >= 0)
	{
		const float* f = springs->rollOld[springs->found].torque;
		torque = bsV3(f[0], f[1], f[2]);
	}
	torque = bsMulAdd(torque, m->h * contact->kt * reff * reff, w);
	double size = bsLength(torque);
	double bound = fabs(contact->normal) * reff * bsRollingAged(m, springs);
	torque = size > bound ? bsScale(bound / size, torque) : torque;
	float* out = springs->rollOut[springs->written].torque;
	out[0] = (float)torque.x;
	out[1] = (float)torque.y;
	out[2] = (float)torque.z;
	g->alpha = bsMulSub(g->alpha, 2.5 * share / (ri * ri), torque);
	return true;
}

// With rotation, particle i's angular acceleration from one contact (added to g->alpha): the friction
// tangential (i's relative acceleration along the tangent, its share of it) at lever[0] n makes the
// torque lever[0] n x F (I = 2/5 m r^2), and the rolling resistance (step.h) of the relative spin
// w = spin_i - spin_j without its part along n: epsd2's rolling spring, or cdt's torque
// -mu_r F_n R w / |w|, cut so that it never turns w round within the substep. Both particles of the
// pair work out the same cut and exact negatives of each other's spring (the arithmetic is
// symmetric), so the pair's torques stay equal and opposite.
static void bsGather_Spin(const bsPairModel* m, bsGather* g, bsSpringList* springs, bsVec3 n, const double r[4],
	const double lever[2], const bsVec3 spin[2], double share, bool fixed, bsVec3 tangential,
	const bsGranularContact* contact)
{
	double ri = r[0], rj = r[1];
	g->alpha = bsMulAdd(g->alpha, 2.5 * share * lever[0] / (ri * ri), bsCross(n, tangential));
	if (!(m->rolling > 0.0 && contact->elastic > 0.0))
	{
		return;
	}
	bsVec3 w = bsSub(spin[0], spin[1]);
	double size = bsLength(w);
	w = bsMulSub(w, bsDot(w, n), n);
	double reff = ri * rj / (ri + rj);
	if ((m->epsd && bsGather_RollingSpring(m, g, springs, w, reff, share, ri, contact)) || !(size > 0.0))
	{
		return;
	}
	double torque = 2.5 * m->rolling * contact->elastic * reff;
	double sum = r[2] + r[3];
	double own = fixed ? torque / (ri * ri) : torque * (r[3] / sum) / (ri * ri);
	double other = fixed ? 0.0 : torque * (r[2] / sum) / (rj * rj);
	double turn = m->h * (own + other);  // the change of |w| in the substep, at most its size
	double cut = turn > size ? size / turn : 1.0;
	g->alpha = bsMulSub(g->alpha, own * cut / size, w);
}

// radii holds r_i, r_j and the masses m_i, m_j in units of the interaction's density x 4/3 pi (r^3
// at that density); with rotation spin holds the spins of i and j (before the substep), else it is NULL.
static void bsGather_Pair(const bsPairModel* m, bsGather* g, bsSpringList* springs, uint32_t partner, bsVec3 n,
	double d, const double radii[4], bsVec3 dv, double share, double reach, double approach, bool fixed,
	const bsVec3* spin)
{
	double ri = radii[0], rj = radii[1];
	double sum = ri + rj;
	double apart = 0.0;  // relative acceleration along -n (apart)
	bsVec3 tangential = bsV3(0.0, 0.0, 0.0);
	bsGranularContact contact = {0.0, 0.0, 0.0};
	if (m->repulsion && d < m->range * sum)
	{
		double f = 1.0 - d / (m->range * sum);
		apart += m->strength * f * f;
	}
	if (m->granular)
	{
		// The contact point's relative velocity: with spin, (v_j + w_j x (-c_j n)) - (v_i + w_i x c_i n),
		// c = r - delta / 2 (LIGGGHTS's contact point: the levers sum to d, so that the orbital and
		// spin angular momenta the pair exchanges cancel).
		double lever[2] = {ri, rj};
		bsVec3 dc = dv;
		if (spin != NULL)
		{
			lever[0] = ri - 0.5 * (sum - d);
			lever[1] = rj - 0.5 * (sum - d);
			dc = bsSub(dv, bsCross(bsAdd(bsScale(lever[0], spin[0]), bsScale(lever[1], spin[1])), n));
		}
		apart += bsGranularPair(m, g, springs, partner, n, sum - d, approach, dc, radii, fixed, &tangential,
			&contact);
		if (spin != NULL)
		{
			bsGather_Spin(m, g, springs, n, radii, lever, spin, share, fixed, tangential, &contact);
		}
	}
	if (m->cohesion)
	{
		apart -= bsCohesion(m, d, sum);
	}
	// i is pushed along -n by `apart` and dragged along v_t by friction, with its share of the pair.
	g->a = bsAdd(g->a, bsScale(share, bsMulSub(tangential, apart, n)));
	if (m->viscosity && d < reach)
	{
		double w = rj * rj * rj * (1.0 - d / reach);  // by volume
		g->mean = bsMulAdd(g->mean, w, dv);
		g->weight += w;
	}
}

// A granular pair (nothing but the granular term: bsPairModel.contactOnly) at distance d = sqrt(d2),
// x = x_j - x_i, dv = v_j - v_i, that is apart by more than the substep's normal travel h |v_n|
// (v_n = dv . x / d) adds nothing: bsGranularPair's spring acts from w <= h |v_n| before contact, and
// the sums of the zeros it would add (to the acceleration, and with spin to the angular one: the
// friction is 0 and the rolling resistance acts in contact only) keep every bit of the gather's
// (round to nearest never makes -0 of a sum that starts at +0). For d >= sum,
// d (d - sum) >= (d2 - sum^2) / 2, so
//     d2 - sum^2 >= 2 h (|dv . x| + noise d2)
// gives d - sum >= h |v_n| without the square root. With spin the gather's v_n is that of the contact
// points, dv - (l_i w_i + l_j w_j) x n along n: the same but for the rounding of a product that is 0,
// at most 1e-15 |l_i w_i + l_j w_j| <= 1e-15 d (|w_i|_1 + |w_j|_1); noise is 1e-12 times a bound on
// |w_i|_1 + |w_j|_1 (0 without spin). The margins (1e-9 of each side, and of sum^2) are far above the
// rounding of either test as well, so the pairs skipped are pairs the gather rejects.
static inline bool bsGranular_Apart(double h, double d2, double sum, bsVec3 x, bsVec3 dv, double noise)
{
	double sum2 = sum * sum;
	double gap = d2 - sum2;
	double travel = 2.0 * h * (fabs(bsDot(dv, x)) + noise * d2);
	return gap > 0.0 && gap >= travel * (1.0 + 1e-9) + 1e-9 * sum2;
}

// |v|_1, a bound on |v| without a square root.
static inline double bsNorm1(bsVec3 v)
{
	return fabs(v.x) + fabs(v.y) + fabs(v.z);
}

// A sleeping neighbour that particle i touches (d < r_i + r_j) approaching faster than the job's wake
// speed wakes after the phase, as a hit in the move phase does; a resting contact, however hard it
// presses, does not (sleep.h). Its state is not this worker's to write: it goes on the worker's list.
static void bsInteract_Touch(const bsInteractJob* job, bsStepWorker* w, uint32_t t, double approach)
{
	uint32_t j = job->grid->index[t];
	if (approach > job->wakeSpeed && job->particles->state[j] == bs_particleSleeping &&
		!bsWakeList_Push(&w->wakes, j) && w->error == bs_ok)
	{
		w->error = bs_errOutOfMemory;
	}
}

// Particle i's species as the table has it: the last row's beyond it.
static inline int bsInteract_SpeciesOf(const bsInteractJob* job, uint32_t i)
{
	return job->species != NULL ? bsSpecies_Row(job->species[i], job->speciesCount) : 0;
}

// Particle i's mass in units of the interaction's density x 4/3 pi, r3 its radius cubed.
static inline double bsInteract_Mass(const bsInteractJob* job, uint32_t i, double r3)
{
	return job->scale != NULL ? r3 * job->scale[bsInteract_SpeciesOf(job, i)] : r3;
}

// Particle in slot s gathers from every neighbour within reach, in its list's order (ascending
// particle index, neighbour_list.h: the same order whenever the list was built). A fixed neighbour
// (stuck or sleeping, neighbour_grid.h) is an immovable one: particle i takes the whole of the pair's
// relative acceleration, as against a wall.
static void bsInteract_Slot(const bsInteractJob* job, uint32_t s, bsGather* g, bsSpringList* springs,
	bsStepWorker* w, bool spinning)
{
	const bsNeighbourGrid* grid = job->grid;
	const bsPairModel* m = job->model;
	bsVec3 xi = grid->position[s];
	bsVec3 vi = grid->velocity[s];
	double ri = grid->radius[s];
	uint32_t self = grid->index[s];
	double mi = bsInteract_Mass(job, self, ri * ri * ri);
	const bsPairModel* const* row = job->pairModels != NULL
		? job->pairModels + (size_t)bsInteract_SpeciesOf(job, self) * (size_t)job->speciesCount : NULL;
	// The granular spring reaches a substep's approach beyond contact (bsSpringOverlap).
	double approach = m->granular ? grid->approach : 0.0;
	const uint32_t* entry = job->list->entry;
	// bsGranular_Apart's allowance for the rounding of the spin's term: |w_i|_1 + the largest |w_j|_1.
	double noise = spinning ? 1e-12 * (bsNorm1(job->spin[self]) + job->spinBound) : 0.0;
	for (uint32_t k = job->list->start[s], end = job->list->start[s + 1]; k < end; ++k)
	{
		uint32_t t = entry[k];
		if (row != NULL && (m = row[bsInteract_SpeciesOf(job, grid->index[t])]) == NULL)
		{
			continue;  // species that do not interact
		}
		bsVec3 x = bsSub(grid->position[t], xi);
		double d2 = bsDot(x, x);
		double rj = grid->radius[t];
		double reach = m->reach * (ri + rj);
		double far = ri + rj + approach > reach ? ri + rj + approach : reach;
		if (!(d2 < far * far))
		{
			continue;
		}
		g->pairs += d2 < reach * reach;
		bsVec3 dv = bsSub(grid->velocity[t], vi);
		if (m->contactOnly && bsGranular_Apart(m->h, d2, ri + rj, x, dv, noise))
		{
			continue;  // adds nothing: skipped before its square root and divisions
		}
		double d = sqrt(d2);
		uint32_t j = grid->index[t];
		// Two particles at one point: apart along y, in opposite directions by particle index.
		bsVec3 n = d > 0.0 ? bsScale(1.0 / d, x) : bsV3(0.0, j > self ? 1.0 : -1.0, 0.0);
		double mj = bsInteract_Mass(job, j, rj * rj * rj);
		bool fixed = grid->fixedStates != 0 && grid->fixed[t];
		bsVec3 spin[2];
		if (spinning)
		{
			spin[0] = job->spin[self];
			spin[1] = job->spin[j];
		}
		double radii[4] = {ri, rj, mi, mj};
		bsGather_Pair(m, g, springs, j, n, d, radii, dv, fixed ? 1.0 : mj / (mi + mj), reach, grid->approach, fixed,
			spinning ? spin : NULL);
		if (fixed && d < ri + rj)
		{
			bsInteract_Touch(job, w, t, -bsDot(dv, n));
		}
	}
}

// Reads particle i's springs (and their rolling torques, rolling not NULL) into list->old; the list
// then writes over them.
static void bsSpringList_Begin(bsSpringList* list, bsContactSpring* springs, bsRollingSpring* rolling,
	float* ages)
{
	list->oldCount = 0;
	while (list->oldCount < BS_CONTACT_SPRINGS && springs[list->oldCount].partner != UINT32_MAX)
	{
		list->old[list->oldCount] = springs[list->oldCount];
		if (rolling != NULL)
		{
			list->rollOld[list->oldCount] = rolling[list->oldCount];
		}
		if (ages != NULL)
		{
			list->ageOld[list->oldCount] = ages[list->oldCount];
		}
		list->oldCount += 1;
	}
	list->out = springs;
	list->rollOut = rolling;
	list->ageOut = ages;
	list->count = 0;
	list->found = list->written = -1;
}

// The gather of slots [begin, end). spinning (job->spin != NULL) is a constant in each of the two
// ranges below, which inline the whole gather (GCC, clang: flatten), so that the one without spin is
// compiled without the spin's terms: without, the sand pile's interaction phase took 8.7% more
// instructions than before rotation was added (callgrind).
static inline void bsInteract_RangeWith(bsInteractJob* job, size_t begin, size_t end, int worker, bool spinning)
{
	const bsNeighbourGrid* grid = job->grid;
	const bsPairModel* m = job->model;
	bsStepWorker* w = job->workers + worker;
	bsStepStats* stats = &w->stats;
	for (size_t s = begin; s < end; ++s)
	{
#if defined(__GNUC__)
		// The slots are in the grid's cell order and a particle's springs and velocity are by its
		// index, so every slot reads and writes them at a random place of arrays larger than the
		// caches (200k grains: 25 MB of springs): the gather waited on that miss for 35% of the 200k
		// column's run (perf). It asks for them bs_interactAhead slots early, so that the misses
		// overlap with the slots before. A hint only; it changes no result. (Here, not in a function
		// of its own: GCC finds such a function pure and drops the call.)
		if (s + bs_interactAhead < end)
		{
			size_t ahead = grid->index[s + bs_interactAhead];
			if (job->springs != NULL)
			{
				const char* row = (const char*)(job->springs + ahead * BS_CONTACT_SPRINGS);
				__builtin_prefetch(row, 1);
				__builtin_prefetch(row + BS_CONTACT_SPRINGS * sizeof(bsContactSpring) - 1, 1);
			}
			__builtin_prefetch(job->particles->velocity + ahead, 1);
		}
#endif
		if (grid->fixedStates != 0 && grid->fixed[s])
		{
			continue;  // not integrated: only the free particles move
		}
		bsGather g;
		memset(&g, 0, sizeof(g));
		bsSpringList list, *springs = NULL;
		if (job->springs != NULL)
		{
			springs = &list;
			size_t first = (size_t)grid->index[s] * BS_CONTACT_SPRINGS;
			bsSpringList_Begin(springs, job->springs + first, job->rolling != NULL ? job->rolling + first : NULL,
				job->bondAge != NULL ? job->bondAge + first : NULL);
		}
		bsInteract_Slot(job, (uint32_t)s, &g, springs, w, spinning);
		if (springs != NULL && list.count < BS_CONTACT_SPRINGS)
		{
			list.out[list.count].partner = UINT32_MAX;  // contacts that ended are forgotten
		}
		bsVec3 v = bsMulAdd(grid->velocity[s], m->h, g.a);
		if (g.weight > 0.0)
		{
			v = bsMulAdd(v, m->blend / g.weight, g.mean);
		}
		job->particles->velocity[grid->index[s]] = v;
		if (spinning)
		{
			uint32_t i = grid->index[s];
			job->particles->spin[i] = bsMulAdd(job->spin[i], m->h, g.alpha);
		}
		stats->pairs += g.pairs;
		stats->contactPairs += g.contacts;
	}
}

#if defined(__GNUC__)
#define BS_FLATTEN __attribute__((flatten))
#else
#define BS_FLATTEN
#endif

BS_FLATTEN static void bsInteract_Range(void* context, size_t begin, size_t end, int worker)
{
	bsInteract_RangeWith(context, begin, end, worker, false);
}

BS_FLATTEN static void bsInteract_RangeSpin(void* context, size_t begin, size_t end, int worker)
{
	bsInteract_RangeWith(context, begin, end, worker, true);
}

// Room for the tangential springs of count particles; the new ones have none.
static bsResult bsInteraction_ReserveSprings(bsWorld* world, size_t count)
{
	size_t row = BS_CONTACT_SPRINGS * sizeof(bsContactSpring);  // a particle's springs
	if (count > SIZE_MAX / row)
	{
		return bs_errTooLarge;
	}
	size_t old = world->springCapacity;
	if (!bsArray_Reserve(&world->springs, &world->springCapacity, count, row))
	{
		return bs_errOutOfMemory;
	}
	for (size_t i = old; i < world->springCapacity; ++i)
	{
		world->springs[i * BS_CONTACT_SPRINGS].partner = UINT32_MAX;
	}
	return bs_ok;
}

// Room in *slot (of *capacity particles) for an element of `size` bytes beside every tangential
// spring: the rolling springs (epsd2; the new ones hold no torque) or the bond ages (the new ones 0).
static bsResult bsInteraction_ReserveBeside(bsWorld* world, void* slot, size_t* capacity, size_t size)
{
	size_t row = BS_CONTACT_SPRINGS * size;
	size_t old = *capacity;
	if (!bsArray_Reserve(slot, capacity, world->springCapacity, row))
	{
		return bs_errOutOfMemory;
	}
	memset(*(char**)slot + old * row, 0, (*capacity - old) * row);
	return bs_ok;
}

// With rotation, the spins before the phase (the gather reads them; it writes the particles'), with
// the particles' spin array made when they have none, and the largest |spin|_1 (*bound; NaN or
// infinite when a spin is: bsGranular_Apart then skips nothing).
static bsResult bsInteraction_CopySpin(bsWorld* world, bsParticles* particles, double* bound)
{
	if (bsParticles_EnableSpin(particles) != bs_ok ||
		!BS_ARRAY_RESERVE(world->spinBefore, world->spinCapacity, particles->count))
	{
		return bs_errOutOfMemory;
	}
	double largest = 0.0;
	for (size_t i = 0; i < particles->count; ++i)
	{
		bsVec3 w = particles->spin[i];
		world->spinBefore[i] = w;
		double size = bsNorm1(w);
		largest = size > largest || size != size ? size : largest;
	}
	*bound = largest;
	return bs_ok;
}

bsResult bsPairInteraction_Run(const bsPairKind* kind, bsWorld* world, const bsStepDef* def, double h,
	double wakeSpeed, bsParticles* particles)
{
	const bsInteractionDef* d = &def->interaction;
	bsNeighbourGrid* grid = &world->grid;
	// Sleepers (with rest on) and, when they are colliders (accumulation), stuck particles are fixed
	// neighbours. Without accumulation stuck particles stay out, as before: snow passes through snow.
	unsigned fixedStates = (def->sleepSteps > 0 ? 1u << bs_particleSleeping : 0u) |
		(world->stuck != NULL ? 1u << bs_particleStuck : 0u);
	bool springs = kind->springs != NULL && kind->springs(d);
	bsNeighbourListDef listDef = {bsStep_Reach(def), kind->approach ? h : 0.0, fixedStates, d->skin};
	bsResult r = bsNeighbourList_Update(&world->pairs, grid, particles, &listDef, world->pool, NULL);
	if (r == bs_ok && springs)
	{
		r = bsInteraction_ReserveSprings(world, particles->count);
	}
	bool rolling = springs && d->rotation && d->rollingModel == bs_rollingEpsd2;
	if (r == bs_ok && rolling)
	{
		r = bsInteraction_ReserveBeside(world, &world->rolling, &world->rollingCapacity, sizeof(bsRollingSpring));
	}
	bool bonds = springs && d->type == bs_interactionGranular && d->bondStrength > 0.0;
	if (r == bs_ok && bonds)
	{
		r = bsInteraction_ReserveBeside(world, &world->bondAge, &world->bondCapacity, sizeof(float));
	}
	if (r != bs_ok || grid->count == 0)
	{
		return r;
	}
	bsPairModel model;
	bsPairModel_Make(kind, d, h, grid->smallestRadius, &model);
	// A particle settling onto a sleeper under gravity approaches it at up to about g t_c / pi (the
	// spring's response to its weight), far above the move phase's resting speed (2 g h): a touch
	// wakes a sleeper only faster than g x the shortest period, so settling never does.
	bsInteractionDef e = bsStep_PlanDef(def);
	double resting = bsLength(def->gravity) * bsStep_Period(def, &e, grid->smallestRadius);
	const bsVec3* spin = NULL;
	double spinBound = 0.0;
	if (model.rotation)
	{
		r = bsInteraction_CopySpin(world, particles, &spinBound);
		if (r != bs_ok)
		{
			return r;
		}
		spin = world->spinBefore;
	}
	// Each pair of species' model: the interaction's with the rule's restitution, friction and cohesion;
	// each species' mass factor.
	int n = bsStep_SpeciesCount(def);
	bsPairModel* models = n > 0 ? malloc((size_t)n * (size_t)n * sizeof(bsPairModel)) : NULL;
	const bsPairModel** pairModels = n > 0 ? malloc((size_t)n * (size_t)n * sizeof(bsPairModel*)) : NULL;
	double* scale = n > 0 && def->speciesDensity != NULL ? malloc((size_t)n * sizeof(double)) : NULL;
	if (n > 0 && (models == NULL || pairModels == NULL || (def->speciesDensity != NULL && scale == NULL)))
	{
		free(models);
		free(pairModels);
		free(scale);
		return bs_errOutOfMemory;
	}
	for (int k = 0; k < n * n; ++k)
	{
		bsInteractionDef pd = bsSpeciesPair_Def(d, def->speciesPairs + k);
		bsPairModel_Make(kind, &pd, h, grid->smallestRadius, models + k);
		pairModels[k] = def->speciesPairs[k].interact ? models + k : NULL;
	}
	for (int k = 0; scale != NULL && k < n; ++k)
	{
		scale[k] = def->speciesDensity[k] / d->density;
	}
	bsInteractJob job = {grid, &world->pairs, &model, pairModels, n > 0 ? particles->species : NULL, n, scale,
		particles, world->workers, springs ? world->springs : NULL, spin, spinBound,
		rolling ? world->rolling : NULL, bonds ? world->bondAge : NULL,
		isfinite(resting) ? fmax(wakeSpeed, resting) : wakeSpeed};
	bsPool_For(world->pool, grid->count, bs_interactGrain, spin != NULL ? bsInteract_RangeSpin : bsInteract_Range, &job);
	free(models);
	free(pairModels);
	free(scale);
	return bs_ok;
}
