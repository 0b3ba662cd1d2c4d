// rigid_contacts.c — contacts of a dynamic body's vertices with the static environment (analytic
// planes, and triangle meshes through the BVH's closest-point query) and with another body's mesh
// (the pair's contact manifold).
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

// The body's vertices within margin of a mesh (bvh over tris, in the frame that pose places in the
// world) as contacts of the body against `other`: rigid.h's bsRigidBody_CollideMesh, in the mesh's
// frame (the identity pose changes no bit); with a plane (a point and `normal`, world) every contact
// takes its normal, and a vertex on or behind the mesh its depth under the plane (rigid.h).
static bool bsCollideVertices(const bsRigidBody* body, int32_t index, const bsBvh* bvh, const bsTriangle* tris,
	bsTransform pose, int32_t other, const bsPlane* plane, double margin, bsRigidContact* out, int32_t capacity,
	int32_t* count)
{
	// No vertex is within margin of the mesh unless the centre is within radius + margin of it.
	bsClosestPointInput near = {bsTransform_ApplyInverse(pose, body->position), body->radius + margin};
	bsClosestPointOutput nearest;
	if (bsBvh_ClosestPoint(bvh, &near, &nearest, NULL) != bs_ok || !nearest.hit)
	{
		return true;
	}
	bool fit = true;
	for (uint32_t i = 0; i < body->vertexCount; ++i)
	{
		bsClosestPointInput in = {bsTransform_ApplyInverse(pose, WorldVertex(body, i)), margin};
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
		bsVec3 point = bsTransform_Apply(pose, bsScale(0.5, bsAdd(in.point, hit.point)));
		n = bsQuat_Rotate(pose.rotation, n);
		if (plane != NULL)
		{
			// Over the reference face (its nearest point on the face's plane): the height over the
			// plane; on or behind the surface elsewhere: the lower of the two (rigid.h).
			double height = bsDot(plane->n, WorldVertex(body, i)) + plane->d;
			double foot = bsDot(plane->n, bsTransform_Apply(pose, hit.point)) + plane->d;
			bool over = fabs(foot) <= 1e-9 * (body->radius + fabs(plane->d));
			n = plane->n;
			s = over ? height : s <= 0.0 ? fmax(fmin(s, height), -margin) : s;
		}
		// Against a body, the vertex names the contact (the nearest of a corner's faces changes with
		// the smallest turn, and warm starting would be lost); against a static mesh, its triangle too.
		uint64_t key = plane != NULL ? FeatureKey(&other, sizeof other, i)
			: FeatureKey(tris + hit.triangle, sizeof(bsTriangle), i);
		bsRigidContact c = {point, n, s, index, other, key};
		fit = bsPush(out, capacity, count, c) && fit;
	}
	return fit;
}

bool bsRigidBody_CollideMesh(const bsRigidBody* body, int32_t index, const bsBvh* bvh,
	const bsTriangle* tris, double margin, bsRigidContact* out, int32_t capacity, int32_t* count)
{
	return bsCollideVertices(body, index, bvh, tris, bsTransform_Identity(), BS_RIGID_STATIC, NULL, margin, out,
		capacity, count);
}

// The reference face (rigid.h): of the faces within reach of q (mesh frame), the one facing `towards`
// most.
typedef struct bsReferenceFace
{
	bsVec3 q, towards;
	double reach;   // how near q a face must pass
	double best;    // the best face's n . towards
	bsPlane plane;  // its plane (mesh frame)
} bsReferenceFace;

static void bsReferenceFace_Visit(void* context, const bsTriangle* t, uint32_t index)
{
	(void)index;
	bsReferenceFace* r = context;
	double facing = bsDot(t->n, r->towards);
	if (facing > r->best && bsDistanceSquared(bsTriangle_ClosestPoint(t, r->q, NULL, NULL), r->q) <= r->reach * r->reach)
	{
		r->best = facing;
		r->plane = (bsPlane){t->n, -bsDot(t->n, t->p1)};
	}
}

bool bsRigidBody_CollideBody(const bsRigidBody* body, int32_t index, const bsBvh* bvh, const bsTriangle* tris,
	bsTransform pose, int32_t other, bsVec3 point, double distance, double margin, bsRigidContact* out,
	int32_t capacity, int32_t* count)
{
	bsVec3 q = bsTransform_ApplyInverse(pose, point);
	bsVec3 towards = bsQuat_InvRotate(pose.rotation, bsSub(body->position, point));
	double reach = fmax(distance, margin) + 1e-9 * (body->radius + bsLength(towards));
	bsReferenceFace r = {q, towards, reach, -HUGE_VAL, {{0.0, 0.0, 0.0}, 0.0}};
	bsBvh_VisitNear(bvh, q, r.reach, bsReferenceFace_Visit, &r);
	if (r.best == -HUGE_VAL)
	{
		// No face through the point (it is not on the mesh): each contact its own normal.
		return bsCollideVertices(body, index, bvh, tris, pose, other, NULL, margin, out, capacity, count);
	}
	bsVec3 n = bsQuat_Rotate(pose.rotation, r.plane.n);
	bsPlane plane = {n, -bsDot(n, bsTransform_Apply(pose, bsScale(-r.plane.d, r.plane.n)))};
	return bsCollideVertices(body, index, bvh, tris, pose, other, &plane, margin, out, capacity, count);
}
