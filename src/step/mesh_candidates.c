// mesh_candidates.c — each particle's candidate triangles of the world's first mesh
// (mesh_candidates.h).
#include "mesh_candidates.h"

#include "world_internal.h"

#include "array.h"

#include "blobsim/bvh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool bsMeshCache_On(const bsWorld* world)
{
	return world->colliderCount > 0 && world->colliders[0].kind == bs_colliderMesh;
}

bool bsMeshCache_Prepare(bsMeshCache* cache, const bsWorld* world, size_t particles, bool on)
{
	if (!on || !bsMeshCache_On(world))
	{
		cache->count = 0;
		return true;
	}
	if (cache->shape != world->colliders[0].shape)
	{
		cache->shape = world->colliders[0].shape;
		cache->count = 0;
	}
	if (!BS_ARRAY_RESERVE(cache->particles, cache->capacity, particles))
	{
		cache->count = 0;
		return false;
	}
	for (size_t i = cache->count; i < particles; ++i)
	{
		cache->particles[i].skin = -1.0f;
		cache->particles[i].count = 0;
	}
	cache->count = particles;
	return true;
}

static bsVec3 bsCandidates_Anchor(const bsMeshCandidates* c)
{
	return bsV3(c->anchor[0], c->anchor[1], c->anchor[2]);
}

// The entry answers a sweep from c1 to c2: both ends within its skin of its anchor.
static bool bsCandidates_HoldEnds(const bsMeshCandidates* c, bsVec3 c1, bsVec3 c2)
{
	if (!(c->skin >= 0.0f))
	{
		return false;
	}
	bsVec3 a = bsCandidates_Anchor(c);
	double skin2 = (double)c->skin * (double)c->skin;
	bsVec3 d1 = bsSub(c1, a), d2 = bsSub(c2, a);
	return bsDot(d1, d1) <= skin2 && bsDot(d2, d2) <= skin2;
}

static bool bsCandidates_Hold(const bsMeshCandidates* c, const bsSweep* s)
{
	return bsCandidates_HoldEnds(c, s->c1, s->c2);
}

// A float no larger than x >= 0 (the skin may shrink in storage, never grow).
static float bsFloatBelow(double x)
{
	float f = (float)x;
	return (double)f > x ? nextafterf(f, 0.0f) : f;
}

// The skin an entry made for this sweep takes.
static double bsCandidates_Skin(const bsSweep* s)
{
	return fmax(BS_MESH_SKIN * s->radius, 2.0 * s->len);
}

// The entry is kept for this sweep: it holds it, and it holds few enough triangles or could hold no
// fewer (its skin is no larger than this sweep's would be: a fast sweep's large entry that overflows
// is made again once the particle slows down).
static bool bsCandidates_Keep(const bsMeshCandidates* c, const bsSweep* s)
{
	return bsCandidates_Hold(c, s) && (c->count <= BS_MESH_CANDIDATES || (double)c->skin <= bsCandidates_Skin(s));
}

// The entry made again around the sweep's start.
static void bsCandidates_Make(bsMeshCandidates* c, const bsBvh* bvh, const bsSweep* s)
{
	c->anchor[0] = (float)s->c1.x;
	c->anchor[1] = (float)s->c1.y;
	c->anchor[2] = (float)s->c1.z;
	double skin = bsCandidates_Skin(s);
	c->skin = bsFloatBelow(skin);
	bsVec3 a = bsCandidates_Anchor(c);
	double slack = 1e-6 * s->radius + 1e-9 * (1.0 + bsMaxAbs(a));
	uint32_t n = bsBvh_NearLeaves(bvh, a, s->radius + (double)c->skin + slack, c->leaf, BS_MESH_CANDIDATES);
	c->count = (uint8_t)(n <= BS_MESH_CANDIDATES ? n : BS_MESH_CANDIDATES + 1);
	if (!isfinite(skin) || !isfinite(slack))
	{
		c->skin = -1.0f;  // never held: every sweep walks
	}
}

void bsMeshCache_Sweep(const bsWorld* world, bsMethod method, const bsSweep* sweep, double u0, size_t i,
	bsSweepOutput* out, bsQueryStats* stats)
{
	const bsMeshCache* cache = &world->meshCache;
	if (method == bs_methodRay || i >= cache->count || cache->shape != world->colliders[0].shape)
	{
		bsWorld_SweepWindow(world, method, sweep, u0, 1.0, out, stats);
		return;
	}
	const bsBvh* bvh = cache->shape;
	bsMeshCandidates* c = cache->particles + i;
	if (!bsCandidates_Keep(c, sweep))
	{
		bsCandidates_Make(c, bvh, sweep);
	}
	if (c->count <= BS_MESH_CANDIDATES && bsCandidates_Hold(c, sweep))
	{
		bsBvh_SweepLeaves(bvh, method, sweep, c->leaf, c->count, out, stats);
	}
	else
	{
		bsBvh_SweepPrepared(bvh, method, sweep, out, stats);
	}
	bsWorld_SweepColliders(world, 1, method, sweep, u0, 1.0, out, stats);
}

bool bsMeshCache_Clear(const bsWorld* world, bsMethod method, size_t i, bsVec3 c1, bsVec3 c2, double radius,
	bsQueryStats* stats)
{
	const bsMeshCache* cache = &world->meshCache;
	if (method == bs_methodRay || i >= cache->count || world->colliderCount != 1 ||
		world->colliders[0].kind != bs_colliderMesh || cache->shape != world->colliders[0].shape ||
		!(radius >= 0.0) || !isfinite(radius))
	{
		return false;
	}
	const bsMeshCandidates* c = cache->particles + i;
	if (c->count != 0 || !bsCandidates_HoldEnds(c, c1, c2))
	{
		return false;
	}
	stats->queries += 1;  // as bsBvh_SweepLeaves counts the query it answers with no triangle
	return true;
}

size_t bsMeshCache_Bytes(const bsMeshCache* cache)
{
	return cache->capacity * sizeof(bsMeshCandidates);
}

void bsMeshCache_Free(bsMeshCache* cache)
{
	free(cache->particles);
	memset(cache, 0, sizeof(*cache));
}
