// test_species_pairs.c — each species' own interaction settings (step.h: bsStepDef.speciesPairs'
// cohesion and cohesion range, bsStepDef.speciesDensity; the config's particles[k].cohesion,
// cohesion_range, density and interactions[i].cohesion, cohesion_range), against closed forms:
//   - a head-on collision of a light and a heavy species (3 times as dense) keeps m1 v1 + m2 v2 to 1e-12
//     and ends at the restitution's velocities for those masses (a contact time, a stiffness; Hertz's
//     momentum);
//   - a pair of sticky slime pulled apart stays together, where sand (and slime beside sand, the weaker
//     of the two) separates;
//   - a rule's cohesion reaching 2 (r_i + r_j) pulls a pair at 1.8 (r_i + r_j) at exactly its ramp's
//     acceleration, though the interaction's own range is 1.25; the plan takes the stiffest
//     interacting rule's period;
//   - equal densities and rules equal to the interaction give the bytes of no table; the same bytes at
//     1, 2 and 3 threads;
//   - the mass two-way coupling takes (bsStep_ParticleMass) is the species' density x volume;
//   - bad values refused: by the config naming the JSON path, by the step (NaN, 0, negative).
#include "config.h"
#include "interaction_class.h"
#include "test.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "blobsim/world.h"
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bsWorld* PairsWorld(int threads)
{
	bsWorldDef def = bsDefaultWorldDef();
	def.threads = threads;
	return bsWorld_Create(&def);
}

// A rule as the interaction's, with a cohesion.
static bsSpeciesPair Rule(const bsStepDef* def, double cohesion, double range)
{
	bsSpeciesPair rule = {true, def->interaction.restitution, def->interaction.friction, cohesion, range};
	return rule;
}

// --- head-on: momentum and restitution with unequal densities ---

typedef enum Law
{
	lawContactTime,
	lawStiffness,
	lawHertz,
} Law;

// Species 0 (1000 kg/m^3) at x < 0 moving at +1 meets species 1 (3000) moving at -1, equal radii r:
// after the contact m0 v0 + m1 v1 is unchanged (to 1e-12 of m |v|) and, but for Hertz's (whose
// restitution is not exactly e), the velocities are the restitution's:
//   v0' = (p - m1 e (v0 - v1)) / (m0 + m1), v1' = (p + m0 e (v0 - v1)) / (m0 + m1).
static int HeadOn(Law law, double e)
{
	const double r = 0.1, tc = 0.01;
	const double density[2] = {1000.0, 3000.0};
	bsStepDef def = bsDefaultStepDef();
	def.method = bs_methodExact;
	def.response = bs_responseSlide;
	def.interaction.type = bs_interactionGranular;
	def.interaction.restitution = e;
	def.interaction.friction = 0.0;
	def.interaction.contactTime = tc;
	double m0 = density[0] * 4.0 / 3.0 * BS_PI * r * r * r, m1 = 3.0 * m0;
	if (law == lawStiffness)
	{
		double l = log(e);
		def.interaction.contactTime = 0.0;
		def.interaction.stiffness = m0 * m1 / (m0 + m1) * (BS_PI * BS_PI + l * l) / (tc * tc);
	}
	if (law == lawHertz)
	{
		def.interaction.contactTime = 0.0;
		def.interaction.contactModel = bs_contactHertz;
		def.interaction.youngsModulus = 1e6;
	}
	bsSpeciesPair table[4] = {Rule(&def, 0, 1.25), Rule(&def, 0, 1.25), Rule(&def, 0, 1.25), Rule(&def, 0, 1.25)};
	def.speciesPairs = table;
	def.speciesCount = 2;
	def.speciesDensity = density;
	def.dt = tc / 25.0;
	def.substeps = 8;
	bsWorld* world = PairsWorld(1);
	ENSURE(world != NULL);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	ENSURE(bsParticles_SetSpecies(&p, 1, 2, 1) == bs_ok);
	p.position[0] = bsV3(-r - 0.01, 0, 0);
	p.position[1] = bsV3(r + 0.01, 0, 0);
	p.velocity[0] = bsV3(1, 0, 0);
	p.velocity[1] = bsV3(-1, 0, 0);
	p.radius[0] = p.radius[1] = r;
	double before = m0 * 1.0 - m1 * 1.0;
	bool touched = false;
	for (int step = 0; step < 2000; ++step)
	{
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
		double gap = p.position[1].x - p.position[0].x - 2.0 * r;
		touched = touched || gap < 0.0;
		if (touched && gap > 0.005)
		{
			break;
		}
	}
	ENSURE(touched);
	double after = m0 * p.velocity[0].x + m1 * p.velocity[1].x;
	ENSURE_SMALL(after - before, 1e-12 * (m0 + m1));
	ENSURE(p.velocity[0].y == 0.0 && p.velocity[1].y == 0.0);
	if (law != lawHertz)
	{
		double v0 = (before - m1 * e * 2.0) / (m0 + m1), v1 = (before + m0 * e * 2.0) / (m0 + m1);
		ENSURE_SMALL(p.velocity[0].x - v0, 0.01 * e);
		ENSURE_SMALL(p.velocity[1].x - v1, 0.01 * e);
	}
	ENSURE(p.velocity[0].x < -1.0);  // the heavy one throws the light one back faster than it came
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

static int HeadOnDensities(void)
{
	RUN_SUBTEST(HeadOn(lawContactTime, 0.5));
	RUN_SUBTEST(HeadOn(lawContactTime, 0.9));
	RUN_SUBTEST(HeadOn(lawStiffness, 0.5));
	RUN_SUBTEST(HeadOn(lawHertz, 0.5));
	return 0;
}

// --- sticky slime beside sand, from a config ---

static int Parse(const char* text, bsConfig* config)
{
	bsConfigError error;
	bsResult r = bsConfig_Parse(text, strlen(text), "c.json", config, &error);
	if (r != bs_ok)
	{
		fprintf(stderr, "%s\n", error.message);
	}
	ENSURE(r == bs_ok);
	return 0;
}

// Slime sticks (cohesion 40 m/s^2 out to 1.25 (r_i + r_j)); sand does not (the interaction's 0).
static const char bsSlimeSand[] =
	"{\"environment\": {\"planes\": [{}]},"
	" \"particles\": [{\"name\": \"sand\", \"radius\": 0.01, \"interaction\": {\"type\": \"granular\","
	"   \"contact_time\": 0.005, \"restitution\": 0.5}, \"emitters\": []},"
	"  {\"name\": \"slime\", \"radius\": 0.01, \"cohesion\": 40, \"density\": 1200, \"emitters\": []}],"
	" \"motion\": {\"dt\": 0.002}}";

// Three touching pairs 1 apart (slime-slime, sand-sand, slime-sand) pulled apart at a relative speed of
// 0.3 m/s: slime escapes only above sqrt(cohesion (range - 1) (r_i + r_j)) = 0.45 m/s (the energy
// of the pull: a constant in contact, a ramp to 0 at the range), so it stays within reach of its
// partner; sand and slime-sand (the weaker's cohesion, 0) fly apart at their speed.
static int SlimeHoldsSandParts(void)
{
	bsConfig config;
	RUN_SUBTEST(Parse(bsSlimeSand, &config));
	const bsStepDef* def = &config.step;
	ENSURE(def->speciesPairs != NULL && def->speciesCount == 2 && def->speciesDensity != NULL);
	ENSURE(def->speciesPairs[3].cohesion == 40.0 && def->speciesPairs[0].cohesion == 0.0);
	ENSURE(def->speciesPairs[1].cohesion == 0.0 && def->speciesPairs[2].cohesion == 0.0);
	ENSURE(def->speciesDensity[0] == 1000.0 && def->speciesDensity[1] == 1200.0);
	bsWorld* world = PairsWorld(2);
	ENSURE(world != NULL);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 6) == bs_ok);
	const uint8_t species[6] = {1, 1, 0, 0, 1, 0};
	for (size_t i = 0; i < 6; ++i)
	{
		ENSURE(bsParticles_SetSpecies(&p, i, i + 1, species[i]) == bs_ok);
		p.position[i] = bsV3(i % 2 == 0 ? -0.01 : 0.01, (double)(i / 2), 0.0);
		p.velocity[i] = bsV3(i % 2 == 0 ? -0.15 : 0.15, 0.0, 0.0);
		p.radius[i] = 0.01;
	}
	for (int step = 0; step < 250; ++step)  // 0.5 s
	{
		ENSURE(bsWorld_Step(world, def, &p, NULL) == bs_ok);
	}
	double apart[3];
	for (int k = 0; k < 3; ++k)
	{
		apart[k] = p.position[2 * k + 1].x - p.position[2 * k].x;
	}
	ENSURE(apart[0] < 1.25 * 0.02);  // slime: together
	ENSURE(apart[1] > 0.1 && apart[2] > 0.1);  // sand, slime and sand: apart (0.17 at 0.3 m/s)
	// Sand keeps its speed, but for the spring's averaged touch as they part (bsSpringOverlap).
	ENSURE_SMALL(p.velocity[3].x - p.velocity[2].x - 0.3, 1e-3);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	bsConfig_Free(&config);
	return 0;
}

// --- a rule's reach beyond the interaction's ---

// Two particles of species 0 (no species array: all 0), r = 0.01, at 1.8 (r_i + r_j), at rest, no
// gravity; the interaction has no cohesion (range 1.25), rule (0, 0) cohesion 10 to range 2: one
// substep of h gives each h x 1/2 x 10 (2 - 1.8) / (2 - 1) towards the other (a relative acceleration
// shared by equal masses). Without the rule's reach in the neighbour lists the pair is never seen.
static int CohesionReach(void)
{
	const double r = 0.01, h = 1e-4;
	bsStepDef def = bsDefaultStepDef();
	def.interaction.type = bs_interactionGranular;
	def.interaction.contactTime = 0.01;
	def.dt = h;
	def.substeps = 1;
	bsSpeciesPair rule = Rule(&def, 10.0, 2.0);
	def.speciesPairs = &rule;
	def.speciesCount = 1;
	bsWorld* world = PairsWorld(1);
	ENSURE(world != NULL);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	p.position[0] = bsV3(-0.9 * 2.0 * r, 0, 0);
	p.position[1] = bsV3(0.9 * 2.0 * r, 0, 0);
	p.radius[0] = p.radius[1] = r;
	ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
	double d = 3.6 * r, sum = 2.0 * r, far = 2.0 * sum;
	double want = h * 0.5 * 10.0 * (far - d) / (far - sum);
	ENSURE_SMALL(p.velocity[0].x / want - 1.0, 1e-12);
	ENSURE_SMALL(p.velocity[1].x / -want - 1.0, 1e-12);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// The plan (step.h: bsStep_PlanSubsteps) takes the stiffest interacting rule's cohesion: 2 pi /
// sqrt(c / ((range - 1) 2 r)) at the smallest radius, here below the contact time; a rule that does
// not interact (stiffer still) counts for nothing; and a rule's restitution.
static int PlanTakesStiffestRule(void)
{
	const double r = 0.01;
	bsStepDef def = bsDefaultStepDef();
	def.interaction.type = bs_interactionGranular;
	def.interaction.contactTime = 1.0;
	bsSpeciesPair table[4] = {Rule(&def, 0, 1.25), Rule(&def, 1e4, 1.01), Rule(&def, 1e4, 1.01),
		Rule(&def, 1e9, 1.01)};
	table[3].interact = false;
	def.speciesPairs = table;
	def.speciesCount = 2;
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 1) == bs_ok);
	p.radius[0] = r;
	bsSubstepPlan plan;
	bsStep_PlanSubsteps(&def, &p, &plan);
	double want = 2.0 * BS_PI / sqrt(1e4 / (0.01 * 2.0 * r));
	ENSURE_SMALL(plan.period / want - 1.0, 1e-12);
	bsInteraction_PlanSubsteps(&def.interaction, def.dt, def.gravity, &p, &plan);
	ENSURE(plan.period == 1.0);  // the interaction alone: its contact time
	// With a stiffness the contact of the two lightest, pi / (sqrt(k / (m / 2)) sqrt(1 - beta^2)), is
	// shorter for the rule keeping more of the approach speed: e = 0.9 (beta 0.034) in a table, 0.1
	// (beta 0.59) the interaction's.
	def.interaction.contactTime = 0.0;
	def.interaction.stiffness = 1e3;
	def.interaction.restitution = 0.1;
	bsSpeciesPair bouncy = Rule(&def, 0, 1.25);
	bouncy.restitution = 0.9;
	def.speciesPairs = &bouncy;
	def.speciesCount = 1;
	bsStep_PlanSubsteps(&def, &p, &plan);
	double m = 1000.0 * 4.0 / 3.0 * BS_PI * r * r * r, l = log(0.9);
	double beta = -l / sqrt(BS_PI * BS_PI + l * l);
	ENSURE_SMALL(plan.period / (BS_PI / (sqrt(1e3 / (0.5 * m)) * sqrt(1.0 - beta * beta))) - 1.0, 1e-12);
	bsParticles_Free(&p);
	return 0;
}

// --- bytes ---

// 125 particles of 3 species on a jittered lattice, each moving towards the centre, no gravity: a
// clump that collides, bounces and sticks for 40 steps. densities NULL or 3 of them; table NULL or 9
// rules.
static int Clump(int threads, const bsSpeciesPair* table, const double* densities, bool species, bsParticles* out)
{
	bsStepDef def = bsDefaultStepDef();
	def.interaction.type = bs_interactionGranular;
	def.interaction.contactTime = 0.004;
	def.interaction.restitution = 0.4;
	def.interaction.friction = 0.3;
	def.interaction.tangentialStiffness = 0.3;
	def.interaction.cohesion = 2.0;
	def.dt = 0.002;
	def.substeps = 0;
	def.speciesPairs = table;
	def.speciesCount = table != NULL ? 3 : 0;
	def.speciesDensity = densities;
	bsWorld* world = PairsWorld(threads);
	ENSURE(world != NULL);
	ENSURE(bsParticles_Alloc(out, 125) == bs_ok);
	bsRng rng = bsMakeRng(99);
	for (size_t i = 0; i < 125; ++i)
	{
		bsVec3 x = bsV3((double)(i % 5) - 2.0, (double)(i / 5 % 5) - 2.0, (double)(i / 25) - 2.0);
		x = bsAdd(bsScale(0.03, x), bsV3(0.004 * bsRng_Uniform(&rng), 0.004 * bsRng_Uniform(&rng), 0.0));
		out->position[i] = x;
		out->velocity[i] = bsScale(-4.0, x);
		out->radius[i] = 0.01 + 0.003 * bsRng_Uniform(&rng);
		if (species && i % 3 != 0)
		{
			ENSURE(bsParticles_SetSpecies(out, i, i + 1, (uint8_t)(i % 3)) == bs_ok);
		}
	}
	for (int step = 0; step < 40; ++step)
	{
		ENSURE(bsWorld_Step(world, &def, out, NULL) == bs_ok);
	}
	bsWorld_Destroy(world);
	return 0;
}

static bool SameState(const bsParticles* a, const bsParticles* b)
{
	return a->count == b->count && memcmp(a->position, b->position, a->count * sizeof(bsVec3)) == 0 &&
		memcmp(a->velocity, b->velocity, a->count * sizeof(bsVec3)) == 0;
}

// Rules equal to the interaction and densities equal to its own change no byte (with species and
// without: a set without a species array is all species 0); sticky, unequal species the same at 1, 2
// and 3 threads, and not the same as the plain clump.
static int Bytes(void)
{
	bsStepDef d = bsDefaultStepDef();
	d.interaction.restitution = 0.4;
	d.interaction.friction = 0.3;
	bsSpeciesPair plain[9], sticky[9];
	for (int k = 0; k < 9; ++k)
	{
		plain[k] = Rule(&d, 2.0, 1.25);
		sticky[k] = Rule(&d, k == 4 ? 30.0 : 0.5, k == 4 ? 1.8 : 1.25);  // species 1 with itself
	}
	const double same[3] = {1000.0, 1000.0, 1000.0}, unequal[3] = {1000.0, 3000.0, 500.0};
	bsParticles base, q, runs[3];
	RUN_SUBTEST(Clump(2, NULL, NULL, true, &base));
	RUN_SUBTEST(Clump(2, plain, same, true, &q));
	ENSURE(SameState(&base, &q));
	bsParticles_Free(&q);
	bsParticles_Free(&base);
	RUN_SUBTEST(Clump(1, NULL, NULL, false, &base));
	RUN_SUBTEST(Clump(1, plain, same, false, &q));
	ENSURE(SameState(&base, &q));
	bsParticles_Free(&q);
	for (int t = 0; t < 3; ++t)
	{
		RUN_SUBTEST(Clump(t + 1, sticky, unequal, true, runs + t));
	}
	ENSURE(SameState(runs, runs + 1) && SameState(runs, runs + 2));
	ENSURE(!SameState(runs, &base));
	for (int t = 0; t < 3; ++t)
	{
		bsParticles_Free(runs + t);
	}
	bsParticles_Free(&base);
	return 0;
}

// --- the mass by species (bsStep_ParticleMass: two-way coupling's) ---

// Species 0, 1 and one beyond the table (the last row's) at their densities x 4/3 pi r^3; a set without
// a species array at species 0's; without densities, or with the fluid (which ignores the table), at
// the interaction's.
static int MassBySpecies(void)
{
	const double r = 0.02, volume = 4.0 / 3.0 * BS_PI * r * r * r;
	bsStepDef def = bsDefaultStepDef();
	def.interaction.type = bs_interactionGranular;
	bsSpeciesPair table[4] = {Rule(&def, 0, 1.25), Rule(&def, 0, 1.25), Rule(&def, 0, 1.25), Rule(&def, 0, 1.25)};
	const double density[2] = {500.0, 2500.0};
	def.speciesPairs = table;
	def.speciesCount = 2;
	def.speciesDensity = density;
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 3) == bs_ok);
	for (size_t i = 0; i < 3; ++i)
	{
		p.radius[i] = r;
	}
	ENSURE(bsStep_ParticleMass(&def, &p, 0) == 500.0 * volume);
	ENSURE(bsParticles_SetSpecies(&p, 1, 2, 1) == bs_ok);
	ENSURE(bsParticles_SetSpecies(&p, 2, 3, 7) == bs_ok);
	ENSURE(bsStep_ParticleMass(&def, &p, 0) == 500.0 * volume);
	ENSURE(bsStep_ParticleMass(&def, &p, 1) == 2500.0 * volume);
	ENSURE(bsStep_ParticleMass(&def, &p, 2) == 2500.0 * volume);
	def.interaction.type = bs_interactionFluid;
	ENSURE_SMALL(bsStep_ParticleMass(&def, &p, 1) / (1000.0 * 8.0 * r * r * r) - 1.0, 1e-15);  // a cube of side 2r
	def.interaction.type = bs_interactionGranular;
	def.speciesDensity = NULL;
	ENSURE(bsStep_ParticleMass(&def, &p, 1) == 1000.0 * volume);
	bsParticles_Free(&p);
	return 0;
}

// --- bad values ---

// The config refuses each naming its JSON path.
static int ConfigRefuses(const char* species1, const char* rules, const char* interaction, const char* path)
{
	char text[1024];
	snprintf(text, sizeof text,
		"{\"environment\": {\"planes\": [{}]}, \"particles\": [{\"name\": \"a\", \"radius\": 0.01, "
		"\"interaction\": %s, \"emitters\": []}, {\"name\": \"b\", \"radius\": 0.01%s, \"emitters\": []}]%s}",
		interaction, species1, rules);
	bsConfig config;
	bsConfigError error;
	ENSURE(bsConfig_Parse(text, strlen(text), "c.json", &config, &error) == bs_errInvalidArgument);
	if (strstr(error.message, path) == NULL)
	{
		fprintf(stderr, "expected %s, got '%s'\n", path, error.message);
		return 1;
	}
	return 0;
}

static int RefusesBad(void)
{
	const char* granular = "\"granular\"";
	RUN_SUBTEST(ConfigRefuses(", \"cohesion\": -1", "", granular, "particles[1].cohesion: expected a number >= 0"));
	RUN_SUBTEST(ConfigRefuses(", \"density\": 0", "", granular, "particles[1].density: expected a number > 0"));
	RUN_SUBTEST(ConfigRefuses(", \"cohesion_range\": 0.5", "", granular, "particles[1].cohesion_range"));
	RUN_SUBTEST(ConfigRefuses(", \"density\": \"heavy\"", "", granular, "particles[1].density"));
	RUN_SUBTEST(ConfigRefuses("", ", \"interactions\": [{\"between\": [\"a\", \"b\"], \"cohesion\": -2}]", granular,
		"interactions[0].cohesion"));
	RUN_SUBTEST(ConfigRefuses("", ", \"interactions\": [{\"between\": [\"a\", \"b\"], \"cohesion_range\": 0}]",
		granular, "interactions[0].cohesion_range"));
	RUN_SUBTEST(ConfigRefuses(", \"cohesion\": 3", "", "\"fluid\"", "particles[1].cohesion: a species' own interaction"));
	RUN_SUBTEST(ConfigRefuses(", \"density\": 3", "", "\"none\"", "particles[1].density: a species' own interaction"));
	// The step: NaN, 0 and negative values are bs_errInvalidArgument.
	bsStepDef def = bsDefaultStepDef();
	def.interaction.type = bs_interactionGranular;
	def.interaction.contactTime = 0.01;
	bsSpeciesPair rule = Rule(&def, 1.0, 1.5);
	double density = 1000.0;
	def.speciesPairs = &rule;
	def.speciesCount = 1;
	def.speciesDensity = &density;
	bsWorld* world = PairsWorld(1);
	ENSURE(world != NULL);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 1) == bs_ok);
	p.radius[0] = 0.01;
	ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
	const double bad[4] = {NAN, 0.0, -1.0, INFINITY};
	for (int k = 0; k < 4; ++k)
	{
		density = bad[k];
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_errInvalidArgument);
		density = 1000.0;
		rule.cohesion = bad[k] == 0.0 ? -0.5 : bad[k];
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_errInvalidArgument);
		rule.cohesion = 1.0;
		rule.cohesionRange = bad[k];
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_errInvalidArgument);
		rule.cohesionRange = 1.5;
	}
	ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

int SpeciesPairsTest(void)
{
	RUN_SUBTEST(HeadOnDensities());
	RUN_SUBTEST(SlimeHoldsSandParts());
	RUN_SUBTEST(CohesionReach());
	RUN_SUBTEST(PlanTakesStiffestRule());
	RUN_SUBTEST(Bytes());
	RUN_SUBTEST(MassBySpecies());
	RUN_SUBTEST(RefusesBad());
	return 0;
}
