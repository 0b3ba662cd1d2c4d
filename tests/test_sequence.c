// test_sequence.c — mesh sequences as deforming bodies (body.h bsSequenceDef, sequence.c): the shape
// at and between frames against the closed form, bad sequences refused, particles riding a plate
// that a sequence lifts (their velocity the plate's), none inside a lifted and squeezed box, and the
// same bytes at 1 and 2 threads; none inside a widening sequence box or a bulging CSRBF box among
// sleeping particles.
#include "procedural.h"
#include "reference.h"
#include "blobsim/body.h"
#include "blobsim/step.h"
#include "test.h"
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// An indexed mesh from a triangle list: equal corners become one vertex.
typedef struct Indexed
{
	bsVec3* rest;
	uint32_t vertexCount;
	uint32_t* indices;
	uint32_t triangleCount;
} Indexed;

static int MakeIndexed(bsVec3 lo, bsVec3 hi, int cells, Indexed* m)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeBoxMesh(lo, hi, cells, false, &tris, &count) == bs_ok);
	m->rest = malloc(3 * (size_t)count * sizeof(bsVec3));
	m->indices = malloc(3 * (size_t)count * sizeof(uint32_t));
	ENSURE(m->rest != NULL && m->indices != NULL);
	m->vertexCount = 0;
	m->triangleCount = count;
	for (uint32_t i = 0; i < 3 * count; ++i)
	{
		bsVec3 p = i % 3 == 0 ? tris[i / 3].p1 : i % 3 == 1 ? tris[i / 3].p2 : tris[i / 3].p3;
		uint32_t v = 0;
		while (v < m->vertexCount && !(m->rest[v].x == p.x && m->rest[v].y == p.y && m->rest[v].z == p.z))
		{
			++v;
		}
		if (v == m->vertexCount)
		{
			m->rest[m->vertexCount++] = p;
		}
		m->indices[i] = v;
	}
	free(tris);
	return 0;
}

static void FreeIndexed(Indexed* m)
{
	free(m->rest);
	free(m->indices);
}

// The closed form the tests key: a rest vertex p at time t lifted by lift * t and squeezed in x by
// 1 - squeeze * t (linear in t, so the frames' linear blend is exact between them).
static bsVec3 Motion(bsVec3 p, double t, double lift, double squeeze)
{
	return bsV3(p.x * (1.0 - squeeze * t), p.y + lift * t, p.z);
}

// A body of frames at times[k] of Motion.
static bsBody* MakeSequence(const Indexed* m, const double* times, int frames, double lift, double squeeze, bsVec3** out)
{
	bsVec3* positions = malloc((size_t)frames * m->vertexCount * sizeof(bsVec3));
	if (positions == NULL)
	{
		return NULL;
	}
	for (int k = 0; k < frames; ++k)
	{
		for (uint32_t v = 0; v < m->vertexCount; ++v)
		{
			positions[(size_t)k * m->vertexCount + v] = Motion(m->rest[v], times[k], lift, squeeze);
		}
	}
	bsBodyDef def = bsDefaultBodyDef();
	def.kind = bs_motionDeforming;
	def.triangleCount = m->triangleCount;
	bsSequenceDef seq = {positions, m->vertexCount, m->indices, times, frames};
	def.sequence = seq;
	bsBody* body = NULL;
	bsResult r = bsBody_Create(&def, &body);
	if (out != NULL)
	{
		*out = positions;
	}
	else
	{
		free(positions);
	}
	return r == bs_ok ? body : NULL;
}

// --- the shape ---

static int Interpolation(void)
{
	Indexed m;
	RUN_SUBTEST(MakeIndexed(bsV3(-1, -0.5, -1), bsV3(1, 0.5, 1), 2, &m));
	// Frames at uneven times, then a jump: frame 2 is not Motion's, so a wrong span shows.
	double times[3] = {0.0, 0.4, 1.5};
	bsVec3* positions;
	bsBody* body = MakeSequence(&m, times, 3, 0.8, 0.3, &positions);
	ENSURE(body != NULL && bsBody_DeformWeightCount(body) == (int)m.vertexCount && !bsBody_RigidShape(body));
	uint32_t count;
	const bsTriangle* rest = bsBody_Triangles(body, &count);
	ENSURE(count == m.triangleCount);
	bsVec3* w = malloc(m.vertexCount * sizeof(bsVec3));
	ENSURE(w != NULL);
	const double at[] = {-1.0, 0.0, 0.1, 0.4, 0.9, 1.5, 2.0};
	for (size_t q = 0; q < BS_COUNT(at); ++q)
	{
		double t = fmin(fmax(at[q], 0.0), 1.5);
		bsBody_DeformWeights(body, at[q], w);
		for (uint32_t i = 0; i < count; ++i)
		{
			const bsVec3 corners[3] = {rest[i].p1, rest[i].p2, rest[i].p3};
			bsVec3 centroid = bsV3(0, 0, 0), expected = bsV3(0, 0, 0);
			for (int c = 0; c < 3; ++c)
			{
				bsVec3 x = bsBody_ShapePoint(body, w, bsV3(1, 1, 1), corners[c]);
				ENSURE_SMALL(bsDistance(x, Motion(corners[c], t, 0.8, 0.3)), 1e-12);
				centroid = bsMulAdd(centroid, 1.0 / 3.0, corners[c]);
				expected = bsMulAdd(expected, 1.0 / 3.0, Motion(corners[c], t, 0.8, 0.3));
			}
			// A point inside a face: the blend of its corners.
			ENSURE_SMALL(bsDistance(bsBody_ShapePoint(body, w, bsV3(1, 1, 1), centroid), expected), 1e-12);
			// Off the surface: moved with the surface point below it.
			bsVec3 off = bsMulAdd(centroid, 0.05, rest[i].n);
			ENSURE_SMALL(bsDistance(bsBody_ShapePoint(body, w, bsV3(1, 1, 1), off), bsMulAdd(expected, 0.05, rest[i].n)), 1e-12);
		}
	}
	free(w);
	free(positions);
	bsBody_Destroy(body);
	FreeIndexed(&m);
	return 0;
}

static int Refused(void)
{
	Indexed m;
	RUN_SUBTEST(MakeIndexed(bsV3(-1, -0.5, -1), bsV3(1, 0.5, 1), 1, &m));
	double times[2] = {0.0, 1.0};
	bsVec3* positions = malloc(2 * m.vertexCount * sizeof(bsVec3));
	ENSURE(positions != NULL);
	memcpy(positions, m.rest, m.vertexCount * sizeof(bsVec3));
	memcpy(positions + m.vertexCount, m.rest, m.vertexCount * sizeof(bsVec3));
	bsBodyDef def = bsDefaultBodyDef();
	def.kind = bs_motionDeforming;
	def.triangleCount = m.triangleCount;
	bsSequenceDef seq = {positions, m.vertexCount, m.indices, times, 2};
	def.sequence = seq;
	bsBody* body = NULL;
	ENSURE(bsBody_Create(&def, &body) == bs_ok && body != NULL);
	bsBody_Destroy(body);
	// An index past the vertices.
	m.indices[4] = m.vertexCount;
	ENSURE(bsBody_Create(&def, &body) == bs_errInvalidArgument && body == NULL);
	m.indices[4] = m.indices[3];  // a degenerate triangle in the rest frame
	ENSURE(bsBody_Create(&def, &body) == bs_errInvalidArgument && body == NULL);
	m.indices[4] = m.indices[5] == 0 ? 1 : 0;
	// Times not increasing.
	times[1] = 0.0;
	ENSURE(bsBody_Create(&def, &body) == bs_errInvalidArgument && body == NULL);
	times[1] = 1.0;
	positions[m.vertexCount + 2].y = NAN;
	ENSURE(bsBody_Create(&def, &body) == bs_errNonFinite && body == NULL);
	free(positions);
	FreeIndexed(&m);
	return 0;
}

// --- in the world ---

static void AddGrid(bsParticles* p, int n, double spacing, double y, double radius)
{
	for (int i = -n; i <= n; ++i)
	{
		for (int k = -n; k <= n; ++k)
		{
			bsParticleDef d = {bsV3(spacing * i, y, spacing * k), bsV3(0, 0, 0), radius, bs_particleFree, bsV3(0, 0, 0)};
			bsParticles_Append(p, &d);
		}
	}
}

// Gravity, 2 substeps of 10 ms, exact sweeps, sliding contacts.
static bsStepDef SlideStep(void)
{
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.02;
	st.substeps = 2;
	st.gravity = bsV3(0, -9.81, 0);
	st.method = bs_methodExact;
	st.response = bs_responseSlide;
	return st;
}

static bsWorld* MakeWorld(int threads, bsBody* body)
{
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	bsWorld* w = bsWorld_Create(&wd);
	if (w != NULL && bsWorld_AddBody(w, body) != bs_ok)
	{
		bsWorld_Destroy(w);
		return NULL;
	}
	return w;
}

// A plate lifted at 0.5 m/s by a sequence of 5 frames carries the particles that rest on it: each
// ends on its top with the plate's velocity.
static int Riding(void)
{
	Indexed m;
	RUN_SUBTEST(MakeIndexed(bsV3(-1, -0.1, -1), bsV3(1, 0, 1), 4, &m));
	double times[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
	const double lift = 0.5;
	bsBody* body = MakeSequence(&m, times, 5, lift, 0.0, NULL);
	ENSURE(body != NULL);
	bsWorld* w = MakeWorld(1, body);
	ENSURE(w != NULL);
	bsParticles p;
	memset(&p, 0, sizeof p);
	const double radius = 0.02;
	AddGrid(&p, 4, 0.2, radius + 0.005, radius);
	size_t count = p.count;
	ENSURE(count == 81);
	bsStepDef st = SlideStep();
	for (int step = 0; step < 40; ++step)
	{
		ENSURE(bsWorld_Step(w, &st, &p, NULL) == bs_ok);
	}
	double top = lift * bsWorld_Time(w);
	ENSURE_SMALL(bsWorld_Time(w) - 0.8, 1e-12);
	for (size_t i = 0; i < count; ++i)
	{
		ENSURE(p.position[i].y >= top + radius - 1e-6 && p.position[i].y <= top + radius + 1e-6);
		ENSURE_SMALL(p.velocity[i].y - lift, 1e-9);
		ENSURE_SMALL(p.velocity[i].x, 1e-6);
		ENSURE_SMALL(p.velocity[i].z, 1e-6);
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(w);
	bsBody_Destroy(body);
	FreeIndexed(&m);
	return 0;
}

// A closed box lifted and squeezed (x shrinks by 40 % over 1 s) under falling particles: at every
// step no particle centre is inside the box, checked against the box's closed form.
static int RunBoxScene(int threads, bsParticles* p, int* inside)
{
	Indexed m;
	RUN_SUBTEST(MakeIndexed(bsV3(-0.5, -0.5, -0.5), bsV3(0.5, 0.0, 0.5), 3, &m));
	double times[4] = {0.0, 0.4, 0.8, 1.2};
	const double lift = 0.4, squeeze = 0.4;
	bsBody* body = MakeSequence(&m, times, 4, lift, squeeze, NULL);
	ENSURE(body != NULL);
	bsWorld* w = MakeWorld(threads, body);
	ENSURE(w != NULL);
	memset(p, 0, sizeof *p);
	AddGrid(p, 7, 0.08, 0.15, 0.015);
	AddGrid(p, 7, 0.08, 0.3, 0.015);
	bsStepDef st = SlideStep();
	*inside = 0;
	for (int step = 0; step < 60; ++step)
	{
		ENSURE(bsWorld_Step(w, &st, p, NULL) == bs_ok);
		double t = bsWorld_Time(w);
		double half = 0.5 * (1.0 - squeeze * fmin(t, 1.2));
		double top = lift * fmin(t, 1.2), bottom = -0.5 + top;
		for (size_t i = 0; i < p->count; ++i)
		{
			bsVec3 x = p->position[i];
			*inside += fabs(x.x) < half && fabs(x.z) < 0.5 && x.y > bottom && x.y < top;
		}
	}
	bsWorld_Destroy(w);
	bsBody_Destroy(body);
	FreeIndexed(&m);
	return 0;
}

static int NoneInsideAndDeterminism(void)
{
	bsParticles one, two;
	int inOne = 0, inTwo = 0;
	RUN_SUBTEST(RunBoxScene(1, &one, &inOne));
	RUN_SUBTEST(RunBoxScene(2, &two, &inTwo));
	ENSURE(inOne == 0 && inTwo == 0);
	ENSURE(one.count == two.count && one.count == 450);
	ENSURE(memcmp(one.position, two.position, one.count * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(one.velocity, two.velocity, one.count * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(one.state, two.state, one.count * sizeof(one.state[0])) == 0);
	bsParticles_Free(&one);
	bsParticles_Free(&two);
	return 0;
}

// How many particle centres are inside the closed mesh tris (ray parity: reference.h).
static int InsideByParity(const bsTriangle* tris, uint32_t count, const bsParticles* p)
{
	int inside = 0;
	for (size_t i = 0; i < p->count; ++i)
	{
		inside += refRayCrossings(tris, count, p->position[i]) % 2;
	}
	return inside;
}

// A body on the floor whose sides move out slowly (0.1 m/s: slower than the sleep speed) into a bed
// of particles that fall asleep and are colliders (accumulation): the body pushes the sleepers onto
// their neighbours, and a particle that then overlaps a sleeper is pushed out of it by up to two
// radii. That push once ignored the body and put particles inside it (thousands of particle-steps);
// now no particle centre is inside the body's shape (ray parity) after any step.
static int RunSleeperBed(bsBody* body, int* inside, int* asleep)
{
	bsWorld* w = MakeWorld(1, body);
	ENSURE(w != NULL);
	bsPlane floor = {bsV3(0, 1, 0), 0.0};
	ENSURE(bsWorld_AddPlanes(w, &floor, 1) == bs_ok && bsWorld_AddStuckParticles(w, 0.0) == bs_ok);
	bsParticles p;
	memset(&p, 0, sizeof p);
	const double radius = 0.02;
	for (int i = 0; i < 12; ++i)
	{
		for (int k = -6; k <= 6; ++k)
		{
			for (int side = -1; side <= 1; side += 2)
			{
				bsVec3 x = bsV3(side * (0.5 + radius + 0.001 + 0.045 * i), radius, 0.07 * k);
				bsParticleDef d = {x, bsV3(0, 0, 0), radius, bs_particleFree, bsV3(0, 0, 0)};
				bsParticles_Append(&p, &d);
			}
		}
	}
	bsStepDef st = SlideStep();
	st.sleepSteps = 3;
	st.sleepSpeed = 0.2;
	st.sleepAcceleration = 2.0;
	*inside = *asleep = 0;
	for (int step = 0; step < 75; ++step)
	{
		ENSURE(bsWorld_Step(w, &st, &p, NULL) == bs_ok);
		uint32_t count;
		const bsTriangle* shape = bsWorld_BodyShape(w, body, &count);
		ENSURE(shape != NULL);
		*inside += InsideByParity(shape, count, &p);
		for (size_t i = 0; step == 10 && i < p.count; ++i)
		{
			*asleep += p.state[i] == bs_particleSleeping;
		}
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(w);
	return 0;
}

// The bed against a box that a sequence widens (x grows by 20 % a second) and against one that a
// CSRBF deformation bulges (two controls at the sides' middles moving out by 0.15 in 1.5 s).
static int SleepersNotSwallowed(void)
{
	Indexed m;
	RUN_SUBTEST(MakeIndexed(bsV3(-0.5, 0.0, -0.5), bsV3(0.5, 0.5, 0.5), 3, &m));
	double times[3] = {0.0, 1.0, 2.0};
	bsBody* widening = MakeSequence(&m, times, 3, 0.0, -0.2, NULL);
	ENSURE(widening != NULL);
	int inside, asleep;
	RUN_SUBTEST(RunSleeperBed(widening, &inside, &asleep));
	ENSURE(asleep > 0 && inside == 0);
	bsBody_Destroy(widening);
	FreeIndexed(&m);

	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeBoxMesh(bsV3(-0.5, 0.0, -0.5), bsV3(0.5, 0.5, 0.5), 6, false, &tris, &count) == bs_ok);
	const bsVec3 controls[2] = {{0.5, 0.25, 0.0}, {-0.5, 0.25, 0.0}};
	const double keys[2] = {0.0, 1.5};
	const bsVec3 displacements[4] = {{0, 0, 0}, {0, 0, 0}, {0.15, 0, 0}, {-0.15, 0, 0}};
	bsBodyDef def = bsDefaultBodyDef();
	def.triangles = tris;
	def.triangleCount = count;
	def.kind = bs_motionDeforming;
	bsDeformDef deform = {controls, 2, 0.6, keys, displacements, 2};
	def.deform = deform;
	bsBody* bulging = NULL;
	ENSURE(bsBody_Create(&def, &bulging) == bs_ok);
	RUN_SUBTEST(RunSleeperBed(bulging, &inside, &asleep));
	ENSURE(asleep > 0 && inside == 0);
	bsBody_Destroy(bulging);
	free(tris);
	return 0;
}

int SequenceTest(void)
{
	RUN_SUBTEST(Interpolation());
	RUN_SUBTEST(Refused());
	RUN_SUBTEST(Riding());
	RUN_SUBTEST(NoneInsideAndDeterminism());
	RUN_SUBTEST(SleepersNotSwallowed());
	return 0;
}
