// The radial force (step.h) through bsWorld_Step, against closed forms: the push of a constant
// falloff integrated by symplectic Euler, the falloffs' magnitudes, the window's impulse, symmetry,
// nothing outside the window, the radius or at the centre, a centre carried by a moving, turning or
// dynamic body (its pose applied to the offset at each substep, to 1e-12), and the same bytes at 1 and
// 2 threads.
#include "test.h"
#include "core.h"
#include "procedural.h"
#include "radial.h"
#include "blobsim/body.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <stdlib.h>
#include <string.h>

static bsWorld* RadialWorld(int threads)
{
	bsWorldDef def = bsDefaultWorldDef();
	def.threads = threads;
	return bsWorld_Create(&def);
}

static bsStepDef RadialStep(const bsRadialDef* radial, double dt, int substeps)
{
	bsStepDef st = bsDefaultStepDef();
	st.dt = dt;
	st.substeps = substeps;
	st.radial[0] = *radial;
	st.radialCount = 1;
	return st;
}

// n particles at rest at the given positions.
static int RadialParticles(bsParticles* p, const bsVec3* positions, size_t n)
{
	ENSURE(bsParticles_Alloc(p, n) == bs_ok);
	for (size_t i = 0; i < n; ++i)
	{
		p->position[i] = positions[i];
		p->velocity[i] = bsV3(0.0, 0.0, 0.0);
		p->radius[i] = 0.001;
	}
	return 0;
}

// A particle at rest 0.5 from the centre, a constant push a for the window [0, T): symplectic Euler
// (v += a h, then x += v h) gives v_n = n a h and x_n - x_0 = a h^2 n (n + 1) / 2 along the radius,
// within a h t / 2 of the exact a t^2 / 2; after the window it coasts at a T. The push stays radial
// (it points along x - c, which it moves along).
static int ConstantPush(void)
{
	bsRadialDef def = bsDefaultRadialDef();
	def.center = bsV3(0.25, 1.0, -0.5);
	def.strength = 8.0;
	def.duration = 0.2;
	const double h = 0.01;
	const bsVec3 u = bsNormalize(bsV3(2.0, 3.0, -6.0));
	bsVec3 x0 = bsAdd(def.center, bsScale(0.5, u));
	bsWorld* world = RadialWorld(1);
	ENSURE(world != NULL);
	bsStepDef st = RadialStep(&def, h, 1);
	bsParticles p;
	RUN_SUBTEST(RadialParticles(&p, &x0, 1));
	double worst = 0.0;
	double atEnd = 0.0;
	for (int n = 1; n <= 30; ++n)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		int pushed = n < 20 ? n : 20;  // steps inside the window
		double t = n * h;
		double speed = def.strength * h * pushed;
		double along = def.strength * h * h * pushed * (pushed + 1) / 2.0 + speed * h * (n - pushed);
		bsVec3 d = bsSub(p.position[0], x0);
		ENSURE_SMALL(bsLength(bsSub(p.velocity[0], bsScale(speed, u))), 1e-12);
		ENSURE_SMALL(bsLength(bsSub(d, bsScale(along, u))), 1e-12);
		if (n <= 20)
		{
			double exact = def.strength * t * t / 2.0;
			ENSURE(fabs(bsDot(d, u) - exact) <= def.strength * h * t / 2.0 + 1e-12);
			worst = fmax(worst, fabs(bsDot(d, u) - exact));
			atEnd = bsDot(d, u);
		}
	}
	printf("  constant push: %.4f along the radius at the window's end, a T^2/2 = %.4f (at most %.4f off)\n",
		atEnd, def.strength * 0.2 * 0.2 / 2.0, worst);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// The falloffs' magnitudes, written here from their definitions: one substep from rest gives
// v = h a(r) along the radius, for r inside and beyond the radius.
static int Falloffs(void)
{
	bsWorld* world = RadialWorld(1);
	ENSURE(world != NULL);
	const double h = 0.001;
	const double rs[5] = {0.1, 0.5, 1.0, 1.9, 2.5};
	for (int f = 0; f < bs_falloffCount; ++f)
	{
		bsRadialDef def = bsDefaultRadialDef();
		def.center = bsV3(1.0, -2.0, 0.5);
		def.strength = -3.0 + 7.0 * f;  // an attractor (-3) as well as pushes
		def.falloff = (bsFalloff)f;
		def.radius = 2.0;
		def.softening = 0.4;
		bsStepDef st = RadialStep(&def, h, 1);
		bsVec3 positions[5];
		for (int k = 0; k < 5; ++k)
		{
			positions[k] = bsAdd(def.center, bsScale(rs[k], bsNormalize(bsV3(1.0, k - 2.0, 0.3 * k))));
		}
		bsParticles p;
		RUN_SUBTEST(RadialParticles(&p, positions, 5));
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		for (int k = 0; k < 5; ++k)
		{
			double r = rs[k];
			double a = r > def.radius ? 0.0
				: f == bs_falloffConstant ? def.strength
				: f == bs_falloffLinear ? def.strength * (def.radius - r) / def.radius
				: def.strength * def.softening * def.softening / (def.softening * def.softening + r * r);
			bsVec3 dir = bsNormalize(bsSub(positions[k], def.center));
			ENSURE_SMALL(bsLength(bsSub(p.velocity[k], bsScale(h * a, dir))), 1e-15);
		}
		bsParticles_Free(&p);
	}
	bsWorld_Destroy(world);
	return 0;
}

// A window that starts and ends inside substeps: the velocity it adds at a fixed distance is
// strength x duration whatever the alignment (the force far from the centre barely moves it: the
// constant falloff keeps it exact). A window shorter than a substep is a kick of the same size.
static int WindowImpulse(void)
{
	bsWorld* world = RadialWorld(1);
	ENSURE(world != NULL);
	const double starts[3] = {0.0125, 0.0, 0.1031};
	const double durations[3] = {0.0301, 0.05, 0.0007};
	const int substeps[3] = {1, 3, 2};
	for (int w = 0; w < 3; ++w)
	{
		bsRadialDef def = bsDefaultRadialDef();
		def.strength = 5.0;
		def.start = starts[w];
		def.duration = durations[w];
		bsStepDef st = RadialStep(&def, 0.01, substeps[w]);
		bsVec3 x0 = bsV3(0.0, 3.0, 4.0);
		bsParticles p;
		RUN_SUBTEST(RadialParticles(&p, &x0, 1));
		for (int n = 0; n < 20; ++n)
		{
			ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		}
		bsVec3 expected = bsScale(def.strength * def.duration / 5.0, x0);
		ENSURE_SMALL(bsLength(bsSub(p.velocity[0], expected)), 1e-12);
		bsParticles_Free(&p);
		// A fresh world: the next window is timed from 0 again.
		bsWorld_Destroy(world);
		world = RadialWorld(1);
		ENSURE(world != NULL);
	}
	bsWorld_Destroy(world);
	return 0;
}

// Nothing happens before the window, after it, beyond the radius or at the centre itself; and a
// strength of 0 is off.
static int NothingOutside(void)
{
	bsRadialDef def = bsDefaultRadialDef();
	def.center = bsV3(0.5, 0.5, 0.5);
	def.strength = 100.0;
	def.falloff = bs_falloffInverseSquare;
	def.radius = 1.0;
	def.softening = 0.1;
	def.start = 0.25;  // steps of 1/32 s: the window is steps 8 to 11, every time exact
	def.duration = 0.125;
	bsVec3 positions[3] = {bsV3(0.5, 0.5, 0.5), bsV3(0.5, 1.5001, 0.5), bsV3(0.5, 0.5, 0.9)};
	bsWorld* world = RadialWorld(1);
	ENSURE(world != NULL);
	bsStepDef st = RadialStep(&def, 0.03125, 1);
	bsParticles p;
	RUN_SUBTEST(RadialParticles(&p, positions, 3));
	for (int n = 0; n < 8; ++n)  // before the window
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	}
	for (int i = 0; i < 3; ++i)
	{
		ENSURE(memcmp(&p.position[i], &positions[i], sizeof(bsVec3)) == 0 && bsLength(p.velocity[i]) == 0.0);
	}
	for (int n = 0; n < 4; ++n)  // the window
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	}
	bsVec3 v[3] = {p.velocity[0], p.velocity[1], p.velocity[2]};
	ENSURE(bsLength(v[0]) == 0.0 && bsLength(v[1]) == 0.0);  // at the centre; beyond the radius
	ENSURE(v[2].x == 0.0 && v[2].y == 0.0 && v[2].z > 0.0);  // pushed along +z only
	for (int n = 0; n < 10; ++n)  // after the window: it coasts
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	}
	ENSURE(memcmp(&p.velocity[2], &v[2], sizeof(bsVec3)) == 0);
	bsParticles_Free(&p);
	def.strength = 0.0;
	def.start = 0.0;
	def.duration = INFINITY;
	st = RadialStep(&def, 0.01, 1);
	RUN_SUBTEST(RadialParticles(&p, &positions[2], 1));
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	ENSURE(bsLength(p.velocity[0]) == 0.0);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Particles in pairs mirrored through the centre (exactly representable offsets) under every falloff
// with gravity off: the pushes are opposite, so the total momentum stays 0 while each pair flies apart.
static int Symmetric(void)
{
	for (int f = 0; f < bs_falloffCount; ++f)
	{
		bsWorld* world = RadialWorld(2);  // a fresh one: the window is timed from 0
		ENSURE(world != NULL);
		bsRadialDef def = bsDefaultRadialDef();
		def.center = bsV3(0.5, 1.25, -0.75);
		def.strength = 20.0;
		def.falloff = (bsFalloff)f;
		def.radius = 3.0;
		def.softening = 0.25;
		def.duration = 0.1;
		bsVec3 positions[64];
		for (int k = 0; k < 32; ++k)
		{
			bsVec3 d = bsV3(0.125 * (k % 4 - 1.5), 0.0625 * (k % 7 - 3), 0.25 * (k % 3 - 1) + 0.125);
			positions[2 * k] = bsAdd(def.center, d);
			positions[2 * k + 1] = bsSub(def.center, d);
		}
		bsParticles p;
		RUN_SUBTEST(RadialParticles(&p, positions, 64));
		bsStepDef st = RadialStep(&def, 0.005, 1);
		for (int n = 0; n < 40; ++n)
		{
			ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		}
		bsVec3 total = bsV3(0.0, 0.0, 0.0);
		double speeds = 0.0;
		for (int i = 0; i < 64; ++i)
		{
			total = bsAdd(total, p.velocity[i]);
			speeds += bsLength(p.velocity[i]);
		}
		ENSURE_SMALL(bsLength(total), 1e-12 * speeds);
		ENSURE(speeds > 64 * 0.1);  // they did move
		bsParticles_Free(&p);
		bsWorld_Destroy(world);
	}
	return 0;
}

// Two forces add up in their windows: a particle on the line through both centres (constant
// falloff, no reach limit) is pushed along the line by one, then by both, then by the other, so its
// velocity is the sum of the windows' impulses, strength x time inside each window, to rounding.
static int TwoForces(void)
{
	bsRadialDef a = bsDefaultRadialDef();
	a.center = bsV3(0.0, 0.0, 0.0);
	a.strength = 8.0;
	a.duration = 0.1;
	bsRadialDef b = bsDefaultRadialDef();
	b.center = bsV3(3.0, 0.0, 0.0);
	b.strength = 3.0;
	b.start = 0.05;
	b.duration = 0.1;
	bsStepDef st = RadialStep(&a, 0.01, 1);
	st.radial[1] = b;
	st.radialCount = 2;
	bsWorld* world = RadialWorld(1);
	ENSURE(world != NULL);
	bsVec3 x = bsV3(1.0, 0.0, 0.0);
	bsParticles p;
	RUN_SUBTEST(RadialParticles(&p, &x, 1));
	for (int n = 1; n <= 20; ++n)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		double t = 0.01 * n;
		double inA = fmin(t, 0.1);
		double inB = fmax(0.0, fmin(t, 0.15) - 0.05);
		double speed = a.strength * inA - b.strength * inB;  // b pushes towards -x (away from x = 3)
		ENSURE_SMALL(bsLength(bsSub(p.velocity[0], bsV3(speed, 0.0, 0.0))), 1e-12);
	}
	ENSURE(fabs(p.velocity[0].x - 0.5) <= 1e-12);
	bsParticles_Free(&p);
	// The count is checked: none, too many, and a bad second force are refused.
	RUN_SUBTEST(RadialParticles(&p, &x, 1));
	st.radialCount = BS_MAX_RADIALS + 1;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st.radialCount = -1;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st.radialCount = 2;
	st.radial[1].duration = 0.0;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st.radialCount = 1;  // the bad one is not counted
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// bsWorld_Step refuses a radial force out of range (step.h's list), one setting wrong at a time.
static int RefusesBad(void)
{
	bsWorld* world = RadialWorld(1);
	ENSURE(world != NULL);
	bsRadialDef good = bsDefaultRadialDef();
	good.strength = 1.0;
	good.falloff = bs_falloffLinear;
	good.radius = 2.0;
	struct
	{
		double* field;
		double value;
	} bad[] = {
		{&good.center.y, NAN}, {&good.strength, INFINITY}, {&good.radius, 0.0}, {&good.radius, INFINITY},
		{&good.radius, NAN}, {&good.softening, 0.0}, {&good.softening, INFINITY}, {&good.start, -INFINITY},
		{&good.duration, 0.0}, {&good.duration, NAN},
	};
	bsVec3 x = bsV3(0.0, 1.0, 0.0);
	bsParticles p;
	RUN_SUBTEST(RadialParticles(&p, &x, 1));
	bsStepDef st = RadialStep(&good, 0.01, 1);
	ENSURE(bsRadialDef_IsValid(&good) && bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k)
	{
		double keep = *bad[k].field;
		*bad[k].field = bad[k].value;
		st = RadialStep(&good, 0.01, 1);
		ENSURE(!bsRadialDef_IsValid(&good));
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
		*bad[k].field = keep;
	}
	good.falloff = bs_falloffCount;
	ENSURE(!bsRadialDef_IsValid(&good));
	good.falloff = bs_falloffConstant;  // an infinite radius is fine but for linear
	good.radius = INFINITY;
	ENSURE(bsRadialDef_IsValid(&good));
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Keyed centre and strength (an attractor moving and swelling): one step of h from t gives
// v = h s(m) (x - c(m)) / |x - c(m)|, m = t + h / 2, s and c linear between their keys; keys all 0 do
// not act; a single key equal to the plain values gives the same bytes as no keys.
static int Keyed(void)
{
	bsRadialDef def = bsDefaultRadialDef();
	def.centerKeys.count = 2;
	def.centerKeys.time[0] = 0.0;
	def.centerKeys.value[0] = bsV3(0.0, 0.0, 0.0);
	def.centerKeys.time[1] = 1.0;
	def.centerKeys.value[1] = bsV3(1.0, 0.0, 0.0);
	def.strengthKeys.count = 2;
	def.strengthKeys.time[0] = 0.0;
	def.strengthKeys.value[0] = bsV3(-2.0, 0.0, 0.0);
	def.strengthKeys.time[1] = 1.0;
	def.strengthKeys.value[1] = bsV3(-6.0, 0.0, 0.0);
	ENSURE(bsRadialDef_IsValid(&def));
	const double h = 0.1;
	const bsVec3 x = bsV3(0.5, 1.0, 0.0);
	for (int n = 0; n < 12; ++n)
	{
		double t = n * h;
		double m = fmin(t + 0.5 * h, 1.0);
		bsVec3 c = bsV3(m, 0.0, 0.0);
		double strength = -2.0 - 4.0 * m;
		bsVec3 a = bsRadial_Acceleration(&def, x, t, h);
		bsVec3 want = bsScale(strength / bsLength(bsSub(x, c)), bsSub(x, c));
		ENSURE(bsLength(bsSub(a, want)) <= 1e-14);
	}
	bsRadialDef silent = def;
	silent.strengthKeys.value[0].x = 0.0;
	silent.strengthKeys.value[1].x = 0.0;
	ENSURE(!bsRadial_Acts(&silent, 0.0, h) && bsRadial_Acts(&def, 0.0, h));
	bsRadialDef plain = bsDefaultRadialDef();
	plain.center = bsV3(0.2, 0.3, -0.1);
	plain.strength = 4.0;
	plain.falloff = bs_falloffInverseSquare;
	bsRadialDef one = plain;
	one.centerKeys = bsConstantTrack(plain.center);
	one.strengthKeys = bsConstantTrack(bsV3(plain.strength, 0.0, 0.0));
	bsVec3 pa = bsRadial_Acceleration(&plain, x, 0.3, h);
	bsVec3 oa = bsRadial_Acceleration(&one, x, 0.3, h);
	ENSURE(memcmp(&pa, &oa, sizeof(pa)) == 0);
	// Bad keys are refused; no keys (count 0) are fine.
	bsRadialDef bad = def;
	bad.centerKeys.time[1] = 0.0;
	ENSURE(!bsRadialDef_IsValid(&bad));
	bad = def;
	bad.strengthKeys.value[1].x = NAN;
	ENSURE(!bsRadialDef_IsValid(&bad));
	return 0;
}

// One small triangle 20 below the body's origin, in its frame: the body's pose matters, its mesh stays
// clear of the particles near the centre.
// A body of def's kind and settings with the given mesh and keys (NULL: it could not be made).
static bsBody* BodyOf(bsBodyDef def, const bsTriangle* tris, uint32_t count, const bsKeyframes* keys)
{
	def.triangles = tris;
	def.triangleCount = count;
	def.keys = *keys;
	bsBody* body = NULL;
	return bsBody_Create(&def, &body) == bs_ok ? body : NULL;
}

static bsBody* FollowBody(const bsKeyframes* keys)
{
	bsTriangle plate;
	if (bsMakeTriangle(bsV3(-0.1, -20.0, -0.1), bsV3(0.0, -20.0, 0.1), bsV3(0.1, -20.0, -0.1), &plate) != bs_ok)
	{
		return NULL;
	}
	return BodyOf(bsDefaultBodyDef(), &plate, 1, keys);
}

// 2000 particles around (0, 0.2, 0) at rest, moved 60 steps of two substeps of 0.005 s by def, gravity and
// air drag, in a world of `threads` threads with a body of the given keys (NULL: none).
enum { cloudCount = 2000 };

static int StepCloud(const bsRadialDef* def, const bsKeyframes* keys, int threads, bsParticles* p)
{
	bsBody* body = keys != NULL ? FollowBody(keys) : NULL;
	bsWorld* world = RadialWorld(threads);
	ENSURE(world != NULL && (keys == NULL || (body != NULL && bsWorld_AddBody(world, body) == bs_ok)));
	bsStepDef st = RadialStep(def, 0.005, 2);
	st.gravity = bsV3(0.0, -9.81, 0.0);
	st.drag = 1.5;
	bsVec3 positions[cloudCount];
	for (size_t i = 0; i < cloudCount; ++i)
	{
		double a = 0.001 * (double)i;
		positions[i] = bsV3(0.3 * cos(7.0 * a), 0.2 + 0.1 * sin(3.0 * a), 0.3 * sin(5.0 * a));
	}
	RUN_SUBTEST(RadialParticles(p, positions, cloudCount));
	for (int step = 0; step < 60; ++step)
	{
		ENSURE(bsWorld_Step(world, &st, p, NULL) == bs_ok);
	}
	bsWorld_Destroy(world);
	bsBody_Destroy(body);
	return 0;
}

// StepCloud gives the same bytes at 1 and 2 threads.
static int SameAtThreads(const bsRadialDef* def, const bsKeyframes* keys)
{
	bsParticles p[2];
	RUN_SUBTEST(StepCloud(def, keys, 1, &p[0]));
	RUN_SUBTEST(StepCloud(def, keys, 2, &p[1]));
	ENSURE(memcmp(p[0].position, p[1].position, cloudCount * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(p[0].velocity, p[1].velocity, cloudCount * sizeof(bsVec3)) == 0);
	bsParticles_Free(&p[0]);
	bsParticles_Free(&p[1]);
	return 0;
}

// With gravity and air drag, 2000 particles around the centre: byte-identical at 1 and 2 threads.
static int Threads(void)
{
	bsRadialDef def = bsDefaultRadialDef();
	def.center = bsV3(0.0, 0.1, 0.0);
	def.strength = 60.0;
	def.falloff = bs_falloffInverseSquare;
	def.softening = 0.3;
	def.radius = 4.0;
	def.start = 0.013;
	def.duration = 0.1;
	RUN_SUBTEST(SameAtThreads(&def, NULL));
	return 0;
}

// --- a centre that follows a body (bsRadialDef.follow) ---

// A pull of constant strength 2 towards the offset `offset` in body 0's frame, the particles' order.
static bsRadialDef FollowPull(bsVec3 offset)
{
	bsRadialDef def = bsDefaultRadialDef();
	def.follow = true;
	def.body = 0;
	def.center = offset;
	def.strength = -2.0;
	return def;
}

// Steps the world `steps` times (one substep each) and checks that each substep's centre is center(t)
// (the closed form, to 1e-12) and that the particle's velocity changed by the constant pull towards
// it: |dv| / h = 2 (undoing the drag's exact decay), along c - x (the cross product of the unit
// directions within 1e-9).
typedef bsVec3 (*FollowCenterAt)(double t);

static int FollowSteps(bsWorld* world, const bsStepDef* st, bsParticles* p, int steps, FollowCenterAt center)
{
	double worst = 0.0;
	double damping = exp(-st->drag * st->dt);  // after the pull: v' = (v + a h) damping
	for (int k = 0; k < steps; ++k)
	{
		double t = bsWorld_Time(world);
		bsVec3 c;
		ENSURE(bsRadial_SubstepCenter(&st->radial[0], world, t, st->dt, &c));
		worst = fmax(worst, bsLength(bsSub(c, center(t))));
		bsVec3 x = p->position[0];
		bsVec3 v = p->velocity[0];
		ENSURE(bsWorld_Step(world, st, p, NULL) == bs_ok);
		bsVec3 dv = bsScale(1.0 / st->dt, bsSub(bsScale(1.0 / damping, p->velocity[0]), v));
		bsVec3 toward = bsNormalize(bsSub(center(t), x));
		ENSURE_SMALL(bsLength(dv) - fabs(st->radial[0].strength), 1e-9);
		ENSURE(bsLength(bsCross(bsScale(1.0 / fabs(st->radial[0].strength), dv), toward)) <= 1e-9 && bsDot(dv, toward) > 0.0);
	}
	ENSURE(worst <= 1e-12);
	return 0;
}

static const bsVec3 followStart = {1.0, 2.0, 3.0};
static const bsVec3 followVelocity = {0.5, -0.2, 0.3};
static const bsVec3 followOffset = {0.1, 0.2, -0.3};

static bsQuat FollowTurn(void)
{
	return bsQuat_FromAxisAngle(bsNormalize(bsV3(1.0, 2.0, 2.0)), 0.7);
}

// The moving body's pose at t applied to the offset: start + velocity t + R offset.
static bsVec3 MovingCenter(double t)
{
	return bsAdd(bsMulAdd(followStart, t, followVelocity), bsQuat_Rotate(FollowTurn(), followOffset));
}

// A body moving at a constant velocity (turned, not turning), a particle 0.3 from its centre at rest,
// pulled at 5 with drag 3: each substep pulled towards the carried centre, and from 3 s on it travels
// with the body (within 1e-3 of the centre at 3 s and 6 s, its mean velocity over those 3 s within
// 1e-3 of the body's: a constant pull against the drag holds it close). A centre that stayed at its
// first place (no follow) would hold the particle there, 3.6 behind at 6 s.
static int FollowsMovingBody(void)
{
	bsVec3Key translate[2] = {{0.0, followStart}, {10.0, bsMulAdd(followStart, 10.0, followVelocity)}};
	bsQuatKey rotate[1] = {{0.0, FollowTurn()}};
	bsKeyframes keys = {translate, 2, rotate, 1, NULL, 0, false};
	bsBody* body = FollowBody(&keys);
	ENSURE(body != NULL);
	bsWorld* world = RadialWorld(1);
	ENSURE(world != NULL && bsWorld_AddBody(world, body) == bs_ok);
	bsRadialDef def = FollowPull(followOffset);
	def.strength = -5.0;
	bsStepDef st = RadialStep(&def, 0.005, 1);
	st.drag = 3.0;
	bsVec3 x0 = bsAdd(MovingCenter(0.0), bsV3(0.3, 0.0, 0.0));
	bsParticles p;
	RUN_SUBTEST(RadialParticles(&p, &x0, 1));
	RUN_SUBTEST(FollowSteps(world, &st, &p, 600, MovingCenter));
	ENSURE(bsLength(bsSub(p.position[0], MovingCenter(3.0))) <= 1e-3);
	bsVec3 before = p.position[0];
	RUN_SUBTEST(FollowSteps(world, &st, &p, 600, MovingCenter));
	double t = bsWorld_Time(world);
	ENSURE_SMALL(t - 6.0, 1e-9);
	ENSURE(bsLength(bsSub(p.position[0], MovingCenter(t))) <= 1e-3);
	bsVec3 mean = bsScale(1.0 / 3.0, bsSub(p.position[0], before));
	ENSURE(bsLength(bsSub(mean, followVelocity)) <= 1e-3);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	bsBody_Destroy(body);
	return 0;
}

static const bsVec3 spinAxisPoint = {-1.0, 0.5, 2.0};
#define FOLLOW_SPIN 1.5  // radians per second about z

// A body turning about z at FOLLOW_SPIN through spinAxisPoint: the offset (0.5, 0, 0.25) circles it,
// (0.5 cos wt, 0.5 sin wt, 0.25) from it.
static bsVec3 SpinningCenter(double t)
{
	double a = FOLLOW_SPIN * t;
	return bsAdd(spinAxisPoint, bsV3(0.5 * cos(a), 0.5 * sin(a), 0.25));
}

// The body turns at a constant rate (slerp between keys a quarter turn apart, over 2 turns): the offset
// centre goes round its circle, each substep's where the closed form puts it, and the particle is
// pulled towards it there.
static int CarriedRound(void)
{
	enum { quarters = 8 };
	bsVec3Key translate[1] = {{0.0, spinAxisPoint}};
	bsQuatKey rotate[quarters + 1];
	for (int k = 0; k <= quarters; ++k)
	{
		double angle = 0.5 * BS_PI * k;
		rotate[k] = (bsQuatKey){angle / FOLLOW_SPIN, bsQuat_FromAxisAngle(bsV3(0.0, 0.0, 1.0), angle)};
	}
	bsKeyframes keys = {translate, 1, rotate, quarters + 1, NULL, 0, false};
	bsBody* body = FollowBody(&keys);
	ENSURE(body != NULL);
	bsWorld* world = RadialWorld(1);
	ENSURE(world != NULL && bsWorld_AddBody(world, body) == bs_ok);
	bsRadialDef def = FollowPull(bsV3(0.5, 0.0, 0.25));
	bsStepDef st = RadialStep(&def, 0.01, 1);
	bsVec3 x0 = bsAdd(spinAxisPoint, bsV3(0.0, 0.0, 1.0));
	bsParticles p;
	RUN_SUBTEST(RadialParticles(&p, &x0, 1));
	RUN_SUBTEST(FollowSteps(world, &st, &p, 800, SpinningCenter));
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	bsBody_Destroy(body);
	return 0;
}

static const bsBody* followDynamic;  // DynamicCenter's body
static const bsVec3 dynamicOffset = {1.5, 0.0, 0.0};

// The dynamic body's pose at t (the end of its last chord, at a substep's start) applied to the offset.
static bsVec3 DynamicCenter(double t)
{
	bsTransform pose;
	bsVec3 scale;
	bsBody_Pose(followDynamic, t, &pose, &scale);
	return bsTransform_Apply(pose, dynamicOffset);
}

// A dynamic box in free flight (no gravity), moving at (0.4, 0, 0) and turning at 1 rad/s about y: the
// centre 1.5 out along its x axis is, at each substep's start, the box's pose then (the one the step
// has, not a chord it has yet to take) applied to the offset, and after 2 s it is within 1e-12 of the
// free motion's closed form, (0.8, 1, 0) + 1.5 (cos 2, 0, -sin 2).
static int FollowsDynamicBody(void)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeBoxMesh(bsV3(-0.1, -0.1, -0.1), bsV3(0.1, 0.1, 0.1), 1, false, &tris, &count) == bs_ok);
	bsVec3Key translate[1] = {{0.0, bsV3(0.0, 1.0, 0.0)}};
	bsKeyframes keys = {translate, 1, NULL, 0, NULL, 0, false};
	bsBodyDef bd = bsDefaultBodyDef();
	bd.kind = bs_motionDynamic;
	bd.velocity = bsV3(0.4, 0.0, 0.0);
	bd.angularVelocity = bsV3(0.0, 1.0, 0.0);
	bsBody* body = BodyOf(bd, tris, count, &keys);
	free(tris);
	ENSURE(body != NULL);
	followDynamic = body;
	bsBodyDynamicsDef dyn = bsDefaultBodyDynamicsDef();
	dyn.step.gravity = bsV3(0.0, 0.0, 0.0);
	bsWorld* world = RadialWorld(1);
	ENSURE(world != NULL && bsWorld_AddBody(world, body) == bs_ok && bsWorld_SetBodyDynamics(world, &dyn) == bs_ok);
	bsRadialDef def = FollowPull(dynamicOffset);
	bsStepDef st = RadialStep(&def, 0.005, 1);
	bsVec3 x0 = bsV3(1.5, 1.3, 0.0);
	bsParticles p;
	RUN_SUBTEST(RadialParticles(&p, &x0, 1));
	RUN_SUBTEST(FollowSteps(world, &st, &p, 400, DynamicCenter));
	bsVec3 c;
	ENSURE(bsRadial_SubstepCenter(&def, world, 2.0, st.dt, &c));
	bsVec3 flight = bsAdd(bsV3(0.8, 1.0, 0.0), bsScale(1.5, bsV3(cos(2.0), 0.0, -sin(2.0))));
	ENSURE(bsLength(bsSub(c, flight)) <= 1e-12);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	bsBody_Destroy(body);
	return 0;
}

// Following a body the world does not have, the force does not act; bsWorld_Step refuses a follow with
// a negative body or a keyed centre.
static int FollowRefused(void)
{
	bsWorld* world = RadialWorld(1);
	ENSURE(world != NULL);
	bsRadialDef def = FollowPull(bsV3(0.0, 0.0, 0.0));
	bsVec3 x = bsV3(1.0, 1.0, 1.0);
	bsParticles p;
	RUN_SUBTEST(RadialParticles(&p, &x, 1));
	bsStepDef st = RadialStep(&def, 0.01, 1);
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	ENSURE(p.velocity[0].x == 0.0 && p.velocity[0].y == 0.0 && p.velocity[0].z == 0.0);
	st.radial[0].body = -1;
	ENSURE(!bsRadialDef_IsValid(&st.radial[0]) && bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st.radial[0].body = 0;
	st.radial[0].centerKeys = bsConstantTrack(bsV3(0.0, 0.0, 0.0));
	ENSURE(!bsRadialDef_IsValid(&st.radial[0]) && bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// 2000 particles pulled towards a centre on a body that moves and turns, with gravity and drag, two
// substeps a step: byte-identical at 1 and 2 threads.
static int FollowThreads(void)
{
	bsVec3Key translate[2] = {{0.0, bsV3(0.0, 0.2, 0.0)}, {0.3, bsV3(0.6, 0.4, -0.2)}};
	bsQuatKey rotate[2] = {{0.0, bsQuat_Identity()}, {0.3, bsQuat_FromAxisAngle(bsV3(0.0, 1.0, 0.0), 1.2)}};
	bsKeyframes keys = {translate, 2, rotate, 2, NULL, 0, false};
	bsRadialDef def = FollowPull(bsV3(0.2, 0.0, 0.1));
	def.strength = -30.0;
	def.falloff = bs_falloffInverseSquare;
	def.softening = 0.2;
	RUN_SUBTEST(SameAtThreads(&def, &keys));
	return 0;
}

int RadialTest(void)
{
	RUN_SUBTEST(ConstantPush());
	RUN_SUBTEST(Falloffs());
	RUN_SUBTEST(WindowImpulse());
	RUN_SUBTEST(NothingOutside());
	RUN_SUBTEST(Symmetric());
	RUN_SUBTEST(TwoForces());
	RUN_SUBTEST(RefusesBad());
	RUN_SUBTEST(Keyed());
	RUN_SUBTEST(Threads());
	RUN_SUBTEST(FollowsMovingBody());
	RUN_SUBTEST(CarriedRound());
	RUN_SUBTEST(FollowsDynamicBody());
	RUN_SUBTEST(FollowRefused());
	RUN_SUBTEST(FollowThreads());
	return 0;
}
