// collider_mesh.c — a static triangle mesh as a collider: its BVH answers the sweep.
#include "world_internal.h"

static bool bsMesh_Sweep(const bsCollider* c, bsMethod method, const bsSweep* s, bsSweepOutput* out,
	bsQueryStats* stats)
{
	bsQueryStats qs = {0, 0, 0, 0};
	bsSweepOutput hit;
	bsBvh_SweepPrepared(c->shape, method, s, &hit, &qs);
	stats->nodesVisited += qs.nodesVisited;
	stats->trianglesTested += qs.trianglesTested;
	if (!hit.hit || (out->hit && !(hit.t < out->t)))
	{
		return false;
	}
	*out = hit;
	return true;
}

const bsColliderClass bs_meshCollider = {.name = "mesh", .sweep = bsMesh_Sweep};
