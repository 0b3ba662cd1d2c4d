// particles.h — the particle set, as arrays (57 bytes a particle).
#pragma once

#include "blobsim/result.h"
#include "blobsim/vec3.h"

#include <stddef.h>
#include <stdint.h>

typedef enum bsParticleState
{
	bs_particleFree = 0,     // moving
	bs_particleStuck = 1,    // stopped for good by a contact (the 'stick' response)
	bs_particleEscaped = 2,  // left the scene bounds; no longer simulated
	bs_particleStateCount
} bsParticleState;

typedef struct bsParticles
{
	size_t count;
	bsVec3* position;  // centres
	bsVec3* velocity;
	double* radius;    // collision radius
	uint8_t* state;    // bsParticleState
} bsParticles;

// Allocates room for count particles, zeroed (free, at rest at the origin). Checks the sizes for
// overflow; bs_errOutOfMemory on failure with nothing allocated.
bsResult bsParticles_Alloc(bsParticles* particles, size_t count);

void bsParticles_Free(bsParticles* particles);

// Counts per state into counts[bs_particleStateCount].
void bsParticles_CountStates(const bsParticles* particles, uint64_t counts[bs_particleStateCount]);

const char* bsParticleStateName(bsParticleState state);
