// emission.h — the config's emitters as the world's: the PLY files of `file` emitters read and every
// particle in them checked (bsParticleDef_Check, the check every particle passes), the triangles of
// `surface` emitters found in the environment (a mesh's, or a moving body's rest mesh), then every emitter handed to the world, whose step
// emits them.
#pragma once

#include "config.h"
#include "environment.h"

#include "blobsim/field.h"
#include "blobsim/world.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct bsEmission
{
	bsParticleDef** lists;  // per emitter of the config: a file emitter's particles, else NULL
	size_t* listCounts;
	bsSurface* surfaces;    // per emitter: a surface emitter's triangles (the environment's, borrowed)
	double** cumulative;    // and its table of cumulative areas (owned), else NULL
	uint8_t** turn;         // and its faces wound inward (owned: bsOrientation_Outside), else NULL
	bsOrientation* orientation;  // per emitter: what bsOrientation_Outside found (a surface's)
	const bsBody** bodies;  // per emitter: the body a surface emitter rides (environment's), else NULL
	int count;              // the config's emitters
	uint64_t total;         // particles of every emitter, <= BS_CONFIG_MAX_PARTICLES
} bsEmission;

// Reads and checks the particle files, finds the surfaces' triangles in env, and counts every
// particle. A surface emits off the outside of its mesh's closed pieces whatever their winding
// (bsOrientation_Outside over the whole mesh; `side: "back"` then means the inside). Absent PLY
// properties take the config's radius and velocity, and state free; a file's
// ids are not kept (its particles are numbered in birth order, as every particle is). A surface
// emits from its mesh's triangles, or from those of the groups its `group` selects (the groups of
// the name's best match, as for materials), weighted by area. On failure err holds `file: message`
// (`file: vertex K: radius 0 is not positive` for a particle that fails its check) or `config:
// particles.emitters[K].group: no group 'G' in FILE (groups: ...)`, and *emission is freed.
bool bsEmission_Load(bsEmission* emission, const bsConfig* config, const bsEnvironment* env, char* err,
	size_t errlen);

// What surface emitter k did about its mesh's winding, in out: `particles.emitters[K]: N of M faces
// of FILE are wound inward; emitting off their outside` (and the faces on open pieces, which have no
// inside, when there are). False (out "") when no face was turned round.
bool bsEmission_DescribeWinding(const bsEmission* emission, const bsConfig* config, int k, char* out,
	size_t size);

// Adds every emitter, in the config's order, to the world (which borrows the lists and surfaces:
// emission and the environment must outlive it).
bsResult bsEmission_AddToWorld(const bsEmission* emission, const bsConfig* config, bsWorld* world);

void bsEmission_Free(bsEmission* emission);
