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

// --- the fluid's walls ---

typedef struct bsWallGather
{
	bsVec3 x;
	double maxDistance;
	bsWallPoint* out;
	int count, capacity;
	bsWallPoint corner;  // the nearest edge or vertex point
	bool haveCorner;
} bsWallGather;

#define BS_WALL_SAME_PLANE 0.9  // cos of the angle within which two faces are one wall

static void bsWallGather_Face(bsWallGather* g, const bsWallPoint* w)
{
	for (int k = 0; k < g->count; ++k)
	{
		if (bsDot(g->out[k].normal, w->normal) > BS_WALL_SAME_PLANE)
		{
			if (w->distance < g->out[k].distance)
			{
				g->out[k] = *w;
			}
			return;
		}
	}
	if (g->count < g->capacity)
	{
		g->out[g->count++] = *w;
	}
}

static void bsWallGather_Visit(void* context, const bsTriangle* t, uint32_t index)
{
	(void)index;
	bsWallGather* g = context;
	bsFeature feature;
	bsVec3 c = bsTriangle_ClosestPoint(t, g->x, &feature, NULL);
	double d = bsDistance(g->x, c);
	if (!(d < g->maxDistance))
	{
		return;
	}
	bsWallPoint w = {d, bsTriangle_PlaneDistance(t, g->x) >= 0.0 ? t->n : bsNeg(t->n), bsV3(0.0, 0.0, 0.0)};
	if (feature == bs_featureFace)
	{
		bsWallGather_Face(g, &w);
	}
	else if (!g->haveCorner || d < g->corner.distance)
	{
		w.normal = d > 0.0 ? bsScale(1.0 / d, bsSub(g->x, c)) : w.normal;
		g->corner = w;
		g->haveCorner = true;
	}
}

int bsMeshWalls(const bsBvh* bvh, bsVec3 x, double maxDistance, bsWallPoint* out, int capacity)
{
	bsWallGather g = {x, maxDistance, out, 0, capacity, {0.0, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}, false};
	bsBvh_VisitNear(bvh, x, maxDistance, bsWallGather_Visit, &g);
	if (g.count == 0 && g.haveCorner && capacity > 0)
	{
		out[g.count++] = g.corner;
	}
	return g.count;
}

static int bsMesh_Walls(const bsCollider* c, bsVec3 x, double maxDistance, bsWallPoint* out, int capacity)
{
	return bsMeshWalls(c->shape, x, maxDistance, out, capacity);
}

const bsColliderClass bs_meshCollider = {.name = "mesh", .sweep = bsMesh_Sweep, .walls = bsMesh_Walls};
