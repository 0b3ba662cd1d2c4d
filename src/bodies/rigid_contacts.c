// rigid_contacts.c — contacts of a dynamic body's vertices with the static environment: analytic
// planes, and triangle meshes through the BVH's closest-point query.
#include "rigid.h"

#include "blobsim/base.h"

static bool bsPush(bsRigidContact* out, int32_t capacity, int32_t* count, bsRigidContact c)
{
	if (*count >= capacity)
	{
		return false;
	}
	out[(*count)++] = c;
	return true;
}

// The warm-starting key of a body vertex against a static feature (its bytes): never 0.
static uint64_t FeatureKey(const void* feature, size_t size, uint32_t vertex)
{
	uint64_t h = bsFnv1a_U64(bsFnv1a(BS_FNV1A_BASIS, feature, size), vertex);
	return h != 0 ? h : 1;
}

static bsVec3 WorldVertex(const bsRigidBody* body, uint32_t i)
{
	return bsAdd(bsQuat_Rotate(body->orientation, body->vertices[i]), body->position);
}

double bsRigidBody_ContactMargin(const bsRigidBody* body, const bsRigidStepDef* def, double dt)
{
	double reach = bsLength(body->velocity) + bsLength(def->gravity) * dt +
		bsLength(body->angularVelocity) * body->radius;
	return reach * dt + 2.0 * def->slop;
}

bool bsRigidBody_CollidePlane(const bsRigidBody* body, int32_t index, const bsPlane* plane,
	double margin, bsRigidContact* out, int32_t capacity, int32_t* count)
{
	// The free side is the one the centre of mass is on (blobsim's planes are two-sided).
	double side = bsDot(plane->n, body->position) + plane->d >= 0.0 ? 1.0 : -1.0;
	bsVec3 n = bsScale(side, plane->n);
	double d = side * plane->d;
	if (bsDot(n, body->position) + d >= body->radius + margin)
	{
		return true;  // every vertex is within radius of the centre: none is within margin
	}
	bool fit = true;
	for (uint32_t i = 0; i < body->vertexCount; ++i)
	{
		bsVec3 x = WorldVertex(body, i);
		double s = bsDot(n, x) + d;
		if (s < margin)
		{
			bsRigidContact c = {bsMulSub(x, 0.5 * s, n), n, s, index, BS_RIGID_STATIC,
				FeatureKey(plane, sizeof(*plane), i)};
			fit = bsPush(out, capacity, count, c) && fit;
		}
	}
	return fit;
}

bool bsRigidBody_CollideMesh(const bsRigidBody* body, int32_t index, const bsBvh* bvh,
	const bsTriangle* tris, double margin, bsRigidContact* out, int32_t capacity, int32_t* count)
{
	// No vertex is within margin of the mesh unless the centre is within radius + margin of it.
	bsClosestPointInput near = {body->position, body->radius + margin};
	bsClosestPointOutput nearest;
	if (bsBvh_ClosestPoint(bvh, &near, &nearest, NULL) != bs_ok || !nearest.hit)
	{
		return true;
	}
	bool fit = true;
	for (uint32_t i = 0; i < body->vertexCount; ++i)
	{
		bsClosestPointInput in = {WorldVertex(body, i), margin};
		bsClosestPointOutput hit;
		if (bsBvh_ClosestPoint(bvh, &in, &hit, NULL) != bs_ok || !hit.hit)
		{
			continue;
		}
		// The side from the nearest triangle's winding normal: its front is free space.
		bsVec3 face = tris[hit.triangle].n;
		bsVec3 n;
		double s;
		if (hit.onSurface)
		{
			n = face, s = 0.0;
		}
		else if (bsDot(bsSub(in.point, hit.point), face) >= 0.0)
		{
			n = hit.normal, s = hit.distance;
		}
		else
		{
			n = bsNeg(hit.normal), s = -hit.distance;
		}
		bsRigidContact c = {bsScale(0.5, bsAdd(in.point, hit.point)), n, s, index, BS_RIGID_STATIC,
			FeatureKey(tris + hit.triangle, sizeof(bsTriangle), i)};
		fit = bsPush(out, capacity, count, c) && fit;
	}
	return fit;
}
