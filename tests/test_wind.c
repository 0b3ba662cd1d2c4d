// Wind (step.h: bsWindDef) through bsWorld_Step, against closed forms: the exact relaxation
// v(t) = w + (v0 - w) exp(-rate t) towards a uniform wind, the terminal velocity with gravity
// (w + g h e / (1 - e) exactly, w + g / rate to first order in rate h), a keyframed wind read at each
// substep's middle, the gusts' bounds, smoothness and seeding, the refusal of bad settings, and the
// same bytes at 1 and 2 threads.
#include "test.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <math.h>
#include <string.h>

static bsWorld* WindWorld(int threads)
{
	bsWorldDef def = bsDefaultWorldDef();
	def.threads = threads;
	return bsWorld_Create(&def);
}

// n particles at the origin moving at v0.
static int WindParticles(bsParticles* p, size_t n, bsVec3 v0)
{
	ENSURE(bsParticles_Alloc(p, n) == bs_ok);
	for (size_t i = 0; i < n; ++i)
	{
		p->position[i] = bsV3(0.01 * (double)i, 0.0, 0.0);
		p->velocity[i] = v0;
		p->radius[i] = 0.001;
	}
	return 0;
}

static bsStepDef WindStep(double dt, double rate, bsVec3 air)
{
	bsStepDef st = bsDefaultStepDef();
	st.dt = dt;
	st.wind.rate = rate;
	st.wind.velocity = bsConstantTrack(air);
	return st;
}

// Without gravity the wind's update is the exact solution: v after n steps of h is
// w + (v0 - w) exp(-rate n h), to rounding, for any h.
static int Relaxes(void)
{
	const bsVec3 w = bsV3(3.0, -1.0, 0.5);
	const bsVec3 v0 = bsV3(-2.0, 4.0, 1.0);
	const double rate = 2.5;
	const double h = 0.05;
	bsWorld* world = WindWorld(1);
	ENSURE(world != NULL);
	bsStepDef st = WindStep(h, rate, w);
	bsParticles p;
	RUN_SUBTEST(WindParticles(&p, 1, v0));
	for (int n = 1; n <= 80; ++n)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		bsVec3 want = bsMulAdd(w, exp(-rate * h * n), bsSub(v0, w));
		ENSURE_SMALL(bsLength(bsSub(p.velocity[0], want)), 1e-12);
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// With gravity g the velocity settles at the discrete fixed point w + g h e / (1 - e), e = exp(-rate h)
// (v = e (v + g h - w) + w), which is the closed form w + g / rate within rate h / 2 of g / rate.
static int TerminalVelocity(void)
{
	const bsVec3 w = bsV3(4.0, 0.0, -1.0);
	const bsVec3 g = bsV3(0.0, -9.81, 0.0);
	const double rate = 2.0;
	const double h = 0.002;
	bsWorld* world = WindWorld(1);
	ENSURE(world != NULL);
	bsStepDef st = WindStep(h, rate, w);
	st.gravity = g;
	bsParticles p;
	RUN_SUBTEST(WindParticles(&p, 1, bsV3(0.0, 0.0, 0.0)));
	for (int n = 0; n < 10000; ++n)  // 20 s: 40 time constants
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	}
	double e = exp(-rate * h);
	bsVec3 discrete = bsMulAdd(w, h * e / (1.0 - e), g);
	bsVec3 closed = bsMulAdd(w, 1.0 / rate, g);
	ENSURE_SMALL(bsLength(bsSub(p.velocity[0], discrete)), 1e-10);
	ENSURE_SMALL(bsLength(bsSub(p.velocity[0], closed)), 0.5 * rate * h * bsLength(g) / rate + 1e-10);
	ENSURE_SMALL(p.velocity[0].x - w.x, 1e-10);  // across gravity, exactly the wind
	ENSURE_SMALL(p.velocity[0].z - w.z, 1e-10);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// A keyframed wind is read at each substep's middle: with a rate so high that e = exp(-rate h) is
// below 1e-300, the velocity after each step is the track at its middle.
static int Keyframed(void)
{
	bsTrack track;
	memset(&track, 0, sizeof(track));
	track.count = 3;
	track.time[0] = 0.1;
	track.value[0] = bsV3(1.0, 0.0, 0.0);
	track.time[1] = 0.3;
	track.value[1] = bsV3(-1.0, 2.0, 0.0);
	track.time[2] = 0.4;
	track.value[2] = bsV3(0.0, 0.0, 5.0);
	const double h = 0.025;
	bsWorld* world = WindWorld(1);
	ENSURE(world != NULL);
	bsStepDef st = WindStep(h, 1e5, bsV3(0.0, 0.0, 0.0));
	st.wind.velocity = track;
	bsParticles p;
	RUN_SUBTEST(WindParticles(&p, 1, bsV3(0.0, 0.0, 0.0)));
	for (int n = 0; n < 24; ++n)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		double mid = (n + 0.5) * h;
		bsVec3 want = bsTrack_At(&track, mid);
		bsVec3 w = bsWind_Velocity(&st.wind, mid);
		ENSURE(memcmp(&w, &want, sizeof(w)) == 0);  // no gusts: the track itself
		ENSURE_SMALL(bsLength(bsSub(p.velocity[0], want)), 1e-12);
	}
	// Spot values of the closed form: before, at, between and after the keys.
	bsVec3 v = bsWind_Velocity(&st.wind, 0.0);
	ENSURE(v.x == 1.0 && v.y == 0.0);
	v = bsWind_Velocity(&st.wind, 0.2);
	ENSURE_SMALL(v.x - 0.0, 1e-15);
	ENSURE_SMALL(v.y - 1.0, 1e-15);
	v = bsWind_Velocity(&st.wind, 0.35);
	ENSURE_SMALL(v.x + 0.5, 1e-14);
	ENSURE_SMALL(v.z - 2.5, 1e-14);
	v = bsWind_Velocity(&st.wind, 9.0);
	ENSURE(v.z == 5.0 && v.x == 0.0);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Gusts: the strength part keeps the wind's direction and scales it within [1 - s, 1 + s]; the
// direction part stays within direction |k| sqrt(3) of it; both vary (over 200 periods they span
// most of their range), are smooth (no jump between close times), and are a function of the seed.
static int Gusts(void)
{
	bsWindDef def = bsDefaultWindDef();
	def.rate = 1.0;
	def.velocity = bsConstantTrack(bsV3(0.0, 0.0, 2.0));
	def.strength = 0.4;
	def.period = 0.7;
	def.seed = 12345;
	ENSURE(bsWindDef_IsValid(&def));
	double lo = INFINITY;
	double hi = -INFINITY;
	for (int n = 0; n <= 20000; ++n)
	{
		double t = 0.007 * n;
		bsVec3 w = bsWind_Velocity(&def, t);
		ENSURE(w.x == 0.0 && w.y == 0.0);
		double f = w.z / 2.0;
		ENSURE(f >= 0.6 - 1e-15 && f <= 1.4 + 1e-15);
		lo = fmin(lo, f);
		hi = fmax(hi, f);
		// Smooth: the quintic fade's slope is at most 15/8 per period and value range 2.
		bsVec3 next = bsWind_Velocity(&def, t + 1e-6);
		ENSURE(bsLength(bsSub(next, w)) <= 2.0 * 0.4 * 2.0 * 15.0 / 8.0 * 1e-6 / 0.7 + 1e-12);
	}
	ENSURE(lo < 0.75 && hi > 1.25);
	bsWindDef other = def;
	other.seed = 12346;
	ENSURE(bsWind_Velocity(&other, 3.3).z != bsWind_Velocity(&def, 3.3).z);
	// At whole periods the noise is a hashed value: the same for the same seed, whatever came before.
	ENSURE(bsWind_Velocity(&def, 7.0).z == bsWind_Velocity(&def, 7.0).z);
	def.strength = 0.0;
	def.direction = 0.3;
	double side = 0.0;
	for (int n = 0; n <= 2000; ++n)
	{
		bsVec3 w = bsWind_Velocity(&def, 0.05 * n);
		double d = bsLength(bsSub(w, bsV3(0.0, 0.0, 2.0)));
		ENSURE(d <= 0.3 * 2.0 * sqrt(3.0) + 1e-12);
		side = fmax(side, d);
	}
	ENSURE(side > 0.3);
	return 0;
}

static int RefusesBad(void)
{
	bsWorld* world = WindWorld(1);
	ENSURE(world != NULL);
	bsParticles p;
	RUN_SUBTEST(WindParticles(&p, 1, bsV3(0.0, 0.0, 0.0)));
	bsStepDef good = WindStep(0.01, 1.0, bsV3(1.0, 0.0, 0.0));
	ENSURE(bsWorld_Step(world, &good, &p, NULL) == bs_ok);
	bsStepDef st = good;
	st.wind.rate = -1.0;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st = good;
	st.wind.rate = NAN;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st = good;
	st.wind.period = 0.0;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st = good;
	st.wind.strength = -0.1;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st = good;
	st.wind.velocity.count = 2;  // time[1] = 0 = time[0]: not increasing
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st = good;
	st.wind.velocity.value[0].y = NAN;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

int WindTest(void)
{
	RUN_SUBTEST(Relaxes());
	RUN_SUBTEST(TerminalVelocity());
	RUN_SUBTEST(Keyframed());
	RUN_SUBTEST(Gusts());
	RUN_SUBTEST(RefusesBad());
	return 0;
}
