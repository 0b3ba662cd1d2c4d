// The vortex (step.h: bsVortexDef) against closed forms: the Rankine and Lamb-Oseen profiles, a
// tangential right-handed flow, a particle with a drag strong enough to follow it orbiting at the
// profile's speed at its radius for a whole turn, the pull's acceleration, the refusal of bad
// settings; and every new force at once (wind with keys and gusts, turbulence, vortex with pull, a
// keyed radial attractor turning repeller) the same bytes at 1 and 2 threads.
#include "test.h"
#include "blobsim/base.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <math.h>
#include <string.h>

static const double kTwoPi = 6.283185307179586;

static bsVortexDef Vortex(bsVortexProfile profile)
{
	bsVortexDef def = bsDefaultVortexDef();
	def.rate = 1e6;
	def.center = bsV3(0.5, -1.0, 0.25);
	def.axis = bsV3(0.0, 2.0, 0.0);
	def.circulation = 3.0;
	def.coreRadius = 0.4;
	def.profile = profile;
	return def;
}

// A world of one thread, a step of h with the vortex def, and one particle at rest at x.
typedef struct VortexCase
{
	bsWorld* world;
	bsStepDef step;
	bsParticles particles;
} VortexCase;

static int VortexCase_Init(VortexCase* vc, const bsVortexDef* def, double h, bsVec3 x)
{
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 1;
	vc->world = bsWorld_Create(&wd);
	ENSURE(vc->world != NULL);
	vc->step = bsDefaultStepDef();
	vc->step.dt = h;
	vc->step.vortex = *def;
	ENSURE(bsParticles_Alloc(&vc->particles, 1) == bs_ok);
	vc->particles.position[0] = x;
	vc->particles.velocity[0] = bsV3(0.0, 0.0, 0.0);
	vc->particles.radius[0] = 0.001;
	return 0;
}

static void VortexCase_Free(VortexCase* vc)
{
	bsParticles_Free(&vc->particles);
	bsWorld_Destroy(vc->world);
}

static int Profiles(void)
{
	bsVortexDef r = Vortex(bs_vortexRankine);
	double g = r.circulation;
	double rc = r.coreRadius;
	ENSURE_SMALL(bsVortex_Speed(&r, 0.1) - g * 0.1 / (kTwoPi * rc * rc), 1e-15);
	ENSURE_SMALL(bsVortex_Speed(&r, rc) - g / (kTwoPi * rc), 1e-15);
	ENSURE_SMALL(bsVortex_Speed(&r, 2.0) - g / (kTwoPi * 2.0), 1e-15);
	ENSURE(bsVortex_Speed(&r, 0.0) == 0.0);
	bsVortexDef l = Vortex(bs_vortexLambOseen);
	ENSURE_SMALL(bsVortex_Speed(&l, rc) - g / (kTwoPi * rc) * (1.0 - exp(-1.0)), 1e-15);
	ENSURE_SMALL(bsVortex_Speed(&l, 10.0) - g / (kTwoPi * 10.0), 1e-15);
	ENSURE_SMALL(bsVortex_Speed(&l, 1e-9) - g * 1e-9 / (kTwoPi * rc * rc), 1e-20);
	// Lamb-Oseen's fastest point is at r = 1.1209 r_c.
	ENSURE(bsVortex_Speed(&l, 1.1209 * rc) > bsVortex_Speed(&l, 1.10 * rc));
	ENSURE(bsVortex_Speed(&l, 1.1209 * rc) > bsVortex_Speed(&l, 1.14 * rc));
	// Tangential and right-handed: about +y, the offset +x moves towards -z; along the axis, nothing.
	bsVec3 u = bsVortex_Velocity(&r, bsAdd(r.center, bsV3(0.3, 5.0, 0.0)));
	ENSURE_SMALL(u.x, 1e-15);
	ENSURE_SMALL(u.y, 1e-15);
	ENSURE_SMALL(u.z + bsVortex_Speed(&r, 0.3), 1e-15);
	bsVec3 zero = bsVortex_Velocity(&r, bsAdd(r.center, bsV3(0.0, 2.0, 0.0)));
	ENSURE(zero.x == 0.0 && zero.y == 0.0 && zero.z == 0.0);
	return 0;
}

// A particle carried round (rate so high the drag's e underflows): each step it moves by h u(x) at
// right angles to its offset, so its speed is the profile's at its radius before the step, its
// height along the axis stays, and its squared radius grows by exactly (h v(r))^2 a step (explicit
// steps along the tangent spiral out slowly: under 2e-3 of r0 in a turn here). In the time
// 2 pi r0 / v(r0) it turns once.
static int Orbit(bsVortexProfile profile)
{
	bsVortexDef def = Vortex(profile);
	const double r0 = 0.35;
	const double h = 2e-4;
	VortexCase vc;
	RUN_SUBTEST(VortexCase_Init(&vc, &def, h, bsAdd(def.center, bsV3(r0, 0.7, 0.0))));
	bsParticles* p = &vc.particles;
	double period = kTwoPi * r0 / bsVortex_Speed(&def, r0);
	int steps = (int)lround(period / h);
	double angle = 0.0;
	double lastAngle = 0.0;
	double r = r0;
	double r2 = r0 * r0;  // the closed form of the squared radius
	for (int n = 0; n < steps; ++n)
	{
		double v = bsVortex_Speed(&def, r);
		ENSURE(bsWorld_Step(vc.world, &vc.step, p, NULL) == bs_ok);
		ENSURE_SMALL(bsLength(p->velocity[0]) - v, 1e-12);
		r2 += h * h * v * v;
		bsVec3 d = bsSub(p->position[0], def.center);
		r = sqrt(d.x * d.x + d.z * d.z);
		ENSURE_SMALL(r * r - r2, 1e-12);
		ENSURE_SMALL(d.y - 0.7, 1e-12);
		double a = atan2(-d.z, d.x);  // anticlockwise about +y
		double da = a - lastAngle;
		da -= kTwoPi * round(da / kTwoPi);
		angle += da;
		lastAngle = a;
	}
	ENSURE_SMALL(r - r0, 2e-3 * r0);
	ENSURE_SMALL(angle - kTwoPi, 1e-2);
	VortexCase_Free(&vc);
	return 0;
}

// The pull alone (circulation 0, a negligible drag): one step from rest at distance r adds
// -pull s(r) h along the offset, s = 1 at the core radius and r / r_c inside a Rankine core.
static int Pull(void)
{
	bsVortexDef def = Vortex(bs_vortexRankine);
	def.circulation = 0.0;
	def.rate = 1e-300;
	def.pull = 5.0;
	const double h = 0.01;
	const double radii[2] = {0.4, 0.1};
	const double shapes[2] = {1.0, 0.25};
	for (int k = 0; k < 2; ++k)
	{
		VortexCase vc;
		RUN_SUBTEST(VortexCase_Init(&vc, &def, h, bsAdd(def.center, bsV3(0.0, 1.0, radii[k]))));
		ENSURE(bsWorld_Step(vc.world, &vc.step, &vc.particles, NULL) == bs_ok);
		bsVec3 v = vc.particles.velocity[0];
		ENSURE_SMALL(v.z + def.pull * shapes[k] * h, 1e-14);
		ENSURE(v.x == 0.0 && v.y == 0.0);
		VortexCase_Free(&vc);
	}
	return 0;
}

static int RefusesBad(void)
{
	bsVortexDef def = Vortex(bs_vortexLambOseen);
	VortexCase vc;
	RUN_SUBTEST(VortexCase_Init(&vc, &def, 0.01, bsV3(1.0, 0.0, 0.0)));
	ENSURE(bsWorld_Step(vc.world, &vc.step, &vc.particles, NULL) == bs_ok);
	bsVortexDef bad[5] = {def, def, def, def, def};
	bad[0].axis = bsV3(0.0, 0.0, 0.0);
	bad[1].coreRadius = 0.0;
	bad[2].circulation = NAN;
	bad[3].profile = bs_vortexProfileCount;
	bad[4].center.x = INFINITY;
	for (int k = 0; k < 5; ++k)
	{
		bsStepDef st = vc.step;
		st.vortex = bad[k];
		ENSURE(bsWorld_Step(vc.world, &st, &vc.particles, NULL) == bs_errInvalidArgument);
	}
	VortexCase_Free(&vc);
	return 0;
}

// Every new force at once, with gravity and 2 substeps, 2000 particles for 60 steps: the hash of the
// positions and velocities at `threads` threads.
static int AllForcesHash(int threads, uint64_t* hash)
{
	enum { count = 2000 };
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	bsWorld* world = bsWorld_Create(&wd);
	ENSURE(world != NULL);
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.005;
	st.substeps = 2;
	st.gravity = bsV3(0.0, -9.81, 0.0);
	st.wind.rate = 3.0;
	st.wind.velocity.count = 2;
	st.wind.velocity.time[1] = 0.2;
	st.wind.velocity.value[1] = bsV3(5.0, 1.0, -2.0);
	st.wind.strength = 0.5;
	st.wind.direction = 0.3;
	st.wind.period = 0.05;
	st.wind.seed = 99;
	st.turbulence = bsDefaultTurbulenceDef();
	st.turbulence.rate = 2.0;
	st.turbulence.scale = 0.3;
	st.turbulence.seed = 99;
	st.vortex = Vortex(bs_vortexLambOseen);
	st.vortex.rate = 5.0;
	st.vortex.pull = 2.0;
	st.radialCount = 1;
	st.radial[0] = bsDefaultRadialDef();
	st.radial[0].falloff = bs_falloffInverseSquare;
	st.radial[0].centerKeys.count = 2;
	st.radial[0].centerKeys.time[1] = 0.3;
	st.radial[0].centerKeys.value[1] = bsV3(1.0, 1.0, 0.0);
	st.radial[0].strengthKeys.count = 2;
	st.radial[0].strengthKeys.value[0] = bsV3(-8.0, 0.0, 0.0);
	st.radial[0].strengthKeys.time[1] = 0.2;
	st.radial[0].strengthKeys.value[1] = bsV3(12.0, 0.0, 0.0);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, count) == bs_ok);
	for (size_t i = 0; i < count; ++i)
	{
		double a = 0.001 * (double)i;
		p.position[i] = bsV3(cos(7.0 * a), 0.2 + sin(3.0 * a), sin(5.0 * a));
		p.velocity[i] = bsV3(0.0, 0.0, 0.0);
		p.radius[i] = 0.001;
	}
	for (int step = 0; step < 60; ++step)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	}
	*hash = bsFnv1a(bsFnv1a(BS_FNV1A_BASIS, p.position, count * sizeof(bsVec3)), p.velocity, count * sizeof(bsVec3));
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

static int Threads(void)
{
	uint64_t one = 0;
	uint64_t two = 1;
	RUN_SUBTEST(AllForcesHash(1, &one));
	RUN_SUBTEST(AllForcesHash(2, &two));
	ENSURE(one == two);
	return 0;
}

int VortexTest(void)
{
	RUN_SUBTEST(Profiles());
	RUN_SUBTEST(Orbit(bs_vortexRankine));
	RUN_SUBTEST(Orbit(bs_vortexLambOseen));
	RUN_SUBTEST(Pull());
	RUN_SUBTEST(RefusesBad());
	RUN_SUBTEST(Threads());
	return 0;
}
