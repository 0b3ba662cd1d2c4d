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

double bsInteraction_ParticleMass(const bsInteractionDef* d, double r)
{
	const bsInteractionClass* c = bsInteractionClass_Of(d->type);
	double volume = c != NULL && c->volume != NULL ? c->volume(r) : 4.0 / 3.0 * BS_PI * r * r * r;
	return d->density * volume;
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

void bsInteraction_PlanSubsteps(const bsInteractionDef* d, double dt, bsVec3 gravity, const bsParticles* p,
	bsSubstepPlan* plan)
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
	plan->period = bsInteraction_Period(d, smallest);
	double n = c->ownTravel ? 1.0 : fmax(1.0, dt * rate / BS_SUBSTEP_TRAVEL);
	n = fmax(n, BS_SUBSTEPS_PER_PERIOD * dt / plan->period);
	if (c->substeps != NULL)
	{
		n = fmax(n, c->substeps(d, dt, smallest, plan));
	}
	plan->substeps = ceil(n);
}

// --- what the pair kinds share ---

bool bsPairInteraction_IsValid(const bsInteractionDef* d)
{
	const double big = DBL_MAX;
	return bsWithin(d->density, DBL_MIN, big) && bsWithin(d->cohesion, 0.0, big) &&
		bsWithin(d->cohesionRange, 1.0, 1e6) && bsWithin(d->viscosity, 0.0, big);
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
}

// The pair's spring K and dashpot C per unit relative mass. Against a fixed neighbour (infinite
// mass) m_eff is particle i's own mass.
static void bsGranularSpring(const bsPairModel* m, double ri3, double rj3, bool fixed, double* K, double* C)
{
	*K = m->K;
	*C = m->C;
	if (m->stiffness > 0.0)
	{
		*K = fixed ? m->stiffness / ri3 : m->stiffness * (ri3 + rj3) / (ri3 * rj3);
		*C = m->beta2 * sqrt(*K);
	}
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
	const bsPairModel* model;
	bsParticles* particles;
	bsStepWorker* workers;
	bsContactSpring* springs;  // the world's, with tangential springs, else NULL
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
} bsSpringList;

// What one neighbour adds to particle i's acceleration (a) and viscosity sums (mean, weight).
typedef struct bsGather
{
	bsVec3 a;
	bsVec3 mean;  // sum of weight x (v_j - v_i)
	double weight;
	uint64_t pairs, contacts;
} bsGather;

// Friction without history: a viscous drag along the relative tangential velocity vt, at most
// Coulomb's bound.
static bsVec3 bsViscousFriction(const bsPairModel* m, bsVec3 vt, double bound)
{
	double speed = bsLength(vt);
	// Comparisons rather than fmin and fmax, which are calls into libm in this inner loop.
	double viscous = m->gamma * speed;
	double friction = viscous < bound ? viscous : bound;
	return speed > 0.0 && friction > 0.0 ? bsScale(friction / speed, vt) : bsV3(0.0, 0.0, 0.0);
}

// The tangential displacement xi the spring of particle i with `partner` had after the last
// substep (0 for a new contact), turned into the tangent plane of n at its length.
static bsVec3 bsSpringList_Find(const bsSpringList* list, uint32_t partner, bsVec3 n)
{
	for (int k = 0; k < list->oldCount; ++k)
	{
		if (list->old[k].partner == partner)
		{
			const float* f = list->old[k].xi;
			bsVec3 xi = bsV3(f[0], f[1], f[2]);
			bsVec3 turned = bsMulSub(xi, bsDot(xi, n), n);
			double length = bsLength(turned);
			return length > 0.0 ? bsScale(bsLength(xi) / length, turned) : turned;
		}
	}
	return bsV3(0.0, 0.0, 0.0);
}

// Cundall-Strack friction: the spring k_t xi + gamma vt, xi grown by this substep's tangential
// travel, at most Coulomb's bound (sliding: xi then holds the spring at the bound). The two
// particles of a pair work out exact negatives of each other's xi (n, dv and xi change sign, the
// arithmetic is the same), so the pair's momentum is kept as with the normal force.
static bsVec3 bsSpringFriction(const bsPairModel* m, bsSpringList* list, uint32_t partner, bsVec3 n, bsVec3 vt,
	double K, double bound)
{
	double kt = m->tangential * K;
	bsVec3 xi = bsMulAdd(bsSpringList_Find(list, partner, n), m->h, vt);
	bsVec3 force = bsMulAdd(bsScale(kt, xi), m->gamma, vt);
	double size = bsLength(force);
	if (size > bound)
	{
		force = size > 0.0 ? bsScale(bound / size, force) : force;
		xi = bsScale(1.0 / kt, force);
	}
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

// The pair's granular relative acceleration apart (returned) and friction (*tangential). The spring
// acts from w = h |v_n| before contact (bsSpringOverlap), the dashpot and friction in contact only.
static double bsGranularPair(const bsPairModel* m, bsGather* g, bsSpringList* springs, uint32_t partner,
	bsVec3 n, double overlap, double approach, bsVec3 dv, double ri3, double rj3, bool fixed, bsVec3* tangential)
{
	double vn = bsDot(dv, n);
	double w = m->h * fabs(vn);
	w = w < approach ? w : approach;
	if (!(overlap > -w))
	{
		return 0.0;
	}
	double K, C;
	bsGranularSpring(m, ri3, rj3, fixed, &K, &C);
	double normal = K * bsSpringOverlap(overlap, w);
	if (overlap > 0.0)
	{
		g->contacts += 1;
		normal -= C * vn;
		bsVec3 vt = bsMulSub(dv, vn, n);
		double bound = normal > 0.0 ? m->friction * normal : 0.0;
		*tangential = springs != NULL ? bsSpringFriction(m, springs, partner, n, vt, K, bound) :
			bsViscousFriction(m, vt, bound);
	}
	return normal;
}

static void bsGather_Pair(const bsPairModel* m, bsGather* g, bsSpringList* springs, uint32_t partner, bsVec3 n,
	double d, double ri, double rj, bsVec3 dv, double share, double reach, double approach, bool fixed)
{
	double sum = ri + rj;
	double apart = 0.0;  // relative acceleration along -n (apart)
	bsVec3 tangential = bsV3(0.0, 0.0, 0.0);
	double ri3 = ri * ri * ri, rj3 = rj * rj * rj;
	if (m->repulsion && d < m->range * sum)
	{
		double f = 1.0 - d / (m->range * sum);
		apart += m->strength * f * f;
	}
	if (m->granular)
	{
		apart += bsGranularPair(m, g, springs, partner, n, sum - d, approach, dv, ri3, rj3, fixed, &tangential);
	}
	if (m->cohesion)
	{
		apart -= bsCohesion(m, d, sum);
	}
	// i is pushed along -n by `apart` and dragged along v_t by friction, with its share of the pair.
	g->a = bsAdd(g->a, bsScale(share, bsMulSub(tangential, apart, n)));
	if (m->viscosity && d < reach)
	{
		double w = rj3 * (1.0 - d / reach);
		g->mean = bsMulAdd(g->mean, w, dv);
		g->weight += w;
	}
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

// Particle in slot s gathers from every neighbour within reach, in the grid's fixed order. A fixed
// neighbour (stuck or sleeping, neighbour_grid.h) is an immovable one: particle i takes the whole of
// the pair's relative acceleration, as against a wall.
static void bsInteract_Slot(const bsInteractJob* job, uint32_t s, bsGather* g, bsSpringList* springs,
	bsStepWorker* w)
{
	const bsNeighbourGrid* grid = job->grid;
	const bsPairModel* m = job->model;
	bsVec3 xi = grid->position[s];
	bsVec3 vi = grid->velocity[s];
	double ri = grid->radius[s];
	double ri3 = ri * ri * ri;
	// The granular spring reaches a substep's approach beyond contact (bsSpringOverlap).
	double approach = m->granular ? grid->approach : 0.0;
	// No neighbour of i is farther than this (with the largest radius in the grid): most of the
	// candidates in the 27 cells (about 40 in a packing, 5 of them within reach) fail this test on
	// the position alone, before their radius is read.
	double bound = fmax(m->reach * (ri + grid->slotRadius), ri + grid->slotRadius + approach);
	double bound2 = bound * bound;
	bsNeighbourRanges ranges;
	bsNeighbourGrid_Ranges(grid, s, &ranges);
	for (int r = 0; r < ranges.count; ++r)
	{
		for (uint32_t t = ranges.begin[r]; t < ranges.end[r]; ++t)
		{
			bsVec3 x = bsSub(grid->position[t], xi);
			double d2 = bsDot(x, x);
			if (!(d2 < bound2) || t == s)
			{
				continue;
			}
			double rj = grid->radius[t];
			double reach = m->reach * (ri + rj);
			double far = ri + rj + approach > reach ? ri + rj + approach : reach;
			if (!(d2 < far * far))
			{
				continue;
			}
			g->pairs += d2 < reach * reach;
			double d = sqrt(d2);
			// Two particles at one point: apart along y, in opposite directions by slot order.
			bsVec3 n = d > 0.0 ? bsScale(1.0 / d, x) : bsV3(0.0, t > s ? 1.0 : -1.0, 0.0);
			double rj3 = rj * rj * rj;
			bool fixed = grid->fixedStates != 0 && grid->fixed[t];
			bsVec3 dv = bsSub(grid->velocity[t], vi);
			bsGather_Pair(m, g, springs, grid->index[t], n, d, ri, rj, dv, fixed ? 1.0 : rj3 / (ri3 + rj3), reach,
				grid->approach, fixed);
			if (fixed && d < ri + rj)
			{
				bsInteract_Touch(job, w, t, -bsDot(dv, n));
			}
		}
	}
}

// Reads particle i's springs into list->old; the list then writes over them.
static void bsSpringList_Begin(bsSpringList* list, bsContactSpring* springs)
{
	list->oldCount = 0;
	while (list->oldCount < BS_CONTACT_SPRINGS && springs[list->oldCount].partner != UINT32_MAX)
	{
		list->old[list->oldCount] = springs[list->oldCount];
		list->oldCount += 1;
	}
	list->out = springs;
	list->count = 0;
}

static void bsInteract_Range(void* context, size_t begin, size_t end, int worker)
{
	bsInteractJob* job = context;
	const bsNeighbourGrid* grid = job->grid;
	const bsPairModel* m = job->model;
	bsStepWorker* w = job->workers + worker;
	bsStepStats* stats = &w->stats;
	for (size_t s = begin; s < end; ++s)
	{
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
			bsSpringList_Begin(springs, job->springs + (size_t)grid->index[s] * BS_CONTACT_SPRINGS);
		}
		bsInteract_Slot(job, (uint32_t)s, &g, springs, w);
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
		stats->pairs += g.pairs;
		stats->contactPairs += g.contacts;
	}
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
	bsResult r = bsNeighbourGrid_BuildWith(grid, particles, bsInteractionDef_Reach(d), kind->approach ? h : 0.0,
		fixedStates, world->pool);
	if (r == bs_ok && springs)
	{
		r = bsInteraction_ReserveSprings(world, particles->count);
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
	double resting = bsLength(def->gravity) * bsInteraction_Period(d, grid->smallestRadius);
	bsInteractJob job = {grid, &model, particles, world->workers, springs ? world->springs : NULL,
		isfinite(resting) ? fmax(wakeSpeed, resting) : wakeSpeed};
	bsPool_For(world->pool, grid->count, bs_interactGrain, bsInteract_Range, &job);
	return bs_ok;
}
