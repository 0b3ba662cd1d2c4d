// sleep.c — rest: the sleep check and waking (sleep.h).
#include "sleep.h"

#include <stdlib.h>

static bool bsGrow(void** array, size_t count, size_t size)
{
	void* grown = realloc(*array, count * size);
	if (grown == NULL)
	{
		return false;
	}
	*array = grown;
	return true;
}

bsResult bsSleep_Begin(bsWorld* world, const bsParticles* p)
{
	if (world->restCapacity < p->count)
	{
		if (!bsGrow((void**)&world->restVelocity, p->count, sizeof(bsVec3)) ||
			!bsGrow((void**)&world->calm, p->count, sizeof(uint32_t)))
		{
			return bs_errOutOfMemory;
		}
		for (size_t i = world->restCapacity; i < p->count; ++i)
		{
			world->calm[i] = 0;
		}
		world->restCapacity = p->count;
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
			stats->fellAsleep += 1;
		}
	}
}

bool bsWakeList_Push(bsWakeList* list, uint32_t sleeper)
{
	if (list->count == list->capacity)
	{
		size_t capacity = list->capacity < 16 ? 16 : 2 * list->capacity;
		if (!bsGrow((void**)&list->particles, capacity, sizeof(uint32_t)))
		{
			return false;
		}
		list->capacity = capacity;
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
