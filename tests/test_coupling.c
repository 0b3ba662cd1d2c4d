// test_coupling.c — two-way coupling between particles and dynamic bodies (body_dynamics.c's pushes):
// a free body hit off-centre by particles keeps the total momentum and angular momentum of particles
// and body; a one-way body is not pushed; the same bytes at 1 and 2 threads.
#include "blobsim/body.h"
#include "blobsim/step.h"
#include "blobsim/world.h"
#include "procedural.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bsBody* MakeBox(bsVec3 half, bsVec3 at, double density, bool twoWay, bsTriangle** tris)
{
	uint32_t count;
	if (bsMakeBoxMesh(bsNeg(half), half, 2, false, tris, &count) != bs_ok)
	{
		return NULL;
	}
	bsVec3Key translate[1] = {{0.0, at}};
	bsBodyDef def = bsDefaultBodyDef();
	def.triangles = *tris;
	def.triangleCount = count;
	def.kind = bs_motionDynamic;
	def.keys.translate = translate;
	def.keys.translateCount = 1;
	def.density = density;
	def.twoWay = twoWay;
	bsBody* body = NULL;
	return bsBody_Create(&def, &body) == bs_ok ? body : NULL;
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

// A grid of n x n particles at x = 1, beside the +x face of a box 1 m wide centred at (0, 0, 0),
// heading at it along -x over y, z in (0.05, 0.45): off-centre, so the body turns.
static int ShootGrid(bsParticles* p, int n, double radius)
{
	for (int a = 0; a < n; ++a)
	{
		for (int b = 0; b < n; ++b)
		{
			bsParticleDef d = {bsV3(0.8, 0.05 + 0.4 * a / (n - 1), 0.05 + 0.4 * b / (n - 1)), bsV3(-6.0, 0.0, 0.0),
				radius, bs_particleFree};
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
	bsBody* box = MakeBox(bsV3(0.5, 0.5, 0.5), bsV3(0.0, 0.0, 0.0), 125.0, twoWay, &tris);
	ENSURE(box != NULL);
	bsWorld* w = MakeWorld(1, box, bsV3(0.0, 0.0, 0.0));
	ENSURE(w != NULL);
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
	bsVec3 P0, L0;
	ParticleMomenta(&p, m, &P0, &L0);
	for (int k = 0; k < 20; ++k)
	{
		ENSURE(bsWorld_Step(w, &st, &p, NULL) == bs_ok);
	}
	bsVec3 P1, L1;
	ParticleMomenta(&p, m, &P1, &L1);
	bsVec3 Pb = bsWorld_BodyMomentum(w, NULL);
	bsVec3 Lb = bsWorld_BodyAngularMomentum(w);
	if (getenv("BS_COUPLING_VERBOSE") != NULL)
	{
		printf("P0 %g L0 %g: dP %.3g dL %.3g, body P %g L %g, particles P.x %g\n", bsLength(P0), bsLength(L0),
			bsLength(bsSub(bsAdd(P1, Pb), P0)) / bsLength(P0), bsLength(bsSub(bsAdd(L1, Lb), L0)) / bsLength(L0),
			bsLength(Pb), bsLength(Lb), P1.x);
	}
	if (twoWay)
	{
		ENSURE(bsLength(bsSub(bsAdd(P1, Pb), P0)) <= 1e-10 * bsLength(P0));
		ENSURE(bsLength(bsSub(bsAdd(L1, Lb), L0)) <= 1e-10 * bsLength(L0));
		ENSURE(bsLength(Pb) > 0.5 * bsLength(P0));  // most of the particles' momentum went into the body
		ENSURE(bsLength(bsSub(Lb, bsCross(bsV3(0, 0, 0), Pb))) > 0.0);
		ENSURE(P1.x > 0.0);  // and they bounced
	}
	else
	{
		ENSURE(bsLength(Pb) == 0.0);
		ENSURE(P1.x > 0.0);
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(w);
	bsBody_Destroy(box);
	free(tris);
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
			bsV3(0.0, 0.0, 0.0), 0.02, bs_particleFree};
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
	bsParticles_Free(&p);
	bsWorld_Destroy(w);
	bsBody_Destroy(box);
	free(tris);
	return hash;
}

int CouplingTest(void)
{
	RUN_SUBTEST(Conserved(true));
	RUN_SUBTEST(Conserved(false));
	uint64_t one = Run(1);
	ENSURE(one != 0 && one == Run(2));
	return 0;
}
