// test_trail.c — trail emitters (emitter.h: bsTrail): particles of one species born from the free
// particles of another. Against closed forms: every child of a source moving at a constant velocity is
// the k-th of that source, born at the source's join time + k / rate, where the source was then, with
// inherit x its velocity plus the emitter's (positions and velocities to 1e-9, in the order the step
// appends them), so each source's count is floor(rate x its free time); a source that escapes stops;
// a rate curve's count is its integral within 1; the same bytes at 1, 2 and 3 threads with gravity, a
// floor, an offset and a radius spread; and the defs the world refuses.
#include "blobsim/collide.h"
#include "blobsim/step.h"
#include "blobsim/world.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bsWorld* NewWorld(int threads)
{
	bsWorldDef def = bsDefaultWorldDef();
	def.threads = threads;
	return bsWorld_Create(&def);
}

// A trail of species 1 from the particles of species 0.
static bsEmitterDef Trail(double rate, double inherit)
{
	bsEmitterDef def = bsDefaultEmitterDef();
	def.shape.type = bs_emitterTrail;
	def.shape.trail.source = 0;
	def.shape.trail.inherit = inherit;
	def.rate = rate;
	def.radius = 0.01;
	def.velocity = bsV3(0.0, 0.2, 0.0);
	def.species = 1;
	return def;
}

// The sources: a list emitter of the given particles (all at once without a rate).
static bsEmitterDef List(const bsParticleDef* particles, int count)
{
	bsEmitterDef def = bsDefaultEmitterDef();
	def.shape.type = bs_emitterList;
	def.list = particles;
	def.listCount = count;
	return def;
}

// Three sources given as a list, joined over time at 4 a second (the list again and again), each
// moving at its constant velocity (no forces); the sources' particles as they are at steps * dt.
static const bsParticleDef bs_sources[3] = {
	{{0.0, 1.0, 0.0}, {1.0, 0.0, 0.0}, 0.05, bs_particleFree, {0.0, 0.0, 0.0}},
	{{0.0, 2.0, 1.0}, {-0.5, 3.0, 0.25}, 0.05, bs_particleFree, {0.0, 0.0, 0.0}},
	{{2.0, 0.0, 0.0}, {0.0, 0.0, -7.0}, 0.05, bs_particleFree, {0.0, 0.0, 0.0}},
};

typedef struct Child
{
	double tau;
	size_t source;  // its index in the set
	int step;       // the step whose window holds tau
} Child;

static int ByStepSource(const void* a, const void* b)
{
	const Child* x = a;
	const Child* y = b;
	if (x->step != y->step)
	{
		return x->step < y->step ? -1 : 1;
	}
	if (x->source != y->source)
	{
		return x->source < y->source ? -1 : 1;
	}
	return x->tau < y->tau ? -1 : x->tau > y->tau;
}

static int ClosedForm(void)
{
	const double dt = 0.05, rate = 7.3, inherit = 0.5;
	const int steps = 40;
	bsEmitterDef list = List(bs_sources, 3);
	list.rate = 4.0;
	list.stop = 1.0;
	bsEmitterDef trail = Trail(rate, inherit);
	bsWorld* world = NewWorld(1);
	ENSURE(world != NULL && bsWorld_AddEmitter(world, &trail) == bs_ok && bsWorld_AddEmitter(world, &list) == bs_ok);
	bsStepDef step = bsDefaultStepDef();
	step.dt = dt;
	bsParticles p;
	memset(&p, 0, sizeof(p));
	for (int k = 0; k < steps; ++k)
	{
		ENSURE(bsWorld_Step(world, &step, &p, NULL) == bs_ok);
	}
	double end = bsWorld_Time(world);
	// The children each source should have had by the end, in the order the steps append them: step by
	// step, source by source, each in birth order.
	Child* want = malloc(4096 * sizeof(Child));
	size_t wanted = 0, sources = 0;
	for (size_t i = 0; i < p.count; ++i)
	{
		if (p.species[i] != 0)
		{
			continue;
		}
		sources += 1;
		double b = bsWorld_BirthTime(world, i);
		int joined = (int)lround(b / dt);
		for (int k = 1; b + k / rate < end - 1e-12 && wanted < 4096; ++k)
		{
			want[wanted++] = (Child){b + k / rate, i, joined + (int)ceil(k / (rate * dt)) - 1};
		}
	}
	qsort(want, wanted, sizeof(Child), ByStepSource);
	ENSURE(sources == 4);  // the list at 4 a second until 1 s: born at 0.25, 0.5, 0.75 and 1 s
	size_t children = 0;
	for (size_t i = 0; i < p.count; ++i)
	{
		if (p.species[i] != 1)
		{
			continue;
		}
		ENSURE(children < wanted);
		const Child* c = want + children++;
		// The source's velocity and its position at tau: a list particle at rest from its join time.
		size_t s = c->source;
		bsVec3 v = p.velocity[s];
		bsVec3 at = bsMulAdd(p.position[s], c->tau - end, v);
		bsVec3 velocity = bsMulAdd(trail.velocity, inherit, v);
		bsVec3 x = bsMulAdd(at, end - c->tau, velocity);
		ENSURE_SMALL(bsLength(bsSub(p.velocity[i], velocity)), 1e-9);
		ENSURE_SMALL(bsLength(bsSub(p.position[i], x)), 1e-9);
		ENSURE(p.radius[i] == trail.radius && p.state[i] == bs_particleFree);
	}
	ENSURE(children == wanted && wanted == 40);  // floor(7.3 x 1.8, 1.55, 1.3, 1.05 s) = 13 + 11 + 9 + 7
	free(want);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Counts of children per source after the run (the set's order: a trail's children follow the step's
// other particles), into counts[source index] (sized p->count).
static void CountChildren(const bsParticles* p, double inherit, bsVec3 velocity, int* counts)
{
	memset(counts, 0, p->count * sizeof(int));
	for (size_t i = 0; i < p->count; ++i)
	{
		for (size_t s = 0; p->species[i] == 1 && s < p->count; ++s)
		{
			bsVec3 want = bsMulAdd(velocity, inherit, p->velocity[s]);
			if (p->species[s] == 0 && bsLength(bsSub(p->velocity[i], want)) < 1e-9)
			{
				counts[s] += 1;
				break;
			}
		}
	}
}

// A source leaving the bounds stops: its count is the rate x the steps it began free; one that stays
// free all the way has rate x the whole run. With a rate curve (0 to 20 a second over the first
// second, then 20), each source's count is the integral within 1.
static int EscapedAndCurve(bool curve)
{
	const double dt = 0.05, rate = 9.0;
	const int steps = 30;
	static const bsParticleDef two[2] = {
		{{0.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, 0.05, bs_particleFree, {0.0, 0.0, 0.0}},
		{{0.0, 0.0, 0.0}, {3.0, 0.0, 0.0}, 0.05, bs_particleFree, {0.0, 0.0, 0.0}},  // out past x = 1 at t = 1/3
	};
	bsEmitterDef list = List(two, 2);
	bsEmitterDef trail = Trail(curve ? 0.0 : rate, 0.5);
	if (curve)
	{
		trail.rateKeys.count = 2;
		trail.rateKeys.time[0] = 0.0;
		trail.rateKeys.time[1] = 1.0;
		trail.rateKeys.value[0] = bsV3(0.0, 0.0, 0.0);
		trail.rateKeys.value[1] = bsV3(20.0, 0.0, 0.0);
	}
	bsWorld* world = NewWorld(2);
	ENSURE(world != NULL && bsWorld_AddEmitter(world, &list) == bs_ok && bsWorld_AddEmitter(world, &trail) == bs_ok);
	bsStepDef step = bsDefaultStepDef();
	step.dt = dt;
	step.bounded = true;
	step.boundsMin = bsV3(-1.0, -1.0, -1.0);
	step.boundsMax = bsV3(1.0, 10.0, 1.0);
	bsParticles p;
	memset(&p, 0, sizeof(p));
	for (int k = 0; k < steps; ++k)
	{
		ENSURE(bsWorld_Step(world, &step, &p, NULL) == bs_ok);
	}
	int* counts = malloc(p.count * sizeof(int));
	CountChildren(&p, 0.5, trail.velocity, counts);
	ENSURE(p.state[1] == bs_particleEscaped && p.state[0] == bs_particleFree);
	// The second source is free at the start of steps 0 .. 6 (x = 3 t: 0.9 at the end of step 5, 1.05 out at
	// the end of step 6).
	double free0 = steps * dt, free1 = 7 * dt;
	double i0 = curve ? 10.0 + 20.0 * (free0 - 1.0) : rate * free0;
	double i1 = curve ? 10.0 * free1 * free1 : rate * free1;
	ENSURE(fabs(counts[0] - i0) <= 1.0 && fabs(counts[1] - i1) <= 1.0);
	ENSURE(counts[0] == (int)floor(i0 + 1e-9) && counts[1] == (int)floor(i1 + 1e-9));
	free(counts);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Sources thrown by a nozzle over time under gravity, bouncing on a floor, trails with an offset and a
// radius spread: every array the same bytes at 1, 2 and 3 threads.
static int Threads(void)
{
	bsPlane floor;
	ENSURE(bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), &floor) == bs_ok);
	bsEmitterDef nozzle = bsDefaultEmitterDef();
	nozzle.shape.type = bs_emitterNozzle;
	nozzle.shape.nozzle = (bsNozzle){{0, 0.2, 0}, {0, 1, 0}, 0.1, 0.4, 2.0, 4.0};
	nozzle.radius = 0.03;
	nozzle.rate = 40.0;
	nozzle.stop = 1.0;
	bsEmitterDef trail = Trail(120.0, 0.5);
	trail.shape.trail.offset = 0.05;
	trail.radiusSpread = 0.3;
	trail.lifetime = 0.3;
	bsEmitterDef splash = trail;  // and a splash at every first contact of a step
	splash.rate = 0.0;
	splash.shape.trail.onContact = true;
	splash.shape.trail.count = 2.0;
	splash.shape.trail.countPerSpeed = 0.5;
	splash.shape.trail.coneAngle = 0.7;
	splash.shape.trail.speedMin = 0.5;
	splash.shape.trail.speedMax = 1.0;
	bsParticles runs[3];
	for (int t = 0; t < 3; ++t)
	{
		bsWorld* world = NewWorld(t + 1);
		ENSURE(world != NULL && bsWorld_AddPlanes(world, &floor, 1) == bs_ok);
		ENSURE(bsWorld_AddEmitter(world, &nozzle) == bs_ok && bsWorld_AddEmitter(world, &trail) == bs_ok &&
			bsWorld_AddEmitter(world, &splash) == bs_ok);
		bsStepDef step = bsDefaultStepDef();
		step.dt = 1.0 / 24.0;
		step.substeps = 3;
		step.gravity = bsV3(0, -9.81, 0);
		step.response = bs_responseBounce;
		memset(runs + t, 0, sizeof(bsParticles));
		for (int k = 0; k < 36; ++k)
		{
			ENSURE(bsWorld_Step(world, &step, runs + t, NULL) == bs_ok);
		}
		bsWorld_Destroy(world);
	}
	const bsParticles* a = runs;
	ENSURE(a->count > 1000);
	for (int t = 1; t < 3; ++t)
	{
		const bsParticles* b = runs + t;
		ENSURE(b->count == a->count);
		ENSURE(memcmp(a->position, b->position, a->count * sizeof(bsVec3)) == 0);
		ENSURE(memcmp(a->velocity, b->velocity, a->count * sizeof(bsVec3)) == 0);
		ENSURE(memcmp(a->radius, b->radius, a->count * sizeof(double)) == 0);
		ENSURE(memcmp(a->state, b->state, a->count) == 0 && memcmp(a->species, b->species, a->count) == 0);
	}
	for (int t = 0; t < 3; ++t)
	{
		bsParticles_Free(runs + t);
	}
	return 0;
}

// The move phase's path of a particle at x0 with velocity v0 at time 0, in substeps of h under gravity g
// (v += g h, then x += v h): after K substeps and sigma seconds of the next,
// x0 + (K h + sigma) v0 + g h (K + 1) (K h / 2 + sigma).
static bsVec3 Integrated(bsVec3 x0, bsVec3 v0, bsVec3 g, double h, double t)
{
	double K = floor(t / h + 1e-9);
	double sigma = t - K * h;
	return bsAdd(bsMulAdd(x0, K * h + sigma, v0), bsScale(h * (K + 1.0) * (0.5 * K * h + sigma), g));
}

// Where a particle at x with velocity v at time `end` (a substep's boundary) was at time tau, back
// along the move phase's path: substep k (1-based, from time 0) moved it at v - g h (K_end - k); from the
// boundary after K = floor(tau / h) substeps, on by sigma = tau - K h at the velocity of substep K + 1.
static bsVec3 BackTo(bsVec3 x, bsVec3 v, bsVec3 g, double h, double end, double tau)
{
	double kEnd = round(end / h), K = floor(tau / h + 1e-9);
	for (double k = kEnd; k > K; k -= 1.0)
	{
		x = bsMulSub(x, h, bsMulSub(v, h * (kEnd - k), g));
	}
	return bsMulAdd(x, tau - K * h, bsMulSub(v, h * (kEnd - (K + 1.0)), g));
}

// A source in free flight under gravity: each child is born where the source is at its birth time on
// the move phase's own path (so the births run on across the steps' boundaries without a jump, where
// the source's straight line from the step's start was 1/2 |g| dt^2 off by the step's end), moving at
// inherit x the source's velocity then plus the emitter's; integrated back from its state at the end
// of the run by the move phase's rule, it is at that point at that time (1e-9 relative).
static int Ballistic(void)
{
	const double dt = 1.0 / 24.0, rate = 48.0, inherit = 0.5;  // a child at every step's end and middle
	const int steps = 12, substeps = 3;
	const double h = dt / substeps;
	static const bsParticleDef one[1] = {
		{{0.0, 5.0, 0.0}, {1.0, 2.0, 0.5}, 0.05, bs_particleFree, {0.0, 0.0, 0.0}},
	};
	bsEmitterDef list = List(one, 1);
	bsEmitterDef trail = Trail(rate, inherit);
	bsWorld* world = NewWorld(1);
	ENSURE(world != NULL && bsWorld_AddEmitter(world, &list) == bs_ok && bsWorld_AddEmitter(world, &trail) == bs_ok);
	bsStepDef step = bsDefaultStepDef();
	step.dt = dt;
	step.substeps = substeps;
	step.gravity = bsV3(0.0, -9.81, 0.0);
	const bsVec3 g = step.gravity, x0 = one[0].position, v0 = one[0].velocity;
	bsParticles p;
	memset(&p, 0, sizeof(p));
	for (int k = 0; k < steps; ++k)
	{
		ENSURE(bsWorld_Step(world, &step, &p, NULL) == bs_ok);
		// The source where the closed form has it at the step's end (where the next step's births start).
		bsVec3 at = Integrated(x0, v0, g, h, (k + 1) * dt);
		ENSURE_SMALL(bsLength(bsSub(p.position[0], at)) / bsLength(at), 1e-9);
	}
	const double end = steps * dt;
	const double scale = bsLength(x0);
	ENSURE(p.count == 1 + (size_t)(rate * end + 1e-9));
	for (size_t i = 1; i < p.count; ++i)
	{
		double tau = (double)i / rate;
		bsVec3 born = Integrated(x0, v0, g, h, tau);
		bsVec3 velocity = bsMulAdd(trail.velocity, inherit, bsMulAdd(v0, tau, g));
		// Its velocity now: the one it was born with plus gravity's since.
		ENSURE_SMALL(bsLength(bsSub(p.velocity[i], bsMulAdd(velocity, end - tau, g))), 1e-9);
		ENSURE_SMALL(bsLength(bsSub(BackTo(p.position[i], p.velocity[i], g, h, end, tau), born)) / scale, 1e-9);
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// A splash of 5 + perSpeed x the normal speed in a 30 degree cone at 1 to 2 m/s from a particle dropped
// on a floor: none while it falls, then, after the step of its first contact, exactly that many (its
// floor), each (back along the move phase's path from the step's end) at the particle's centre at its
// contact time (the closed form's, to 1e-9), with a velocity then of inherit x its reflected velocity
// plus a speed in the range along a direction in the cone about the floor's normal. A second source
// that touches nothing gives none; the first gives none once it rests on the floor. The particles'
// radius: below the source's (0.05), or as large (each starts touching the floor where the source
// touched it, and flies off: not held there).
static int Splash(double perSpeed, double radius)
{
	const double dt = 1.0 / 24.0, inherit = 0.5, r = 0.05, angle = 30.0 * (3.14159265358979323846 / 180.0);
	const int substeps = 3;
	const double h = dt / substeps;
	static const bsParticleDef two[2] = {
		{{0.0, 0.6, 0.0}, {0.5, 0.0, 0.2}, 0.05, bs_particleFree, {0.0, 0.0, 0.0}},
		{{3.0, 5.0, 0.0}, {0.0, 1.0, 0.0}, 0.05, bs_particleFree, {0.0, 0.0, 0.0}},
	};
	bsEmitterDef list = List(two, 2);
	bsEmitterDef splash = Trail(0.0, inherit);
	splash.velocity = bsV3(0.0, 0.0, 0.0);
	splash.radius = radius;
	splash.shape.trail.onContact = true;
	splash.shape.trail.count = 5.0;
	splash.shape.trail.countPerSpeed = perSpeed;
	splash.shape.trail.coneAngle = angle;
	splash.shape.trail.speedMin = 1.0;
	splash.shape.trail.speedMax = 2.0;
	bsPlane ground;
	ENSURE(bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), &ground) == bs_ok);
	bsWorld* world = NewWorld(1);
	ENSURE(world != NULL && bsWorld_AddPlanes(world, &ground, 1) == bs_ok);
	ENSURE(bsWorld_AddEmitter(world, &list) == bs_ok && bsWorld_AddEmitter(world, &splash) == bs_ok);
	bsStepDef step = bsDefaultStepDef();
	step.dt = dt;
	step.substeps = substeps;
	step.gravity = bsV3(0.0, -9.81, 0.0);
	step.response = bs_responseBounce;
	step.restitution = 0.5;
	const bsVec3 g = step.gravity, x0 = two[0].position, v0 = two[0].velocity;
	// The contact: the first substep whose end is below y = r, then the time in it.
	double K = 0.0;
	while (Integrated(x0, v0, g, h, (K + 1.0) * h).y > r)
	{
		K += 1.0;
	}
	bsVec3 v = bsMulAdd(v0, (K + 1.0) * h, g);
	double tc = K * h + (Integrated(x0, v0, g, h, K * h).y - r) / -v.y;
	bsVec3 point = Integrated(x0, v0, g, h, tc);
	int contactStep = (int)floor(tc / dt);
	bsParticles p;
	memset(&p, 0, sizeof(p));
	for (int k = 0; k <= contactStep; ++k)
	{
		ENSURE(p.count <= 2);
		ENSURE(bsWorld_Step(world, &step, &p, NULL) == bs_ok);
	}
	ENSURE(p.count == 2 + (size_t)floor(5.0 + perSpeed * -v.y));
	double end = (contactStep + 1) * dt;
	bsVec3 reflected = bsV3(v.x, -v.y, v.z);
	for (size_t i = 2; i < p.count; ++i)
	{
		ENSURE(p.species[i] == 1);
		ENSURE_SMALL(bsLength(bsSub(BackTo(p.position[i], p.velocity[i], g, h, end, tc), point)), 1e-9);
		bsVec3 own = bsSub(bsMulSub(p.velocity[i], end - tc, g), bsScale(inherit, reflected));
		double speed = bsLength(own);
		ENSURE(speed >= 1.0 - 1e-9 && speed <= 2.0 + 1e-9);
		ENSURE(own.y / speed >= cos(angle) - 1e-9);
	}
	// Their bounces splash while they are impacts; once both rest on the floor (by 4 s), no more.
	for (int k = contactStep + 1; k < 96; ++k)
	{
		ENSURE(bsWorld_Step(world, &step, &p, NULL) == bs_ok);
	}
	size_t rested = p.count;
	ENSURE(rested > 2 + (size_t)floor(5.0 + perSpeed * -v.y));
	for (int k = 0; k < 24; ++k)
	{
		ENSURE(bsWorld_Step(world, &step, &p, NULL) == bs_ok);
	}
	ENSURE(p.count == rested && p.velocity[0].y == 0.0 && p.velocity[1].y == 0.0 && p.position[0].y < r + 1e-3);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// The world refuses a trail from its own species, without a rate, with an offset < 0 or a NaN inherit.
static int Refused(void)
{
	bsWorld* world = NewWorld(1);
	ENSURE(world != NULL);
	bsEmitterDef own = Trail(5.0, 0.5);
	own.shape.trail.source = 1;
	bsEmitterDef none = Trail(0.0, 0.5);
	bsEmitterDef offset = Trail(5.0, 0.5);
	offset.shape.trail.offset = -1.0;
	bsEmitterDef inherit = Trail(5.0, NAN);
	ENSURE(bsWorld_AddEmitter(world, &own) == bs_errInvalidArgument);
	ENSURE(bsWorld_AddEmitter(world, &none) == bs_errInvalidArgument);
	ENSURE(bsWorld_AddEmitter(world, &offset) == bs_errInvalidArgument);
	ENSURE(bsWorld_AddEmitter(world, &inherit) == bs_errInvalidArgument);
	bsEmitterDef ok = Trail(5.0, 0.5);
	ENSURE(bsWorld_AddEmitter(world, &ok) == bs_ok && bsWorld_PendingParticles(world) == 0);
	bsWorld_Destroy(world);
	return 0;
}

int TrailTest(void)
{
	RUN_SUBTEST(ClosedForm());
	RUN_SUBTEST(EscapedAndCurve(false));
	RUN_SUBTEST(EscapedAndCurve(true));
	RUN_SUBTEST(Ballistic());
	RUN_SUBTEST(Splash(0.0, 0.01));
	RUN_SUBTEST(Splash(1.5, 0.01));
	RUN_SUBTEST(Splash(0.0, 0.05));
	RUN_SUBTEST(Threads());
	RUN_SUBTEST(Refused());
	return 0;
}
