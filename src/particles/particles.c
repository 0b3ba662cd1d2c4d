#include "blobsim/particles.h"

#include "array.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
	bs_bytesPerParticle = 2 * sizeof(bsVec3) + sizeof(double) + sizeof(uint8_t) + sizeof(uint32_t),
};

bsParticleFault bsParticleDef_Check(const bsParticleDef* p)
{
	if (!bsIsValidVec3(p->position))
	{
		return bs_particleBadPosition;
	}
	if (!bsIsValidVec3(p->velocity))
	{
		return bs_particleBadVelocity;
	}
	if (!(p->radius > 0.0) || !isfinite(p->radius))
	{
		return bs_particleBadRadius;
	}
	if (!bsIsValidVec3(p->spin))
	{
		return bs_particleBadSpin;
	}
	return p->state < bs_particleStateCount ? bs_particleOk : bs_particleBadState;
}

void bsParticleFault_Describe(bsParticleFault fault, const bsParticleDef* p, char* out, size_t size)
{
	switch (fault)
	{
		case bs_particleOk:
			snprintf(out, size, "ok");
			return;
		case bs_particleBadPosition:
			snprintf(out, size, "position (%g, %g, %g) is not finite", p->position.x, p->position.y,
				p->position.z);
			return;
		case bs_particleBadVelocity:
			snprintf(out, size, "velocity (%g, %g, %g) is not finite", p->velocity.x, p->velocity.y,
				p->velocity.z);
			return;
		case bs_particleBadRadius:
			snprintf(out, size, "radius %g is not positive", p->radius);
			return;
		case bs_particleBadState:
			snprintf(out, size, "state %u is not a particle state", (unsigned)p->state);
			return;
		case bs_particleBadSpin:
			snprintf(out, size, "spin (%g, %g, %g) is not finite", p->spin.x, p->spin.y, p->spin.z);
			return;
	}
	snprintf(out, size, "unknown fault");
}

bsResult bsParticles_Reserve(bsParticles* p, size_t capacity)
{
	if (capacity <= p->capacity)
	{
		return bs_ok;
	}
	if (capacity > SIZE_MAX / bs_bytesPerParticle)
	{
		return bs_errOutOfMemory;
	}
	if (capacity > BS_PARTICLES_MAX)
	{
		return bs_errTooLarge;
	}
	// Each array grows on its own; one that fails leaves the others larger, which is harmless: the
	// capacity only moves up once all of them succeeded.
	if (!BS_ARRAY_RESIZE(p->position, capacity) || !BS_ARRAY_RESIZE(p->velocity, capacity) ||
		!BS_ARRAY_RESIZE(p->radius, capacity) || !BS_ARRAY_RESIZE(p->state, capacity) ||
		!BS_ARRAY_RESIZE(p->id, capacity))
	{
		return bs_errOutOfMemory;
	}
	if (p->spin != NULL)
	{
		if (!BS_ARRAY_RESIZE(p->spin, capacity))
		{
			return bs_errOutOfMemory;
		}
		memset(p->spin + p->capacity, 0, (capacity - p->capacity) * sizeof(bsVec3));
	}
	if (p->orientation != NULL)
	{
		if (!BS_ARRAY_RESIZE(p->orientation, capacity))
		{
			return bs_errOutOfMemory;
		}
		for (size_t i = p->capacity; i < capacity; ++i)
		{
			p->orientation[i] = bsQuat_Identity();
		}
	}
	if (p->species != NULL)
	{
		if (!BS_ARRAY_RESIZE(p->species, capacity))
		{
			return bs_errOutOfMemory;
		}
		memset(p->species + p->capacity, 0, capacity - p->capacity);
	}
	p->capacity = capacity;
	return bs_ok;
}

bsResult bsParticles_Alloc(bsParticles* p, size_t count)
{
	memset(p, 0, sizeof(*p));
	bsResult r = bsParticles_Reserve(p, count > 0 ? count : 1);
	if (r != bs_ok)
	{
		bsParticles_Free(p);
		return r;
	}
	memset(p->position, 0, p->capacity * sizeof(bsVec3));
	memset(p->velocity, 0, p->capacity * sizeof(bsVec3));
	memset(p->radius, 0, p->capacity * sizeof(double));
	memset(p->state, 0, p->capacity * sizeof(uint8_t));
	for (size_t i = 0; i < count; ++i)
	{
		p->id[i] = (uint32_t)i;
	}
	p->count = count;
	return bs_ok;
}

bsResult bsParticles_Append(bsParticles* p, const bsParticleDef* particle)
{
	bsParticleFault fault = bsParticleDef_Check(particle);
	if (fault != bs_particleOk)
	{
		return fault == bs_particleBadPosition || fault == bs_particleBadVelocity || fault == bs_particleBadSpin ?
			bs_errNonFinite : bs_errInvalidArgument;
	}

	if (p->count == p->capacity)
	{
		size_t grown = bsArray_NextCapacity(p->capacity, p->count + 1);
		bsResult r = bsParticles_Reserve(p, grown <= BS_PARTICLES_MAX ? grown : p->count + 1);
		if (r != bs_ok)
		{
			return r;
		}
	}
	if (bsParticles_SetSpin(p, p->count, particle->spin) != bs_ok)
	{
		return bs_errOutOfMemory;
	}
	size_t i = p->count++;
	p->position[i] = particle->position;
	p->velocity[i] = particle->velocity;
	p->radius[i] = particle->radius;
	p->state[i] = particle->state;
	p->id[i] = (uint32_t)i;
	return bs_ok;
}

bsResult bsParticles_SetSpecies(bsParticles* p, size_t first, size_t end, uint8_t species)
{
	if (p->species == NULL && species != 0)
	{
		p->species = calloc(p->capacity > 0 ? p->capacity : 1, 1);
		if (p->species == NULL)
		{
			return bs_errOutOfMemory;
		}
	}
	if (p->species != NULL && first < end)
	{
		memset(p->species + first, species, end - first);
	}
	return bs_ok;
}

bsResult bsParticles_SetSpin(bsParticles* p, size_t i, bsVec3 spin)
{
	if (p->spin == NULL && (spin.x != 0.0 || spin.y != 0.0 || spin.z != 0.0) && bsParticles_EnableSpin(p) != bs_ok)
	{
		return bs_errOutOfMemory;
	}
	if (p->spin != NULL)
	{
		p->spin[i] = spin;
	}
	return bs_ok;
}

bsResult bsParticles_EnableSpin(bsParticles* p)
{
	if (p->spin != NULL || p->capacity == 0)
	{
		return bs_ok;
	}
	p->spin = calloc(p->capacity, sizeof(bsVec3));
	return p->spin != NULL ? bs_ok : bs_errOutOfMemory;
}

bsResult bsParticles_EnableOrientation(bsParticles* p)
{
	if (p->orientation != NULL)
	{
		return bs_ok;
	}
	// An empty set gets a slot too, so that the set keeps orientations as it grows (as species).
	size_t n = p->capacity > 0 ? p->capacity : 1;
	p->orientation = malloc(n * sizeof(bsQuat));
	if (p->orientation == NULL)
	{
		return bs_errOutOfMemory;
	}
	for (size_t i = 0; i < n; ++i)
	{
		p->orientation[i] = bsQuat_Identity();
	}
	return bs_ok;
}

void bsParticles_Free(bsParticles* p)
{
	free(p->orientation);
	free(p->spin);
	free(p->species);
	free(p->position);
	free(p->velocity);
	free(p->radius);
	free(p->state);
	free(p->id);
	memset(p, 0, sizeof(*p));
}

void bsParticles_CountStates(const bsParticles* p, uint64_t counts[bs_particleStateCount])
{
	for (int s = 0; s < bs_particleStateCount; ++s)
	{
		counts[s] = 0;
	}
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] < bs_particleStateCount)
		{
			counts[p->state[i]] += 1;
		}
	}
}

const char* bsParticleStateName(bsParticleState state)
{
	static const char* names[] = {"free", "stuck", "escaped", "sleeping"};
	return (unsigned)state < (unsigned)bs_particleStateCount ? names[state] : "unknown";
}
