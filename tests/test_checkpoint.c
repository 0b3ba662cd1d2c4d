// test_checkpoint.c — a world saved between two steps and restored into a new world goes on with the
// same bytes as the world that never stopped (checkpoint.h), at 1 and 2 threads and across them; a
// checkpoint cut short, altered, or of other settings is refused with a reason. With rotation (cdt and
// epsd2, and epsd2 with sintered bonds whose ages age the rolling friction) the same, and a resume
// without the spins, the rolling springs or the bond ages goes elsewhere.
#include "test.h"

#include "blobsim/checkpoint.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Granular particles with tangential springs poured over time (with a lifetime) into a box of planes,
// falling asleep and sticking to the stuck ones (accumulation): every kind of state a checkpoint
// keeps but the bodies' (the end-to-end test has those). With rotation (Spin), the particles spin and
// roll against each other with rolling resistance, cdt or epsd2 (rolling springs beside the tangential),
// or epsd2 with sintered bonds (their ages beside the tangential springs too; rolling_friction_fresh).
typedef struct Pour
{
	bsWorld* world;
	bsParticles p;
	bsStepDef def;
	bsPlane planes[5];
} Pour;

typedef enum Spin
{
	spinNone,
	spinCdt,
	spinEpsd2,
	spinBonds,
	spinOriented,  // cdt, the set keeping orientations (bsParticles.orientation)
} Spin;

static bsStepDef PourDef(void)
{
	bsStepDef def = bsDefaultStepDef();
	def.method = bs_methodExact;
	def.response = bs_responseSlide;
	def.friction = 0.5;
	def.gravity = bsV3(0, -9.81, 0);
	def.interaction.type = bs_interactionGranular;
	def.interaction.restitution = 0.3;
	def.interaction.contactTime = 0.005;
	def.interaction.friction = 0.5;
	def.interaction.tangentialStiffness = 2.0 / 7.0;
	def.sleepSteps = 5;
	def.sleepSpeed = 0.05;
	def.sleepAcceleration = 2.0;
	def.wakeSpeed = 0.3;
	def.dt = 0.002;
	def.substeps = 0;
	return def;
}

// Two species: the grid's particles are species 1 and do not touch the poured ones (species 0).
static const bsSpeciesPair pourSpecies[4] = {{true, 0.3, 0.5}, {false, 0.3, 0.5}, {false, 0.3, 0.5}, {true, 0.3, 0.5}};

static int Pour_InitWith(Pour* s, int threads, Spin spin, bool species)
{
	memset(s, 0, sizeof(*s));
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	wd.seed = 7;
	s->world = bsWorld_Create(&wd);
	ENSURE(s->world != NULL);
	s->def = PourDef();
	s->def.interaction.rotation = spin != spinNone;
	s->def.interaction.rollingFriction = spin != spinNone ? 0.2 : 0.0;
	s->def.interaction.rollingModel = spin == spinEpsd2 || spin == spinBonds ? bs_rollingEpsd2 : bs_rollingCdt;
	s->def.interaction.bondStrength = spin == spinBonds ? 5.0 : 0.0;
	ENSURE(spin != spinOriented || bsParticles_EnableOrientation(&s->p) == bs_ok);
	s->def.interaction.sinteringTime = 0.05;
	s->def.interaction.rollingFresh = spin == spinBonds ? 0.0 : -1.0;
	double w = 0.1;
	s->planes[0] = (bsPlane){bsV3(0, 1, 0), 0.0};
	s->planes[1] = (bsPlane){bsV3(1, 0, 0), w};
	s->planes[2] = (bsPlane){bsV3(-1, 0, 0), w};
	s->planes[3] = (bsPlane){bsV3(0, 0, 1), w};
	s->planes[4] = (bsPlane){bsV3(0, 0, -1), w};
	ENSURE(bsWorld_AddPlanes(s->world, s->planes, 5) == bs_ok);
	ENSURE(bsWorld_AddStuckParticles(s->world, 0.0) == bs_ok);
	bsEmitterDef e = bsDefaultEmitterDef();
	e.shape.type = bs_emitterRandom;
	e.shape.min = bsV3(-0.06, 0.1, -0.06);
	e.shape.max = bsV3(0.06, 0.2, 0.06);
	e.radius = 0.012;
	e.radiusSpread = 0.2;
	e.rate = 2000.0;
	e.stop = 0.08;
	e.lifetime = 0.15;
	ENSURE(bsWorld_AddEmitter(s->world, &e) == bs_ok);
	bsEmitterDef g = bsDefaultEmitterDef();
	g.shape.min = bsV3(-0.05, 0.01, -0.05);
	g.shape.max = bsV3(0.05, 0.03, 0.05);
	g.shape.count[0] = 4, g.shape.count[1] = 1, g.shape.count[2] = 4;
	g.radius = 0.01;
	g.species = species ? 1 : 0;
	s->def.speciesPairs = species ? pourSpecies : NULL;
	s->def.speciesCount = species ? 2 : 0;
	ENSURE(bsWorld_AddEmitter(s->world, &g) == bs_ok);
	return 0;
}

static int Pour_InitSpin(Pour* s, int threads, Spin spin)
{
	return Pour_InitWith(s, threads, spin, false);
}

static int Pour_Init(Pour* s, int threads)
{
	return Pour_InitSpin(s, threads, spinNone);
}

static void Pour_Free(Pour* s)
{
	bsWorld_Destroy(s->world);
	bsParticles_Free(&s->p);
}

static int Steps(Pour* s, int n)
{
	for (int k = 0; k < n; ++k)
	{
		ENSURE(bsWorld_Step(s->world, &s->def, &s->p, NULL) == bs_ok);
	}
	return 0;
}

static bool SameParticles(const bsParticles* a, const bsParticles* b)
{
	size_t n = a->count;
	return n == b->count && memcmp(a->position, b->position, n * sizeof(bsVec3)) == 0 &&
		memcmp(a->velocity, b->velocity, n * sizeof(bsVec3)) == 0 &&
		memcmp(a->radius, b->radius, n * sizeof(double)) == 0 && memcmp(a->state, b->state, n) == 0 &&
		memcmp(a->id, b->id, n * sizeof(uint32_t)) == 0 && (a->spin == NULL) == (b->spin == NULL) &&
		(a->spin == NULL || memcmp(a->spin, b->spin, n * sizeof(bsVec3)) == 0) &&
		(a->species == NULL) == (b->species == NULL) && (a->species == NULL || memcmp(a->species, b->species, n) == 0) &&
		(a->orientation == NULL) == (b->orientation == NULL) &&
		(a->orientation == NULL || memcmp(a->orientation, b->orientation, n * sizeof(bsQuat)) == 0);
}

enum
{
	checkpointTrailer = 4 + 8 + 8,  // 'END ', its length, the hash
};

// The payload of the checkpoint's section tag and its length; NULL when it has none.
static uint8_t* FindSection(bsBytes* b, const char tag[4], uint64_t* length)
{
	size_t at = sizeof(BS_CHECKPOINT_MAGIC) - 1 + 4 + 4 + 8;
	while (at + 12 <= b->count - checkpointTrailer)
	{
		memcpy(length, b->data + at + 4, sizeof(*length));
		if (memcmp(b->data + at, tag, 4) == 0)
		{
			return b->data + at + 12;
		}
		at += 12 + (size_t)*length;
	}
	return NULL;
}

// The checkpoint's final hash made right after a change.
static void Rehash(bsBytes* b)
{
	uint64_t hash = bsFnv1a(BS_FNV1A_BASIS, b->data, b->count - checkpointTrailer);
	memcpy(b->data + b->count - sizeof(hash), &hash, sizeof(hash));
}

// The checkpoint with the values of section tag (after its count) zeroed and its hash made right: a
// resume that did not restore them. False when the section is not there or holds only zeros.
static bool ZeroSection(bsBytes* b, const char tag[4])
{
	uint64_t length = 0;
	uint8_t* payload = FindSection(b, tag, &length);
	bool nonzero = false;
	for (uint64_t k = 8; payload != NULL && k < length; ++k)
	{
		nonzero = nonzero || payload[k] != 0;
		payload[k] = 0;
	}
	Rehash(b);
	return nonzero;
}

static int Save(const Pour* s, bsBytes* out)
{
	memset(out, 0, sizeof(*out));
	bsCheckpoint_Begin(out, 42);
	ENSURE(bsWorld_SaveState(s->world, &s->p, out) == bs_ok);
	bsCheckpoint_End(out);
	ENSURE(!out->failed);
	return 0;
}

// Saved after `at` steps at `threads`, restored at `resumeThreads`, both stepped to `total`: the same
// particles, the same ages, and a checkpoint of each at the end with the same bytes. With `forget` (a
// section's tag), that section's values are zeroed in the checkpoint (as a resume that did not restore
// them): then the resumed run must differ.
static int ResumeCase(Spin spin, bool species, int at, int total, int threads, int resumeThreads, const char* forget)
{
	Pour a, b;
	RUN_SUBTEST(Pour_InitWith(&a, threads, spin, species));
	RUN_SUBTEST(Steps(&a, at));
	bsBytes saved;
	RUN_SUBTEST(Save(&a, &saved));
	ENSURE(forget == NULL || ZeroSection(&saved, forget));
	RUN_SUBTEST(Steps(&a, total - at));

	RUN_SUBTEST(Pour_InitWith(&b, resumeThreads, spin, species));
	bsByteReader sections;
	uint64_t hash = 0;
	char err[512] = "";
	ENSURE(bsCheckpoint_Open(saved.data, saved.count, &sections, &hash, err, sizeof(err)) && hash == 42);
	bool loaded = bsWorld_LoadState(b.world, &b.p, &sections, err, sizeof(err));
	if (!loaded)
	{
		fprintf(stderr, "load: %s\n", err);
	}
	ENSURE(loaded && sections.at == sections.count);
	RUN_SUBTEST(Steps(&b, total - at));
	if (forget != NULL)
	{
		ENSURE(!SameParticles(&a.p, &b.p));
		bsBytes_Free(&saved);
		Pour_Free(&a);
		Pour_Free(&b);
		return 0;
	}
	ENSURE(SameParticles(&a.p, &b.p));
	ENSURE(bsWorld_Time(a.world) == bsWorld_Time(b.world));
	for (size_t i = 0; i < a.p.count; ++i)
	{
		ENSURE(bsWorld_BirthTime(a.world, i) == bsWorld_BirthTime(b.world, i));
	}
	bsBytes endA, endB;
	RUN_SUBTEST(Save(&a, &endA));
	RUN_SUBTEST(Save(&b, &endB));
	ENSURE(endA.count == endB.count && memcmp(endA.data, endB.data, endA.count) == 0);
	bsBytes_Free(&endA);
	bsBytes_Free(&endB);
	bsBytes_Free(&saved);
	Pour_Free(&a);
	Pour_Free(&b);
	return 0;
}

static int Resume(int at, int total, int threads, int resumeThreads)
{
	return ResumeCase(spinNone, false, at, total, threads, resumeThreads, NULL);
}

// The pour with rotation has what the test needs: spinning particles, and with epsd2 rolling springs
// holding a torque, in the checkpoint's 'SPIN' and 'ROLL' (ZeroSection finds values there); without
// rotation neither holds a value.
static int SpinPourHasState(Spin spin)
{
	Pour s;
	RUN_SUBTEST(Pour_InitSpin(&s, 1, spin));
	RUN_SUBTEST(Steps(&s, 30));
	ENSURE(s.p.spin != NULL);
	double fastest = 0.0;
	for (size_t i = 0; i < s.p.count; ++i)
	{
		fastest = fmax(fastest, bsLength(s.p.spin[i]));
	}
	ENSURE(fastest > 1.0);
	bsBytes saved;
	RUN_SUBTEST(Save(&s, &saved));
	ENSURE(ZeroSection(&saved, "SPIN"));
	ENSURE(ZeroSection(&saved, "ROLL") == (spin >= spinEpsd2));
	ENSURE(ZeroSection(&saved, "BOND") == (spin == spinBonds));
	bsBytes_Free(&saved);
	Pour_Free(&s);
	Pour plain;
	RUN_SUBTEST(Pour_Init(&plain, 1));
	RUN_SUBTEST(Steps(&plain, 30));
	RUN_SUBTEST(Save(&plain, &saved));
	ENSURE(plain.p.spin == NULL && !ZeroSection(&saved, "SPIN") && !ZeroSection(&saved, "ROLL") &&
		!ZeroSection(&saved, "BOND"));
	bsBytes_Free(&saved);
	Pour_Free(&plain);
	return 0;
}

// Rotation saved and restored, 1 -> 1, 2 -> 2, 1 -> 2 and 2 -> 1 threads (cdt, epsd2, epsd2 with bonds);
// a resume that forgets the spins, epsd2's rolling springs or the bonds' ages goes elsewhere.
static int ResumesRotation(void)
{
	for (Spin spin = spinCdt; spin <= spinBonds; ++spin)
	{
		RUN_SUBTEST(SpinPourHasState(spin));
		RUN_SUBTEST(ResumeCase(spin, false, 25, 70, 1, 1, NULL));
		RUN_SUBTEST(ResumeCase(spin, false, 25, 70, 2, 2, NULL));
		RUN_SUBTEST(ResumeCase(spin, false, 35, 70, 1, 2, NULL));
		RUN_SUBTEST(ResumeCase(spin, false, 35, 70, 2, 1, NULL));
		RUN_SUBTEST(ResumeCase(spin, false, 25, 70, 1, 1, "SPIN"));
	}
	RUN_SUBTEST(ResumeCase(spinEpsd2, false, 25, 70, 1, 1, "ROLL"));
	RUN_SUBTEST(ResumeCase(spinBonds, false, 25, 70, 1, 1, "BOND"));
	return 0;
}

// Orientations (the spins' turns) saved in 'ORNT' and restored, 1 -> 1, 2 -> 2, 1 -> 2 and 2 -> 1
// threads: the same quaternions and the same checkpoint bytes at the end; the section is there only
// when the set keeps orientations, they have turned, and a section of zeros (no unit quaternion) is
// refused naming it.
static int ResumesOrientation(void)
{
	Pour s;
	RUN_SUBTEST(Pour_InitSpin(&s, 1, spinOriented));
	RUN_SUBTEST(Steps(&s, 30));
	ENSURE(s.p.orientation != NULL && s.p.count > 0);
	double turned = 0.0;
	for (size_t i = 0; i < s.p.count; ++i)
	{
		turned = fmax(turned, 1.0 - fabs(s.p.orientation[i].w));
	}
	ENSURE(turned > 1e-3);
	bsBytes saved;
	RUN_SUBTEST(Save(&s, &saved));
	ENSURE(ZeroSection(&saved, "ORNT"));
	bsByteReader sections;
	uint64_t hash = 0;
	char err[512] = "";
	ENSURE(bsCheckpoint_Open(saved.data, saved.count, &sections, &hash, err, sizeof(err)));
	Pour b;
	RUN_SUBTEST(Pour_InitSpin(&b, 1, spinOriented));
	ENSURE(!bsWorld_LoadState(b.world, &b.p, &sections, err, sizeof(err)));
	ENSURE(strstr(err, "section 'ORNT': particle 0: the orientation is not a unit quaternion") != NULL);
	Pour_Free(&b);
	bsBytes_Free(&saved);
	Pour_Free(&s);
	Pour spun;
	RUN_SUBTEST(Pour_InitSpin(&spun, 1, spinCdt));
	RUN_SUBTEST(Steps(&spun, 30));
	RUN_SUBTEST(Save(&spun, &saved));
	ENSURE(spun.p.orientation == NULL && FindSection(&saved, "ORNT", &(uint64_t){0}) == NULL);
	bsBytes_Free(&saved);
	Pour_Free(&spun);
	RUN_SUBTEST(ResumeCase(spinOriented, false, 25, 70, 1, 1, NULL));
	RUN_SUBTEST(ResumeCase(spinOriented, false, 25, 70, 2, 2, NULL));
	RUN_SUBTEST(ResumeCase(spinOriented, false, 35, 70, 1, 2, NULL));
	RUN_SUBTEST(ResumeCase(spinOriented, false, 35, 70, 2, 1, NULL));
	return 0;
}

// The pour itself does what the test needs: particles emitted over time, some expired, some asleep
// and stuck ones, springs in use; ages from the batches.
static int PourHasState(void)
{
	Pour s;
	RUN_SUBTEST(Pour_Init(&s, 1));
	RUN_SUBTEST(Steps(&s, 60));
	uint64_t counts[bs_particleStateCount];
	bsParticles_CountStates(&s.p, counts);
	ENSURE(s.p.count > 16 + 100);
	ENSURE(counts[bs_particleSleeping] > 0);
	// The grid's 16 were born at 0, the first random batch at 0 too, later ones later.
	ENSURE(bsWorld_BirthTime(s.world, 0) == 0.0);
	ENSURE(bsWorld_BirthTime(s.world, s.p.count - 1) > 0.05);
	RUN_SUBTEST(Steps(&s, 60));
	bsParticles_CountStates(&s.p, counts);
	ENSURE(counts[bs_particleEscaped] > 0);  // lifetimes ended
	Pour_Free(&s);
	return 0;
}

static int Refuses(const uint8_t* data, size_t n, const char* expect)
{
	Pour b;
	RUN_SUBTEST(Pour_Init(&b, 1));
	bsByteReader sections;
	uint64_t hash = 0;
	char err[512] = "";
	bool ok = bsCheckpoint_Open(data, n, &sections, &hash, err, sizeof(err)) &&
		bsWorld_LoadState(b.world, &b.p, &sections, err, sizeof(err));
	if (ok || strstr(err, expect) == NULL)
	{
		fprintf(stderr, "expected an error with \"%s\", got \"%s\"\n", expect, ok ? "(loaded)" : err);
	}
	ENSURE(!ok && strstr(err, expect) != NULL);
	Pour_Free(&b);
	return 0;
}

static int RefusesDamage(void)
{
	Pour a;
	RUN_SUBTEST(Pour_Init(&a, 1));
	RUN_SUBTEST(Steps(&a, 30));
	bsBytes saved;
	RUN_SUBTEST(Save(&a, &saved));
	RUN_SUBTEST(Refuses(saved.data, 10, "not a blobsim checkpoint"));
	RUN_SUBTEST(Refuses(saved.data, 40, "cut short"));
	RUN_SUBTEST(Refuses(saved.data, saved.count - 1, "cut short or altered"));
	RUN_SUBTEST(Refuses(saved.data, saved.count / 2, "cut short or altered"));
	uint8_t* copy = malloc(saved.count);
	ENSURE(copy != NULL);
	memcpy(copy, saved.data, saved.count);
	copy[saved.count / 2] ^= 1;
	RUN_SUBTEST(Refuses(copy, saved.count, "do not match the hash"));
	memcpy(copy, saved.data, saved.count);
	copy[sizeof(BS_CHECKPOINT_MAGIC) - 1] = 9;  // the version
	RUN_SUBTEST(Refuses(copy, saved.count, "version 9"));
	free(copy);

	// A world of other settings (one emitter fewer) refuses the sections, naming the one.
	Pour b;
	RUN_SUBTEST(Pour_Init(&b, 1));
	bsWorld_Destroy(b.world);
	bsWorldDef wd = bsDefaultWorldDef();
	b.world = bsWorld_Create(&wd);
	ENSURE(bsWorld_AddPlanes(b.world, b.planes, 5) == bs_ok && bsWorld_AddStuckParticles(b.world, 0.0) == bs_ok);
	bsByteReader sections;
	uint64_t hash;
	char err[512] = "";
	ENSURE(bsCheckpoint_Open(saved.data, saved.count, &sections, &hash, err, sizeof(err)));
	ENSURE(!bsWorld_LoadState(b.world, &b.p, &sections, err, sizeof(err)));
	ENSURE(strstr(err, "section 'EMIT': 2 emitters, not the config's 0") != NULL);
	Pour_Free(&b);
	bsBytes_Free(&saved);
	Pour_Free(&a);
	return 0;
}

// A checkpoint of the pour with `size` bytes at `offset` of section tag's payload replaced
// (its hash made right) is refused with `expect`.
static int RefusesChanged(Pour* a, const char tag[4], size_t offset, const void* value, size_t size,
	const char* expect)
{
	bsBytes saved;
	RUN_SUBTEST(Save(a, &saved));
	uint64_t length = 0;
	uint8_t* payload = FindSection(&saved, tag, &length);
	ENSURE(payload != NULL && offset + size <= length);
	memcpy(payload + offset, value, size);
	Rehash(&saved);
	RUN_SUBTEST(Refuses(saved.data, saved.count, expect));
	bsBytes_Free(&saved);
	return 0;
}

// Damaged spins, rolling springs and bond ages are refused, naming the section, the particle and the fault.
static int RefusesSpinDamage(void)
{
	Pour a;
	RUN_SUBTEST(Pour_InitSpin(&a, 1, spinBonds));
	RUN_SUBTEST(Steps(&a, 30));
	double nan = NAN;
	float inf = INFINITY;
	uint64_t count = a.p.count + 1, none = 0, three = 3;
	size_t spring = 8 * 12;  // a particle's rolling springs (BS_CONTACT_SPRINGS), 3 floats each
	RUN_SUBTEST(RefusesChanged(&a, "SPIN", 8 + 3 * 24 + 8, &nan, sizeof(nan), "section 'SPIN': particle 3: spin ("));
	RUN_SUBTEST(RefusesChanged(&a, "SPIN", 0, &count, sizeof(count), "section 'SPIN': "));
	RUN_SUBTEST(RefusesChanged(&a, "SPIN", 0, &none, sizeof(none), "spins for"));
	RUN_SUBTEST(RefusesChanged(&a, "ROLL", 8 + 5 * spring + 12 + 4, &inf, sizeof(inf),
		"section 'ROLL': particle 5's rolling spring 1 is not finite"));
	RUN_SUBTEST(RefusesChanged(&a, "ROLL", 0, &three, sizeof(three), "section 'ROLL': 3 particles' rolling springs"));
	RUN_SUBTEST(RefusesChanged(&a, "ROLL", 0, &count, sizeof(count), "section 'ROLL': "));
	RUN_SUBTEST(RefusesChanged(&a, "BOND", 8 + 6 * 8 * 4 + 2 * 4, &inf, sizeof(inf),
		"section 'BOND': particle 6's bond age 2 is not finite"));
	RUN_SUBTEST(RefusesChanged(&a, "BOND", 0, &three, sizeof(three), "section 'BOND': 3 particles' bond ages"));
	Pour_Free(&a);
	return 0;
}

static bool Collect(void* context, const void* data, size_t n)
{
	bsBytes_Put(context, data, n);
	return true;
}

static bool Refuse(void* context, const void* data, size_t n)
{
	(void)context, (void)data, (void)n;
	return false;
}

// Streamed through a sink in pieces of about 100 bytes, the checkpoint has the memory one's bytes, and
// a sink that fails makes the buffer fail.
static int Streams(void)
{
	Pour a;
	RUN_SUBTEST(Pour_Init(&a, 1));
	RUN_SUBTEST(Steps(&a, 40));
	bsBytes whole;
	RUN_SUBTEST(Save(&a, &whole));
	bsBytes collected = {0};
	bsBytes streamed = {.sink = Collect, .context = &collected, .flushAt = 100};
	bsCheckpoint_Begin(&streamed, 42);
	ENSURE(bsWorld_SaveState(a.world, &a.p, &streamed) == bs_ok);
	bsCheckpoint_End(&streamed);
	ENSURE(!streamed.failed && streamed.count == 0 && streamed.flushed == whole.count);
	ENSURE(streamed.capacity < 4096);  // the large arrays went through in pieces
	ENSURE(collected.count == whole.count && memcmp(collected.data, whole.data, whole.count) == 0);
	bsBytes_Free(&streamed);
	bsBytes refused = {.sink = Refuse, .flushAt = 100};
	bsCheckpoint_Begin(&refused, 42);
	bsWorld_SaveState(a.world, &a.p, &refused);
	ENSURE(refused.failed && refused.flushed > 0);
	bsBytes_Free(&refused);
	bsBytes_Free(&collected);
	bsBytes_Free(&whole);
	Pour_Free(&a);
	return 0;
}

// Two species (the grid's not touching the poured particles) saved and restored across thread counts;
// a resume that forgets the species ('SPEC': every particle species 0, all touching) goes elsewhere.
static int ResumesSpecies(void)
{
	Pour s;
	RUN_SUBTEST(Pour_InitWith(&s, 1, spinNone, true));
	RUN_SUBTEST(Steps(&s, 30));
	ENSURE(s.p.species != NULL && s.p.species[0] == 0 && s.p.species[s.p.count - 1] == 0);
	size_t ones = 0;
	for (size_t i = 0; i < s.p.count; ++i)
	{
		ones += s.p.species[i] == 1;
	}
	ENSURE(ones == 16);  // the grid's
	Pour_Free(&s);
	RUN_SUBTEST(ResumeCase(spinNone, true, 25, 80, 1, 2, NULL));
	RUN_SUBTEST(ResumeCase(spinNone, true, 35, 80, 2, 1, NULL));
	RUN_SUBTEST(ResumeCase(spinNone, true, 25, 80, 1, 1, "SPEC"));
	return 0;
}

int CheckpointTest(void)
{
	RUN_SUBTEST(Streams());
	RUN_SUBTEST(PourHasState());
	RUN_SUBTEST(Resume(1, 40, 1, 1));
	RUN_SUBTEST(Resume(25, 80, 1, 1));
	RUN_SUBTEST(Resume(25, 80, 2, 2));
	RUN_SUBTEST(Resume(60, 120, 1, 2));
	RUN_SUBTEST(Resume(45, 90, 2, 1));
	RUN_SUBTEST(RefusesDamage());
	RUN_SUBTEST(ResumesRotation());
	RUN_SUBTEST(RefusesSpinDamage());
	RUN_SUBTEST(ResumesSpecies());
	RUN_SUBTEST(ResumesOrientation());
	return 0;
}
