// emission.h — the config's emitters as the world's: the PLY files of `file` emitters read and every
// particle in them checked (bsParticleDef_Check, the check every particle passes), then every emitter
// handed to the world, whose step emits them.
#pragma once

#include "config.h"

#include "blobsim/world.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct bsEmission
{
	bsParticleDef** lists;  // per emitter of the config: a file emitter's particles, else NULL
	size_t* listCounts;
	int count;              // the config's emitters
	uint64_t total;         // particles of every emitter, <= BS_CONFIG_MAX_PARTICLES
} bsEmission;

// Reads and checks the particle files, and counts every particle. Absent PLY properties take the
// config's radius and velocity, and state free. On failure err holds `file: message` (`file: vertex
// K: radius 0 is not positive` for a particle that fails its check) and *emission is freed.
bool bsEmission_Load(bsEmission* emission, const bsConfig* config, char* err, size_t errlen);

// Adds every emitter, in the config's order, to the world (which borrows the lists).
bsResult bsEmission_AddToWorld(const bsEmission* emission, const bsConfig* config, bsWorld* world);

void bsEmission_Free(bsEmission* emission);
