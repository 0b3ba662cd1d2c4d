// Buoyancy (step.h: bsBuoyancyDef) through bsWorld_Step, against closed forms: under a constant lift b,
// gravity g and drag k a particle reaches the terminal velocity (g + b) h e / (1 - e), e = exp(-k h)
// exactly ((g + b) / k to first order in k h); a decaying lift is b exp(-age / decay) at each substep's
// start, with age from the particle's emission (two batches born at different times rise differently);
// bad settings are refused; the same bytes at 1 and 2 threads. By species (bsStepDef.speciesBuoyancy,
// the config's particles[k].buoyancy): each species reaches its own closed-form terminal velocity.
#include "config.h"
#include "test.h"
#include "blobsim/emitter.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bsWorld* BuoyancyWorld(int threads)
{
	bsWorldDef def = bsDefaultWorldDef();
	def.threads = threads;
	return bsWorld_Create(&def);
}

static int BuoyancyParticles(bsParticles* p, size_t n)
{
	ENSURE(bsParticles_Alloc(p, n) == bs_ok);
	for (size_t i = 0; i < n; ++i)
	{
		p->position[i] = bsV3(0.01 * (double)i, 0.0, 0.0);
		p->radius[i] = 0.001;
	}
	return 0;
}

// Constant lift 14 against gravity 9.81 with drag 2: the velocity settles at the discrete fixed point
// (g + b) h e / (1 - e) and within k h / 2 of (g + b) / k, the closed form, rising.
static int TerminalVelocity(void)
{
	const bsVec3 g = bsV3(0.0, -9.81, 0.0);
	const bsVec3 b = bsV3(0.5, 14.0, 0.0);
	const double k = 2.0, h = 0.002;
	bsWorld* world = BuoyancyWorld(1);
	ENSURE(world != NULL);
	bsStepDef st = bsDefaultStepDef();
	st.dt = h;
	st.gravity = g;
	st.drag = k;
	st.buoyancy.acceleration = b;
	bsParticles p;
	RUN_SUBTEST(BuoyancyParticles(&p, 1));
	for (int n = 0; n < 10000; ++n)  // 20 s: 40 time constants
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	}
	double e = exp(-k * h);
	bsVec3 a = bsAdd(g, b);
	bsVec3 discrete = bsScale(h * e / (1.0 - e), a);
	bsVec3 closed = bsScale(1.0 / k, a);
	ENSURE_SMALL(bsLength(bsSub(p.velocity[0], discrete)), 1e-10);
	ENSURE_SMALL(bsLength(bsSub(p.velocity[0], closed)), 0.5 * h * bsLength(a) + 1e-10);
	ENSURE(p.velocity[0].y > 2.0);  // it rises
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Without gravity or drag, a lift b exp(-age / tau) integrated by the step (v += h b(t_n - born)) gives
// the sum of the geometric series; particles emitted later (a second batch) are younger, so lifted more
// at the same time, by exactly their age's factor.
static int Decays(int threads, bsParticles* out)
{
	const double h = 0.01, tau = 0.2, b = 3.0;
	bsWorld* world = BuoyancyWorld(threads);
	ENSURE(world != NULL);
	bsEmitterDef em = bsDefaultEmitterDef();
	em.shape.type = bs_emitterRandom;
	em.shape.min = bsV3(-1.0, 0.0, -1.0);
	em.shape.max = bsV3(1.0, 1.0, 1.0);
	em.shape.count[0] = 1;
	em.radius = 0.01;
	em.rate = 1000.0;  // 10 a step
	em.start = 0.0;
	em.stop = 0.05;
	ENSURE(bsWorld_AddEmitter(world, &em) == bs_ok);
	bsStepDef st = bsDefaultStepDef();
	st.dt = h;
	st.buoyancy.acceleration = bsV3(0.0, b, 0.0);
	st.buoyancy.decay = tau;
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 0) == bs_ok);
	for (int n = 0; n < 40; ++n)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	}
	ENSURE(p.count >= 40);
	double now = bsWorld_Time(world);
	for (size_t i = 0; i < p.count; ++i)
	{
		double born = bsWorld_BirthTime(world, i);
		// Steps after its emission (the one that emitted it included): ages 0, h, 2h, ... at their starts.
		int m = (int)lround((now - born) / h);
		double want = 0.0;
		for (int j = 0; j < m; ++j)
		{
			want += h * b * exp(-(j * h) / tau);
		}
		ENSURE_SMALL(p.velocity[i].y - want, 1e-12);
		ENSURE(p.velocity[i].x == 0.0 && p.velocity[i].z == 0.0);
	}
	ENSURE(bsWorld_BirthTime(world, p.count - 1) > bsWorld_BirthTime(world, 0));
	*out = p;
	bsWorld_Destroy(world);
	return 0;
}

static int SameAtThreads(void)
{
	bsParticles a, b;
	RUN_SUBTEST(Decays(1, &a));
	RUN_SUBTEST(Decays(2, &b));
	ENSURE(a.count == b.count);
	ENSURE(memcmp(a.velocity, b.velocity, a.count * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(a.position, b.position, a.count * sizeof(bsVec3)) == 0);
	bsParticles_Free(&a);
	bsParticles_Free(&b);
	return 0;
}

static int RefusesBad(void)
{
	bsWorld* world = BuoyancyWorld(1);
	ENSURE(world != NULL);
	bsParticles p;
	RUN_SUBTEST(BuoyancyParticles(&p, 1));
	bsStepDef good = bsDefaultStepDef();
	good.dt = 0.01;
	good.buoyancy.acceleration = bsV3(0.0, 12.0, 0.0);
	good.buoyancy.decay = 1.0;
	ENSURE(bsWorld_Step(world, &good, &p, NULL) == bs_ok);
	bsStepDef st = good;
	st.buoyancy.decay = -1.0;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st = good;
	st.buoyancy.decay = INFINITY;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	st = good;
	st.buoyancy.acceleration.y = NAN;
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Two species read from a config, a rising gas (particles[1].buoyancy) and sand (motion.buoyancy, none):
// stepped with the config's step, each reaches (g + b_s) h e / (1 - e) for its own lift b_s.
static const char bsTwoSpecies[] =
	"{\"environment\": {\"planes\": [{}]},"
	" \"particles\": [{\"name\": \"sand\", \"radius\": 0.01, \"emitters\": []},"
	"  {\"name\": \"gas\", \"radius\": 0.01, \"buoyancy\": {\"acceleration\": [0, 14, 0]}, \"emitters\": []}],"
	" \"motion\": {\"dt\": 0.002, \"gravity\": [0, -9.81, 0], \"drag\": 2}}";

static int BySpecies(void)
{
	bsConfig config;
	bsConfigError error;
	bsResult r = bsConfig_Parse(bsTwoSpecies, strlen(bsTwoSpecies), "c.json", &config, &error);
	if (r != bs_ok)
	{
		fprintf(stderr, "%s\n", error.message);
	}
	ENSURE(r == bs_ok);
	ENSURE(config.step.speciesBuoyancyCount == 2 && config.step.speciesBuoyancy != NULL);
	bsWorld* world = BuoyancyWorld(2);
	ENSURE(world != NULL);
	bsParticles p;
	RUN_SUBTEST(BuoyancyParticles(&p, 4));
	ENSURE(bsParticles_SetSpecies(&p, 2, 4, 1) == bs_ok);  // 0, 1 sand; 2, 3 gas
	const bsStepDef* st = &config.step;
	for (int n = 0; n < 10000; ++n)  // 20 s: 40 time constants
	{
		ENSURE(bsWorld_Step(world, st, &p, NULL) == bs_ok);
	}
	double h = st->dt, e = exp(-st->drag * h);
	const double lift[2] = {0.0, 14.0};
	for (size_t i = 0; i < p.count; ++i)
	{
		double want = (-9.81 + lift[i / 2]) * h * e / (1.0 - e);
		ENSURE_SMALL(p.velocity[i].y - want, 1e-10);
		ENSURE(p.velocity[i].x == 0.0 && p.velocity[i].z == 0.0);
	}
	ENSURE(p.velocity[0].y < -4.0 && p.velocity[2].y > 2.0);  // sand falls, gas rises
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	bsConfig_Free(&config);
	return 0;
}

// A species' bad lift is an error naming its JSON path.
static int BySpeciesRefusesBad(void)
{
	const char* text = "{\"environment\": {\"planes\": [{}]}, \"particles\": [{\"name\": \"a\", \"radius\": 0.01, "
	                   "\"emitters\": []}, {\"name\": \"b\", \"radius\": 0.01, \"buoyancy\": {\"acceleration\": [0, 1, 0], "
	                   "\"decay\": -1}, \"emitters\": []}]}";
	bsConfig config;
	bsConfigError error;
	ENSURE(bsConfig_Parse(text, strlen(text), "c.json", &config, &error) == bs_errInvalidArgument);
	if (strstr(error.message, "particles[1].buoyancy.decay") == NULL)
	{
		fprintf(stderr, "got '%s'\n", error.message);
		return 1;
	}
	return 0;
}

int BuoyancyTest(void)
{
	RUN_SUBTEST(BySpecies());
	RUN_SUBTEST(BySpeciesRefusesBad());
	RUN_SUBTEST(TerminalVelocity());
	RUN_SUBTEST(SameAtThreads());
	RUN_SUBTEST(RefusesBad());
	return 0;
}
