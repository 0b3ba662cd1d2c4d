// fuzz_checkpoint.c — libFuzzer target for the checkpoint reader: bsRunCheckpoint_Parse (the file's
// frame and the run's section, app/commands/run_checkpoint.h) and bsRunCheckpoint_Restore (the world's
// sections, blobsim/checkpoint.h) into a fixed world: planes, the stuck particles' collider, a rate, an
// at-once and a trail emitter, a keyframed body (the seeds in corpus/checkpoint/ are checkpoints of this
// world, without and with rotation (epsd2: spins, rolling springs), written by this file built with
// -DBS_FUZZ_WRITE_SEEDS, see README.md).
//
// Each input is read twice: as it is, and with its final hash made right, so that mutations reach the
// sections behind it. On success: the progress is in range, every particle passes bsParticleDef_Check
// (with its spin), the world saves again, and one step of it runs (with rotation when it has spins; an
// error such as bs_errUnstable is fine, a crash or a sanitizer finding is not). On failure: the message is set and names the input.
#include "run_checkpoint.h"

#include "blobsim/body.h"
#include "blobsim/checkpoint.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void bsFuzzCheck(int ok)
{
	if (!ok)
	{
		abort();
	}
}

typedef struct bsFuzzWorld
{
	bsWorld* world;
	bsBody* body;
	bsStepDef def;
	bsPlane planes[2];
	bsTriangle box[2];
} bsFuzzWorld;

static bool bsFuzzWorld_Make(bsFuzzWorld* w)
{
	memset(w, 0, sizeof(*w));
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 1;
	w->world = bsWorld_Create(&wd);
	w->planes[0] = (bsPlane){bsV3(0, 1, 0), 0.0};
	w->planes[1] = (bsPlane){bsV3(1, 0, 0), 0.5};
	bsMakeTriangle(bsV3(-0.2, 0, -0.2), bsV3(0.2, 0, 0.2), bsV3(0.2, 0, -0.2), w->box);
	bsMakeTriangle(bsV3(-0.2, 0, -0.2), bsV3(-0.2, 0, 0.2), bsV3(0.2, 0, 0.2), w->box + 1);
	bsVec3Key keys[2] = {{0.0, bsV3(0, 0.2, 0)}, {1.0, bsV3(0.2, 0.1, 0)}};
	bsBodyDef bd = bsDefaultBodyDef();
	bd.triangles = w->box;
	bd.triangleCount = 2;
	bd.keys.translate = keys;
	bd.keys.translateCount = 2;
	bsEmitterDef rate = bsDefaultEmitterDef();
	rate.shape.type = bs_emitterRandom;
	rate.shape.min = bsV3(-0.2, 0.3, -0.2);
	rate.shape.max = bsV3(0.2, 0.4, 0.2);
	rate.radius = 0.02;
	rate.rate = 500.0;
	rate.stop = 0.2;
	rate.lifetime = 0.3;
	bsEmitterDef grid = bsDefaultEmitterDef();
	grid.shape.min = bsV3(-0.2, 0.02, -0.2);
	grid.shape.max = bsV3(0.2, 0.04, 0.2);
	grid.shape.count[0] = 3, grid.shape.count[1] = 1, grid.shape.count[2] = 3;
	grid.radius = 0.02;
	// Sparks from every particle of species 0 (species 1, so they make none of their own): 'TRAL' holds
	// each source's births.
	bsEmitterDef trail = bsDefaultEmitterDef();
	trail.shape.type = bs_emitterTrail;
	trail.shape.trail.source = 0;
	trail.shape.trail.inherit = 0.5;
	trail.species = 1;
	trail.radius = 0.01;
	trail.rate = 6.0;
	trail.lifetime = 0.04;
	bool ok = w->world != NULL && bsWorld_AddPlanes(w->world, w->planes, 2) == bs_ok &&
		bsBody_Create(&bd, &w->body) == bs_ok && bsWorld_AddBody(w->world, w->body) == bs_ok &&
		bsWorld_AddStuckParticles(w->world, 0.0) == bs_ok && bsWorld_AddEmitter(w->world, &rate) == bs_ok &&
		bsWorld_AddEmitter(w->world, &grid) == bs_ok && bsWorld_AddEmitter(w->world, &trail) == bs_ok;
	w->def = bsDefaultStepDef();
	w->def.dt = 0.02;
	w->def.substeps = 0;
	w->def.maxSubsteps = 200;
	w->def.gravity = bsV3(0, -9.81, 0);
	w->def.response = bs_responseStick;
	w->def.interaction.type = bs_interactionGranular;
	w->def.interaction.contactTime = 0.02;
	w->def.interaction.tangentialStiffness = 0.3;
	w->def.sleepSteps = 2;
	w->def.sleepSpeed = 0.05;
	w->def.interaction.rollingFriction = 0.2;
	w->def.interaction.rollingModel = bs_rollingEpsd2;
	return ok;
}

static void bsFuzzWorld_Free(bsFuzzWorld* w)
{
	bsWorld_Destroy(w->world);
	bsBody_Destroy(w->body);
}

static void bsFuzzRead(const uint8_t* data, size_t size)
{
	bsRunCheckpoint k;
	char err[1024] = "";
	if (!bsRunCheckpoint_Parse(data, size, "fuzz", &k, err, sizeof(err)))
	{
		bsFuzzCheck(strncmp(err, "fuzz: ", 6) == 0 && k.config == NULL && k.overrides == NULL);
		return;
	}
	bsFuzzCheck(k.progress.step >= 0 && k.progress.frames >= 0 && k.config != NULL);
	for (int i = 0; i < k.overrideCount; ++i)
	{
		bsFuzzCheck(k.overrides[i] != NULL);
	}
	bsFuzzWorld w;
	bsParticles p;
	memset(&p, 0, sizeof(p));
	if (bsFuzzWorld_Make(&w))
	{
		if (bsRunCheckpoint_Restore(&k, "fuzz", k.hash, w.world, &p, err, sizeof(err)))
		{
			for (size_t i = 0; i < p.count; ++i)
			{
				bsVec3 spin = p.spin != NULL ? p.spin[i] : bsV3(0.0, 0.0, 0.0);
				bsParticleDef d = {p.position[i], p.velocity[i], p.radius[i], p.state[i], spin};
				bsFuzzCheck(bsParticleDef_Check(&d) == bs_particleOk);
			}
			bsBytes again = {0};
			bsFuzzCheck(bsWorld_SaveState(w.world, &p, &again) == bs_ok);
			bsBytes_Free(&again);
			w.def.interaction.rotation = p.spin != NULL;
			bsWorld_Step(w.world, &w.def, &p, NULL);
		}
		else
		{
			bsFuzzCheck(strncmp(err, "fuzz: ", 6) == 0);
		}
	}
	bsParticles_Free(&p);
	bsFuzzWorld_Free(&w);
	bsRunCheckpoint_Free(&k);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	bsFuzzRead(data, size);
	// The same with its final hash made right: the 'END ' section is the last 20 bytes.
	if (size >= 20 && memcmp(data + size - 20, "END ", 4) == 0)
	{
		uint8_t* fixed = malloc(size);
		if (fixed != NULL)
		{
			memcpy(fixed, data, size);
			uint64_t hash = bsFnv1a(BS_FNV1A_BASIS, fixed, size - 20);
			memcpy(fixed + size - 8, &hash, sizeof(hash));
			bsFuzzRead(fixed, size);
			free(fixed);
		}
	}
	return 0;
}

#ifdef BS_FUZZ_WRITE_SEEDS
// The seed corpus: checkpoints of the fuzz world after 1, 5 and 12 steps (emitting, with a lifetime,
// particles stuck to the body, asleep, trail counts), and with rotation after 5 and 12 (spinning, rolling springs:
// 'SPIN' and 'ROLL' hold values), written into the folder given.
static void bsFuzzWriteSeeds(const char* dir, bool rotation)
{
	bsFuzzWorld w;
	bsParticles p;
	memset(&p, 0, sizeof(p));
	bsFuzzCheck(bsFuzzWorld_Make(&w));
	w.def.interaction.rotation = rotation;
	const char* overrides[] = {"motion.steps=12"};
	for (int step = 1; step <= 12; ++step)
	{
		bsStepStats stats = {0};
		bsFuzzCheck(bsWorld_Step(w.world, &w.def, &p, &stats) == bs_ok);
		if ((step == 1 && !rotation) || step == 5 || step == 12)
		{
			char name[64];
			snprintf(name, sizeof(name), "world-%sstep-%02d", rotation ? "spin-" : "", step);
			bsRunProgress progress = {step, step / 2 + 1, stats};
			char err[1024];
			bsFuzzCheck(bsRunCheckpoint_Write(dir, 0x1234, "fuzz.json", overrides, step == 5 ? 1 : 0, &progress,
				w.world, &p, err, sizeof(err)));
			char from[4200], to[4200];
			snprintf(from, sizeof(from), "%s/%s", dir, BS_CHECKPOINT_NAME);
			snprintf(to, sizeof(to), "%s/%s", dir, name);
			bsFuzzCheck(rename(from, to) == 0);
		}
	}
	bsFuzzCheck(!rotation || p.spin != NULL);
	bsParticles_Free(&p);
	bsFuzzWorld_Free(&w);
}

int main(int argc, char** argv)
{
	if (argc != 2)
	{
		return 2;
	}
	bsFuzzWriteSeeds(argv[1], false);
	bsFuzzWriteSeeds(argv[1], true);
	return 0;
}
#endif
