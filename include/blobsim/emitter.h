// emitter.h — where particles come from. An emitter is a shape that places positions (a lattice
// filling a box, optionally jittered; uniform random points in a box) or a list of particles given
// as they are (read from a file by the caller), with the radius and velocity its particles get.
// A world (world.h) emits its emitters' particles in the step's emit phase.
#pragma once

#include "blobsim/particles.h"
#include "blobsim/result.h"
#include "blobsim/rng.h"
#include "blobsim/vec3.h"

#include <stddef.h>
#include <stdint.h>

typedef enum bsEmitterType
{
	bs_emitterGrid = 0,  // count[0] x count[1] x count[2] cell centres of [min, max], x fastest, then y, z
	bs_emitterRandom,    // count[0] uniform points in [min, max]
	bs_emitterList,      // the particles of bsEmitterDef.list, as given
	bs_emitterTypeCount
} bsEmitterType;

// The shape of a grid or random emitter.
typedef struct bsEmitter
{
	bsEmitterType type;
	bsVec3 min, max;
	uint64_t count[3];  // grid: per axis; random: count[0]
	double jitter;      // grid: each point moves up to +-jitter/2 cells on each axis, 0..1
} bsEmitter;

// An emitter of a world: a shape and what its particles are like, or a list.
typedef struct bsEmitterDef
{
	bsEmitter shape;            // shape.type says which kind; min, max, count, jitter for grid/random
	double radius;              // grid/random: the particles' radius, > 0
	double radiusSpread;        // radii uniform in radius * [1 - s, 1 + s], s in [0, 1]
	bsVec3 velocity;            // grid/random: every particle's initial velocity
	const bsParticleDef* list;  // list: the particles (borrowed until emitted), each checked
	size_t listCount;
} bsEmitterDef;

// Fills a def with the defaults: a grid of one particle in the unit cube, radius 1, at rest.
bsEmitterDef bsDefaultEmitterDef(void);

// Number of particles the emitter makes; bs_errTooLarge when the product overflows or exceeds
// `limit`.
bsResult bsEmitter_Count(const bsEmitter* emitter, uint64_t limit, uint64_t* count);

// Writes bsEmitter_Count positions (grid or random). The random stream is consumed in emission
// order, so the same seed and emitters give the same particles.
void bsEmitter_Emit(const bsEmitter* emitter, bsRng* rng, bsVec3* positions);

// How many particles def makes (a list's count, else bsEmitter_Count); bs_errTooLarge over limit.
bsResult bsEmitterDef_Count(const bsEmitterDef* def, uint64_t limit, uint64_t* count);

// Appends every particle of def to particles: positions from the shape, then (when radiusSpread > 0)
// one draw per particle for its radius, all from rng; a list as given. Every particle passes
// bsParticleDef_Check; on the first that fails, *failed is its index within the emitter, the
// particles appended so far stay and the result is bs_errInvalidArgument or bs_errNonFinite.
bsResult bsEmitterDef_Emit(const bsEmitterDef* def, bsRng* rng, bsParticles* particles,
	size_t* failed);
