// run_checkpoint.h — `blobsim run`'s checkpoint file, DIR/checkpoint.blobsim (output.checkpoint), and
// what `blobsim run --resume DIR` reads back.
//
// The file is the engine's checkpoint (blobsim/checkpoint.h: the magic, the version, the settings hash,
// an 'END ' hash over every byte) with the run's own section first:
//   'RUN '  the step reached, the frames written, the summary's counts (bsStepStats), the config's
//           path as given and made absolute, and the --set overrides as given (so `run --resume DIR`
//           needs no CONFIG; the path as given when it still names the same file)
// then the world's sections. The settings hash is the config's (bsConfig.hash: its JSON after the
// overrides) with every input file's size and content hash (inputs.h, and the bodies' OBJ files): a
// resume whose config or OBJ or PLY changed is refused.
#pragma once

#include "config.h"
#include "inputs.h"

#include "blobsim/checkpoint.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BS_CHECKPOINT_NAME "checkpoint.blobsim"

// What the run adds to the world's state.
typedef struct bsRunProgress
{
	int step;           // the steps done (the next is step + 1)
	int frames;         // the frames written (the next is frame `frames`)
	bsStepStats stats;  // summed over the steps done
} bsRunProgress;

// A checkpoint read: the run's section parsed, the world's still to restore.
typedef struct bsRunCheckpoint
{
	uint8_t* data;  // the file's bytes (owned, NULL for bsRunCheckpoint_Parse's caller's)
	size_t size;
	uint64_t hash;  // the settings hash it was written with
	bsRunProgress progress;
	char* config;        // the config's path (owned)
	char** overrides;    // --set KEY=VALUE as given (owned), overrideCount of them
	int overrideCount;
	bsByteReader world;  // the world's sections
} bsRunCheckpoint;

// The settings hash of a run: the config's hash and its input files'.
uint64_t bsRunCheckpoint_Hash(const bsConfig* config, const bsInputList* inputs);

// Writes DIR/checkpoint.blobsim through atomic_file.h (so it joins the run's deferred group).
// configPath as the run was given it (kept, and made absolute). False with a message naming the file,
// also when the world has state a checkpoint cannot hold yet (bsWorld_CheckpointGap).
bool bsRunCheckpoint_Write(const char* dir, uint64_t hash, const char* configPath, const char* const* overrides,
	int overrideCount, const bsRunProgress* progress, const bsWorld* world, const bsParticles* particles, char* err,
	size_t errlen);

// Reads DIR/checkpoint.blobsim: the frame and the run's section. False, with "PATH: why" in err (no
// checkpoint, cut short, altered, another version); *k is then empty.
bool bsRunCheckpoint_Read(const char* dir, bsRunCheckpoint* k, char* err, size_t errlen);

// The same over bytes in memory, borrowed (name for messages): the fuzzing target's entry.
bool bsRunCheckpoint_Parse(const uint8_t* data, size_t size, const char* name, bsRunCheckpoint* k, char* err,
	size_t errlen);

// The world's sections into a world made from the same settings, before any step, and empty
// particles; false, with "NAME: why", when they do not fit it. hash: the run's settings hash, which
// must be the checkpoint's.
bool bsRunCheckpoint_Restore(const bsRunCheckpoint* k, const char* name, uint64_t hash, bsWorld* world,
	bsParticles* particles, char* err, size_t errlen);

void bsRunCheckpoint_Free(bsRunCheckpoint* k);
