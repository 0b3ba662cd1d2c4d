// world.c — the world's colliders, emitters and pool, and the sweep against every collider.
#include "array.h"
#include "body_dynamics.h"
#include "fluid.h"
#include "collider_body.h"
#include "emitter_class.h"
#include "core.h"
#include "stuck_grid.h"
#include "world_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// The collider kinds, indexed by bsColliderKind: a new kind is a module and one line here.
const bsColliderClass* const bs_colliderClasses[bs_colliderKindCount] = {
	[bs_colliderMesh] = &bs_meshCollider,
	[bs_colliderPlane] = &bs_planeCollider,
	[bs_colliderStuck] = &bs_stuckCollider,
	[bs_colliderBody] = &bs_bodyCollider,
};

bsWorldDef bsDefaultWorldDef(void)
{
	bsWorldDef def = {0, 1};
	return def;
}

bsWorld* bsWorld_Create(const bsWorldDef* def)
{
	bsWorld* world = calloc(1, sizeof(bsWorld));
	if (world == NULL)
	{
		return NULL;
	}
	world->pool = bsPool_Create(def->threads);
	world->workers = world->pool != NULL
		? calloc((size_t)bsPool_ThreadCount(world->pool), sizeof(bsStepWorker)) : NULL;
	if (world->workers == NULL)
	{
		bsWorld_Destroy(world);
		return NULL;
	}
	world->rng = bsMakeRng(def->seed);
	world->failedEmitter = -1;
	return world;
}

void bsWorld_Destroy(bsWorld* world)
{
	if (world == NULL)
	{
		return;
	}
	for (int w = 0; world->workers != NULL && w < bsPool_ThreadCount(world->pool); ++w)
	{
		free(world->workers[w].wakes.particles);
		free(world->workers[w].pushes.items);
	}
	bsPool_Destroy(world->pool);
	free(world->workers);
	bsStuckGrid_Destroy(world->stuck);
	free(world->restVelocity);
	free(world->calm);
	free(world->springs);
	free(world->spinBefore);
	free(world->rolling);
	free(world->bondAge);
	free(world->wallAge);
	free(world->colliders);
	for (int e = 0; world->emitters != NULL && e < world->emitterCount; ++e)
	{
		free(world->emitters[e].weights);
		free(world->emitters[e].sources);
	}
	free(world->emitters);
	free(world->births);
	free(world->batches);
	free(world->order);
	free(world->splashes);
	bsNeighbourGrid_Free(&world->grid);
	bsNeighbourList_Free(&world->pairs);
	bsMeshCache_Free(&world->meshCache);
	bsWorldBodies_Destroy(world->bodies);
	bsWorldDynamics_Destroy(world->dynamics);
	if (world->fluid != NULL)
	{
		bsFluid_Free(world->fluid);
		free(world->fluid);
	}
	free(world);
}

int bsWorld_ThreadCount(const bsWorld* world)
{
	return bsPool_ThreadCount(world->pool);
}

static bsResult bsWorld_AddCollider(bsWorld* world, bsColliderKind kind, const void* shape, uint32_t count)
{
	if (world->colliderCount == BS_WORLD_MAX_COLLIDERS)
	{
		return bs_errTooLarge;
	}
	if (world->colliderCount == world->colliderCapacity)
	{
		int capacity = world->colliderCapacity > 0 ? 2 * world->colliderCapacity : 8;
		capacity = capacity < BS_WORLD_MAX_COLLIDERS ? capacity : BS_WORLD_MAX_COLLIDERS;
		bsCollider* grown = realloc(world->colliders, (size_t)capacity * sizeof(bsCollider));
		if (grown == NULL)
		{
			return bs_errOutOfMemory;
		}
		world->colliders = grown;
		world->colliderCapacity = capacity;
	}
	bsCollider* c = world->colliders + world->colliderCount++;
	c->shape = shape;
	c->count = count;
	c->kind = (uint8_t)kind;
	return bs_ok;
}

bsResult bsWorld_AddMesh(bsWorld* world, const bsBvh* bvh)
{
	bsResult r = bvh == NULL ? bs_errInvalidArgument : bsWorld_AddCollider(world, bs_colliderMesh, bvh, bvh->triCount);
	world->meshBytes += r == bs_ok ? bsBvh_Bytes(bvh) : 0;
	return r;
}

bsResult bsWorld_AddPlanes(bsWorld* world, const bsPlane* planes, uint32_t count)
{
	if (count == 0)
	{
		return bs_ok;
	}
	return planes == NULL ? bs_errInvalidArgument : bsWorld_AddCollider(world, bs_colliderPlane, planes, count);
}

bsResult bsWorld_AddBody(bsWorld* world, bsBody* body)
{
	if (body == NULL)
	{
		return bs_errInvalidArgument;
	}
	if (world->colliderCount == BS_WORLD_MAX_COLLIDERS)
	{
		return bs_errTooLarge;
	}
	const void* state = NULL;
	bsResult r = bsWorldBodies_Add(&world->bodies, body, &state);
	return r == bs_ok ? bsWorld_AddCollider(world, bs_colliderBody, state, 0) : r;
}

bsResult bsWorld_AddStuckParticles(bsWorld* world, double cell)
{
	if (world->stuck != NULL)
	{
		return bs_errInvalidArgument;
	}
	bsStuckGrid* grid = bsStuckGrid_Create(cell);
	if (grid == NULL)
	{
		return bs_errOutOfMemory;
	}
	bsResult r = bsWorld_AddCollider(world, bs_colliderStuck, grid, 0);
	if (r != bs_ok)
	{
		bsStuckGrid_Destroy(grid);
		return r;
	}
	world->stuck = grid;
	return bs_ok;
}

// A new emitter slot for def (checked), at rest and on no body, or NULL with *result.
static bsWorldEmitter* bsWorld_NewEmitter(bsWorld* world, const bsEmitterDef* def, bsResult* result)
{
	*result = !bsEmitterDef_IsValid(def) ? bs_errInvalidArgument
		: world->emitterCount == BS_WORLD_MAX_EMITTERS ? bs_errTooLarge
		: !BS_ARRAY_RESERVE(world->emitters, world->emitterCapacity, (size_t)world->emitterCount + 1) ? bs_errOutOfMemory
		: bs_ok;
	if (*result != bs_ok)
	{
		return NULL;
	}
	bsWorldEmitter* em = world->emitters + world->emitterCount;
	memset(em, 0, sizeof(*em));
	em->def = *def;
	return em;
}

bsResult bsWorld_AddEmitter(bsWorld* world, const bsEmitterDef* def)
{
	bsResult r;
	if (bsWorld_NewEmitter(world, def, &r) != NULL)
	{
		world->emitterCount += 1;
	}
	return r;
}

bsResult bsWorld_AddBodyEmitter(bsWorld* world, const bsEmitterDef* def, const bsBody* body)
{
	uint32_t count = 0, shapeCount = 0;
	const bsTriangle* rest = body != NULL ? bsBody_Triangles(body, &count) : NULL;
	bool fits = body != NULL && def->shape.type == bs_emitterSurface && !bsEmitterMotion_IsMoving(&def->motion) &&
		bsBody_Kind(body) != bs_motionDynamic && def->shape.surface.triangles == rest &&
		def->shape.surface.count == count && bsWorld_BodyShape(world, body, &shapeCount) != NULL;
	if (!fits)
	{
		return bs_errInvalidArgument;
	}
	bsResult r;
	bsWorldEmitter* em = bsWorld_NewEmitter(world, def, &r);
	if (em == NULL)
	{
		return r;
	}
	em->body = body;
	em->weightCount = bsBody_DeformWeightCount(body);
	em->weights = em->weightCount > 0 ? calloc((size_t)em->weightCount, sizeof(bsVec3)) : NULL;
	if (em->weightCount > 0 && em->weights == NULL)
	{
		return bs_errOutOfMemory;
	}
	world->emitterCount += 1;
	return bs_ok;
}

uint64_t bsWorld_PendingParticles(const bsWorld* world)
{
	uint64_t total = 0;
	for (int e = 0; e < world->emitterCount; ++e)
	{
		uint64_t n = 0;
		if (bsEmitterDef_Count(&world->emitters[e].def, UINT64_MAX - total, &n) != bs_ok)
		{
			return UINT64_MAX;
		}
		total += n - world->emitters[e].born;
	}
	return total;
}

double bsWorld_Time(const bsWorld* world)
{
	return world->time;
}

void bsWorld_SetSubstepObserver(bsWorld* world, bsSubstepObserver* observer, void* context)
{
	world->observer = observer;
	world->observerContext = context;
}

double bsWorld_BirthTime(const bsWorld* world, size_t particle)
{
	// The last batch whose first particle is at or before this one.
	size_t lo = 0, hi = world->batchCount;
	while (lo < hi)
	{
		size_t mid = lo + (hi - lo) / 2;
		if (world->batches[mid].first <= particle)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	return lo > 0 ? world->batches[lo - 1].time : 0.0;
}

bool bsWorld_EmitFailure(const bsWorld* world, int* emitter, size_t* index)
{
	*emitter = world->failedEmitter;
	*index = world->failedIndex;
	return world->failedEmitter >= 0;
}

void bsWorld_SweepPrepared(const bsWorld* world, bsMethod method, const bsSweep* sweep,
	bsSweepOutput* out, bsQueryStats* stats)
{
	bsWorld_SweepWindow(world, method, sweep, 0.0, 1.0, out, stats);
}

bsVec3 bsWorld_ClearWay(const bsWorld* world, bsVec3 from, bsVec3 to, double radius)
{
	bsSweepInput in = {from, to, radius};
	bsSweep s;
	if (bsMakeSweep(&in, &s) != bs_ok)
	{
		return to;
	}
	bsSweepOutput out;
	bsSweep_Miss(&s, &out);
	bsQueryStats stats;
	memset(&stats, 0, sizeof(stats));
	for (int k = 0; k < world->colliderCount; ++k)
	{
		const bsCollider* c = world->colliders + k;
		if (c->kind == bs_colliderMesh || c->kind == bs_colliderPlane)
		{
			bs_colliderClasses[c->kind]->sweep(c, bs_methodExact, &s, &out, &stats);
		}
	}
	return out.hit ? bsClearOf(&out, radius, radius) : to;
}

void bsWorld_SweepColliders(const bsWorld* world, int first, bsMethod method, const bsSweep* sweep, double u0,
	double u1, bsSweepOutput* out, bsQueryStats* stats)
{
	for (int k = first; k < world->colliderCount; ++k)
	{
		const bsCollider* c = world->colliders + k;
		const bsColliderClass* class = bs_colliderClasses[c->kind];
		if (class->sweepMoving != NULL ? class->sweepMoving(c, method, sweep, u0, u1, out, stats)
									   : class->sweep(c, method, sweep, out, stats))
		{
			out->collider = (uint16_t)k;
			out->kind = c->kind;
		}
	}
}

void bsWorld_SweepWindow(const bsWorld* world, bsMethod method, const bsSweep* sweep, double u0, double u1,
	bsSweepOutput* out, bsQueryStats* stats)
{
	int k = 0;
	if (world->colliderCount > 0 && world->colliders[0].kind == bs_colliderMesh)
	{
		// The usual world, a mesh first: its BVH writes the whole answer, a miss included, and counts
		// the query; kind mesh and collider 0 are the zeros it leaves in those fields.
		bsBvh_SweepPrepared(world->colliders[0].shape, method, sweep, out, stats);
		k = 1;
	}
	else
	{
		bsSweep_Miss(sweep, out);
		stats->queries += 1;
	}
	bsWorld_SweepColliders(world, k, method, sweep, u0, u1, out, stats);
}

bsResult bsWorld_Sweep(const bsWorld* world, bsMethod method, const bsSweepInput* input,
	bsSweepOutput* out, bsQueryStats* stats)
{
	bsQueryStats local = {0, 0, 0, 0};
	bsSweep s;
	bsResult result = (unsigned)method < (unsigned)bs_methodCount ? bsMakeSweep(input, &s)
		: bs_errInvalidArgument;
	if (result != bs_ok)
	{
		memset(out, 0, sizeof(*out));
		out->t = 1.0;
		out->triangle = BS_NO_TRIANGLE;
		local.queries = 1;
	}
	else
	{
		bsWorld_SweepPrepared(world, method, &s, out, &local);
	}
	if (stats != NULL)
	{
		stats->queries += local.queries;
		stats->nodesVisited += local.nodesVisited;
		stats->trianglesTested += local.trianglesTested;
		stats->hits += out->hit;
	}
	return result;
}
