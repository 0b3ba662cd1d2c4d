// collider_body.c — moving bodies as a collider (collider_body.h, docs/bodies.md).
//
// Per substep [t0, t1] each body has its pose at both ends; in between it turns at a constant angular
// velocity about one axis and translates at a constant velocity (the screw-free interpolation of the
// two poses). A particle's sweep C1 -> C2 over the part [u0, u1] of the substep is taken into the
// body's frame ("motion is relative", Real-Time Rendering 16.18): C1 by the inverse pose at u0, C2 by
// the inverse pose at u1, and the straight segment between them is tested against the BVH of the
// body's shape. That is exact for translation. For rotation by theta over the substep the true
// relative path curves away from that chord by at most
//     e <= theta (theta rho + 2 s) / 8,
// rho the particle's largest distance from the body's origin and s its travel relative to the
// origin's, over the substep (the interpolation error max|f''| / 8 of f(u) = R(-theta u)(C(u) - T(u))).
// The step picks substeps so that theta <= the body's maxAngle.
//
// A body whose shape changes (deformation, scale keys) keeps one BVH of its shape at t1, refit every
// substep. The sweep then carries C1 (and C2) along the shape's own motion to t1 ("sweep relative to
// the surface's local velocity"): a point of the shape at u maps to the same rest point's place at t1
// (the rest point found by two fixed-point steps, exact for scale alone). The error adds the
// deformation's departure from linear motion over the substep.
#include "collider_body.h"

#include "array.h"
#include "core.h"
#include "stuck_grid.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bsBodyState
{
	bsBody* body;
	bsBvh bvh;                 // of the shape (at t1 of the substep when it changes)
	bsTriangle* shape;         // the shape's triangles (caller's order), changing shapes only
	bool rigidShape;
	bool twoWay;               // the particles push it back (bsBody_TwoWay)
	int index;                 // in the order added (body_dynamics.c's)
	int weightCount;
	bsVec3* weights;           // deformation weights at t0 then at t1 (2 x weightCount)
	double h;                  // t1 - t0
	double t0, t1;             // the substep's times
	bsTransform pose0, pose1;
	bsVec3 scale0, scale1;
	bsVec3 axis;               // pose1's rotation = rotation by angle about axis, after pose0's
	double angle;
	bsVec3 boxMin, boxMax;     // world bounds of the body over the substep
} bsBodyState;

typedef struct bsCarried
{
	uint32_t particle;
	uint16_t collider;
	bsVec3 local;  // its centre in the body's shape frame at t1 of the substep
} bsCarried;

typedef struct bsCarryList
{
	bsCarried* items;
	size_t count, capacity;
} bsCarryList;

struct bsWorldBodies
{
	bsBodyState** states;
	int count;
	size_t stateCapacity;
	bsCarryList carried;
	bsCarryList* pending;    // one per worker
	int workers;
	uint8_t* isCarried;      // per particle index, isCarriedCount of them (0 past the particles)
	size_t isCarriedCount;
};

// --- the motion over a substep ---

static bsTransform bsBodyState_PoseAt(const bsBodyState* b, double u)
{
	if (u == 0.0)
	{
		return b->pose0;
	}
	if (u == 1.0)
	{
		return b->pose1;
	}
	bsTransform p;
	p.rotation = bsQuat_Normalize(bsQuat_Mul(bsQuat_FromAxisAngle(b->axis, u * b->angle), b->pose0.rotation));
	p.translation = bsLerp(b->pose0.translation, b->pose1.translation, u);
	return p;
}

// x + u(x) at fraction u of the substep (the deformation's weights blended: the field is linear in them).
static bsVec3 bsBodyState_Deform(const bsBodyState* b, bsVec3 x, double u)
{
	if (b->weightCount == 0)
	{
		return x;
	}
	bsVec3 one = bsV3(1.0, 1.0, 1.0);
	bsVec3 a = bsBody_ShapePoint(b->body, b->weights, one, x);
	bsVec3 c = bsBody_ShapePoint(b->body, b->weights + b->weightCount, one, x);
	return bsLerp(a, c, u);
}

// A point of the shape at fraction ua to where the same rest point is at ub.
static bsVec3 bsBodyState_Carry(const bsBodyState* b, bsVec3 y, double ua, double ub)
{
	if (b->rigidShape || ua == ub)
	{
		return y;
	}
	bsVec3 sa = bsLerp(b->scale0, b->scale1, ua);
	bsVec3 sb = bsLerp(b->scale0, b->scale1, ub);
	bsVec3 z = bsV3(y.x / sa.x, y.y / sa.y, y.z / sa.z);
	bsVec3 x = z;
	for (int k = 0; k < 2; ++k)
	{
		x = bsSub(z, bsSub(bsBodyState_Deform(b, x, ua), x));
	}
	bsVec3 d = bsBodyState_Deform(b, x, ub);
	return bsV3(sb.x * d.x, sb.y * d.y, sb.z * d.z);
}

// The shape-frame point at t1 that the surface carries world point x (at fraction u) to.
static bsVec3 bsBodyState_LocalAtEnd(const bsBodyState* b, bsVec3 x, double u)
{
	return bsBodyState_Carry(b, bsTransform_ApplyInverse(bsBodyState_PoseAt(b, u), x), u, 1.0);
}

// --- creation ---

static bsResult bsBodyState_Begin(bsBodyState* b, double t0, double t1);

static void bsBodyState_Destroy(bsBodyState* b)
{
	if (b == NULL)
	{
		return;
	}
	bsBvh_Destroy(&b->bvh);
	free(b->shape);
	free(b->weights);
	free(b);
}

bsResult bsWorldBodies_Add(bsWorldBodies** bodies, bsBody* body, const void** state)
{
	if (*bodies == NULL && (*bodies = calloc(1, sizeof(bsWorldBodies))) == NULL)
	{
		return bs_errOutOfMemory;
	}
	bsWorldBodies* w = *bodies;
	if (!BS_ARRAY_RESERVE(w->states, w->stateCapacity, (size_t)w->count + 1))
	{
		return bs_errOutOfMemory;
	}
	bsBodyState* b = calloc(1, sizeof *b);
	if (b == NULL)
	{
		return bs_errOutOfMemory;
	}
	b->body = body;
	b->rigidShape = bsBody_RigidShape(body);
	b->twoWay = bsBody_TwoWay(body);
	b->index = w->count;
	b->weightCount = bsBody_DeformWeightCount(body);
	uint32_t count;
	const bsTriangle* rest = bsBody_Triangles(body, &count);
	bsTransform pose;
	bsBody_Pose(body, 0.0, &pose, &b->scale1);
	b->scale0 = b->scale1;
	b->shape = malloc(count * sizeof(bsTriangle));
	b->weights = calloc((size_t)(2 * b->weightCount + 1), sizeof(bsVec3));
	bsResult r = b->shape == NULL || b->weights == NULL ? bs_errOutOfMemory : bs_ok;
	for (uint32_t i = 0; r == bs_ok && i < count; ++i)
	{
		b->shape[i] = rest[i];
		bsVec3 s = b->scale1;
		if (bsMakeTriangle(bsV3(s.x * rest[i].p1.x, s.y * rest[i].p1.y, s.z * rest[i].p1.z),
				bsV3(s.x * rest[i].p2.x, s.y * rest[i].p2.y, s.z * rest[i].p2.z),
				bsV3(s.x * rest[i].p3.x, s.y * rest[i].p3.y, s.z * rest[i].p3.z), b->shape + i) != bs_ok)
		{
			r = bs_errDegenerateTriangle;
		}
	}
	r = r == bs_ok ? bsBvh_Build(&b->bvh, b->shape, count, NULL) : r;
	// At rest at time 0 until the first substep (bsWorld_Sweep before any step sees it there).
	r = r == bs_ok ? bsBodyState_Begin(b, 0.0, 0.0) : r;
	if (r != bs_ok)
	{
		bsBodyState_Destroy(b);
		return r;
	}
	w->states[w->count++] = b;
	*state = b;
	return bs_ok;
}

void bsWorldBodies_Destroy(bsWorldBodies* bodies)
{
	if (bodies == NULL)
	{
		return;
	}
	for (int k = 0; k < bodies->count; ++k)
	{
		bsBodyState_Destroy(bodies->states[k]);
	}
	for (int w = 0; w < bodies->workers; ++w)
	{
		free(bodies->pending[w].items);
	}
	free(bodies->pending);
	free(bodies->states);
	free(bodies->carried.items);
	free(bodies->isCarried);
	free(bodies);
}

double bsWorldBodies_Substeps(const bsWorldBodies* bodies, double dt)
{
	double substeps = 1.0;
	for (int k = 0; bodies != NULL && k < bodies->count; ++k)
	{
		const bsBody* body = bodies->states[k]->body;
		substeps = fmax(substeps, ceil(bsBody_MaxAngularSpeed(body) * dt / bsBody_MaxAngle(body) * (1.0 - 1e-12)));
	}
	return substeps;
}

int bsWorldBodies_Count(const bsWorldBodies* bodies)
{
	return bodies != NULL ? bodies->count : 0;
}

bsBody* bsWorldBodies_Body(const bsWorldBodies* bodies, int k)
{
	return bodies->states[k]->body;
}

const bsBvh* bsWorldBodies_Shape(const bsWorldBodies* bodies, int k)
{
	return &bodies->states[k]->bvh;
}

const bsTriangle* bsWorldBodies_ShapeTriangles(const bsWorldBodies* bodies, int k)
{
	return bodies->states[k]->shape;
}

const bsTriangle* bsWorld_BodyShape(const bsWorld* world, const bsBody* body, uint32_t* count)
{
	const bsWorldBodies* w = world->bodies;
	for (int k = 0; w != NULL && k < w->count; ++k)
	{
		if (w->states[k]->body == body)
		{
			bsBody_Triangles(body, count);
			return w->states[k]->shape;
		}
	}
	*count = 0;
	return NULL;
}

// --- the substep ---

// The shape at t1 into the BVH. A triangle the deformation makes degenerate keeps its last shape.
static bsResult bsBodyState_Reshape(bsBodyState* b)
{
	uint32_t count;
	const bsTriangle* rest = bsBody_Triangles(b->body, &count);
	bsVec3* weights = b->weightCount > 0 ? b->weights + b->weightCount : NULL;
	for (uint32_t i = 0; i < count; ++i)
	{
		bsVec3 p1 = bsBody_ShapePoint(b->body, weights, b->scale1, rest[i].p1);
		bsVec3 p2 = bsBody_ShapePoint(b->body, weights, b->scale1, rest[i].p2);
		bsVec3 p3 = bsBody_ShapePoint(b->body, weights, b->scale1, rest[i].p3);
		bsTriangle t;
		if (bsMakeTriangle(p1, p2, p3, &t) == bs_ok)
		{
			b->shape[i] = t;
		}
	}
	return bsBvh_Refit(&b->bvh, b->shape);
}

// The world box of the body over the substep: its shape's bounding sphere at both ends, grown by the
// arc's departure from the chord (|c| theta² / 8 for a centre c off the axis, the sphere's radius
// added to c for safety) and a rounding margin.
static void bsBodyState_Bounds(bsBodyState* b)
{
	const bsBvhNode* root = b->bvh.nodes;
	bsVec3 lo = bsV3(root->min[0], root->min[1], root->min[2]);
	bsVec3 hi = bsV3(root->max[0], root->max[1], root->max[2]);
	bsVec3 c = bsScale(0.5, bsAdd(lo, hi));
	double r = 0.5 * bsDistance(lo, hi);
	if (!b->rigidShape)
	{
		// The shape at t0 lies within the sphere grown by how far the corners' carry moves them.
		double moved = 0.0;
		for (int k = 0; k < 8; ++k)
		{
			bsVec3 corner = bsV3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
			moved = fmax(moved, bsDistance(corner, bsBodyState_Carry(b, corner, 1.0, 0.0)));
		}
		r += 2.0 * moved;
	}
	double grow = r + (bsLength(c) + r) * b->angle * b->angle / 8.0;
	grow += 1e-9 * (1.0 + bsMaxAbs(b->pose0.translation) + bsMaxAbs(b->pose1.translation) + bsLength(c) + r);
	bsVec3 a = bsTransform_Apply(b->pose0, c);
	bsVec3 e = bsTransform_Apply(b->pose1, c);
	bsVec3 g = bsV3(grow, grow, grow);
	b->boxMin = bsSub(bsMin(a, e), g);
	b->boxMax = bsAdd(bsMax(a, e), g);
}

static bsResult bsBodyState_Begin(bsBodyState* b, double t0, double t1)
{
	b->h = t1 - t0;
	b->t0 = t0;
	b->t1 = t1;
	bsBody_Pose(b->body, t0, &b->pose0, &b->scale0);
	bsBody_Pose(b->body, t1, &b->pose1, &b->scale1);
	bsQuat d = bsQuat_Mul(b->pose1.rotation, bsQuat_Conjugate(b->pose0.rotation));
	if (d.w < 0.0)
	{
		d.x = -d.x, d.y = -d.y, d.z = -d.z, d.w = -d.w;
	}
	double s = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
	b->axis = s > 0.0 ? bsV3(d.x / s, d.y / s, d.z / s) : bsV3(1.0, 0.0, 0.0);
	b->angle = 2.0 * atan2(s, d.w);
	bsResult r = bs_ok;
	if (!b->rigidShape)
	{
		bsBody_DeformWeights(b->body, t0, b->weights);
		bsBody_DeformWeights(b->body, t1, b->weights + b->weightCount);
		r = bsBodyState_Reshape(b);
	}
	bsBodyState_Bounds(b);
	return r;
}

static bsResult bsWorldBodies_Workers(bsWorldBodies* w, int workers, size_t particles)
{
	if (w->workers < workers)
	{
		if (!BS_ARRAY_RESIZE(w->pending, (size_t)workers))
		{
			return bs_errOutOfMemory;
		}
		memset(w->pending + w->workers, 0, (size_t)(workers - w->workers) * sizeof(bsCarryList));
		w->workers = workers;
	}
	if (w->isCarriedCount < particles)
	{
		size_t capacity = bsArray_NextCapacity(w->isCarriedCount, particles);
		if (!BS_ARRAY_RESIZE(w->isCarried, capacity))
		{
			return bs_errOutOfMemory;
		}
		memset(w->isCarried + w->isCarriedCount, 0, capacity - w->isCarriedCount);
		w->isCarriedCount = capacity;
	}
	return bs_ok;
}

bsResult bsWorldBodies_Begin(bsWorld* world, double t0, double t1, bsParticles* p)
{
	bsWorldBodies* w = world->bodies;
	bsResult r = bsWorldBodies_Workers(w, bsPool_ThreadCount(world->pool), p->count);
	for (int k = 0; r == bs_ok && k < w->count; ++k)
	{
		r = bsBodyState_Begin(w->states[k], t0, t1);
	}
	if (r != bs_ok)
	{
		return r;
	}
	// The carried particles ride to where their body puts them at t1; one that has left its body
	// (no longer stuck: expired) is dropped.
	size_t kept = 0;
	for (size_t k = 0; k < w->carried.count; ++k)
	{
		bsCarried c = w->carried.items[k];
		if (c.particle >= p->count || p->state[c.particle] != bs_particleStuck)
		{
			if (c.particle < w->isCarriedCount)
			{
				w->isCarried[c.particle] = 0;
			}
			continue;
		}
		const bsBodyState* b = world->colliders[c.collider].shape;
		c.local = bsBodyState_Carry(b, c.local, 0.0, 1.0);
		bsVec3 x = bsTransform_Apply(b->pose1, c.local);
		p->velocity[c.particle] = bsScale(1.0 / b->h, bsSub(x, p->position[c.particle]));
		p->position[c.particle] = x;
		if (world->stuck != NULL)
		{
			bsStuckGrid_Release(world->stuck, c.particle);
		}
		w->carried.items[kept++] = c;
	}
	w->carried.count = kept;
	return bs_ok;
}

// --- the sweep ---

static bool bsBodyState_SweepLocal(const bsBodyState* b, bsMethod method, const bsSweep* s, double u0, double u1,
	bsSweepOutput* hit, bsQueryStats* stats)
{
	bool apart = s->boxMax.x < b->boxMin.x || s->boxMax.y < b->boxMin.y || s->boxMax.z < b->boxMin.z ||
		s->boxMin.x > b->boxMax.x || s->boxMin.y > b->boxMax.y || s->boxMin.z > b->boxMax.z;
	if (apart)
	{
		return false;
	}
	bsSweepInput in = {bsTransform_ApplyInverse(bsBodyState_PoseAt(b, u0), s->c1),
		bsTransform_ApplyInverse(bsBodyState_PoseAt(b, u1), s->c2), s->radius};
	in.c1 = bsBodyState_Carry(b, in.c1, u0, 1.0);
	in.c2 = bsBodyState_Carry(b, in.c2, u1, 1.0);
	bsSweep local;
	if (bsMakeSweep(&in, &local) != bs_ok)
	{
		return false;
	}
	bsQueryStats qs = {0, 0, 0, 0};
	bsBvh_SweepPrepared(&b->bvh, method, &local, hit, &qs);
	stats->nodesVisited += qs.nodesVisited;
	stats->trianglesTested += qs.trianglesTested;
	return hit->hit;
}

static bool bsBody_SweepMoving(const bsCollider* c, bsMethod method, const bsSweep* s, double u0, double u1,
	bsSweepOutput* out, bsQueryStats* stats)
{
	const bsBodyState* b = c->shape;
	bsSweepOutput hit;
	if (!bsBodyState_SweepLocal(b, method, s, u0, u1, &hit, stats) || (out->hit && !(hit.t < out->t)))
	{
		return false;
	}
	// Back to the world where the body is at the contact.
	bsTransform pose = bsBodyState_PoseAt(b, u0 + hit.t * (u1 - u0));
	*out = hit;
	out->center = hit.t >= 1.0 ? s->c2 : bsMulAdd(s->c1, hit.t, s->d);
	out->point = bsTransform_Apply(pose, bsBodyState_Carry(b, hit.point, 1.0, u0 + hit.t * (u1 - u0)));
	out->normal = bsQuat_Rotate(pose.rotation, hit.normal);
	return true;
}

static bool bsBody_Sweep(const bsCollider* c, bsMethod method, const bsSweep* s, bsSweepOutput* out,
	bsQueryStats* stats)
{
	return bsBody_SweepMoving(c, method, s, 0.0, 1.0, out, stats);
}

// --- contacts ---

// The velocity of the body's surface at `point`, at fraction u of the substep.
static bsVec3 bsBody_SurfaceVelocity(const bsCollider* c, bsVec3 point, double u)
{
	const bsBodyState* b = c->shape;
	bsTransform pose = bsBodyState_PoseAt(b, u);
	double inv = b->h > 0.0 ? 1.0 / b->h : 0.0;
	bsVec3 omega = bsScale(b->angle * inv, b->axis);
	bsVec3 v = bsScale(inv, bsSub(b->pose1.translation, b->pose0.translation));
	v = bsAdd(v, bsCross(omega, bsSub(point, pose.translation)));
	if (!b->rigidShape)
	{
		bsVec3 y = bsBodyState_Carry(b, bsTransform_ApplyInverse(pose, point), u, 1.0);
		bsVec3 own = bsScale(inv, bsSub(y, bsBodyState_Carry(b, y, 1.0, 0.0)));
		v = bsAdd(v, bsQuat_Rotate(pose.rotation, own));
	}
	return v;
}

// Where the body's surface takes the point x (world, at fraction u of the substep) by the substep's end.
static bsVec3 bsBody_Ride(const bsCollider* c, bsVec3 x, double u)
{
	const bsBodyState* b = c->shape;
	return bsTransform_Apply(b->pose1, bsBodyState_LocalAtEnd(b, x, u));
}

// The body's walls near x where it is at the start of the substep (the last substep's end), each
// moving with the body's surface.
static int bsBody_Walls(const bsCollider* c, bsVec3 x, double maxDistance, bsWallPoint* out, int capacity)
{
	const bsBodyState* b = c->shape;
	bool apart = x.x + maxDistance < b->boxMin.x || x.y + maxDistance < b->boxMin.y ||
		x.z + maxDistance < b->boxMin.z || x.x - maxDistance > b->boxMax.x || x.y - maxDistance > b->boxMax.y ||
		x.z - maxDistance > b->boxMax.z;
	if (apart)
	{
		return 0;
	}
	int count = bsMeshWalls(&b->bvh, bsBodyState_LocalAtEnd(b, x, 1.0), maxDistance, out, capacity);
	for (int k = 0; k < count; ++k)
	{
		out[k].normal = bsQuat_Rotate(b->pose1.rotation, out[k].normal);
		out[k].velocity = bsBody_SurfaceVelocity(c, bsMulSub(x, out[k].distance, out[k].normal), 1.0);
	}
	return count;
}

bool bsWorldBodies_Near(const bsWorld* world, bsVec3 x, double radius)
{
	const bsWorldBodies* w = world->bodies;
	for (int k = 0; k < w->count; ++k)
	{
		const bsBodyState* b = w->states[k];
		if (x.x + radius >= b->boxMin.x && x.y + radius >= b->boxMin.y && x.z + radius >= b->boxMin.z &&
			x.x - radius <= b->boxMax.x && x.y - radius <= b->boxMax.y && x.z - radius <= b->boxMax.z)
		{
			return true;
		}
	}
	return false;
}

bool bsWorldBodies_IsCarried(const bsWorld* world, uint32_t particle)
{
	const bsWorldBodies* w = world->bodies;
	return particle < w->isCarriedCount && w->isCarried[particle] != 0;
}

static bool bsCarryList_Push(bsCarryList* list, bsCarried c)
{
	if (!BS_ARRAY_RESERVE(list->items, list->capacity, list->count + 1))
	{
		return false;
	}
	list->items[list->count++] = c;
	return true;
}

// A particle stuck at world point x at fraction u of the substep: recorded in the worker's own list,
// it rides with the body from the next substep on (bsWorldBodies_Gather).
static bool bsBody_Stick(const bsContactContext* cx, const bsSweepOutput* contact, uint32_t particle, bsVec3 x,
	double u)
{
	const bsWorld* world = cx->world;
	const bsBodyState* b = world->colliders[contact->collider].shape;
	bsCarried c = {particle, contact->collider, bsBodyState_LocalAtEnd(b, x, u)};
	return bsCarryList_Push(world->bodies->pending + (cx->worker - world->workers), c);
}

bsResult bsWorldBodies_Gather(bsWorld* world)
{
	bsWorldBodies* w = world->bodies;
	for (int k = 0; k < w->workers; ++k)
	{
		bsCarryList* list = w->pending + k;
		for (size_t i = 0; i < list->count; ++i)
		{
			if (!bsCarryList_Push(&w->carried, list->items[i]))
			{
				return bs_errOutOfMemory;
			}
			w->isCarried[list->items[i].particle] = 1;
		}
		list->count = 0;
	}
	return bs_ok;
}

// The reaction of a contact on a body the particles push back, on the worker's own list (summed per
// body in particle order after the phase: bsWorldDynamics_ApplyPushes).
static bool bsBody_Push(const bsContactContext* cx, const bsSweepOutput* contact, uint32_t particle, int seq, bsVec3 x,
	bsVec3 dv)
{
	const bsBodyState* b = cx->world->colliders[contact->collider].shape;
	if (!b->twoWay)
	{
		return true;
	}
	bsPush push = {particle, (uint16_t)seq, contact->collider, dv, x};
	return bsPushList_Add(&cx->worker->pushes, push);
}

bool bsPushList_Add(bsPushList* list, bsPush push)
{
	if (!BS_ARRAY_RESERVE(list->items, list->capacity, list->count + 1))
	{
		return false;
	}
	list->items[list->count++] = push;
	return true;
}

int bsWorldBodies_PushedBody(const bsWorld* world, int collider)
{
	const bsCollider* c = world->colliders + collider;
	if (c->kind != bs_colliderBody)
	{
		return -1;
	}
	const bsBodyState* b = c->shape;
	return b->twoWay ? b->index : -1;
}

bool bsWorldBodies_SweepResting(const bsWorld* world, bsMethod method, const bsSweep* s, bsSweepOutput* out,
	bsQueryStats* stats)
{
	bsSweep_Miss(s, out);
	for (int k = 0; k < world->colliderCount; ++k)
	{
		const bsCollider* c = world->colliders + k;
		if (c->kind == bs_colliderBody && bsBody_SweepMoving(c, method, s, 0.0, 1.0, out, stats))
		{
			out->collider = (uint16_t)k;
			out->kind = c->kind;
		}
	}
	return out->hit;
}

// --- newborn particles' ways (bsWorld_ClearWay) ---

// The fraction of the current substep at time t: 1 at its end (or after it), 0 at its start (or
// before it: the poses and shape held are the substep's only).
static double bsBodyState_Fraction(const bsBodyState* b, double t)
{
	if (t >= b->t1)
	{
		return 1.0;
	}
	return t > b->t0 ? (t - b->t0) / b->h : 0.0;
}

// Is y (the shape frame at t1) inside the body's shape: the winding number of its triangles about y
// (the sum of their solid angles, Van Oosterom and Strackee, over 4 pi) at least 3/4 in size, for
// either winding: a closed shape gives 1 inside and 0 outside, an open sheet at most 1/2 beside it.
static bool bsBodyState_Encloses(const bsBodyState* b, bsVec3 y)
{
	const bsBvhNode* root = b->bvh.nodes;  // beyond the shape's box: outside, without the sum
	bsVec3 lo = bsV3(root->min[0], root->min[1], root->min[2]);
	bsVec3 hi = bsV3(root->max[0], root->max[1], root->max[2]);
	if (y.x < lo.x || y.y < lo.y || y.z < lo.z || y.x > hi.x || y.y > hi.y || y.z > hi.z)
	{
		return false;
	}
	uint32_t count;
	bsBody_Triangles(b->body, &count);
	double sum = 0.0;
	for (uint32_t i = 0; i < count; ++i)
	{
		bsVec3 p = bsSub(b->shape[i].p1, y), q = bsSub(b->shape[i].p2, y), r = bsSub(b->shape[i].p3, y);
		double lp = bsLength(p), lq = bsLength(q), lr = bsLength(r);
		double num = bsDot(p, bsCross(q, r));
		double den = lp * lq * lr + bsDot(p, q) * lr + bsDot(p, r) * lq + bsDot(q, r) * lp;
		sum += 2.0 * atan2(num, den);
	}
	return fabs(sum) >= 3.0 * BS_PI;
}

bool bsWorldBodies_SweepAt(const bsWorld* world, const bsSweep* s, double time, bsSweepOutput* out,
	bsQueryStats* stats)
{
	bool found = false;
	for (int k = 0; k < world->colliderCount; ++k)
	{
		const bsCollider* c = world->colliders + k;
		if (c->kind != bs_colliderBody)
		{
			continue;
		}
		const bsBodyState* b = c->shape;
		double u = bsBodyState_Fraction(b, time);
		bsSweepOutput hit;
		bsSweep_Miss(s, &hit);
		// Held still at u: the sweep from c1 to c2 against the body posed then (bsBody_SweepMoving over
		// [u, u]). A way that starts in contact and leaves the surface meets nothing; one that starts
		// inside the body has no clear point on it.
		if (!bsBody_SweepMoving(c, bs_methodExact, s, u, u, &hit, stats) || (out->hit && !(hit.t < out->t)) ||
			bsClearWay_Leaves(s, &hit) ||
			bsBodyState_Encloses(b, bsBodyState_LocalAtEnd(b, s->c1, u)))
		{
			continue;
		}
		*out = hit;
		out->collider = (uint16_t)k;
		out->kind = c->kind;
		found = true;
	}
	return found;
}

bsVec3 bsWorldBodies_Follow(const bsWorld* world, int collider, bsVec3 x, double from, double to)
{
	const bsBodyState* b = world->colliders[collider].shape;
	bsTransform a, e;
	bsVec3 scaleA, scaleE;
	if (b->rigidShape)
	{
		bsBody_Pose(b->body, from, &a, &scaleA);
		bsBody_Pose(b->body, to, &e, &scaleE);
		return bsTransform_Apply(e, bsTransform_ApplyInverse(a, x));
	}
	double ua = bsBodyState_Fraction(b, from), ue = bsBodyState_Fraction(b, to);
	bsVec3 y = bsBodyState_Carry(b, bsTransform_ApplyInverse(bsBodyState_PoseAt(b, ua), x), ua, ue);
	return bsTransform_Apply(bsBodyState_PoseAt(b, ue), y);
}

const bsColliderClass bs_bodyCollider = {.name = "body", .sweep = bsBody_Sweep, .sweepMoving = bsBody_SweepMoving,
	.stick = bsBody_Stick, .surfaceVelocity = bsBody_SurfaceVelocity, .ride = bsBody_Ride,
	.walls = bsBody_Walls, .push = bsBody_Push};

// --- checkpoints (checkpoint.h) ---

static int bsCarried_Compare(const void* a, const void* b)
{
	uint32_t x = ((const bsCarried*)a)->particle, y = ((const bsCarried*)b)->particle;
	return (x > y) - (x < y);
}

bsResult bsWorldBodies_SaveState(const bsWorldBodies* w, bsBytes* out)
{
	// A changing shape keeps the triangles its deformation made degenerate: every shape is saved as
	// it is; the poses and the BVH come back from the time.
	bsBytes_PutU32(out, (uint32_t)w->count);
	for (int k = 0; k < w->count; ++k)
	{
		const bsBodyState* b = w->states[k];
		uint32_t count = 0;
		bsBody_Triangles(b->body, &count);
		bsBytes_PutU32(out, b->rigidShape ? 0u : count);
		for (uint32_t i = 0; !b->rigidShape && i < count; ++i)
		{
			const bsVec3 p[3] = {b->shape[i].p1, b->shape[i].p2, b->shape[i].p3};
			bsBytes_Put(out, p, sizeof(p));
		}
	}
	// In particle order: the list's own order is the workers' (it depends on the thread count) and
	// changes nothing (each record moves its own particle).
	bsCarried* sorted = w->carried.count > 0 ? malloc(w->carried.count * sizeof(bsCarried)) : NULL;
	if (w->carried.count > 0 && sorted == NULL)
	{
		return bs_errOutOfMemory;
	}
	if (sorted != NULL)
	{
		memcpy(sorted, w->carried.items, w->carried.count * sizeof(bsCarried));
		qsort(sorted, w->carried.count, sizeof(bsCarried), bsCarried_Compare);
	}
	bsBytes_PutU64(out, (uint64_t)w->carried.count);
	for (size_t k = 0; k < w->carried.count; ++k)
	{
		const bsCarried* c = sorted + k;
		bsBytes_PutU32(out, c->particle);
		bsBytes_PutU32(out, c->collider);
		bsBytes_Put(out, &c->local, sizeof(bsVec3));
	}
	free(sorted);
	return out->failed ? bs_errOutOfMemory : bs_ok;
}

bool bsWorldBodies_LoadState(bsWorld* world, const bsParticles* p, bsByteReader* in, char* err, size_t errlen)
{
	bsWorldBodies* w = world->bodies;
	if (bsByteReader_U32(in) != (uint32_t)w->count)
	{
		snprintf(err, errlen, "another number of bodies than the config's %d", w->count);
		return false;
	}
	for (int k = 0; k < w->count; ++k)
	{
		bsBodyState* b = w->states[k];
		uint32_t count = 0;
		bsBody_Triangles(b->body, &count);
		uint32_t saved = bsByteReader_U32(in);
		if (saved != (b->rigidShape ? 0u : count))
		{
			snprintf(err, errlen, "body %d: %u triangles, not its %u", k, saved, b->rigidShape ? 0u : count);
			return false;
		}
		for (uint32_t i = 0; i < saved; ++i)
		{
			bsVec3 v[3];
			if (!bsByteReader_Get(in, v, sizeof(v)) || bsMakeTriangle(v[0], v[1], v[2], b->shape + i) != bs_ok)
			{
				snprintf(err, errlen, "body %d: triangle %u is cut short, degenerate or not finite", k, i);
				return false;
			}
		}
		if (bsBodyState_Begin(b, world->time, world->time) != bs_ok)
		{
			snprintf(err, errlen, "body %d: its shape cannot be refit", k);
			return false;
		}
	}
	uint64_t carried = bsByteReader_U64(in);
	if (carried > p->count || carried * (8 + sizeof(bsVec3)) > in->count - in->at ||
		bsWorldBodies_Workers(w, bsPool_ThreadCount(world->pool), p->count) != bs_ok ||
		!BS_ARRAY_RESERVE(w->carried.items, w->carried.capacity, (size_t)carried))
	{
		snprintf(err, errlen, "%" PRIu64 " particles stuck to bodies: more than the bytes or the particles", carried);
		return false;
	}
	for (uint64_t k = 0; k < carried; ++k)
	{
		bsCarried c;
		c.particle = bsByteReader_U32(in);
		uint32_t collider = bsByteReader_U32(in);
		bool read = bsByteReader_Get(in, &c.local, sizeof(bsVec3));
		if (!read || c.particle >= p->count || w->isCarried[c.particle] != 0 || collider >= (uint32_t)world->colliderCount ||
			world->colliders[collider].kind != bs_colliderBody || !bsIsValidVec3(c.local))
		{
			snprintf(err, errlen, "stuck-to-body record %" PRIu64 ": not a particle, a body and a point", k);
			return false;
		}
		c.collider = (uint16_t)collider;
		w->carried.items[w->carried.count++] = c;
		w->isCarried[c.particle] = 1;
	}
	return true;
}
