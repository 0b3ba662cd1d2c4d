// test_simulate.c — the time step: closed-form motion, each response against a plane, the slot
// plate that separates swept spheres from rays, the no-overlap invariant of exact, determinism.
#include "procedural.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "test.h"
#include "collide_internal.h"

#include <stdlib.h>
#include <string.h>

static bsStepDef Settings(double dt, bsVec3 g, bsMethod method, bsResponse response)
{
	bsStepDef st = bsDefaultStepDef();
	st.dt = dt;
	st.gravity = g;
	st.method = method;
	st.response = response;
	return st;
}

// A world of the given colliders (bvh and planes may be NULL) on `threads` threads.
static bsWorld* MakeWorld(const bsBvh* bvh, const bsPlane* planes, uint32_t planeCount, int threads)
{
	bsWorldDef def = bsDefaultWorldDef();
	def.threads = threads;
	bsWorld* world = bsWorld_Create(&def);
	if (world != NULL && bvh != NULL && bsWorld_AddMesh(world, bvh) != bs_ok)
	{
		bsWorld_Destroy(world);
		return NULL;
	}
	if (world != NULL && bsWorld_AddPlanes(world, planes, planeCount) != bs_ok)
	{
		bsWorld_Destroy(world);
		return NULL;
	}
	return world;
}

static int PlaneSweep(void)
{
	// RTR 16.18.1: centre at height 1, r 0.25, moving to -1: first touch at (1 - 0.25) / 2.
	bsPlane floor;
	ENSURE(bsMakePlane(bsV3(0, 0, 0), bsV3(0, 2, 0), &floor) == bs_ok);
	ENSURE(floor.n.y == 1.0);
	bsSweepInput in = {bsV3(3, 1, 4), bsV3(3, -1, 4), 0.25};
	bsSweep s;
	bsMakeSweep(&in, &s);
	bsTriangleHit hit;
	ENSURE(bsPlaneSweep(&floor, &s, bs_methodExact, 2.0, &hit) && hit.t == 0.375);
	ENSURE(bsPlaneSweep(&floor, &s, bs_methodKarabassi, 2.0, &hit) && hit.t == 0.375);
	ENSURE(bsPlaneSweep(&floor, &s, bs_methodRay, 2.0, &hit) && hit.t == 0.5);
	ENSURE(!bsPlaneSweep(&floor, &s, bs_methodExact, 0.375, &hit));
	// From below: the same on the other side.
	in = (bsSweepInput){bsV3(0, -1, 0), bsV3(0, 1, 0), 0.25};
	bsMakeSweep(&in, &s);
	ENSURE(bsPlaneSweep(&floor, &s, bs_methodExact, 2.0, &hit) && hit.t == 0.375);
	// Touching at the start; staying clear.
	in = (bsSweepInput){bsV3(0, 0.2, 0), bsV3(5, 0.2, 0), 0.25};
	bsMakeSweep(&in, &s);
	ENSURE(bsPlaneSweep(&floor, &s, bs_methodExact, 2.0, &hit) && hit.t == 0.0 && hit.branch == bs_branchStart);
	in = (bsSweepInput){bsV3(0, 0.3, 0), bsV3(5, 0.3, 0), 0.25};
	bsMakeSweep(&in, &s);
	ENSURE(!bsPlaneSweep(&floor, &s, bs_methodExact, 2.0, &hit));
	ENSURE(bsMakePlane(bsV3(0, 0, 0), bsV3(0, 0, 0), &floor) == bs_errInvalidArgument);
	ENSURE(bsMakePlane(bsV3(0, (double)NAN, 0), bsV3(0, 1, 0), &floor) == bs_errNonFinite);
	return 0;
}

static int FreeFallAndDrag(void)
{
	bsWorld* empty = MakeWorld(NULL, NULL, 0, 1);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 1) == bs_ok);
	p.position[0] = bsV3(1, 2, 3);
	p.velocity[0] = bsV3(1, 0, 0.5);
	p.radius[0] = 0.1;
	double dt = 0.01;
	bsStepDef st = Settings(dt, bsV3(0, -9.81, 0), bs_methodExact, bs_responseSlide);
	int steps = 100;
	for (int k = 0; k < steps; ++k)
	{
		ENSURE(bsWorld_Step(empty, &st, &p, NULL) == bs_ok);
	}
	// Symplectic Euler: v_N = v0 + N g dt, x_N = x0 + N dt v0 + g dt^2 N (N + 1) / 2.
	double n = steps;
	ENSURE_SMALL(p.velocity[0].y - n * -9.81 * dt, 1e-12);
	ENSURE_SMALL(p.position[0].x - (1 + n * dt * 1), 1e-12);
	ENSURE_SMALL(p.position[0].y - (2 + -9.81 * dt * dt * n * (n + 1) / 2), 1e-12);
	ENSURE_SMALL(p.position[0].z - (3 + n * dt * 0.5), 1e-12);

	// Linear drag alone: v_N = v0 e^(-k N dt); x_N = x0 + dt v0 sum_{j=1..N} e^(-k j dt).
	p.position[0] = bsV3(0, 0, 0);
	p.velocity[0] = bsV3(2, 0, 0);
	st.gravity = bsV3(0, 0, 0);
	st.drag = 0.7;
	double sum = 0.0;
	for (int k = 1; k <= steps; ++k)
	{
		sum += exp(-0.7 * k * dt);
		ENSURE(bsWorld_Step(empty, &st, &p, NULL) == bs_ok);
	}
	ENSURE_SMALL(p.velocity[0].x - 2 * exp(-0.7 * n * dt), 1e-12);
	ENSURE_SMALL(p.position[0].x - dt * 2 * sum, 1e-12);
	bsParticles_Free(&p);
	bsWorld_Destroy(empty);
	return 0;
}

// One particle against the floor y = 0 for one step; returns it.
static int OneStep(bsResponse response, bsMethod method, bsVec3 x, bsVec3 v, double dt, double friction,
	double restitution, bsParticles* p, bsStepStats* stats)
{
	bsPlane floor;
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), &floor);
	bsWorld* world = MakeWorld(NULL, &floor, 1, 1);
	ENSURE(bsParticles_Alloc(p, 1) == bs_ok);
	p->position[0] = x;
	p->velocity[0] = v;
	p->radius[0] = 0.1;
	bsStepDef st = Settings(dt, bsV3(0, 0, 0), method, response);
	st.friction = friction;
	st.restitution = restitution;
	memset(stats, 0, sizeof(*stats));
	ENSURE(bsWorld_Step(world, &st, p, stats) == bs_ok);
	bsWorld_Destroy(world);
	return 0;
}

static int Responses(void)
{
	bsParticles p;
	bsStepStats stats;
	double skinTolerance = 1e-6;  // the skin is 1e-6 R plus 1e-9 of the scene scale

	// Stick: stops where it first touches and stays.
	RUN_SUBTEST(OneStep(bs_responseStick, bs_methodExact, bsV3(0, 1, 0), bsV3(0, -10, 0), 0.1, 0, 0, &p, &stats));
	ENSURE(p.state[0] == bs_particleStuck && stats.stuck == 1);
	ENSURE_SMALL(p.position[0].y - 0.1, 1e-12);
	ENSURE(stats.contacts[bs_testPlane][bs_branchFace] == 1);
	bsParticles_Free(&p);
	// With the ray method the centre stops on the surface.
	RUN_SUBTEST(OneStep(bs_responseStick, bs_methodRay, bsV3(0, 1, 0), bsV3(0, -10, 0), 0.1, 0, 0, &p, &stats));
	ENSURE_SMALL(p.position[0].y, 1e-12);
	bsParticles_Free(&p);

	// Slide without friction: from (0, 0.5) at (2, -2) for 0.5 s it touches at t = 0.4 (x = 0.4) and
	// slides the remaining 0.6 of the step at (2, 0): x = 1, y = R plus a skin.
	RUN_SUBTEST(OneStep(bs_responseSlide, bs_methodExact, bsV3(0, 0.5, 0), bsV3(2, -2, 0), 0.5, 0, 0, &p, &stats));
	ENSURE(p.state[0] == bs_particleFree);
	ENSURE_SMALL(p.position[0].x - 1.0, 1e-12);
	ENSURE(p.position[0].y > 0.1 && p.position[0].y < 0.1 + skinTolerance);
	ENSURE(p.velocity[0].x == 2.0 && p.velocity[0].y == 0.0);
	bsParticles_Free(&p);
	// Friction 0.25 removes 0.25 x the normal speed (2) from the tangential speed: 2 -> 1.5.
	RUN_SUBTEST(OneStep(bs_responseSlide, bs_methodExact, bsV3(0, 0.5, 0), bsV3(2, -2, 0), 0.5, 0.25, 0, &p, &stats));
	ENSURE_SMALL(p.velocity[0].x - 1.5, 1e-12);
	ENSURE_SMALL(p.position[0].x - (0.4 + 1.5 * 0.5 * 0.6), 1e-12);
	bsParticles_Free(&p);
	// Friction 1 with a small tangential speed stops it on the surface.
	RUN_SUBTEST(OneStep(bs_responseSlide, bs_methodExact, bsV3(0, 0.5, 0), bsV3(0.5, -2, 0), 0.5, 1, 0, &p, &stats));
	ENSURE(p.velocity[0].x == 0.0 && p.velocity[0].y == 0.0);
	bsParticles_Free(&p);

	// Bounce, restitution 0.5: -2 becomes +1; after the touch at t = 0.4 it rises 1 x 0.6 x 0.5.
	RUN_SUBTEST(OneStep(bs_responseBounce, bs_methodExact, bsV3(0, 0.5, 0), bsV3(0, -2, 0), 0.5, 0, 0.5, &p, &stats));
	ENSURE_SMALL(p.velocity[0].y - 1.0, 1e-12);
	ENSURE_SMALL(p.position[0].y - (0.1 + 0.3), skinTolerance);
	bsParticles_Free(&p);

	// A particle that starts touching and moves along the floor keeps sliding along it.
	RUN_SUBTEST(OneStep(bs_responseSlide, bs_methodExact, bsV3(0, 0.1, 0), bsV3(1, -0.5, 0), 1.0, 0, 0, &p, &stats));
	ENSURE_SMALL(p.position[0].x - 1.0, 1e-12);
	ENSURE(p.position[0].y >= 0.1 && p.position[0].y < 0.1 + skinTolerance);
	bsParticles_Free(&p);

	// Escape: leaving the bounds marks it and it is never simulated again.
	bsWorld* empty = MakeWorld(NULL, NULL, 0, 1);
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	p.velocity[0] = bsV3(3, 0, 0);
	p.velocity[1] = bsV3(0.75, 0, 0);
	bsStepDef st = Settings(1.0, bsV3(0, 0, 0), bs_methodExact, bs_responseSlide);
	st.bounded = true;
	st.boundsMin = bsV3(-1, -1, -1);
	st.boundsMax = bsV3(1, 1, 1);
	memset(&stats, 0, sizeof(stats));
	ENSURE(bsWorld_Step(empty, &st, &p, &stats) == bs_ok);
	ENSURE(p.state[0] == bs_particleEscaped && p.state[1] == bs_particleFree && stats.escaped == 1);
	ENSURE(bsWorld_Step(empty, &st, &p, &stats) == bs_ok);
	ENSURE(p.position[0].x == 3.0 && p.state[1] == bs_particleEscaped && stats.escaped == 2);
	bsParticles_Free(&p);

	// Settings out of range are refused.
	st.maxContacts = 0;
	ENSURE(bsWorld_Step(empty, &st, &p, NULL) == bs_errInvalidArgument);
	st.maxContacts = 4;
	st.substeps = -1;
	ENSURE(bsWorld_Step(empty, &st, &p, NULL) == bs_errInvalidArgument);
	st.substeps = 0;  // planned (step.h), within maxSubsteps >= 1
	st.maxSubsteps = 0;
	ENSURE(bsWorld_Step(empty, &st, &p, NULL) == bs_errInvalidArgument);
	st.maxSubsteps = 1;
	st.interaction.type = bs_interactionGranular;
	st.interaction.restitution = 0.0;
	ENSURE(bsWorld_Step(empty, &st, &p, NULL) == bs_errInvalidArgument);
	bsWorld_Destroy(empty);
	return 0;
}

// A plate at y = 0 over x, z in [0, 1] made of flat bars along z, `gap` apart.
static bsTriangle* SlotPlate(double bar, double gap, uint32_t* count)
{
	int bars = (int)(1.0 / (bar + gap)) + 1;
	bsTriangle* tris = malloc((size_t)bars * 2 * sizeof(bsTriangle));
	uint32_t n = 0;
	for (int b = 0; b < bars; ++b)
	{
		double x0 = b * (bar + gap);
		double x1 = x0 + bar;
		bsMakeTriangle(bsV3(x0, 0, 0), bsV3(x0, 0, 1), bsV3(x1, 0, 1), tris + n++);
		bsMakeTriangle(bsV3(x0, 0, 0), bsV3(x1, 0, 1), bsV3(x1, 0, 0), tris + n++);
	}
	*count = n;
	return tris;
}

// Distance from x to the nearest triangle, by brute force.
static double NearestDistance(const bsTriangle* tris, uint32_t count, bsVec3 x)
{
	double best = HUGE_VAL;
	for (uint32_t k = 0; k < count; ++k)
	{
		best = fmin(best, bsDistance(x, bsTriangle_ClosestPoint(tris + k, x, NULL, NULL)));
	}
	return best;
}

static int SlotPlate_(void)
{
	// Slots 0.03 wide, particles of radius 0.02 (2R = 0.04 > 0.03): a swept sphere cannot pass, a ray
	// through a slot does. One step straight down, as the paper's figures.
	double radius = 0.02;
	uint32_t count;
	bsTriangle* tris = SlotPlate(0.02, 0.03, &count);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	bsWorld* world = MakeWorld(&bvh, NULL, 0, 2);
	size_t side = 60;
	for (int m = 0; m < bs_methodCount; ++m)
	{
		for (int r = 0; r < bs_responseCount; ++r)
		{
			bsParticles p;
			ENSURE(bsParticles_Alloc(&p, side * side) == bs_ok);
			for (size_t i = 0; i < side * side; ++i)
			{
				p.position[i] = bsV3(0.05 + 0.9 * (double)(i % side) / (double)side, 0.5,
					0.05 + 0.9 * (double)(i / side) / (double)side);
				p.velocity[i] = bsV3(0, -1, 0);
				p.radius[i] = radius;
			}
			bsStepDef st = Settings(1.0, bsV3(0, 0, 0), (bsMethod)m, (bsResponse)r);
			ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
			size_t through = 0;
			for (size_t i = 0; i < p.count; ++i)
			{
				through += p.position[i].y < 0.0;
				if (m == bs_methodExact)
				{
					// No final sphere overlaps a triangle by more than 1e-4 R.
					ENSURE(NearestDistance(tris, count, p.position[i]) >= radius * (1.0 - 1e-4));
				}
			}
			if (m == bs_methodRay)
			{
				ENSURE(through > side * side / 4);  // 3/5 of the plate is slots
			}
			else
			{
				ENSURE(through == 0);
			}
			bsParticles_Free(&p);
		}
	}
	bsWorld_Destroy(world);
	bsBvh_Destroy(&bvh);
	free(tris);
	return 0;
}

static int Determinism(void)
{
	// Particles rain on the heightfield with boxes; every method and response gives byte-identical
	// states with 1 and 2 threads over several steps.
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeHeightfieldScene(3, 40, 30, &tris, &count) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	bsPlane floor;
	bsMakePlane(bsV3(0, -0.5, 0), bsV3(0, 1, 0), &floor);
	bsWorld* world1 = MakeWorld(&bvh, &floor, 1, 1);
	bsWorld* world2 = MakeWorld(&bvh, &floor, 1, 2);
	size_t n = 3000;
	for (int m = 0; m < bs_methodCount; ++m)
	{
		for (int r = 0; r < bs_responseCount; ++r)
		{
			bsParticles a, b;
			ENSURE(bsParticles_Alloc(&a, n) == bs_ok && bsParticles_Alloc(&b, n) == bs_ok);
			bsRng rng = bsMakeRng(11);
			for (size_t i = 0; i < n; ++i)
			{
				a.position[i] = bsV3(bsRng_Uniform(&rng), bsRng_Range(&rng, 0.3, 0.8), bsRng_Uniform(&rng));
				a.velocity[i] = bsV3(bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -2, 0), bsRng_Range(&rng, -1, 1));
				a.radius[i] = bsRng_Range(&rng, 0.005, 0.02);
			}
			memcpy(b.position, a.position, n * sizeof(bsVec3));
			memcpy(b.velocity, a.velocity, n * sizeof(bsVec3));
			memcpy(b.radius, a.radius, n * sizeof(double));
			bsStepDef st = Settings(0.05, bsV3(0, -9.81, 0), (bsMethod)m, (bsResponse)r);
			st.friction = 0.2;
			st.bounded = true;
			st.boundsMin = bsV3(-0.2, -1, -0.2);
			st.boundsMax = bsV3(1.2, 2, 1.2);
			bsStepStats sa, sb;
			memset(&sa, 0, sizeof(sa));
			memset(&sb, 0, sizeof(sb));
			for (int k = 0; k < 10; ++k)
			{
				ENSURE(bsWorld_Step(world1, &st, &a, &sa) == bs_ok);
				ENSURE(bsWorld_Step(world2, &st, &b, &sb) == bs_ok);
			}
			ENSURE(memcmp(a.position, b.position, n * sizeof(bsVec3)) == 0);
			ENSURE(memcmp(a.velocity, b.velocity, n * sizeof(bsVec3)) == 0);
			ENSURE(memcmp(a.state, b.state, n) == 0);
			ENSURE(memcmp(&sa, &sb, sizeof(sa)) == 0);
			ENSURE(sa.queries >= n);
			if (r == bs_responseStick)
			{
				ENSURE(sa.stuck > n / 2);  // the terrain and the floor catch most of the rain
			}
			bsParticles_Free(&a);
			bsParticles_Free(&b);
		}
	}
	bsWorld_Destroy(world1);
	bsWorld_Destroy(world2);
	bsBvh_Destroy(&bvh);
	free(tris);
	return 0;
}

int StepTest(void)
{
	RUN_SUBTEST(PlaneSweep());
	RUN_SUBTEST(FreeFallAndDrag());
	RUN_SUBTEST(Responses());
	RUN_SUBTEST(SlotPlate_());
	RUN_SUBTEST(Determinism());
	return 0;
}
