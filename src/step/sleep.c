// sleep.c — rest: the sleep check and waking (sleep.h).
#include "sleep.h"

#include "array.h"

#include <stdlib.h>

bsResult bsSleep_Begin(bsWorld* world, const bsParticles* p)
{
	if (world->restCapacity < p->count)
	{
		// Both arrays grow together, to one capacity; the new particles have not been calm.
		size_t capacity = bsArray_NextCapacity(world->restCapacity, p->count);
		if (!BS_ARRAY_RESIZE(world->restVelocity, capacity) || !BS_ARRAY_RESIZE(world->calm, capacity))
		{
			return bs_errOutOfMemory;
		}
		for (size_t i = world->restCapacity; i < capacity; ++i)
		{
			world->calm[i] = 0;
		}
		world->restCapacity = capacity;
	}
	for (size_t i = 0; i < p->count; ++i)
	{
		world->restVelocity[i] = p->velocity[i];
	}
	return bs_ok;
}

void bsSleep_Check(bsWorld* world, const bsStepDef* def, bsParticles* p, size_t begin, size_t end,
	bsStepStats* stats)
{
	for (size_t i = begin; i < end; ++i)
	{
		if (p->state[i] != bs_particleFree)
		{
			world->calm[i] = 0;
			continue;
		}
		bsVec3 v = p->velocity[i];
		double change = bsLength(bsSub(v, world->restVelocity[i]));
		bool calm = bsLength(v) <= def->sleepSpeed && change <= def->sleepAcceleration * def->dt;
		world->calm[i] = calm ? world->calm[i] + (world->calm[i] < UINT32_MAX) : 0;
		if (world->calm[i] >= (uint32_t)def->sleepSteps)
		{
			p->state[i] = bs_particleSleeping;
			p->velocity[i] = bsV3(0.0, 0.0, 0.0);
			if (p->spin != NULL)
			{
				p->spin[i] = p->velocity[i];
			}
			stats->fellAsleep += 1;
		}
	}
}

bool bsWakeList_Push(bsWakeList* list, uint32_t sleeper)
{
	if (!BS_ARRAY_RESERVE(list->particles, list->capacity, list->count + 1))
	{
		return false;
	}
	list->particles[list->count++] = sleeper;
	return true;
}

void bsSleep_Wake(bsWorld* world, bsParticles* p, bsStepStats* stats)
{
	int n = bsPool_ThreadCount(world->pool);
	for (int w = 0; w < n; ++w)
	{
		bsWakeList* list = &world->workers[w].wakes;
		for (size_t k = 0; k < list->count; ++k)
		{
			uint32_t i = list->particles[k];
			if (i < p->count && p->state[i] == bs_particleSleeping)
			{
				p->state[i] = bs_particleFree;
				stats->woken += 1;
				if (i < world->restCapacity)
				{
					world->calm[i] = 0;
					world->restVelocity[i] = p->velocity[i];
				}
			}
		}
		list->count = 0;
	}
}
