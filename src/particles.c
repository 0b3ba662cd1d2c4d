#include "blobsim/particles.h"

#include <stdlib.h>
#include <string.h>

bsResult bsParticles_Alloc(bsParticles* p, size_t count)
{
	memset(p, 0, sizeof(*p));
	size_t perParticle = 2 * sizeof(bsVec3) + sizeof(double) + sizeof(uint8_t);
	if (count > SIZE_MAX / perParticle)
	{
		return bs_errOutOfMemory;
	}
	size_t n = count > 0 ? count : 1;
	p->position = calloc(n, sizeof(bsVec3));
	p->velocity = calloc(n, sizeof(bsVec3));
	p->radius = calloc(n, sizeof(double));
	p->state = calloc(n, sizeof(uint8_t));
	if (p->position == NULL || p->velocity == NULL || p->radius == NULL || p->state == NULL)
	{
		bsParticles_Free(p);
		return bs_errOutOfMemory;
	}
	p->count = count;
	return bs_ok;
}

void bsParticles_Free(bsParticles* p)
{
	free(p->position);
	free(p->velocity);
	free(p->radius);
	free(p->state);
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
	static const char* names[] = {"free", "stuck", "escaped"};
	return (unsigned)state < (unsigned)bs_particleStateCount ? names[state] : "unknown";
}
