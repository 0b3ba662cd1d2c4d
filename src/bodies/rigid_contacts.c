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
				FeatureKey(plane, sizeof(*plane), i), 0.0};
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
		bsRigidContact c = {point, n, s, index, other, key, 0.0};
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

static bool bsReferencePlane(const bsRigidBody* body, const bsBvh* bvh, bsTransform pose, bsVec3 point,
	double distance, double margin, bsPlane* plane);

bool bsRigidBody_CollideBody(const bsRigidBody* body, int32_t index, const bsBvh* bvh, const bsTriangle* tris,
	bsTransform pose, int32_t other, bsVec3 point, double distance, double margin, bsRigidContact* out,
	int32_t capacity, int32_t* count)
{
	bsPlane plane;
	// No face near the point (it is not on the mesh): each contact its own normal.
	bool found = bsReferencePlane(body, bvh, pose, point, distance, margin, &plane);
	return bsCollideVertices(body, index, bvh, tris, pose, other, found ? &plane : NULL, margin, out, capacity,
		count);
}

// The reference plane of a pair (rigid.h's bsRigidBody_CollideBody), world; false when no face of
// the other body passes near the point.
static bool bsReferencePlane(const bsRigidBody* body, const bsBvh* bvh, bsTransform pose, bsVec3 point,
	double distance, double margin, bsPlane* plane)
{
	bsVec3 q = bsTransform_ApplyInverse(pose, point);
	bsVec3 towards = bsQuat_InvRotate(pose.rotation, bsSub(body->position, point));
	double reach = fmax(distance, margin) + 1e-9 * (body->radius + bsLength(towards));
	bsReferenceFace r = {q, towards, reach, -HUGE_VAL, {{0.0, 0.0, 0.0}, 0.0}};
	bsBvh_VisitNear(bvh, q, r.reach, bsReferenceFace_Visit, &r);
	if (r.best == -HUGE_VAL)
	{
		return false;
	}
	bsVec3 n = bsQuat_Rotate(pose.rotation, r.plane.n);
	*plane = (bsPlane){n, -bsDot(n, bsTransform_Apply(pose, bsScale(-r.plane.d, r.plane.n)))};
	return true;
}

// Is a before b (lexicographic)? Each edge of a closed mesh is run both ways by its two faces: only
// the way from the lower end is taken.
static bool bsBefore(bsVec3 a, bsVec3 b)
{
	return a.x != b.x ? a.x < b.x : a.y != b.y ? a.y < b.y : a.z < b.z;
}

typedef struct bsEdgeCrossing
{
	bsVec3 p0, p1;        // the body's edge, world
	bsVec3 l0, l1;        // and in its mesh frame (the key)
	bsTransform pose;     // the other mesh's frame
	bsPlane plane;        // the reference plane, world
	bsVec3 t1, t2;        // a basis of it
	double margin;
	int32_t index, other;
	bsRigidContact* out;
	int32_t capacity;
	int32_t* count;
	bool fit;
} bsEdgeCrossing;

// Where the body's edge crosses an edge of triangle t (the other mesh's frame) seen along the plane's
// normal, both within margin of the plane: a contact there.
static void bsEdgeCrossing_Visit(void* context, const bsTriangle* t, uint32_t index)
{
	(void)index;
	bsEdgeCrossing* e = context;
	const bsVec3* corner = &t->p1;
	bsVec3 d = bsSub(e->p1, e->p0);
	for (int k = 0; k < 3; ++k)
	{
		bsVec3 a = corner[k], b = corner[(k + 1) % 3];
		bsVec3 q0 = bsTransform_Apply(e->pose, a), q1 = bsTransform_Apply(e->pose, b);
		if (!bsBefore(a, b) || fabs(bsDot(e->plane.n, q0) + e->plane.d) > e->margin ||
			fabs(bsDot(e->plane.n, q1) + e->plane.d) > e->margin)
		{
			continue;
		}
		// p0 + s d = q0 + u f in the plane's coordinates.
		bsVec3 f = bsSub(q1, q0), g = bsSub(q0, e->p0);
		double d1 = bsDot(d, e->t1), d2 = bsDot(d, e->t2), f1 = bsDot(f, e->t1), f2 = bsDot(f, e->t2);
		double g1 = bsDot(g, e->t1), g2 = bsDot(g, e->t2);
		double det = d1 * f2 - d2 * f1;
		if (fabs(det) <= 1e-12 * (d1 * d1 + d2 * d2 + f1 * f1 + f2 * f2))
		{
			continue;  // parallel: their ends are the vertex contacts'
		}
		double s = (g1 * f2 - g2 * f1) / det, u = (g1 * d2 - g2 * d1) / det;
		if (!(s > 1e-9 && s < 1.0 - 1e-9 && u > 1e-9 && u < 1.0 - 1e-9))
		{
			continue;
		}
		bsVec3 p = bsMulAdd(e->p0, s, d), q = bsMulAdd(q0, u, f);
		bsVec3 ends[4] = {e->l0, e->l1, a, b};
		uint64_t key = bsFnv1a(BS_FNV1A_BASIS, ends, sizeof ends);
		bsRigidContact c = {bsScale(0.5, bsAdd(p, q)), e->plane.n, bsDot(bsSub(p, q), e->plane.n), e->index,
			e->other, key != 0 ? key : 1, 0.0};
		e->fit = bsPush(e->out, e->capacity, e->count, c) && e->fit;
	}
}

bool bsRigidBody_CollideEdges(const bsRigidBody* body, int32_t index, const bsTriangle* own, uint32_t ownCount,
	const bsBvh* bvh, bsTransform pose, int32_t other, bsVec3 point, double distance, double margin,
	bsRigidContact* out, int32_t capacity, int32_t* count)
{
	bsEdgeCrossing e = {.pose = pose, .margin = margin, .index = index, .other = other, .out = out,
		.capacity = capacity, .count = count, .fit = true};
	if (!bsReferencePlane(body, bvh, pose, point, distance, margin, &e.plane))
	{
		return true;
	}
	bsVec3 n = e.plane.n;
	double sign = copysign(1.0, n.z), a = -1.0 / (sign + n.z), b = n.x * n.y * a;
	e.t1 = bsV3(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
	e.t2 = bsV3(b, sign + n.y * n.y * a, -n.y);
	bsTransform mine = bsRigidBody_MeshTransform(body);
	for (uint32_t i = 0; i < ownCount; ++i)
	{
		const bsVec3* corner = &own[i].p1;
		for (int k = 0; k < 3; ++k)
		{
			e.l0 = corner[k], e.l1 = corner[(k + 1) % 3];
			e.p0 = bsTransform_Apply(mine, e.l0), e.p1 = bsTransform_Apply(mine, e.l1);
			if (!bsBefore(e.l0, e.l1) || fabs(bsDot(n, e.p0) + e.plane.d) > margin ||
				fabs(bsDot(n, e.p1) + e.plane.d) > margin)
			{
				continue;
			}
			// The other mesh's triangles near the edge, in its frame.
			bsVec3 mid = bsTransform_ApplyInverse(pose, bsScale(0.5, bsAdd(e.p0, e.p1)));
			bsBvh_VisitNear(bvh, mid, 0.5 * bsDistance(e.p0, e.p1) + margin, bsEdgeCrossing_Visit, &e);
		}
	}
	return e.fit;
}
