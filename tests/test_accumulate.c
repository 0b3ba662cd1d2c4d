// test_accumulate.c — accumulation and rest: the dynamic sphere/sphere test against a bisection in
// long double, the stuck grid against brute force over every stuck sphere, columns of particles piled
// on a stuck one (heights analytic), the sleep rule, and byte-identical steps for any thread count.
#include "stuck_grid.h"
#include "blobsim/collide.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

// --- the sphere/sphere sweep against a separately written reference ---

typedef long double ld;

// f(t) = |m + t d|^2 - R^2 in long double, m = C1 - P and d = C2 - C1 from the same doubles.
typedef struct RefSweep
{
	ld m[3], d[3], sum;
} RefSweep;

static ld RefF(const RefSweep* r, ld t)
{
	ld f = 0.0L;
	for (int a = 0; a < 3; ++a)
	{
		ld x = r->m[a] + t * r->d[a];
		f += x * x;
	}
	return f - r->sum * r->sum;
}

// The reference: the time of least distance (clamped to [0, 1]) and, when f <= 0 there, the first
// root of the quadratic by bisection on [0, t*] (f decreases there). *minimum is the least |m + t d|^2
// - R^2 over [0, 1], relative to R^2.
static bool RefSweepTime(const RefSweep* r, ld* t, ld* minimum)
{
	ld dd = 0.0L, md = 0.0L;
	for (int a = 0; a < 3; ++a)
	{
		dd += r->d[a] * r->d[a];
		md += r->m[a] * r->d[a];
	}
	ld closest = dd > 0.0L ? -md / dd : 0.0L;
	closest = closest < 0.0L ? 0.0L : (closest > 1.0L ? 1.0L : closest);
	*minimum = RefF(r, closest) / (r->sum * r->sum);
	if (RefF(r, 0.0L) <= 0.0L)
	{
		*t = 0.0L;
		return true;
	}
	if (*minimum > 0.0L)
	{
		return false;
	}
	ld lo = 0.0L, hi = closest;
	for (int k = 0; k < 200 && hi - lo > 0.0L; ++k)
	{
		ld mid = 0.5L * (lo + hi);
		if (mid <= lo || mid >= hi)
		{
			break;
		}
		if (RefF(r, mid) <= 0.0L)
		{
			hi = mid;
		}
		else
		{
			lo = mid;
		}
	}
	*t = hi;
	return true;
}

static bsVec3 RandomUnit(bsRng* rng)
{
	return bsRng_UnitVector(rng);
}

// A unit vector perpendicular to u.
static bsVec3 Perpendicular(bsVec3 u, bsRng* rng)
{
	for (;;)
	{
		bsVec3 w = bsCross(u, RandomUnit(rng));
		double length = bsLength(w);
		if (length > 0.1)
		{
			return bsScale(1.0 / length, w);
		}
	}
}

// One random case: kind 0 aimed near the centre, 1 grazing (the line passes at R (1 +- 10^-k)),
// 2 any direction, 3 a tiny motion starting just outside contact, 4 starting in contact.
static void MakeCase(bsRng* rng, int kind, bsVec3* c1, bsVec3* c2, double* movingRadius, bsVec3* center,
	double* radius)
{
	double scale = pow(10.0, bsRng_Range(rng, -6.0, 6.0));
	*movingRadius = bsRng_Uniform(rng) < 0.1 ? 0.0 : scale * bsRng_Range(rng, 0.01, 1.0);
	*radius = scale * bsRng_Range(rng, 0.01, 1.0);
	double sum = *movingRadius + *radius;
	*center = bsScale(scale, bsV3(bsRng_Range(rng, -5, 5), bsRng_Range(rng, -5, 5), bsRng_Range(rng, -5, 5)));
	bsVec3 u = RandomUnit(rng);
	double start = sum * bsRng_Range(rng, 1.0, 6.0);
	*c1 = bsMulAdd(*center, start, u);
	switch (kind)
	{
		case 0:
		{
			bsVec3 aim = bsMulAdd(*center, sum * bsRng_Range(rng, 0.0, 0.9), Perpendicular(u, rng));
			*c2 = bsAdd(*c1, bsScale(bsRng_Range(rng, 0.2, 3.0), bsSub(aim, *c1)));
			break;
		}
		case 1:
		{
			double off = sum * (1.0 + (bsRng_Uniform(rng) < 0.5 ? -1.0 : 1.0) * pow(10.0, -bsRng_Range(rng, 3, 12)));
			bsVec3 aim = bsMulAdd(*center, off, Perpendicular(u, rng));
			*c2 = bsAdd(*c1, bsScale(bsRng_Range(rng, 0.5, 3.0), bsSub(aim, *c1)));
			break;
		}
		case 2:
			*c2 = bsMulAdd(*c1, sum * bsRng_Range(rng, 0.0, 10.0), RandomUnit(rng));
			break;
		case 3:
		{
			*c1 = bsMulAdd(*center, sum * (1.0 + pow(10.0, -bsRng_Range(rng, 4, 9))), u);
			*c2 = bsMulAdd(*c1, -sum * pow(10.0, -bsRng_Range(rng, 3, 9)), u);
			*c2 = bsMulAdd(*c2, sum * 1e-12 * bsRng_Uniform(rng), Perpendicular(u, rng));
			break;
		}
		default:
			*c1 = bsMulAdd(*center, sum * bsRng_Range(rng, 0.0, 0.999), u);
			*c2 = bsMulAdd(*c1, sum * bsRng_Range(rng, 0.0, 4.0), RandomUnit(rng));
			break;
	}
}

static int SphereSweepReference(void)
{
	bsRng rng = bsMakeRng(11);
	const long cases = 1000000;
	long hits = 0, misses = 0, grazing = 0, missed = 0, falseHits = 0, started = 0;
	for (long k = 0; k < cases; ++k)
	{
		bsVec3 c1, c2, center;
		double movingRadius, radius;
		MakeCase(&rng, (int)(k % 5), &c1, &c2, &movingRadius, &center, &radius);
		bsSweepInput in = {c1, c2, movingRadius};
		bsSweep s;
		ENSURE(bsMakeSweep(&in, &s) == bs_ok);
		bsTriangleHit hit;
		bool found = bsSphereSweep(&s, movingRadius, center, radius, 2.0, &hit);

		RefSweep r;
		ld c1v[3] = {c1.x, c1.y, c1.z}, c2v[3] = {c2.x, c2.y, c2.z}, pv[3] = {center.x, center.y, center.z};
		for (int a = 0; a < 3; ++a)
		{
			r.m[a] = c1v[a] - pv[a];
			r.d[a] = c2v[a] - c1v[a];
		}
		r.sum = (ld)movingRadius + (ld)radius;
		ld tref = 0.0L, minimum = 0.0L;
		bool expected = RefSweepTime(&r, &tref, &minimum);
		// Within 1e-9 of grazing (relative to R^2) either answer is right: the inputs' rounding decides.
		bool clear = fabsl(minimum) > 1e-9L;
		grazing += !clear;
		if (clear && expected && !found)
		{
			missed += 1;
			fprintf(stderr, "missed: case %ld kind %ld tref %.17Lg minimum %Lg\n", k, k % 5, tref, minimum);
		}
		if (clear && !expected && found)
		{
			falseHits += 1;
			fprintf(stderr, "false hit: case %ld kind %ld t %.17g minimum %Lg\n", k, k % 5, hit.t, minimum);
		}
		if (!found)
		{
			misses += 1;
			continue;
		}
		hits += 1;
		ENSURE(hit.t >= 0.0 && hit.t <= 1.0 && hit.test == bs_testSphere);
		ENSURE((hit.t == 0.0) == (hit.branch == bs_branchStart));
		if (hit.t == 0.0)
		{
			// Starts in contact: the reference's f(0) is <= 0 up to rounding.
			started += 1;
			ENSURE(RefF(&r, 0.0L) <= 1e-12L * r.sum * r.sum);
			continue;
		}
		// Touching at t: |m + t d| = R to rounding, with no contact before (f(0) > 0 and t on the
		// entering side: before the least distance).
		ld f = RefF(&r, (ld)hit.t) / (r.sum * r.sum);
		if (!(fabsl(f) <= 1e-9L))
		{
			fprintf(stderr, "case %ld kind %ld: t %.17g tref %.17Lg f %Lg\n", k, k % 5, hit.t, tref, f);
		}
		ENSURE(fabsl(f) <= 1e-9L);
		ENSURE(RefF(&r, 0.0L) > -1e-12L * r.sum * r.sum);
		if (expected && clear && minimum < -1e-2L)
		{
			// Well conditioned (the line passes well inside): the time itself agrees.
			ENSURE_SMALL((double)((ld)hit.t - tref), 1e-9);
		}
		if (expected)
		{
			ENSURE((ld)hit.t <= tref + 1e-6L || fabsl(minimum) <= 1e-9L);
		}
		if (k % 5 == 3 && expected)
		{
			// A tiny motion just short of contact, head on: t = gap / length to the precision of the gap
			// (itself known to ~1e-16 |C1 - P|, and >= 1e-9 R here).
			ENSURE(fabsl((ld)hit.t - tref) <= 1e-5L * tref);
		}
	}
	printf("  sphere sweep: %ld cases, %ld hits (%ld at t = 0), %ld misses, %ld within 1e-9 of grazing; "
		   "missed %ld, false hits %ld\n", cases, hits, started, misses, grazing, missed, falseHits);
	ENSURE(missed == 0 && falseHits == 0);
	ENSURE(hits > cases / 3 && misses > cases / 10 && started > cases / 10);

	// tmax filters; no motion and apart is a miss; moving away is a miss.
	bsSweepInput in = {bsV3(0, 3, 0), bsV3(0, -3, 0), 0.5};
	bsSweep s;
	ENSURE(bsMakeSweep(&in, &s) == bs_ok);
	bsTriangleHit hit;
	ENSURE(bsSphereSweep(&s, 0.5, bsV3(0, 0, 0), 0.5, 2.0, &hit));
	ENSURE_SMALL(hit.t - 1.0 / 3.0, 1e-15);
	ENSURE(!bsSphereSweep(&s, 0.5, bsV3(0, 0, 0), 0.5, 1.0 / 3.0, &hit));
	in.c2 = in.c1;
	ENSURE(bsMakeSweep(&in, &s) == bs_ok && !bsSphereSweep(&s, 0.5, bsV3(0, 0, 0), 0.5, 2.0, &hit));
	in.c2 = bsV3(0, 4, 0);
	ENSURE(bsMakeSweep(&in, &s) == bs_ok && !bsSphereSweep(&s, 0.5, bsV3(0, 0, 0), 0.5, 2.0, &hit));
	return 0;
}

// --- the stuck grid against brute force ---

static bool IsResident(uint8_t state)
{
	return state == bs_particleStuck || state == bs_particleSleeping;
}

// Every resident sphere, least (t, index).
static bool BruteSweep(const bsParticles* p, const bsSweep* s, double movingRadius, double tmax, bsTriangleHit* best,
	uint32_t* index)
{
	bool found = false;
	for (size_t i = 0; i < p->count; ++i)
	{
		bsTriangleHit hit;
		if (IsResident(p->state[i]) && bsSphereSweep(s, movingRadius, p->position[i], p->radius[i], tmax, &hit) &&
			(!found || hit.t < best->t))
		{
			found = true;
			*best = hit;
			*index = (uint32_t)i;
		}
	}
	return found;
}

static void RandomParticle(bsRng* rng, bsParticles* p, size_t i)
{
	p->position[i] = bsV3(bsRng_Range(rng, 0, 4), bsRng_Range(rng, 0, 4), bsRng_Range(rng, 0, 4));
	p->radius[i] = bsRng_Range(rng, 0.02, 0.1);
	p->state[i] = (uint8_t)bsRng_Below(rng, bs_particleStateCount);
}

static int CompareQueries(const bsStuckGrid* grid, const bsParticles* p, bsRng* rng, int queries, long* found)
{
	uint32_t resident = 0;
	for (size_t i = 0; i < p->count; ++i)
	{
		resident += IsResident(p->state[i]);
		ENSURE(bsStuckGrid_Holds(grid, (uint32_t)i) == IsResident(p->state[i]));
	}
	ENSURE(bsStuckGrid_Count(grid) == resident);
	for (int q = 0; q < queries; ++q)
	{
		// Starts over the box and, a few, at the duplicates (20, 20, 20).
		bsVec3 a = q % 50 == 1 ? bsV3(20, 20.2, 20)
			: bsV3(bsRng_Range(rng, -0.2, 4.2), bsRng_Range(rng, -0.2, 4.2), bsRng_Range(rng, -0.2, 4.2));
		// Mostly short sweeps (a few cells), some across the whole box (the fallback to every sphere).
		double length = q % 10 == 0 ? 8.0 : bsRng_Range(rng, 0.0, 0.5);
		bsSweepInput in = {a, bsMulAdd(a, length, bsRng_UnitVector(rng)), bsRng_Range(rng, 0.0, 0.1)};
		bsSweep s;
		ENSURE(bsMakeSweep(&in, &s) == bs_ok);
		double movingRadius = q % 7 == 0 ? 0.0 : in.radius;
		double tmax = q % 3 == 0 ? bsRng_Range(rng, 0.0, 1.0) : 2.0;
		bsTriangleHit h1 = {0, 0, 0, 0}, h2 = {0, 0, 0, 0};
		uint32_t i1 = 0, i2 = 0;
		bsVec3 center;
		double radius;
		bool f1 = bsStuckGrid_Sweep(grid, &s, movingRadius, tmax, &h1, &i1, &center, &radius);
		bool f2 = BruteSweep(p, &s, movingRadius, tmax, &h2, &i2);
		ENSURE(f1 == f2);
		if (f1)
		{
			ENSURE(h1.t == h2.t && i1 == i2 && h1.branch == h2.branch);
			ENSURE(center.x == p->position[i1].x && center.y == p->position[i1].y && radius == p->radius[i1]);
			*found += 1;
		}
	}
	return 0;
}

static int GridBruteForce(void)
{
	bsRng rng = bsMakeRng(5);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 20000) == bs_ok);
	p.count = 8000;
	for (size_t i = 0; i < p.count; ++i)
	{
		RandomParticle(&rng, &p, i);
	}
	// Duplicates at one place (equal t: the lower index wins) and spheres far out of the cells' range.
	for (size_t i = 100; i < 110; ++i)
	{
		p.position[i] = bsV3(20, 20, 20);
		p.radius[i] = 0.05;
		p.state[i] = i % 2 ? bs_particleStuck : bs_particleSleeping;
	}
	p.position[200] = bsV3(1e15, 0, 0);
	p.state[200] = bs_particleStuck;
	bsStuckGrid* grid = bsStuckGrid_Create(0.4);
	ENSURE(grid != NULL);
	ENSURE(bsStuckGrid_Sync(grid, &p) == bs_ok);
	long found = 0;
	RUN_SUBTEST(CompareQueries(grid, &p, &rng, 10000, &found));

	// The duplicates: a sweep straight into them names the lowest index.
	bsSweepInput in = {bsV3(20, 22, 20), bsV3(20, 19, 20), 0.05};
	bsSweep s;
	ENSURE(bsMakeSweep(&in, &s) == bs_ok);
	bsTriangleHit hit;
	uint32_t index;
	bsVec3 center;
	double radius;
	ENSURE(bsStuckGrid_Sweep(grid, &s, 0.05, 2.0, &hit, &index, &center, &radius) && index == 100);
	// The far sphere is found through the far chain.
	bsSweepInput far = {bsV3(1e15 - 1, 0, 0), bsV3(1e15 + 1, 0, 0), 0.05};
	ENSURE(bsMakeSweep(&far, &s) == bs_ok);
	ENSURE(bsStuckGrid_Sweep(grid, &s, 0.05, 2.0, &hit, &index, &center, &radius) && index == 200);

	// Incremental: states change (stick, sleep, wake, leave) and the set grows; again equal.
	for (int round = 0; round < 5; ++round)
	{
		for (size_t i = 0; i < p.count; ++i)
		{
			if (bsRng_Uniform(&rng) < 0.2)
			{
				p.state[i] = (uint8_t)bsRng_Below(&rng, bs_particleStateCount);
			}
		}
		size_t grown = p.count + 1000;
		for (size_t i = p.count; i < grown; ++i)
		{
			RandomParticle(&rng, &p, i);
		}
		p.count = round == 4 ? 9000 : grown;  // and a set that shrinks
		ENSURE(bsStuckGrid_Sync(grid, &p) == bs_ok);
		RUN_SUBTEST(CompareQueries(grid, &p, &rng, 2000, &found));
	}
	printf("  stuck grid: %ld of 20000 queries hit, every one equal to brute force\n", found);
	ENSURE(found > 5000);
	bsStuckGrid_Destroy(grid);
	bsParticles_Free(&p);
	return 0;
}

// --- piles ---

static bsStepDef Settings(double dt, bsMethod method, bsResponse response)
{
	bsStepDef st = bsDefaultStepDef();
	st.dt = dt;
	st.gravity = bsV3(0, -9.81, 0);
	st.method = method;
	st.response = response;
	return st;
}

static int Append(bsParticles* p, bsVec3 x, bsVec3 v, double r, uint8_t state)
{
	bsParticleDef d = {x, v, r, state, {0, 0, 0}};
	ENSURE(bsParticles_Append(p, &d) == bs_ok);
	return 0;
}

// Drops `count` particles one after another straight onto a stuck one at the origin; each falls until
// it stops (stuck, or asleep), then the next is dropped from above the column.
static int DropColumn(bsMethod method, bsResponse response, double wakeSpeed, int count, bsParticles* p)
{
	const double r = 0.1;
	bsWorld* world = bsWorld_Create(&(bsWorldDef){1, 1});
	ENSURE(world != NULL && bsWorld_AddStuckParticles(world, 0.0) == bs_ok);
	bsStepDef st = Settings(0.01, method, response);
	st.sleepSteps = 5;
	st.wakeSpeed = wakeSpeed;
	memset(p, 0, sizeof(*p));
	RUN_SUBTEST(Append(p, bsV3(0, 0, 0), bsV3(0, 0, 0), r, bs_particleStuck));
	for (int k = 1; k <= count; ++k)
	{
		RUN_SUBTEST(Append(p, bsV3(0, 2 * r * k + 1.0, 0), bsV3(0, -2, 0), r, bs_particleFree));
		int steps = 0;
		while (p->state[k] == bs_particleFree && steps < 10000)
		{
			ENSURE(bsWorld_Step(world, &st, p, NULL) == bs_ok);
			steps += 1;
		}
		ENSURE(p->state[k] != bs_particleFree);
	}
	bsWorld_Destroy(world);
	return 0;
}

static int Piles(void)
{
	const double r = 0.1;
	bsParticles p;
	// Stick: each sticks touching the one below, exactly 2R above it (the sphere test is exact for
	// every sphere method).
	const bsMethod methods[] = {bs_methodExact, bs_methodKarabassi};
	for (int m = 0; m < 2; ++m)
	{
		RUN_SUBTEST(DropColumn(methods[m], bs_responseStick, 0.0, 20, &p));
		for (int k = 1; k <= 20; ++k)
		{
			ENSURE(p.state[k] == bs_particleStuck);
			ENSURE_SMALL(p.position[k].y - p.position[k - 1].y - 2 * r, 1e-12);
			ENSURE(p.position[k].x == 0.0 && p.position[k].z == 0.0);
		}
		bsParticles_Free(&p);
	}
	// Slide with rest: each lands on the top sleeper, rests there (2R above it plus the skin of 1e-6 R)
	// and falls asleep; a wake speed above the landing speed keeps the column asleep.
	RUN_SUBTEST(DropColumn(bs_methodExact, bs_responseSlide, 100.0, 10, &p));
	for (int k = 1; k <= 10; ++k)
	{
		ENSURE(p.state[k] == bs_particleSleeping);
		ENSURE_SMALL(p.position[k].y - p.position[k - 1].y - 2 * r, 2e-6 * r);
	}
	bsParticles_Free(&p);
	return 0;
}

// --- rest ---

static int Sleep(void)
{
	const double r = 0.1;
	bsPlane floor;
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), &floor);
	bsWorld* world = bsWorld_Create(&(bsWorldDef){1, 1});
	ENSURE(world != NULL && bsWorld_AddPlanes(world, &floor, 1) == bs_ok);
	ENSURE(bsWorld_AddStuckParticles(world, 0.0) == bs_ok);
	bsStepDef st = Settings(0.01, bs_methodExact, bs_responseBounce);
	st.sleepSteps = 7;
	st.sleepSpeed = 1e-3;
	st.sleepAcceleration = 1e-3;
	bsParticles p;
	memset(&p, 0, sizeof(p));
	// A: resting on the floor from the start; B: moving sideways in the air (never calm: gravity).
	RUN_SUBTEST(Append(&p, bsV3(0, r * (1 + 1e-6), 0), bsV3(0, 0, 0), r, bs_particleFree));
	RUN_SUBTEST(Append(&p, bsV3(5, 50, 0), bsV3(1, 0, 0), r, bs_particleFree));
	bsStepStats stats;
	memset(&stats, 0, sizeof(stats));
	for (int k = 1; k <= 7; ++k)
	{
		ENSURE(p.state[0] == bs_particleFree);
		ENSURE(bsWorld_Step(world, &st, &p, &stats) == bs_ok);
	}
	// Asleep after exactly 7 calm steps, and it stays where it is.
	ENSURE(p.state[0] == bs_particleSleeping && p.state[1] == bs_particleFree && stats.fellAsleep == 1);
	bsVec3 rest = p.position[0];
	for (int k = 0; k < 100; ++k)
	{
		ENSURE(bsWorld_Step(world, &st, &p, &stats) == bs_ok);
	}
	ENSURE(p.state[0] == bs_particleSleeping);
	ENSURE(memcmp(&rest, &p.position[0], sizeof(rest)) == 0);
	ENSURE(p.velocity[0].x == 0.0 && p.velocity[0].y == 0.0 && p.velocity[0].z == 0.0);

	// C dropped onto A: the hit wakes A (after the move phase that hit it) and C bounces off it.
	RUN_SUBTEST(Append(&p, bsV3(0, 1.0, 0), bsV3(0, -3, 0), r, bs_particleFree));
	memset(&stats, 0, sizeof(stats));
	int steps = 0;
	while (p.state[0] == bs_particleSleeping && steps < 1000)
	{
		ENSURE(bsWorld_Step(world, &st, &p, &stats) == bs_ok);
		steps += 1;
	}
	ENSURE(p.state[0] == bs_particleFree && stats.woken == 1);
	ENSURE(p.velocity[2].y > 0.0);                                       // bounced
	ENSURE_SMALL(p.position[2].y - p.position[0].y - 2 * r, 0.5 * r);  // at A's top when it hit

	// Sleep off (the default): the same resting particle never sleeps.
	bsStepDef off = Settings(0.01, bs_methodExact, bs_responseBounce);
	p.count = 1;
	p.state[0] = bs_particleFree;
	for (int k = 0; k < 50; ++k)
	{
		ENSURE(bsWorld_Step(world, &off, &p, NULL) == bs_ok);
	}
	ENSURE(p.state[0] == bs_particleFree);
	// Settings out of range are refused.
	st.sleepSteps = -1;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st.sleepSteps = 1;
	st.sleepSpeed = -1;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	ENSURE(bsWorld_AddStuckParticles(world, 0.0) == bs_errInvalidArgument);  // once per world
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// --- determinism ---

// Snow over a floor and a few stuck particles, with accumulation and rest, for `threads`.
static int Snow(int threads, bsResponse response, bsParticles* p, bsStepStats* stats)
{
	bsPlane floor;
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), &floor);
	bsWorld* world = bsWorld_Create(&(bsWorldDef){threads, 7});
	ENSURE(world != NULL && bsWorld_AddPlanes(world, &floor, 1) == bs_ok);
	ENSURE(bsWorld_AddStuckParticles(world, 0.0) == bs_ok);
	bsEmitterDef e = bsDefaultEmitterDef();
	e.shape.type = bs_emitterRandom;
	e.shape.min = bsV3(-1, 2, -1);
	e.shape.max = bsV3(1, 2.2, 1);
	e.radius = 0.03;
	e.radiusSpread = 0.3;
	e.velocity = bsV3(0, -1, 0);
	e.rate = 20000;
	e.stop = 0.4;
	ENSURE(bsWorld_AddEmitter(world, &e) == bs_ok);
	bsStepDef st = Settings(0.02, bs_methodKarabassi, response);
	st.substeps = 2;
	st.restitution = 0.3;
	st.friction = 0.5;
	st.sleepSteps = 3;
	st.sleepSpeed = 0.05;
	st.sleepAcceleration = 5.0;
	memset(p, 0, sizeof(*p));
	memset(stats, 0, sizeof(*stats));
	for (int k = 0; k < 60; ++k)
	{
		ENSURE(bsWorld_Step(world, &st, p, stats) == bs_ok);
	}
	bsWorld_Destroy(world);
	return 0;
}

static int Determinism(void)
{
	const bsResponse responses[] = {bs_responseStick, bs_responseBounce};
	for (int k = 0; k < 2; ++k)
	{
		bsParticles one, other;
		bsStepStats s1, s2;
		RUN_SUBTEST(Snow(1, responses[k], &one, &s1));
		uint64_t counts[bs_particleStateCount];
		bsParticles_CountStates(&one, counts);
		printf("  snow (%s): %zu particles, %llu stuck, %llu sleeping, %llu woken, %llu sphere contacts\n",
			bsResponseName(responses[k]), one.count, (unsigned long long)counts[bs_particleStuck],
			(unsigned long long)counts[bs_particleSleeping], (unsigned long long)s1.woken,
			(unsigned long long)(s1.contacts[bs_testSphere][bs_branchFace] + s1.contacts[bs_testSphere][bs_branchStart]));
		// Something to compare: particles on particles.
		ENSURE(one.count == 8000 && s1.contacts[bs_testSphere][bs_branchFace] > 100);
		ENSURE(responses[k] == bs_responseStick ? counts[bs_particleStuck] > 4000
												: counts[bs_particleSleeping] > 200 && s1.woken > 0);
		for (int threads = 2; threads <= 3; ++threads)
		{
			RUN_SUBTEST(Snow(threads, responses[k], &other, &s2));
			ENSURE(other.count == one.count);
			ENSURE(memcmp(one.position, other.position, one.count * sizeof(bsVec3)) == 0);
			ENSURE(memcmp(one.velocity, other.velocity, one.count * sizeof(bsVec3)) == 0);
			ENSURE(memcmp(one.radius, other.radius, one.count * sizeof(double)) == 0);
			ENSURE(memcmp(one.state, other.state, one.count) == 0);
			ENSURE(memcmp(&s1, &s2, sizeof(s1)) == 0);
			bsParticles_Free(&other);
		}
		bsParticles_Free(&one);
	}
	return 0;
}

int AccumulateTest(void)
{
	RUN_SUBTEST(SphereSweepReference());
	RUN_SUBTEST(GridBruteForce());
	RUN_SUBTEST(Piles());
	RUN_SUBTEST(Sleep());
	RUN_SUBTEST(Determinism());
	return 0;
}
