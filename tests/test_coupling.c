// test_coupling.c — two-way coupling between particles and dynamic bodies (body_dynamics.c's pushes):
// a free body hit off-centre by particles keeps the total momentum and angular momentum of particles
// and body; a one-way body is not pushed; the same bytes at 1 and 2 threads.
#include "blobsim/body.h"
#include "blobsim/step.h"
#include "blobsim/world.h"
#include "procedural.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bsBody* MakeBody(const bsTriangle* tris, uint32_t count, bsVec3 at, double density, bool twoWay)
{
	bsVec3Key translate[1] = {{0.0, at}};
	bsBodyDef def = bsDefaultBodyDef();
	def.triangles = tris;
	def.triangleCount = count;
	def.kind = bs_motionDynamic;
	def.keys.translate = translate;
	def.keys.translateCount = 1;
	def.density = density;
	def.twoWay = twoWay;
	bsBody* body = NULL;
	return bsBody_Create(&def, &body) == bs_ok ? body : NULL;
}

static bsBody* MakeBox(bsVec3 half, bsVec3 at, double density, bool twoWay, bsTriangle** tris)
{
	uint32_t count;
	return bsMakeBoxMesh(bsNeg(half), half, 2, false, tris, &count) == bs_ok ? MakeBody(*tris, count, at, density, twoWay) :
		NULL;
}

// A world of 1 or 2 threads with the body, no gravity for the body either.
static bsWorld* MakeWorld(int threads, bsBody* body, bsVec3 gravity)
{
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	bsWorld* w = bsWorld_Create(&wd);
	bsBodyDynamicsDef dyn = bsDefaultBodyDynamicsDef();
	dyn.step.gravity = gravity;
	if (w == NULL || bsWorld_AddBody(w, body) != bs_ok || bsWorld_SetBodyDynamics(w, &dyn) != bs_ok)
	{
		bsWorld_Destroy(w);
		return NULL;
	}
	return w;
}

// A free box (no gravity) of half extent `half` at the origin, in a world of one thread.
static int FreeBox(double half, double density, bool twoWay, bsTriangle** tris, bsBody** box, bsWorld** w)
{
	*box = MakeBox(bsV3(half, half, half), bsV3(0.0, 0.0, 0.0), density, twoWay, tris);
	ENSURE(*box != NULL);
	*w = MakeWorld(1, *box, bsV3(0.0, 0.0, 0.0));
	ENSURE(*w != NULL);
	return 0;
}

// Frees what a test made.
static void FreeAll(bsParticles* p, bsWorld* w, bsBody* body, bsTriangle* tris)
{
	bsParticles_Free(p);
	bsWorld_Destroy(w);
	bsBody_Destroy(body);
	free(tris);
}

// The particles' momentum and angular momentum about the origin, each of mass m.
static void ParticleMomenta(const bsParticles* p, double m, bsVec3* P, bsVec3* L)
{
	*P = *L = bsV3(0.0, 0.0, 0.0);
	for (size_t i = 0; i < p->count; ++i)
	{
		*P = bsMulAdd(*P, m, p->velocity[i]);
		*L = bsMulAdd(*L, m, bsCross(p->position[i], p->velocity[i]));
	}
}

// Momenta of particles (each of mass m) and bodies before and after `steps` steps of st, and the
// relative change of their totals.
typedef struct Exchange
{
	bsVec3 P0, L0, P1, L1, Pb, Lb;
	double dP, dL;
} Exchange;

static int RunExchange(bsWorld* w, const bsStepDef* st, bsParticles* p, double m, const char* name, Exchange* e)
{
	ParticleMomenta(p, m, &e->P0, &e->L0);
	for (int k = 0; k < 20; ++k)
	{
		ENSURE(bsWorld_Step(w, st, p, NULL) == bs_ok);
	}
	ParticleMomenta(p, m, &e->P1, &e->L1);
	e->Pb = bsWorld_BodyMomentum(w, NULL);
	e->Lb = bsWorld_BodyAngularMomentum(w);
	e->dP = bsLength(bsSub(bsAdd(e->P1, e->Pb), e->P0)) / bsLength(e->P0);
	e->dL = bsLength(bsSub(bsAdd(e->L1, e->Lb), e->L0)) / bsLength(e->L0);
	if (getenv("BS_COUPLING_VERBOSE") != NULL)
	{
		printf("%s: particles' P %g L %g before; change of the totals %.3g and %.3g; body P %g L %g\n", name,
			bsLength(e->P0), bsLength(e->L0), e->dP, e->dL, bsLength(e->Pb), bsLength(e->Lb));
	}
	return 0;
}

// A grid of n x n particles at x = 1, beside the +x face of a box 1 m wide centred at (0, 0, 0),
// heading at it along -x over y, z in (0.05, 0.45): off-centre, so the body turns.
static int ShootGrid(bsParticles* p, int n, double radius)
{
	for (int a = 0; a < n; ++a)
	{
		for (int b = 0; b < n; ++b)
		{
			bsParticleDef d = {bsV3(0.8, 0.05 + 0.4 * a / (n - 1), 0.05 + 0.4 * b / (n - 1)), bsV3(-6.0, 0.0, 0.0),
				radius, bs_particleFree, {0, 0, 0}};
			ENSURE(bsParticles_Append(p, &d) == bs_ok);
		}
	}
	return 0;
}

// A free box (mass 125 kg) hit off-centre by 64 particles of 5.2 kg each at 6 m/s, no gravity,
// bouncing (e = 0.5, friction 0.3): the total momentum and angular momentum of particles and body
// are the same after as before, to 1e-10 of their size; the body moves and turns. With one-way
// coupling the body does not move.
static int Conserved(bool twoWay)
{
	bsTriangle* tris = NULL;
	bsBody* box = NULL;
	bsWorld* w = NULL;
	RUN_SUBTEST(FreeBox(0.5, 125.0, twoWay, &tris, &box, &w));
	bsParticles p;
	memset(&p, 0, sizeof p);
	double radius = 0.05;
	RUN_SUBTEST(ShootGrid(&p, 8, radius));
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.01;
	st.substeps = 2;
	st.method = bs_methodExact;
	st.response = bs_responseBounce;
	st.restitution = 0.5;
	st.friction = 0.3;
	st.interaction.density = 10000.0;
	double m = st.interaction.density * 4.0 / 3.0 * 3.14159265358979323846 * radius * radius * radius;
	Exchange e;
	RUN_SUBTEST(RunExchange(w, &st, &p, m, twoWay ? "two-way hits" : "one-way hits", &e));
	bsTransform pose;
	bsVec3 scale;
	bsBody_Pose(box, bsWorld_Time(w), &pose, &scale);
	bsVec3 spin = bsSub(e.Lb, bsCross(pose.translation, e.Pb));  // about its centre
	if (getenv("BS_COUPLING_VERBOSE") != NULL)
	{
		printf("  its spin %g\n", bsLength(spin));
	}
	ENSURE(e.P1.x > 0.0);  // they bounced
	if (twoWay)
	{
		ENSURE(e.dP <= 1e-10 && e.dL <= 1e-10);
		ENSURE(bsLength(e.Pb) > 0.5 * bsLength(e.P0));  // most of the particles' momentum went into the body
		ENSURE(bsLength(spin) > 0.01 * bsLength(e.Lb));  // and it turns
	}
	else
	{
		ENSURE(bsLength(e.Pb) == 0.0);
	}
	FreeAll(&p, w, box, tris);
	return 0;
}

// The body's pose and the particles after a run of a pile of particles falling onto a two-way box
// that falls too, at `threads` threads; a hash of the bytes.
static uint64_t Run(int threads)
{
	bsTriangle* tris = NULL;
	bsBody* box = MakeBox(bsV3(0.3, 0.1, 0.3), bsV3(0.0, 0.5, 0.0), 400.0, true, &tris);
	bsWorld* w = box != NULL ? MakeWorld(threads, box, bsV3(0.0, -9.81, 0.0)) : NULL;
	bsPlane floor;
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), &floor);
	if (w == NULL || bsWorld_AddPlanes(w, &floor, 1) != bs_ok)
	{
		return 0;
	}
	bsParticles p;
	memset(&p, 0, sizeof p);
	for (int i = 0; i < 1200; ++i)
	{
		bsParticleDef d = {bsV3(-0.25 + 0.05 * (i % 11), 0.7 + 0.05 * (i / 121), -0.25 + 0.05 * ((i / 11) % 11)),
			bsV3(0.0, 0.0, 0.0), 0.02, bs_particleFree, {0, 0, 0}};
		bsParticles_Append(&p, &d);
	}
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.01;
	st.substeps = 0;
	st.gravity = bsV3(0.0, -9.81, 0.0);
	st.response = bs_responseSlide;
	st.interaction.type = bs_interactionGranular;
	st.interaction.density = 2000.0;
	for (int k = 0; k < 40; ++k)
	{
		if (bsWorld_Step(w, &st, &p, NULL) != bs_ok)
		{
			return 0;
		}
	}
	bsTransform pose;
	bsVec3 scale;
	bsBody_Pose(box, bsWorld_Time(w), &pose, &scale);
	uint64_t hash;
	hash = bsFnv1a(BS_FNV1A_BASIS, &pose, sizeof pose);
	hash = bsFnv1a(hash, p.position, p.count * sizeof(bsVec3));
	hash = bsFnv1a(hash, p.velocity, p.count * sizeof(bsVec3));
	FreeAll(&p, w, box, tris);
	return hash;
}

// A tank of planes (kept in planes[5]: the world borrows them): the floor y = 0 and walls at x = +-hx,
// z = +-hz.
static bool AddTank(bsWorld* w, double hx, double hz, bsPlane planes[5])
{
	bsVec3 points[5] = {{0, 0, 0}, {-hx, 0, 0}, {hx, 0, 0}, {0, 0, -hz}, {0, 0, hz}};
	bsVec3 normals[5] = {{0, 1, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}};
	for (int k = 0; k < 5; ++k)
	{
		if (bsMakePlane(points[k], normals[k], planes + k) != bs_ok)
		{
			return false;
		}
	}
	return bsWorld_AddPlanes(w, planes, 5) == bs_ok;
}

// n[0] x n[1] x n[2] particles of radius r at the cell centres of the box [lo, hi], at rest.
static bool Fill(bsParticles* p, bsVec3 lo, bsVec3 hi, const int n[3], double r, bsVec3 velocity)
{
	for (int a = 0; a < n[0]; ++a)
	{
		for (int b = 0; b < n[1]; ++b)
		{
			for (int c = 0; c < n[2]; ++c)
			{
				bsVec3 x = bsV3(lo.x + (a + 0.5) * (hi.x - lo.x) / n[0], lo.y + (b + 0.5) * (hi.y - lo.y) / n[1],
					lo.z + (c + 0.5) * (hi.z - lo.z) / n[2]);
				bsParticleDef d = {x, velocity, r, bs_particleFree, {0, 0, 0}};
				if (bsParticles_Append(p, &d) != bs_ok)
				{
					return false;
				}
			}
		}
	}
	return true;
}

// A fluid step def: water without viscosity, tension or adhesion unless asked.
static bsStepDef FluidStep(double dt, bsVec3 gravity)
{
	bsStepDef st = bsDefaultStepDef();
	st.dt = dt;
	st.substeps = 0;
	st.maxSubsteps = 2000;
	st.gravity = gravity;
	st.method = bs_methodExact;
	st.response = bs_responseSlide;
	st.interaction.type = bs_interactionFluid;
	st.interaction.density = 1000.0;
	st.interaction.fluid.kinematicViscosity = 0.0;
	return st;
}

// A block of 216 fluid particles (no gravity) thrown at 1 m/s at a free box of density 300 off its
// centre: the pressure of its walls, the contact constraints, the viscous drag, the adhesion and the
// collisions go back to the body, and the momentum and angular momentum of fluid and body are kept to
// 1e-10 of their size. The viscosity solve runs to a residual of 1e-12 (at its default 1e-4 the
// fluid itself keeps its momentum only to about 1e-3 over the run). No surface tension: Akinci's
// curvature force does not act along the line of a pair, so the fluid does not keep its angular
// momentum with it.
static int FluidConserved(double viscosity, double adhesion)
{
	bsTriangle* tris = NULL;
	bsBody* box = NULL;
	bsWorld* w = NULL;
	RUN_SUBTEST(FreeBox(0.05, 300.0, true, &tris, &box, &w));
	bsParticles p;
	memset(&p, 0, sizeof p);
	int n[3] = {6, 6, 6};
	double r = 0.01;
	ENSURE(Fill(&p, bsV3(-0.2, -0.02, -0.06), bsV3(-0.08, 0.1, 0.06), n, r, bsV3(1.0, 0.0, 0.0)));
	bsStepDef st = FluidStep(0.01, bsV3(0.0, 0.0, 0.0));
	st.interaction.fluid.kinematicViscosity = viscosity;
	st.interaction.fluid.viscosityError = 1e-12;  // the solve's residual is the fluid's own loss
	st.interaction.fluid.maxViscosityIterations = 10000;
	st.interaction.fluid.adhesion = adhesion;
	double m = st.interaction.density * 8.0 * r * r * r;
	Exchange e;
	char name[64];
	snprintf(name, sizeof name, "fluid, viscosity %g, adhesion %g", viscosity, adhesion);
	RUN_SUBTEST(RunExchange(w, &st, &p, m, name, &e));
	ENSURE(e.dP <= 1e-10 && e.dL <= 1e-10);
	ENSURE(e.Pb.x > 0.1 * e.P0.x);  // the block pushed the box along
	FreeAll(&p, w, box, tris);
	return 0;
}

// The body's centre height at the world's time.
static double Height(const bsWorld* w, const bsBody* body)
{
	bsTransform pose;
	bsVec3 scale;
	bsBody_Pose(body, bsWorld_Time(w), &pose, &scale);
	return pose.translation.y;
}

// A ball (radius 0.08, density 4000) dropped from 0.4 m into a bed of about 1,000 sand grains (radius
// 0.015, 0.18 m deep) in a 0.4 m tank, for 1.2 s. Two-way: it sinks into the bed (its bottom at least
// 3 cm under the surface, and at least 3 cm clear of the floor) and stops there (its centre stays
// within a band of 3 mm over the last 0.2 s). One-way: nothing holds it, it falls to the floor.
static int BallInSand(bool twoWay)
{
	bsTriangle* tris = NULL;
	uint32_t count;
	ENSURE(bsMakeIcosphere(2, 0.08, 0.0, false, &tris, &count) == bs_ok);
	bsBody* ball = MakeBody(tris, count, bsV3(0.0, 0.4, 0.0), 4000.0, twoWay);
	ENSURE(ball != NULL);
	bsWorld* w = MakeWorld(2, ball, bsV3(0.0, -9.81, 0.0));
	bsPlane tank[5];
	ENSURE(w != NULL && AddTank(w, 0.2, 0.2, tank));
	bsParticles p;
	memset(&p, 0, sizeof p);
	int n[3] = {13, 6, 13};
	ENSURE(Fill(&p, bsV3(-0.195, 0.0, -0.195), bsV3(0.195, 0.18, 0.195), n, 0.015, bsV3(0.0, 0.0, 0.0)));
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.01;
	st.substeps = 0;
	st.maxSubsteps = 400;
	st.gravity = bsV3(0.0, -9.81, 0.0);
	st.method = bs_methodExact;
	st.response = bs_responseSlide;
	st.friction = 0.5;
	st.interaction.type = bs_interactionGranular;
	st.interaction.density = 2600.0;
	st.interaction.restitution = 0.2;
	st.interaction.contactTime = 0.01;
	st.interaction.tangentialStiffness = 0.2857;
	double low = HUGE_VAL, high = -HUGE_VAL;
	for (int k = 1; k <= 120; ++k)
	{
		ENSURE(bsWorld_Step(w, &st, &p, NULL) == bs_ok);
		double y = Height(w, ball);
		low = k > 100 ? fmin(low, y) : low;
		high = k > 100 ? fmax(high, y) : high;
	}
	double y = Height(w, ball);
	if (getenv("BS_COUPLING_VERBOSE") != NULL)
	{
		printf("ball in sand (%s): centre %.4f to %.4f over 1.0-1.2 s\n", twoWay ? "two-way" : "one-way", low, high);
	}
	if (twoWay)
	{
		ENSURE(y - 0.08 < 0.18 - 0.03 && y - 0.08 > 0.03);
		ENSURE(high - low < 0.003);
	}
	else
	{
		ENSURE_SMALL(y - 0.08, 2e-3);
	}
	FreeAll(&p, w, ball, tris);
	return 0;
}

// A crate (0.2 x 0.1 x 0.15 m) on 960 particles of water 0.1 m deep in a 0.5 x 0.3 m tank, after 1 s:
// at density 500 it floats where Archimedes puts it (its centre 0.11 m up: half of it under a level
// raised by what it displaces) within 1 cm; at 2000 it sinks to the floor (centre 0.05). One-way, the
// light one sinks too. Returns the run's bytes' hash (the crate's pose, the particles) in *hash.
static int Crate(double density, bool twoWay, int threads, uint64_t* hash)
{
	bsTriangle* tris = NULL;
	bsBody* crate = MakeBox(bsV3(0.1, 0.05, 0.075), bsV3(0.0, 0.17, 0.0), density, twoWay, &tris);
	ENSURE(crate != NULL);
	bsWorld* w = MakeWorld(threads, crate, bsV3(0.0, -9.81, 0.0));
	bsPlane tank[5];
	ENSURE(w != NULL && AddTank(w, 0.25, 0.15, tank));
	bsParticles p;
	memset(&p, 0, sizeof p);
	int n[3] = {20, 4, 12};
	ENSURE(Fill(&p, bsV3(-0.25, 0.0, -0.15), bsV3(0.25, 0.1, 0.15), n, 0.0125, bsV3(0.0, 0.0, 0.0)));
	bsStepDef st = FluidStep(0.025, bsV3(0.0, -9.81, 0.0));
	st.interaction.fluid.kinematicViscosity = 1e-6;
	for (int k = 0; k < 40; ++k)
	{
		ENSURE(bsWorld_Step(w, &st, &p, NULL) == bs_ok);
	}
	double y = Height(w, crate);
	if (getenv("BS_COUPLING_VERBOSE") != NULL)
	{
		printf("crate density %g (%s, %d threads): centre %.4f\n", density, twoWay ? "two-way" : "one-way", threads, y);
	}
	double archimedes = (0.5 * 0.3 * 0.1 + density / 1000.0 * 0.003) / (0.5 * 0.3);  // the water's level
	double floating = archimedes - density / 1000.0 * 0.1 + 0.05;
	if (twoWay && density < 1000.0)
	{
		ENSURE_SMALL(y - floating, 0.01);
	}
	else
	{
		ENSURE_SMALL(y - 0.05, 1e-3);
	}
	bsTransform pose;
	bsVec3 scale;
	bsBody_Pose(crate, bsWorld_Time(w), &pose, &scale);
	*hash = bsFnv1a(BS_FNV1A_BASIS, &pose, sizeof pose);
	*hash = bsFnv1a(*hash, p.position, p.count * sizeof(bsVec3));
	*hash = bsFnv1a(*hash, p.velocity, p.count * sizeof(bsVec3));
	FreeAll(&p, w, crate, tris);
	return 0;
}

int CouplingTest(void)
{
	RUN_SUBTEST(Conserved(true));
	RUN_SUBTEST(Conserved(false));
	uint64_t one = Run(1);
	ENSURE(one != 0 && one == Run(2));
	RUN_SUBTEST(FluidConserved(0.0, 0.0));
	RUN_SUBTEST(FluidConserved(1.0, 0.5));  // slime's viscosity
	RUN_SUBTEST(BallInSand(true));
	RUN_SUBTEST(BallInSand(false));
	uint64_t h1, h2, unused;
	RUN_SUBTEST(Crate(500.0, true, 1, &h1));
	RUN_SUBTEST(Crate(500.0, true, 2, &h2));
	ENSURE(h1 == h2);
	RUN_SUBTEST(Crate(2000.0, true, 2, &unused));
	RUN_SUBTEST(Crate(500.0, false, 2, &unused));
	return 0;
}
