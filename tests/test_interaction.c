// test_interaction.c — particle-particle interaction (step.h) and its neighbour grid
// (neighbour_grid.h), against independent references: the grid's neighbours against all pairs by
// brute force; a head-on collision against the closed form of the spring-dashpot (restitution e, the
// pair's momentum); an elastic pair's energy over 1,000 bounces (never above its start); static
// friction against Coulomb's closed form (tan theta below or above mu); a column of four, a particle
// in the pocket of three and a settled pile at rest; the same bytes at 1, 2 and 3 threads for every
// mode; the substep rule against its formula; the kinds' class table (interaction_class.h).
#include "blobsim/collide.h"
#include "interaction_class.h"
#include "neighbour_grid.h"
#include "neighbour_list.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "test.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>


// --- the neighbour grid against all pairs ---

// An order-free fingerprint of a neighbour set: count and a sum of mixed indices.
typedef struct Fingerprint
{
	uint32_t count;
	uint64_t sum;
} Fingerprint;

static uint64_t Mix(uint64_t x)
{
	return bsSplitMix64(&x);
}

// Brute force: every pair (i < j) of free particles, within reach (ri + rj).
static void AllPairs(const bsParticles* p, double reach, Fingerprint* out)
{
	memset(out, 0, p->count * sizeof(Fingerprint));
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] != bs_particleFree)
		{
			continue;
		}
		bsVec3 xi = p->position[i];
		double ri = p->radius[i];
		for (size_t j = i + 1; j < p->count; ++j)
		{
			bsVec3 d = bsSub(p->position[j], xi);
			double r = reach * (ri + p->radius[j]);
			if (bsDot(d, d) < r * r && p->state[j] == bs_particleFree)
			{
				out[i].count += 1;
				out[i].sum += Mix(j);
				out[j].count += 1;
				out[j].sum += Mix(i);
			}
		}
	}
}

// The grid's: every slot's ranges, the same predicate. Also checks that no neighbour is seen twice
// (the fingerprint's count would then exceed brute force's).
static void GridPairs(const bsNeighbourGrid* g, double reach, Fingerprint* out, size_t count)
{
	memset(out, 0, count * sizeof(Fingerprint));
	for (uint32_t s = 0; s < g->count; ++s)
	{
		bsNeighbourRanges ranges;
		bsNeighbourGrid_Ranges(g, s, &ranges);
		Fingerprint* f = out + g->index[s];
		for (int k = 0; k < ranges.count; ++k)
		{
			for (uint32_t t = ranges.begin[k]; t < ranges.end[k]; ++t)
			{
				bsVec3 d = bsSub(g->position[t], g->position[s]);
				double r = reach * (g->radius[s] + g->radius[t]);
				if (t != s && bsDot(d, d) < r * r)
				{
					f->count += 1;
					f->sum += Mix(g->index[t]);
				}
			}
		}
	}
}

// n particles uniform in a cube of side `side`, radii r [0.5, 1.5], every 17th stuck and every 23rd
// escaped (neither is in the grid), `far` of them moved far away (the grid then wraps).
static bsParticles RandomSet(size_t n, double side, double r, size_t far, double distance, uint64_t seed)
{
	bsParticles p = {0};
	bsParticles_Alloc(&p, n);
	bsRng rng = bsMakeRng(seed);
	for (size_t i = 0; i < n; ++i)
	{
		p.position[i] = bsV3(bsRng_Range(&rng, 0, side), bsRng_Range(&rng, 0, side), bsRng_Range(&rng, 0, side));
		p.radius[i] = r * bsRng_Range(&rng, 0.5, 1.5);
		p.state[i] = i % 17 == 5 ? bs_particleStuck : i % 23 == 7 ? bs_particleEscaped : bs_particleFree;
	}
	for (size_t k = 0; k < far; ++k)
	{
		size_t i = bsRng_Below(&rng, (uint32_t)n);
		p.position[i] = bsMulAdd(p.position[i], distance, bsRng_UnitVector(&rng));
	}
	return p;
}

// Brute force with fixed neighbours: each free particle's neighbours within reach among the free
// particles and those whose state's bit is in `fixed` (the others' fingerprints stay 0).
static void FreePairsWith(const bsParticles* p, double reach, unsigned fixed, Fingerprint* out)
{
	memset(out, 0, p->count * sizeof(Fingerprint));
	for (size_t i = 0; i < p->count; ++i)
	{
		for (size_t j = 0; j < p->count && p->state[i] == bs_particleFree; ++j)
		{
			bsVec3 d = bsSub(p->position[j], p->position[i]);
			double r = reach * (p->radius[i] + p->radius[j]);
			bool in = p->state[j] == bs_particleFree || ((fixed >> p->state[j]) & 1u);
			if (j != i && in && bsDot(d, d) < r * r)
			{
				out[i].count += 1;
				out[i].sum += Mix(j);
			}
		}
	}
}

// The grid against brute force. With fixed (BuildWith's states; the set's stuck particles are given a
// velocity here, which the grid must not pass on): every free particle finds exactly brute force's
// free and fixed neighbours, the fixed slots are flagged and at rest, and a build with no particle in
// a fixed state is the free particles' grid.
static int CompareGrid(bsParticles* p, double reach, int threads, unsigned fixed)
{
	Fingerprint* brute = malloc(p->count * sizeof(Fingerprint));
	Fingerprint* grid = malloc(p->count * sizeof(Fingerprint));
	bsPool* pool = bsPool_Create(threads);
	bsNeighbourGrid g;
	memset(&g, 0, sizeof(g));
	ENSURE(brute != NULL && grid != NULL && pool != NULL);
	size_t freeCount = 0;
	for (size_t i = 0; i < p->count; ++i)
	{
		freeCount += p->state[i] == bs_particleFree;
		p->velocity[i] = p->state[i] == bs_particleStuck ? bsV3(1.0, 2.0, 3.0) : bsV3(0.5, 0.0, 0.0);
	}
	ENSURE(bsNeighbourGrid_BuildWith(&g, p, reach, 0.0, fixed, pool) == bs_ok);
	ENSURE(g.fixedStates == fixed && g.count == freeCount + g.fixedCount && (fixed != 0) == (g.fixedCount > 0));
	for (uint32_t s = 0; s < g.count && fixed != 0; ++s)
	{
		uint8_t state = p->state[g.index[s]];
		ENSURE(state != bs_particleEscaped && g.fixed[s] == (state == bs_particleStuck));
		ENSURE(g.velocity[s].x == (g.fixed[s] ? 0.0 : 0.5) && g.velocity[s].y == 0.0);
	}
	if (fixed != 0)
	{
		FreePairsWith(p, reach, fixed, brute);
	}
	else
	{
		AllPairs(p, reach, brute);
	}
	GridPairs(&g, reach, grid, p->count);
	uint64_t pairs = 0;
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] == bs_particleFree)
		{
			ENSURE(brute[i].count == grid[i].count && brute[i].sum == grid[i].sum);
			pairs += brute[i].count;
		}
	}
	ENSURE(pairs > freeCount);  // the sets are dense enough to have neighbours to find
	ENSURE(bsNeighbourGrid_BuildWith(&g, p, reach, 0.0, 1u << bs_particleSleeping, pool) == bs_ok);
	ENSURE(g.fixedStates == 0 && g.fixedCount == 0 && g.count == freeCount);
	bsNeighbourGrid_Free(&g);
	bsPool_Destroy(pool);
	free(brute);
	free(grid);
	return 0;
}

static int GridMatchesAllPairs(void)
{
	// 100,000 particles, about 6 neighbours each; then a set whose bounding box is huge (100
	// particles 1e4 away): the buckets wrap; then coordinates of 1e12 (cell coordinates clamped).
	bsParticles a = RandomSet(100000, 1.0, 0.0075, 0, 0.0, 1);
	RUN_SUBTEST(CompareGrid(&a, 1.0, 2, 0u));
	bsParticles_Free(&a);
	bsParticles b = RandomSet(20000, 1.0, 0.012, 100, 1e4, 2);
	RUN_SUBTEST(CompareGrid(&b, 1.5, 3, 0u));
	bsParticles_Free(&b);
	bsParticles c = RandomSet(5000, 1.0, 0.03, 50, 1e12, 3);
	RUN_SUBTEST(CompareGrid(&c, 1.25, 1, 0u));
	bsParticles_Free(&c);
	// Every particle at one point, and a single particle.
	bsParticles d = RandomSet(300, 0.0, 0.1, 0, 0.0, 4);
	RUN_SUBTEST(CompareGrid(&d, 1.0, 2, 0u));
	bsParticles_Free(&d);
	return 0;
}

static int FixedGridMatchesAllPairs(void)
{
	// A dense set, then one whose box is huge (the buckets wrap, stuck particles far from the free ones).
	bsParticles a = RandomSet(5000, 1.0, 0.02, 0, 0.0, 11);
	RUN_SUBTEST(CompareGrid(&a, 1.0, 2, 1u << bs_particleStuck));
	bsParticles_Free(&a);
	bsParticles b = RandomSet(4000, 1.0, 0.02, 60, 1e4, 12);
	RUN_SUBTEST(CompareGrid(&b, 1.5, 3, 1u << bs_particleStuck));
	bsParticles_Free(&b);
	return 0;
}

// --- the neighbour lists (neighbour_list.h): never a pair missed, whenever built ---

// Brute force at the gather's predicate: each free particle's neighbours (free, or in a fixed state)
// within far = max(reach (r_i + r_j), r_i + r_j + approach).
static void FarPairs(const bsParticles* p, double reach, double approach, unsigned fixed, Fingerprint* out)
{
	memset(out, 0, p->count * sizeof(Fingerprint));
	for (size_t i = 0; i < p->count; ++i)
	{
		for (size_t j = 0; j < p->count && p->state[i] == bs_particleFree; ++j)
		{
			bsVec3 d = bsSub(p->position[j], p->position[i]);
			double sum = p->radius[i] + p->radius[j];
			double far = fmax(reach * sum, sum + approach);
			bool in = p->state[j] == bs_particleFree || ((fixed >> p->state[j]) & 1u);
			if (j != i && in && bsDot(d, d) < far * far)
			{
				out[i].count += 1;
				out[i].sum += Mix(j);
			}
		}
	}
}

// The lists' pairs at the same predicate, from the grid's copies; each slot's list in ascending
// particle index.
static int ListPairs(const bsNeighbourList* list, const bsNeighbourGrid* g, double reach, Fingerprint* out,
	size_t count)
{
	memset(out, 0, count * sizeof(Fingerprint));
	ENSURE(list->count == g->count);
	for (uint32_t s = 0; s < g->count; ++s)
	{
		Fingerprint* f = out + g->index[s];
		for (uint32_t k = list->start[s]; k < list->start[s + 1]; ++k)
		{
			uint32_t t = list->entry[k];
			ENSURE(k == list->start[s] || g->index[list->entry[k - 1]] < g->index[t]);
			bsVec3 d = bsSub(g->position[t], g->position[s]);
			double sum = g->radius[s] + g->radius[t];
			double far = fmax(reach * sum, sum + g->approach);
			if (bsDot(d, d) < far * far)
			{
				f->count += 1;
				f->sum += Mix(g->index[t]);
			}
		}
	}
	return 0;
}

// 1,200 particles (stuck ones fixed neighbours, escaped ones out) take 40 random moves of up to
// `move` x r each, their speeds and the substep's length (and so the approach) changing too, a few
// changing state; after each update the lists hold exactly brute force's pairs, and some updates
// kept the lists, others built.
static int ListAgainstAllPairs(double skin, double move, int threads)
{
	size_t n = 1200;
	double r = 0.025;
	bsParticles p = RandomSet(n, 1.0, r, 0, 0.0, 3);
	bsRng rng = bsMakeRng(5);
	bsPool* pool = bsPool_Create(threads);
	bsNeighbourGrid g;
	bsNeighbourList list;
	memset(&g, 0, sizeof(g));
	memset(&list, 0, sizeof(list));
	Fingerprint* brute = malloc(n * sizeof(Fingerprint));
	Fingerprint* listed = malloc(n * sizeof(Fingerprint));
	unsigned fixed = 1u << bs_particleStuck;
	bsNeighbourListDef def = {1.25, 0.004, fixed, skin};
	for (int round = 0; round < 40; ++round)
	{
		for (size_t i = 0; i < n && round > 0; ++i)
		{
			bsVec3 step = bsScale(bsRng_Range(&rng, 0.0, move * r), bsRng_UnitVector(&rng));
			p.position[i] = bsAdd(p.position[i], step);
			p.velocity[i] = bsScale(bsRng_Range(&rng, 0.0, 1.0 + 0.2 * round), bsRng_UnitVector(&rng));
		}
		if (round % 25 == 24)
		{
			p.state[round] = p.state[round] == bs_particleFree ? bs_particleStuck : bs_particleFree;
		}
		def.travel = 0.002 * (double)(1 + round % 3);  // the substep's length changes too
		ENSURE(bsNeighbourList_Update(&list, &g, &p, &def, pool, NULL) == bs_ok);
		FarPairs(&p, def.reach, g.approach, fixed, brute);
		RUN_SUBTEST(ListPairs(&list, &g, def.reach, listed, n));
		for (size_t i = 0; i < n; ++i)
		{
			ENSURE(brute[i].count == listed[i].count && brute[i].sum == listed[i].sum);
		}
	}
	ENSURE(list.builds + list.reuses == 40);
	ENSURE(skin > 0.0 ? list.reuses > 0 && list.builds > 1 : list.reuses == 0);
	free(brute);
	free(listed);
	bsNeighbourList_Free(&list);
	bsNeighbourGrid_Free(&g);
	bsPool_Destroy(pool);
	bsParticles_Free(&p);
	return 0;
}

static int ListsMatchAllPairs(void)
{
	RUN_SUBTEST(ListAgainstAllPairs(0.3, 0.03, 1));
	RUN_SUBTEST(ListAgainstAllPairs(1.0, 0.1, 2));
	RUN_SUBTEST(ListAgainstAllPairs(0.0, 0.03, 3));
	RUN_SUBTEST(ListAgainstAllPairs(0.5, 0.0, 2));  // only the approach grows
	return 0;
}

// --- a scene of a few particles ---

typedef struct Scene
{
	bsWorld* world;
	bsParticles p;
	bsStepDef def;
	bsPlane planes[6];
} Scene;

static bsStepDef GranularDef(double e, double contactTime)
{
	bsStepDef def = bsDefaultStepDef();
	def.method = bs_methodExact;
	def.response = bs_responseSlide;
	def.interaction.type = bs_interactionGranular;
	def.interaction.restitution = e;
	def.interaction.contactTime = contactTime;
	return def;
}

static void Scene_Init(Scene* s, int threads, size_t count)
{
	memset(s, 0, sizeof(*s));
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	s->world = bsWorld_Create(&wd);
	bsParticles_Alloc(&s->p, count);
}

static void Scene_Free(Scene* s)
{
	bsWorld_Destroy(s->world);
	bsParticles_Free(&s->p);
}

static double Mass(double r)
{
	return 1000.0 * 4.0 / 3.0 * BS_PI * r * r * r;
}

// --- head-on: restitution and momentum ---

// Two particles of radii r0, r1 meet head-on along x at relative speed 2; after the contact the
// relative speed is e times it (the spring-dashpot's closed form), and the momentum is unchanged.
static int HeadOn(double r0, double r1, double e, bool byStiffness)
{
	Scene s;
	Scene_Init(&s, 1, 2);
	s.def = GranularDef(e, 0.01);
	s.def.interaction.friction = 0.0;
	double tc = 0.01;
	if (byStiffness)
	{
		// The stiffness whose contact of these two masses lasts 0.01 s: K = k / m_eff.
		double l = log(e);
		double meff = Mass(r0) * Mass(r1) / (Mass(r0) + Mass(r1));
		s.def.interaction.contactTime = 0.0;
		s.def.interaction.stiffness = meff * (BS_PI * BS_PI + l * l) / (tc * tc);
	}
	s.def.dt = tc / 25.0;
	s.def.substeps = 8;  // h = t_c / 200
	s.p.position[0] = bsV3(-r0 - 0.01, 0, 0);
	s.p.position[1] = bsV3(r1 + 0.01, 0, 0);
	s.p.velocity[0] = bsV3(1, 0, 0);
	s.p.velocity[1] = bsV3(-1, 0, 0);
	s.p.radius[0] = r0;
	s.p.radius[1] = r1;
	double m0 = Mass(r0), m1 = Mass(r1);
	double before = m0 * 1.0 - m1 * 1.0;
	bool touched = false;
	for (int step = 0; step < 2000; ++step)
	{
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
		double gap = s.p.position[1].x - s.p.position[0].x - r0 - r1;
		touched = touched || gap < 0.0;
		if (touched && gap > 0.005)
		{
			break;
		}
	}
	ENSURE(touched);
	double after = m0 * s.p.velocity[0].x + m1 * s.p.velocity[1].x;
	double separating = s.p.velocity[1].x - s.p.velocity[0].x;
	ENSURE_SMALL(after - before, 1e-12 * (m0 + m1));
	ENSURE_SMALL(separating / 2.0 - e, 0.01 * e);
	ENSURE_SMALL(s.p.velocity[0].y, 0.0);
	Scene_Free(&s);
	return 0;
}

static int HeadOnCollisions(void)
{
	RUN_SUBTEST(HeadOn(0.1, 0.1, 0.5, false));
	RUN_SUBTEST(HeadOn(0.1, 0.15, 0.8, false));
	RUN_SUBTEST(HeadOn(0.05, 0.1, 0.3, true));
	RUN_SUBTEST(HeadOn(0.1, 0.1, 1.0, false));
	return 0;
}

// --- energy of an elastic pair over 1,000 bounces ---

static double KineticEnergy(const bsParticles* p)
{
	double e = 0.0;
	for (size_t i = 0; i < p->count; ++i)
	{
		e += 0.5 * Mass(p->radius[i]) * bsDot(p->velocity[i], p->velocity[i]);
	}
	return e;
}

// Two equal particles between two walls (elastic bounces: a reflection), e = 1, no friction or
// damping, the planned substeps (50 a contact): the kinetic energy between contacts stays within 1% of
// its start over 1,000 bounces and never exceeds it, not even by a rounding error (the spring averaged
// over a substep's travel loses 2e-6 to 4e-6 a contact, interaction.c; the plain spring gained up to
// 3.2e-5 in some). Between contacts: the pair more than 0.1 R apart, beyond the spring's reach (a
// substep's approach, at most 0.2 R with the planned substeps). The pair is symmetric so that it
// never touches a wall while in contact (the move phase places a particle touching the wall, which
// would change the spring's energy).
static int ElasticPairKeepsEnergy(void)
{
	Scene s;
	Scene_Init(&s, 1, 2);
	s.def = GranularDef(1.0, 0.01);
	s.def.interaction.friction = 0.0;
	s.def.interaction.tangentialDamping = 0.0;
	s.def.response = bs_responseBounce;
	s.def.restitution = 1.0;
	s.def.dt = 0.01;
	s.def.substeps = 0;
	bsMakePlane(bsV3(-0.5, 0, 0), bsV3(1, 0, 0), s.planes + 0);
	bsMakePlane(bsV3(0.5, 0, 0), bsV3(-1, 0, 0), s.planes + 1);
	bsWorld_AddPlanes(s.world, s.planes, 2);
	s.p.position[0] = bsV3(-0.3, 0, 0);
	s.p.position[1] = bsV3(0.3, 0, 0);
	s.p.velocity[0] = bsV3(2.0, 0, 0);
	s.p.velocity[1] = bsV3(-2.0, 0, 0);
	s.p.radius[0] = 0.1;
	s.p.radius[1] = 0.1;
	double e0 = KineticEnergy(&s.p);
	double lowest = e0, highest = e0;
	int bounces = 0;
	bool contact = false;
	for (int step = 0; bounces < 1000; ++step)
	{
		ENSURE(step < 200000);
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
		double gap = s.p.position[1].x - s.p.position[0].x - 0.2;
		bounces += gap < 0.0 && !contact;
		contact = gap < 0.0;
		if (gap > 0.01)
		{
			double e = KineticEnergy(&s.p);
			lowest = fmin(lowest, e);
			highest = fmax(highest, e);
		}
	}
	ENSURE(lowest > 0.99 * e0);
	ENSURE(highest <= e0);
	Scene_Free(&s);
	return 0;
}

// --- rest: a column of four, a settled pile ---

// Four particles in a column on the floor (radius R, centres at R, 3R, 5R, 7R), gravity, 10,000
// steps: the top one never sinks by more than 1% of R below 7R, and ends at rest.
static int ColumnStaysUp(void)
{
	Scene s;
	Scene_Init(&s, 1, 4);
	double R = 0.1;
	s.def = GranularDef(0.5, 0.005);
	s.def.gravity = bsV3(0, -9.81, 0);
	s.def.dt = 0.001;
	s.def.substeps = 0;
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), s.planes);
	bsWorld_AddPlanes(s.world, s.planes, 1);
	for (int k = 0; k < 4; ++k)
	{
		s.p.position[k] = bsV3(0, (2 * k + 1) * R, 0);
		s.p.radius[k] = R;
	}
	double lowest = INFINITY;
	for (int step = 0; step < 10000; ++step)
	{
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
		lowest = fmin(lowest, s.p.position[3].y);
	}
	ENSURE(lowest > 7 * R - 0.01 * R);
	ENSURE(bsLength(s.p.velocity[3]) < 1e-6);
	for (int k = 0; k < 4; ++k)
	{
		ENSURE(s.p.state[k] == bs_particleFree && s.p.position[k].x == 0.0 && s.p.position[k].z == 0.0);
	}
	Scene_Free(&s);
	return 0;
}

// A particle resting in the pocket of a stack of three (radius R, the three touching on the floor,
// the fourth on them: a regular tetrahedron, its top at R + 2 R sqrt(2/3)), gravity, 10,000 steps:
// the top never sinks by more than 1% of R below where it started. Its weight presses it into the
// three by about g / (3 cos a K) (2e-4 R) and pushes them apart along the floor with 0.24 of it
// each; the floor's friction (0.5) and the particles' (0.5, with the tangential spring) hold them.
// Measured: 0.31% of R. What sinking there is comes from the floor: the move phase leaves a resting
// particle 1e-6 R clear of a surface, so each substep it drifts sideways until it touches again and
// friction stops it, 4e-4 R every 1,000 steps here. Without the spring the top's contacts slip as
// well and it sinks 1.3% of R.
static int Pocket(double tangential, double* sink)
{
	Scene s;
	Scene_Init(&s, 1, 4);
	double R = 0.1;
	s.def = GranularDef(0.5, 0.005);
	s.def.interaction.friction = 0.5;
	s.def.interaction.tangentialStiffness = tangential;
	s.def.gravity = bsV3(0, -9.81, 0);
	s.def.friction = 0.5;
	s.def.dt = 0.001;
	s.def.substeps = 0;
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), s.planes);
	bsWorld_AddPlanes(s.world, s.planes, 1);
	double ring = 2.0 * R / sqrt(3.0);
	for (int k = 0; k < 3; ++k)
	{
		double a = 2.0 * BS_PI * k / 3.0;
		s.p.position[k] = bsV3(ring * cos(a), R, ring * sin(a));
	}
	double top = R + 2.0 * R * sqrt(2.0 / 3.0);
	s.p.position[3] = bsV3(0, top, 0);
	for (int k = 0; k < 4; ++k)
	{
		s.p.radius[k] = R;
	}
	double lowest = INFINITY;
	for (int step = 0; step < 10000; ++step)
	{
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
		lowest = fmin(lowest, s.p.position[3].y);
	}
	*sink = (top - lowest) / R;
	Scene_Free(&s);
	return 0;
}

static int PocketHoldsUp(void)
{
	double sink;
	RUN_SUBTEST(Pocket(2.0 / 7.0, &sink));
	ENSURE(sink >= 0.0 && sink < 0.01);
	return 0;
}

// The closed box [-w, w] x [0, inf) x [-w, w].
static void AddBox(Scene* s, double w)
{
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), s->planes + 0);
	bsMakePlane(bsV3(-w, 0, 0), bsV3(1, 0, 0), s->planes + 1);
	bsMakePlane(bsV3(w, 0, 0), bsV3(-1, 0, 0), s->planes + 2);
	bsMakePlane(bsV3(0, 0, -w), bsV3(0, 0, 1), s->planes + 3);
	bsMakePlane(bsV3(0, 0, w), bsV3(0, 0, -1), s->planes + 4);
	bsWorld_AddPlanes(s->world, s->planes, 5);
}

// n particles on a jittered lattice above the floor, radii r [0.8, 1.2], falling.
static void FillLattice(Scene* s, size_t n, double r, double w, uint64_t seed)
{
	bsRng rng = bsMakeRng(seed);
	int side = (int)floor(2.0 * w / (2.6 * r));
	for (size_t i = 0; i < n; ++i)
	{
		int x = (int)(i % (size_t)side), z = (int)(i / (size_t)side % (size_t)side), y = (int)(i / (size_t)(side * side));
		s->p.position[i] = bsV3(-w + 1.3 * r + 2.6 * r * x + bsRng_Range(&rng, -0.2, 0.2) * r,
			1.5 * r + 2.6 * r * y, -w + 1.3 * r + 2.6 * r * z + bsRng_Range(&rng, -0.2, 0.2) * r);
		s->p.radius[i] = r * bsRng_Range(&rng, 0.8, 1.2);
		s->p.velocity[i] = bsV3(0, -1, 0);
	}
}

// 300 particles with friction (0.5, the tangential spring) dropped into a box with floor friction
// come to rest with the mechanism configs/sand-pile.json uses (the spring, and the sleep rule with
// its settings): after 3 s the mean square speed is below 1e-6 (m/s)^2 and a ten-thousandth of what
// it was at 0.5 s, and over the last 500 steps (0.5 s) no particle moves by more than 1e-4 R.
static double MeanSquareSpeed(const bsParticles* p)
{
	double sum = 0.0;
	for (size_t i = 0; i < p->count; ++i)
	{
		sum += bsDot(p->velocity[i], p->velocity[i]);
	}
	return sum / (double)p->count;
}

static int PileSettles(void)
{
	Scene s;
	size_t n = 300;
	double r = 0.02, w = 0.12;
	Scene_Init(&s, 1, n);
	s.def = GranularDef(0.3, 0.005);
	s.def.interaction.friction = 0.5;
	s.def.interaction.tangentialStiffness = 2.0 / 7.0;
	s.def.gravity = bsV3(0, -9.81, 0);
	s.def.friction = 0.5;
	s.def.sleepSteps = 10;
	s.def.sleepSpeed = 0.02;
	s.def.sleepAcceleration = 1.0;
	s.def.wakeSpeed = 0.3;
	s.def.dt = 0.001;
	s.def.substeps = 0;
	AddBox(&s, w);
	FillLattice(&s, n, r, w, 7);
	double early = 0.0;
	for (int step = 0; step < 3000; ++step)
	{
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
		early = step == 499 ? MeanSquareSpeed(&s.p) : early;
	}
	ENSURE(MeanSquareSpeed(&s.p) < 1e-6 && MeanSquareSpeed(&s.p) < 1e-4 * early);
	bsVec3* start = malloc(n * sizeof(bsVec3));
	memcpy(start, s.p.position, n * sizeof(bsVec3));
	double moved = 0.0;
	for (int step = 0; step < 500; ++step)
	{
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
		for (size_t i = 0; i < n; ++i)
		{
			moved = fmax(moved, bsLength(bsSub(s.p.position[i], start[i])));
		}
	}
	// Every particle in the box, none above where the lattice started (the top layer 1 m up; with
	// friction the 300 jam between the walls up to about 0.4 m).
	for (size_t i = 0; i < n; ++i)
	{
		bsVec3 x = s.p.position[i];
		ENSURE(s.p.state[i] != bs_particleEscaped && s.p.state[i] != bs_particleStuck && x.y > 0.0 && x.y < 1.0 && fabs(x.x) < w && fabs(x.z) < w);
	}
	ENSURE(moved < 1e-4 * 0.8 * r);
	free(start);
	Scene_Free(&s);
	return 0;
}

// --- the same bytes at 1, 2 and 3 threads ---

static int RunModeCounted(const bsInteractionDef* inter, int threads, bsParticles* out, uint64_t* reuses);

static int RunMode(const bsInteractionDef* inter, int threads, bsParticles* out)
{
	return RunModeCounted(inter, threads, out, NULL);
}

// RunMode, and how many substeps kept their neighbour lists (reuses may be NULL).
static int RunModeCounted(const bsInteractionDef* inter, int threads, bsParticles* out, uint64_t* reuses)
{
	Scene s;
	size_t n = 1500;
	double r = 0.01, w = 0.12;
	Scene_Init(&s, threads, n);
	s.def = GranularDef(0.4, 0.005);
	s.def.interaction = *inter;
	s.def.gravity = bsV3(0, -9.81, 0);
	s.def.dt = 0.002;
	s.def.substeps = 0;
	AddBox(&s, w);
	FillLattice(&s, n, r, w, 11);
	for (int step = 0; step < 25; ++step)
	{
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
	}
	*out = s.p;
	if (reuses != NULL)
	{
		*reuses = s.world->pairs.reuses;
	}
	memset(&s.p, 0, sizeof(s.p));
	Scene_Free(&s);
	return 0;
}

// The pair modes of SameBytesAnyThreads and SameBytesAnySkin: the seven without spin, then rotation,
// then sintered bonds.
enum { BS_PAIR_MODES = 11 };

static void PairModes(bsInteractionDef modes[BS_PAIR_MODES])
{
	for (int m = 0; m < BS_PAIR_MODES; ++m)
	{
		modes[m] = bsDefaultInteractionDef();
	}
	modes[0].type = bs_interactionRepulsion;
	modes[0].strength = 200.0;
	modes[1].type = bs_interactionGranular;
	modes[2].type = bs_interactionGranular;
	modes[2].cohesion = 5.0;
	modes[3].type = bs_interactionGranular;
	modes[3].viscosity = 20.0;
	modes[4].type = bs_interactionRepulsion;
	modes[4].cohesion = 3.0;
	modes[4].cohesionRange = 1.8;
	modes[4].viscosity = 5.0;
	modes[5].type = bs_interactionGranular;
	modes[5].contactTime = 0.0;
	modes[5].stiffness = 50.0;
	modes[6].type = bs_interactionGranular;
	modes[6].tangentialStiffness = 2.0 / 7.0;
	// Rotation with rolling resistance, on the linear law with springs and on Hertz-Mindlin; the
	// rolling spring (epsd2).
	modes[7] = modes[6];
	modes[7].rotation = true;
	modes[7].rollingFriction = 0.2;
	modes[8].type = bs_interactionGranular;
	modes[8].contactModel = bs_contactHertz;
	modes[8].youngsModulus = 1e6;
	modes[8].rotation = true;
	modes[8].rollingFriction = 0.1;
	modes[9] = modes[7];
	modes[9].rollingModel = bs_rollingEpsd2;
	// Sintered bonds on the tangential springs (their ages kept per contact).
	modes[10] = modes[6];
	modes[10].bondStrength = 10.0;
	modes[10].sinteringTime = 0.05;
}

static int SameBytesAnyThreads(void)
{
	bsInteractionDef modes[BS_PAIR_MODES];
	PairModes(modes);
	for (int m = 0; m < BS_PAIR_MODES; ++m)
	{
		bsParticles one;
		RUN_SUBTEST(RunMode(modes + m, 1, &one));
		for (int threads = 2; threads <= 3; ++threads)
		{
			bsParticles other;
			RUN_SUBTEST(RunMode(modes + m, threads, &other));
			ENSURE(memcmp(one.position, other.position, one.count * sizeof(bsVec3)) == 0);
			ENSURE(memcmp(one.velocity, other.velocity, one.count * sizeof(bsVec3)) == 0);
			ENSURE(memcmp(one.state, other.state, one.count) == 0);
			ENSURE((one.spin == NULL) == !modes[m].rotation && (other.spin == NULL) == (one.spin == NULL));
			ENSURE(one.spin == NULL || memcmp(one.spin, other.spin, one.count * sizeof(bsVec3)) == 0);
			bsParticles_Free(&other);
		}
		// The particles did interact: some moved sideways (a column falling alone would not).
		double sideways = 0.0;
		for (size_t i = 0; i < one.count; ++i)
		{
			sideways = fmax(sideways, fabs(one.velocity[i].x));
		}
		ENSURE(sideways > 1e-3);
		// With rotation they spun.
		double spun = 0.0;
		for (size_t i = 0; one.spin != NULL && i < one.count; ++i)
		{
			spun = fmax(spun, bsLength(one.spin[i]));
		}
		ENSURE(!modes[m].rotation || spun > 1.0);
		bsParticles_Free(&one);
	}
	return 0;
}

// Kept neighbour lists give the same bytes as a build every substep (skin 0), for every pair mode, at
// 1 and 2 threads, and were kept for most substeps.
static int SameBytesAnySkin(void)
{
	bsInteractionDef modes[BS_PAIR_MODES];
	PairModes(modes);
	for (int m = 0; m < BS_PAIR_MODES; ++m)
	{
		bsParticles rebuilt;
		uint64_t reuses = 0;
		modes[m].skin = 0.0;
		RUN_SUBTEST(RunModeCounted(modes + m, 1, &rebuilt, &reuses));
		ENSURE(reuses == 0);
		for (int k = 0; k < 2; ++k)
		{
			bsParticles kept;
			modes[m].skin = k == 0 ? 0.3 : 1.5;
			RUN_SUBTEST(RunModeCounted(modes + m, 1 + k, &kept, &reuses));
			ENSURE(reuses > 0);
			ENSURE(memcmp(rebuilt.position, kept.position, rebuilt.count * sizeof(bsVec3)) == 0);
			ENSURE(memcmp(rebuilt.velocity, kept.velocity, rebuilt.count * sizeof(bsVec3)) == 0);
			ENSURE(memcmp(rebuilt.state, kept.state, rebuilt.count) == 0);
			bsParticles_Free(&kept);
		}
		bsParticles_Free(&rebuilt);
	}
	return 0;
}

// --- the class table ---

// Every type has a class whose name parses back to it; none has no phase; each kind checks the
// settings it uses and no other; the defaults are the documented ones (step.h).
static int ClassTable(void)
{
	for (int t = 0; t < bs_interactionCount; ++t)
	{
		const bsInteractionClass* c = bsInteractionClass_Of((bsInteractionType)t);
		bsInteractionType parsed;
		ENSURE(c != NULL && strcmp(c->name, bsInteractionName((bsInteractionType)t)) == 0);
		ENSURE(bsParseInteraction(c->name, &parsed) && parsed == (bsInteractionType)t);
		ENSURE((c->run == NULL) == (t == bs_interactionNone));
	}
	bsInteractionType parsed;
	ENSURE(bsInteractionClass_Of(bs_interactionCount) == NULL && !bsParseInteraction("granula", &parsed));
	ENSURE(strcmp(bsInteractionName(bs_interactionCount), "unknown") == 0);
	bsInteractionDef d = bsDefaultInteractionDef();
	ENSURE(d.type == bs_interactionNone && d.density == 1000.0 && d.strength == 100.0 && d.range == 1.5);
	ENSURE(d.restitution == 0.5 && d.contactTime == 0.005 && d.stiffness == 0.0 && d.friction == 0.5);
	ENSURE(d.tangentialDamping == 1.0 && d.tangentialStiffness == 0.0 && d.cohesion == 0.0);
	ENSURE(d.cohesionRange == 1.25 && d.viscosity == 0.0 && bsInteractionDef_Reach(&d) == 1.0);
	// none uses no setting: a bad one does not make it invalid.
	d.restitution = 0.0;
	d.density = -1.0;
	ENSURE(bsInteractionDef_IsValid(&d));
	// Repulsion checks the shared settings and its own, not granular's.
	d.type = bs_interactionRepulsion;
	ENSURE(!bsInteractionDef_IsValid(&d));
	d.density = 1000.0;
	ENSURE(bsInteractionDef_IsValid(&d) && bsInteractionDef_Reach(&d) == 1.5);
	d.range = 0.5;
	ENSURE(!bsInteractionDef_IsValid(&d));
	// Granular checks its own and not repulsion's.
	d.type = bs_interactionGranular;
	ENSURE(!bsInteractionDef_IsValid(&d));
	d.restitution = 0.5;
	ENSURE(bsInteractionDef_IsValid(&d) && bsInteractionDef_Reach(&d) == 1.0);
	d.cohesion = 1.0;
	d.cohesionRange = 1.75;
	ENSURE(bsInteractionDef_Reach(&d) == 1.75);
	d.viscosity = (double)NAN;
	ENSURE(!bsInteractionDef_IsValid(&d));
	d.type = bs_interactionCount;
	ENSURE(!bsInteractionDef_IsValid(&d));
	return 0;
}

// --- the substep rule ---

static int SubstepRule(void)
{
	// One particle of radius 0.1 at 3 m/s, g = 10, dt = 0.1: travel needs 0.1 (3 + 1) / 0.01 = 40;
	// t_c 0.01 needs 50 x 0.1 / 0.01 = 500; tangential damping 1 / t_c needs 10.
	bsParticles p = {0};
	bsParticles_Alloc(&p, 2);
	p.radius[0] = p.radius[1] = 0.1;
	p.velocity[0] = bsV3(0, 3, 0);
	p.position[1] = bsV3(5, 0, 0);
	bsInteractionDef d = bsDefaultInteractionDef();
	d.type = bs_interactionGranular;
	d.contactTime = 0.01;
	bsSubstepPlan plan;
	bsInteraction_PlanSubsteps(&d, 0.1, bsV3(0, -10, 0), &p, &plan);
	ENSURE(plan.substeps == 500.0 && plan.period == 0.01 && plan.speed == 4.0 && plan.radius == 0.1);
	p.velocity[0] = bsV3(0, 59, 0);  // 0.1 x 60 / 0.01 = 600
	bsInteraction_PlanSubsteps(&d, 0.1, bsV3(0, -10, 0), &p, &plan);
	ENSURE(plan.substeps == 600.0);
	// Repulsion: 2 pi / sqrt(2 strength / (range 2 r)) = 2 pi / sqrt(2 x 100 / 0.3).
	d.type = bs_interactionRepulsion;
	p.velocity[0] = bsV3(0, 0, 0);
	bsInteraction_PlanSubsteps(&d, 0.1, bsV3(0, 0, 0), &p, &plan);
	ENSURE_SMALL(plan.period - 2.0 * BS_PI / sqrt(200.0 / 0.3), 1e-15);
	ENSURE(plan.substeps == ceil(50.0 * 0.1 / plan.period));
	// none: always 1.
	d.type = bs_interactionNone;
	p.velocity[0] = bsV3(0, 1e6, 0);
	bsInteraction_PlanSubsteps(&d, 0.1, bsV3(0, 0, 0), &p, &plan);
	ENSURE(plan.substeps == 1.0);

	// The step refuses a plan beyond maxSubsteps, moving nothing.
	Scene s;
	Scene_Init(&s, 2, 2);
	s.def = GranularDef(0.5, 0.01);
	s.def.substeps = 0;
	s.def.maxSubsteps = 499;
	s.def.dt = 0.1;
	s.p.radius[0] = s.p.radius[1] = 0.1;
	s.p.position[1] = bsV3(5, 0, 0);
	ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_errUnstable);
	ENSURE(s.p.position[0].x == 0.0 && s.p.position[1].x == 5.0);
	s.def.maxSubsteps = 500;
	bsStepStats stats;
	memset(&stats, 0, sizeof(stats));
	ENSURE(bsWorld_Step(s.world, &s.def, &s.p, &stats) == bs_ok);
	ENSURE(stats.substeps == 500);
	Scene_Free(&s);
	bsParticles_Free(&p);
	return 0;
}

// --- sleepers as fixed neighbours ---

// A particle of radius r hits a sleeper of the same radius head-on along y at speed 2 (no gravity).
// Below the wake speed the sleeper is a wall: it stays asleep where it was, and the particle leaves at
// e x 2 (the spring-dashpot's closed form with the whole relative acceleration on the free particle);
// above it, the sleeper wakes in that step. Without rest on, the sleeper takes no part.
static int SleeperHit(double wakeSpeed, bool rest, int threads)
{
	const double r = 0.1, e = 0.5;
	Scene s;
	Scene_Init(&s, threads, 2);
	s.def = GranularDef(e, 0.01);
	s.def.interaction.friction = 0.0;
	s.def.dt = 0.0004;
	s.def.substeps = 8;  // h = t_c / 200
	s.def.sleepSteps = rest ? 1000000 : 0;
	s.def.wakeSpeed = wakeSpeed;
	s.p.position[0] = bsV3(0, 0, 0);
	s.p.state[0] = bs_particleSleeping;
	s.p.position[1] = bsV3(0, 2.0 * r + 0.001, 0);
	s.p.velocity[1] = bsV3(0, -2, 0);
	s.p.radius[0] = s.p.radius[1] = r;
	bsStepStats stats;
	memset(&stats, 0, sizeof(stats));
	for (int step = 0; step < 200 && s.p.state[0] == bs_particleSleeping; ++step)
	{
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, &stats) == bs_ok);
	}
	if (!rest)
	{
		ENSURE(s.p.state[0] == bs_particleSleeping && stats.contactPairs == 0 && s.p.velocity[1].y == -2.0);
	}
	else if (wakeSpeed < 2.0)
	{
		ENSURE(s.p.state[0] == bs_particleFree && stats.woken == 1);
	}
	else
	{
		ENSURE(s.p.state[0] == bs_particleSleeping && stats.woken == 0 && stats.contactPairs > 0);
		ENSURE(s.p.position[0].y == 0.0 && s.p.velocity[0].y == 0.0);
		ENSURE(s.p.position[1].y > 2.0 * r);
		ENSURE_SMALL(s.p.velocity[1].y - 2.0 * e, 0.01 * e);
	}
	Scene_Free(&s);
	return 0;
}

// A particle resting on a sleeper under gravity: held at the overlap g / K where the spring carries
// its weight, K = (pi^2 + ln^2 e) / t_c^2 (the whole weight on the free particle); the sleeper,
// pressed but not hit, stays asleep and in place.
static int RestsOnSleeper(void)
{
	const double r = 0.1, e = 0.5, tc = 0.01, g = 9.81;
	Scene s;
	Scene_Init(&s, 2, 2);
	s.def = GranularDef(e, tc);
	s.def.gravity = bsV3(0, -g, 0);
	s.def.dt = 0.01;
	s.def.substeps = 0;  // planned: 50 a contact time
	s.def.sleepSteps = 1000000;
	s.p.position[0] = bsV3(0, 0, 0);
	s.p.state[0] = bs_particleSleeping;
	s.p.position[1] = bsV3(0, 2.0 * r, 0);
	s.p.radius[0] = s.p.radius[1] = r;
	bsStepStats stats;
	memset(&stats, 0, sizeof(stats));
	for (int step = 0; step < 100; ++step)
	{
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, &stats) == bs_ok);
	}
	double l = log(e);
	double overlap = g / ((BS_PI * BS_PI + l * l) / (tc * tc));
	ENSURE(s.p.state[0] == bs_particleSleeping && stats.woken == 0 && s.p.position[0].y == 0.0);
	ENSURE_SMALL(2.0 * r - s.p.position[1].y - overlap, 1e-3 * overlap);
	ENSURE_SMALL(s.p.position[1].x, 0.0);
	Scene_Free(&s);
	return 0;
}

// --- static friction: the tangential spring ---

// A particle on a sleeper (a fixed sphere of the same radius r) at polar angle theta from the top,
// friction mu, gravity: Coulomb's closed form holds it for tan theta < mu and lets it slide off for
// tan theta > mu. With the tangential spring (k_t = 2/7 K) a held particle stands: over 2,000 steps
// (2 s) its direction from the sleeper turns by under 0.003 rad (measured 2.5e-4 at 0.8 mu, 9.6e-4
// at 0.95 mu: the slip while the contact loads, then the spring's elastic give) and over the last 500
// steps it moves less than 1e-4 r (1.5e-8, 6.5e-8); at 1.1 mu it slides off (turns by 2.6 rad).
// Without the spring (viscous friction) the particle at 0.8 mu creeps off as well (2.6 rad): it
// slides at about g sin theta / gamma and faster as theta grows.
static int OnSleeper(double theta, double mu, double tangential, double* turned, double* lastMoved)
{
	const double r = 0.1, tc = 0.005;
	Scene s;
	Scene_Init(&s, 1, 2);
	s.def = GranularDef(0.5, tc);
	s.def.interaction.friction = mu;
	s.def.interaction.tangentialStiffness = tangential;
	s.def.gravity = bsV3(0, -9.81, 0);
	s.def.dt = 0.001;
	s.def.substeps = 0;
	s.def.sleepSteps = 1000000;
	s.def.wakeSpeed = 1e9;
	s.p.state[0] = bs_particleSleeping;
	s.p.radius[0] = s.p.radius[1] = r;
	bsVec3 u = bsV3(sin(theta), cos(theta), 0.0);
	s.p.position[1] = bsScale(2.0 * r, u);
	bsVec3 before = s.p.position[1];
	for (int step = 0; step < 2000; ++step)
	{
		before = step == 1500 ? s.p.position[1] : before;
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
	}
	ENSURE(s.p.state[0] == bs_particleSleeping && s.p.state[1] == bs_particleFree);
	bsVec3 x = s.p.position[1];
	*turned = atan2(x.x, x.y) - theta;
	*lastMoved = bsLength(bsSub(x, before)) / r;
	Scene_Free(&s);
	return 0;
}

static int SpringHoldsAtRest(void)
{
	double turned, moved;
	const double mu = 0.5;
	RUN_SUBTEST(OnSleeper(atan(0.8 * mu), mu, 2.0 / 7.0, &turned, &moved));
	ENSURE(fabs(turned) < 0.003 && moved < 1e-4);
	RUN_SUBTEST(OnSleeper(atan(0.95 * mu), mu, 2.0 / 7.0, &turned, &moved));
	ENSURE(fabs(turned) < 0.003 && moved < 1e-4);
	RUN_SUBTEST(OnSleeper(atan(1.1 * mu), mu, 2.0 / 7.0, &turned, &moved));
	ENSURE(turned > 0.2);
	RUN_SUBTEST(OnSleeper(atan(0.8 * mu), mu, 0.0, &turned, &moved));
	ENSURE(turned > 0.2);
	return 0;
}

static int SleepersAreFixedNeighbours(void)
{
	RUN_SUBTEST(SleeperHit(5.0, true, 1));
	RUN_SUBTEST(SleeperHit(5.0, true, 2));
	RUN_SUBTEST(SleeperHit(1.0, true, 2));
	RUN_SUBTEST(SleeperHit(1.0, false, 1));
	RUN_SUBTEST(RestsOnSleeper());
	return 0;
}

int InteractionTest(void)
{
	RUN_SUBTEST(ClassTable());
	RUN_SUBTEST(SubstepRule());
	RUN_SUBTEST(SpringHoldsAtRest());
	RUN_SUBTEST(HeadOnCollisions());
	RUN_SUBTEST(ElasticPairKeepsEnergy());
	RUN_SUBTEST(ColumnStaysUp());
	RUN_SUBTEST(PocketHoldsUp());
	RUN_SUBTEST(PileSettles());
	RUN_SUBTEST(SameBytesAnyThreads());
	RUN_SUBTEST(SameBytesAnySkin());
	RUN_SUBTEST(ListsMatchAllPairs());
	RUN_SUBTEST(GridMatchesAllPairs());
	RUN_SUBTEST(FixedGridMatchesAllPairs());
	RUN_SUBTEST(SleepersAreFixedNeighbours());
	return 0;
}
