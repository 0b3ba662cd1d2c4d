// particles.h — the particle set, as arrays (61 bytes a particle, 62 with several species, 32 more
// with orientations), and the one check every particle passes on its way in, whether an emitter made it or a file held it.
#pragma once

#include "blobsim/base.h"
#include "blobsim/quat.h"
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum bsParticleState
{
	bs_particleFree = 0,     // moving
	bs_particleStuck = 1,    // stopped for good by a contact (the 'stick' response)
	bs_particleEscaped = 2,  // left the scene bounds; no longer simulated
	bs_particleSleeping = 3, // at rest: not integrated until a moving particle touches it (step.h)
	bs_particleStateCount
} bsParticleState;

typedef struct bsParticles
{
	size_t count;
	size_t capacity;   // room in every array
	bsVec3* position;  // centres
	bsVec3* velocity;
	double* radius;    // collision radius
	uint8_t* state;    // bsParticleState
	bsVec3* spin;      // angular velocity, rad/s: NULL (no spin) until bsParticles_EnableSpin (a step
	                   // with rotation calls it); then grown with the others, new particles at rest
	uint32_t* id;      // birth order: the particle's index when it joined the set (Alloc, Append and
	                   // the emitters set it). Particles never leave a set (expiry marks them
	                   // escaped), so ids are unique and follow a particle if its slot ever moves.
	uint8_t* species;  // each particle's species (the config's particles[k]): NULL (all species 0) until
	                   // a particle of another species joins (bsParticles_SetSpecies); then grown with
	                   // the others, new slots species 0
	bsQuat* orientation;  // each particle's turn from its birth pose (unit quaternion): NULL until
	                   // bsParticles_EnableOrientation (a program drawing instances turned by the spins
	                   // asks for it); then grown with the others, new particles unturned; a step with
	                   // rotation turns it by each substep's spin (bsQuat_Integrate)
} bsParticles;

// The most particles a set holds: every id fits its uint32_t.
#define BS_PARTICLES_MAX ((size_t)UINT32_MAX + 1)

// One particle on its way into a set.
typedef struct bsParticleDef
{
	bsVec3 position;
	bsVec3 velocity;
	double radius;
	uint8_t state;  // bsParticleState
	bsVec3 spin;    // angular velocity, rad/s (a set without a spin array gets one for a non-zero spin)
} bsParticleDef;

// What is wrong with a particle (bsParticleDef_Check).
typedef enum bsParticleFault
{
	bs_particleOk = 0,
	bs_particleBadPosition,  // a coordinate is NaN or infinite
	bs_particleBadVelocity,  // a component is NaN or infinite
	bs_particleBadRadius,    // the radius is not a finite number > 0
	bs_particleBadState,     // not a bsParticleState
	bs_particleBadSpin,      // a component is NaN or infinite
} bsParticleFault;

// The check every particle passes before it joins a set (bsParticles_Append, the emitters, the
// readers of particle files): a finite position, velocity and spin, a finite radius > 0, a known state.
bsParticleFault bsParticleDef_Check(const bsParticleDef* particle);

// "radius 0 is not positive", "position (1, nan, 0) is not finite", ... for messages; into out.
void bsParticleFault_Describe(bsParticleFault fault, const bsParticleDef* particle, char* out,
	size_t size);

// Allocates room for count particles, zeroed (free, at rest at the origin) and numbered 0 .. count - 1,
// count of them in use. Checks the sizes for overflow; bs_errOutOfMemory on failure with nothing
// allocated.
bsResult bsParticles_Alloc(bsParticles* particles, size_t count);

// Grows the arrays to hold at least capacity particles (keeping those there). bs_errOutOfMemory
// (bs_errTooLarge beyond BS_PARTICLES_MAX) leaves the set as it was.
bsResult bsParticles_Reserve(bsParticles* particles, size_t capacity);

// Checks the particle (bsParticleDef_Check: bs_errNonFinite or bs_errInvalidArgument when it fails,
// the set unchanged) and appends it with the next id, growing the arrays geometrically when full.
bsResult bsParticles_Append(bsParticles* particles, const bsParticleDef* particle);

// Gives the set its spin array (zeroed: every particle at rest), when it has none. bs_errOutOfMemory
// leaves it without.
bsResult bsParticles_EnableSpin(bsParticles* particles);

// Sets the spin of slot i (< capacity), giving the set its spin array first when it has none and spin
// is not 0 (bs_errOutOfMemory when that fails).
bsResult bsParticles_SetSpin(bsParticles* particles, size_t i, bsVec3 spin);

// Gives the set its orientation array (every particle unturned: the identity), when it has none; an
// empty set too (its particles get theirs as they join). bs_errOutOfMemory leaves it without.
bsResult bsParticles_EnableOrientation(bsParticles* particles);

// Sets the species of slots [first, end) (end <= capacity), giving the set its species array first (zeroed)
// when it has none and species is not 0 (a particle joins as species 0: the world's emit phase sets its
// emitter's, emitter.h). bs_errOutOfMemory leaves it as it was.
bsResult bsParticles_SetSpecies(bsParticles* particles, size_t first, size_t end, uint8_t species);

// Frees the arrays and zeroes the set (a zeroed set is an empty one that Append can grow).
void bsParticles_Free(bsParticles* particles);

// Counts per state into counts[bs_particleStateCount].
void bsParticles_CountStates(const bsParticles* particles, uint64_t counts[bs_particleStateCount]);

const char* bsParticleStateName(bsParticleState state);
