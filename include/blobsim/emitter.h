// emitter.h — where particles start: a lattice filling a box (optionally jittered) or uniform random
// points in a box. Positions only; radii and velocities are the caller's (the config's). The `file`
// emitter of a config reads a PLY (ply.h) instead.
#pragma once

#include "blobsim/result.h"
#include "blobsim/rng.h"
#include "blobsim/vec3.h"

#include <stddef.h>
#include <stdint.h>

typedef enum bsEmitterType
{
	bs_emitterGrid = 0,  // count[0] x count[1] x count[2] cell centres of [min, max], x fastest, then y, z
	bs_emitterRandom,    // count[0] uniform points in [min, max]
} bsEmitterType;

typedef struct bsEmitter
{
	bsEmitterType type;
	bsVec3 min, max;
	uint64_t count[3];  // grid: per axis; random: count[0]
	double jitter;      // grid: each point moves up to +-jitter/2 cells on each axis, 0..1
} bsEmitter;

// Number of particles the emitter makes; bs_errTooLarge when the product overflows or exceeds
// `limit`.
bsResult bsEmitter_Count(const bsEmitter* emitter, uint64_t limit, uint64_t* count);

// Writes bsEmitter_Count positions. The random stream is consumed in emission order, so the same
// seed and emitters give the same particles.
void bsEmitter_Emit(const bsEmitter* emitter, bsRng* rng, bsVec3* positions);
