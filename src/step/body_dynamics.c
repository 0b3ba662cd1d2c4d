// body_dynamics.c — the world's dynamic bodies (body_dynamics.h, docs/bodies.md).
//
// Each substep, before the particles move: every dynamic body's contacts at its pose at t0 (its
// vertices against the static planes and meshes: rigid.h's generators; one closest pair against
// every other body whose bounding sphere is within the contact margin: the exact BVH-BVH distance or
// the sensor particles), one bsRigid_Step, and the body's chord [t0, t1] for bsBody_Pose. Keyframed
// and deforming bodies take part as infinite mass at their pose at t0 (BS_RIGID_STATIC): a dynamic
// body bounces off them as off a wall at rest (their own velocity is not given to it). Particles push
// back only the bodies with two-way coupling: the pushes their phases record are sorted by particle
// and summed per body in that order (bsWorldDynamics_ApplyPushes). Everything runs on the calling
// thread in the order the bodies were added, so the result is the same at any thread count.
//
// A deforming dynamic body (docs/bodies_dynamics.md, "Deforming dynamic bodies") carries its shape
// here: its rest vertices welded once, deformed at the substep's ends. Its contacts are generated
// from its shape at t0 with the margin grown by the farthest its vertices travel by t1, and each
// takes the speed at which the deformation moves the surface at its point towards the other body
// (rigid.h's `closing`: the solver makes the rigid motion make up for it). After the rigid step its
// mass properties are the shape's at t1 (bsRigidBody_Reshape), before its chord is set.
#include "body_dynamics.h"

#include "array.h"
#include "collider_body.h"
#include "interaction_class.h"
#include "mesh_distance.h"
#include "rigid.h"
#include "sensor.h"
#include "weld.h"

#include "blobsim/body.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// A deforming dynamic body's shape: its rest mesh's distinct vertices (sorted by position: the
// contacts' vertex keys stay the same from substep to substep) and where the deformation puts them.
typedef struct bsDeformShape
{
	const bsBody* body;
	bsWeld weld;          // rest vertices (mesh coordinates) and each triangle corner's vertex
	bsVec3* weights;      // the deformation's weights at t0 of the substep, then at t1
	bsVec3* at;           // the vertices at t0 of the substep (mesh coordinates)
	bsVec3* next;         // and at t1
	bsTriangle* tris;     // the shape at t1 (corners only: for the mass properties)
	double travel;        // the farthest a vertex moves from t0 to t1
	bsVec3 shift;         // the centre of mass's move in the mesh frame from t0 to t1
} bsDeformShape;

static void bsDeformShape_Destroy(bsDeformShape* s);

typedef struct bsBodyPair
{
	int i, j;                // world body indices, i < j
	bsSensorPair* sensors;   // sensors: created on the pair's first query
	uint32_t hintA, hintB;   // exact: the last closest leaves (mesh_distance.h warm start)
	bsVec3 normal;           // the last contact's normal from j to i (zero before one)
	bool queried;
} bsBodyPair;

struct bsWorldDynamics
{
	bsBodyDynamicsDef def;
	bsRigidBody* rigid;           // the dynamic bodies' states, in the order added
	bsTransform* start;           // their poses at t0 of the substep
	bsDeformShape* shapes;        // per dynamic body: its deforming shape (zero for a rigid shape)
	int rigidCount;
	int* rigidOf;                 // per world body: its index in rigid, or -1
	int bodyCount;                // world bodies seen so far
	bsRigidContactCache cache;
	bsRigidContact* contacts;
	int32_t contactCount, contactCapacity;
	bsBodyPair* pairs;
	int pairCount;
	size_t pairCapacity;
	bsMeshTopology** topology;    // per world body, built on its first sensor query (NULL before; a
	                              // pointer each: the sensor pairs hold them while bodies are added)
	bsVec3* positions;            // a deforming body's welded vertices for a sensor query
	size_t positionCapacity;
	bsTriangle** meshTris;        // by collider: a static mesh's triangles in its caller's order (NULL:
	int meshTrisCount;            // not yet asked for), meshTrisCount entries
	bsPush* pushes;               // two-way coupling: the pushes of a phase, pending
	size_t pushCount, pushCapacity;
	bsVec3* pushImpulse;          // per dynamic body: the sum of its pushes' impulses
	bsVec3* pushAngular;          // and of their angular impulses about its centre of mass
};

void bsWorldDynamics_Destroy(bsWorldDynamics* d)
{
	if (d == NULL)
	{
		return;
	}
	for (int k = 0; k < d->rigidCount; ++k)
	{
		bsRigidBody_Destroy(d->rigid + k);
		bsDeformShape_Destroy(d->shapes + k);
	}
	for (int k = 0; k < d->pairCount; ++k)
	{
		bsSensorPair_Destroy(d->pairs[k].sensors);
	}
	for (int k = 0; k < d->bodyCount; ++k)
	{
		if (d->topology[k] != NULL)
		{
			bsMeshTopology_Destroy(d->topology[k]);
			free(d->topology[k]);
		}
	}
	for (int k = 0; k < d->meshTrisCount; ++k)
	{
		free(d->meshTris[k]);
	}
	free(d->meshTris);
	free(d->pushes);
	free(d->pushImpulse);
	free(d->pushAngular);
	bsRigidContactCache_Destroy(&d->cache);
	free(d->rigid);
	free(d->start);
	free(d->shapes);
	free(d->rigidOf);
	free(d->contacts);
	free(d->pairs);
	free(d->topology);
	free(d->positions);
	free(d);
}

static bsWorldDynamics* bsWorld_Dynamics(bsWorld* world)
{
	if (world->dynamics == NULL && (world->dynamics = calloc(1, sizeof(bsWorldDynamics))) != NULL)
	{
		world->dynamics->def = bsDefaultBodyDynamicsDef();
	}
	return world->dynamics;
}

bsResult bsWorld_SetBodyDynamics(bsWorld* world, const bsBodyDynamicsDef* def)
{
	bsRigidStepDef s = def->step;
	bool bad = (unsigned)def->method > (unsigned)bs_bodyContactSensors || !(s.restitution >= 0.0 && s.restitution <= 1.0) ||
		!(s.friction >= 0.0) || !(s.iterations >= 1 && s.iterations <= 1000) || !(s.sleepDelay >= 0.0) ||
		!(s.sleepSpeed >= 0.0) || !(s.slop >= 0.0) || !(s.positionFactor >= 0.0 && s.positionFactor <= 1.0);
	if (bad)
	{
		return bs_errInvalidArgument;
	}
	bsWorldDynamics* d = bsWorld_Dynamics(world);
	if (d == NULL)
	{
		return bs_errOutOfMemory;
	}
	d->def = *def;
	return bs_ok;
}

// --- bodies ---

// --- deforming dynamic bodies ---

static void bsDeformShape_Destroy(bsDeformShape* s)
{
	bsWeld_Destroy(&s->weld);
	free(s->weights);
	free(s->at);
	free(s->next);
	free(s->tris);
	memset(s, 0, sizeof *s);
}

// The vertices' places at time t into out (mesh coordinates) with the weights at t into weights, and
// the triangles between them.
static void bsDeformShape_At(bsDeformShape* s, double t, bsVec3* weights, bsVec3* out)
{
	bsBody_DeformWeights(s->body, t, weights);
	for (uint32_t v = 0; v < s->weld.vertexCount; ++v)
	{
		out[v] = bsBody_ShapePoint(s->body, weights, bsV3(1.0, 1.0, 1.0), s->weld.positions[v]);
	}
	const uint32_t* c = s->weld.cornerVertex;
	for (uint32_t i = 0; 3 * i < s->weld.cornerCount; ++i)
	{
		s->tris[i].p1 = out[c[3 * i]];
		s->tris[i].p2 = out[c[3 * i + 1]];
		s->tris[i].p3 = out[c[3 * i + 2]];
	}
}

// A dynamic body's rigid state; a deforming one's from its shape at time 0 (its mass: the density
// times that shape's volume) and its shape.
static bsResult bsWorldDynamics_CreateRigid(bsRigidBody* rigid, bsDeformShape* s, const bsBody* body,
	const bsRigidBodyDef* def)
{
	memset(s, 0, sizeof *s);
	memset(rigid, 0, sizeof *rigid);
	uint32_t count;
	const bsTriangle* rest = bsBody_Triangles(body, &count);
	if (bsBody_RigidShape(body))
	{
		return bsRigidBody_Create(rigid, rest, count, def);
	}
	s->body = body;
	bsResult r = bsWeld_Build(&s->weld, rest, count);
	if (r == bs_ok && !bsWeld_SortByPosition(&s->weld))
	{
		r = bs_errOutOfMemory;
	}
	uint32_t n = s->weld.vertexCount;
	s->weights = r == bs_ok ? calloc(2 * (size_t)bsBody_DeformWeightCount(body) + 1, sizeof(bsVec3)) : NULL;
	s->at = r == bs_ok ? malloc(((size_t)n + 1) * sizeof(bsVec3)) : NULL;
	s->next = r == bs_ok ? malloc(((size_t)n + 1) * sizeof(bsVec3)) : NULL;
	s->tris = r == bs_ok ? calloc((size_t)count + 1, sizeof(bsTriangle)) : NULL;
	bool missing = s->weights == NULL || s->at == NULL || s->next == NULL || s->tris == NULL;
	r = r == bs_ok && missing ? bs_errOutOfMemory : r;
	if (r == bs_ok)
	{
		bsDeformShape_At(s, 0.0, s->weights, s->at);
		r = bsRigidBody_Create(rigid, s->tris, count, def);
	}
	// The vertices in the weld's order (the creation's own are sorted where they are at time 0).
	r = r == bs_ok ? bsRigidBody_Reshape(rigid, s->tris, count, s->at, n) : r;
	if (r != bs_ok)
	{
		bsRigidBody_Destroy(rigid);
		bsDeformShape_Destroy(s);
	}
	return r;
}

// Each deforming body's shape at t1, how far it travels from t0 (grows its contact margin) and how
// far its centre of mass moves in its frame (bsRigidBody_Reshape moves the frame back by as much).
static void bsWorldDynamics_Deform(bsWorldDynamics* d, double t0, double t1)
{
	for (int i = 0; i < d->rigidCount; ++i)
	{
		bsDeformShape* s = d->shapes + i;
		if (s->at == NULL)
		{
			continue;
		}
		int n = bsBody_DeformWeightCount(s->body);
		bsBody_DeformWeights(s->body, t0, s->weights);
		bsDeformShape_At(s, t1, s->weights + n, s->next);
		double travel = 0.0;
		for (uint32_t v = 0; v < s->weld.vertexCount; ++v)
		{
			travel = fmax(travel, bsDistance(s->at[v], s->next[v]));
		}
		s->travel = travel;
		if (travel > 0.0)
		{
			// A shape that changes is not at rest, whatever its frame does: its contacts are solved.
			d->rigid[i].awake = true;
			d->rigid[i].sleepTime = 0.0;
		}
		bsMassProperties mass;
		bool closed = bsComputeMassProperties(s->tris, s->weld.cornerCount / 3, 1.0, &mass) == bs_ok;
		s->shift = closed ? bsSub(mass.centre, d->rigid[i].mass.centre) : bsV3(0.0, 0.0, 0.0);
	}
}

// The velocity the deformation gives body i's surface at world point p over the substep (its frame's
// move back with the centre of mass included): the move of the rest point that the shape at t0 puts
// at p, found by three fixed-point steps x = y - u(x) (they converge where the field's gradient is
// below 1, as for any deformation that does not fold the mesh).
static bsVec3 bsWorldDynamics_DeformVelocity(const bsWorldDynamics* d, int i, bsVec3 p, double h)
{
	const bsDeformShape* s = d->shapes + i;
	int n = bsBody_DeformWeightCount(s->body);
	bsTransform mesh = bsRigidBody_MeshTransform(d->rigid + i);
	bsVec3 y = bsTransform_ApplyInverse(mesh, p);
	bsVec3 one = bsV3(1.0, 1.0, 1.0);
	bsVec3 x = y;
	for (int k = 0; k < 3; ++k)
	{
		x = bsSub(y, bsSub(bsBody_ShapePoint(s->body, s->weights, one, x), x));
	}
	bsVec3 move = bsSub(bsBody_ShapePoint(s->body, s->weights + n, one, x),
		bsBody_ShapePoint(s->body, s->weights, one, x));
	return bsQuat_Rotate(mesh.rotation, bsScale(1.0 / h, bsSub(move, s->shift)));
}

// Each contact's closing speed (rigid.h): how fast the deformations move its surfaces together.
static void bsWorldDynamics_Closing(bsWorldDynamics* d, double h)
{
	for (int32_t k = 0; k < d->contactCount; ++k)
	{
		bsRigidContact* c = d->contacts + k;
		double closing = 0.0;
		if (c->a != BS_RIGID_STATIC && d->shapes[c->a].at != NULL)
		{
			closing -= bsDot(bsWorldDynamics_DeformVelocity(d, c->a, c->point, h), c->normal);
		}
		if (c->b != BS_RIGID_STATIC && d->shapes[c->b].at != NULL)
		{
			closing += bsDot(bsWorldDynamics_DeformVelocity(d, c->b, c->point, h), c->normal);
		}
		c->closing = closing;
	}
}

// How near a dynamic body's contacts are generated: its rigid margin and its deformation's travel.
static double bsWorldDynamics_Margin(const bsWorldDynamics* d, int i, double h)
{
	return bsRigidBody_ContactMargin(d->rigid + i, &d->def.step, h) + d->shapes[i].travel;
}

// The deforming bodies' mass properties and vertices become their shape's at t1. A shape the
// deformation turned inside out (no positive volume) keeps the last mass properties, with its
// vertices where they are.
static bsResult bsWorldDynamics_Reshape(bsWorldDynamics* d)
{
	for (int i = 0; i < d->rigidCount; ++i)
	{
		bsDeformShape* s = d->shapes + i;
		if (s->at == NULL)
		{
			continue;
		}
		bsRigidBody* body = d->rigid + i;
		uint32_t n = s->weld.vertexCount;
		bsResult r = bsRigidBody_Reshape(body, s->tris, s->weld.cornerCount / 3, s->next, n);
		if (r == bs_errInvalidArgument || r == bs_errNonFinite)
		{
			for (uint32_t v = 0; v < n && v < body->vertexCount; ++v)
			{
				body->vertices[v] = bsTransform_ApplyInverse(body->bodyToMesh, s->next[v]);
			}
			r = bs_ok;
		}
		if (r != bs_ok)
		{
			return r;
		}
		bsVec3* at = s->at;
		s->at = s->next;
		s->next = at;
		s->shift = bsV3(0.0, 0.0, 0.0);
	}
	return bs_ok;
}

// Rigid states for the bodies added since the last substep.
static bsResult bsWorldDynamics_Sync(bsWorldDynamics* d, const bsWorldBodies* bodies)
{
	int n = bsWorldBodies_Count(bodies);
	if (n == d->bodyCount)
	{
		return bs_ok;
	}
	if (!BS_ARRAY_RESIZE(d->rigidOf, (size_t)n) || !BS_ARRAY_RESIZE(d->topology, (size_t)n) ||
		!BS_ARRAY_RESIZE(d->rigid, (size_t)n) || !BS_ARRAY_RESIZE(d->start, (size_t)n) ||
		!BS_ARRAY_RESIZE(d->shapes, (size_t)n) || !BS_ARRAY_RESIZE(d->pushImpulse, (size_t)n) ||
		!BS_ARRAY_RESIZE(d->pushAngular, (size_t)n))
	{
		return bs_errOutOfMemory;
	}
	for (int k = d->bodyCount; k < n; ++k)
	{
		const bsBody* body = bsWorldBodies_Body(bodies, k);
		d->rigidOf[k] = -1;
		d->topology[k] = NULL;
		if (bsBody_Kind(body) != bs_motionDynamic)
		{
			continue;
		}
		bsRigidBodyDef def = bsBody_DynamicDef(body);
		bsResult r = bsWorldDynamics_CreateRigid(d->rigid + d->rigidCount, d->shapes + d->rigidCount, body, &def);
		if (r != bs_ok)
		{
			d->bodyCount = k;
			return r;
		}
		d->rigidOf[k] = d->rigidCount++;
	}
	d->bodyCount = n;
	return bs_ok;
}

// Room for `extra` more contacts.
static bsResult bsWorldDynamics_Reserve(bsWorldDynamics* d, uint32_t extra)
{
	int64_t need = (int64_t)d->contactCount + extra;
	if (need <= d->contactCapacity)
	{
		return bs_ok;
	}
	if (need > INT32_MAX / 2)
	{
		return bs_errTooLarge;
	}
	// At most twice INT32_MAX / 2: an int32_t, as the contact generators take it.
	size_t capacity = bsArray_NextCapacity((size_t)d->contactCapacity, (size_t)need);
	if (!BS_ARRAY_RESIZE(d->contacts, capacity))
	{
		return bs_errOutOfMemory;
	}
	d->contactCapacity = (int32_t)capacity;
	return bs_ok;
}

// A static mesh's triangles in the order its BVH was built from (rigid.h's generator reads them by
// the caller's index).
static const bsTriangle* bsWorldDynamics_MeshTriangles(bsWorldDynamics* d, int collider, const bsBvh* bvh)
{
	if (collider >= d->meshTrisCount)
	{
		bsTriangle** grown = realloc(d->meshTris, (size_t)(collider + 1) * sizeof(bsTriangle*));
		if (grown == NULL)
		{
			return NULL;
		}
		memset(grown + d->meshTrisCount, 0, (size_t)(collider + 1 - d->meshTrisCount) * sizeof(bsTriangle*));
		d->meshTris = grown;
		d->meshTrisCount = collider + 1;
	}
	if (d->meshTris[collider] == NULL && (d->meshTris[collider] = malloc((bvh->triCount + 1) * sizeof(bsTriangle))) != NULL)
	{
		for (uint32_t l = 0; l < bvh->triCount; ++l)
		{
			d->meshTris[collider][bvh->triIndex[l]] = bvh->tris[l];
		}
	}
	return d->meshTris[collider];
}

// --- contacts ---

static bsResult bsWorldDynamics_StaticContacts(bsWorldDynamics* d, const bsWorld* world, int32_t index, double margin)
{
	const bsRigidBody* body = d->rigid + index;
	for (int k = 0; k < world->colliderCount; ++k)
	{
		const bsCollider* c = world->colliders + k;
		uint32_t planes = c->kind == bs_colliderPlane ? c->count : c->kind == bs_colliderMesh ? 1 : 0;
		for (uint32_t p = 0; p < planes; ++p)
		{
			bsResult r = bsWorldDynamics_Reserve(d, body->vertexCount);
			if (r != bs_ok)
			{
				return r;
			}
			if (c->kind == bs_colliderPlane)
			{
				bsRigidBody_CollidePlane(body, index, (const bsPlane*)c->shape + p, margin, d->contacts,
					d->contactCapacity, &d->contactCount);
				continue;
			}
			const bsTriangle* tris = bsWorldDynamics_MeshTriangles(d, k, c->shape);
			if (tris == NULL)
			{
				return bs_errOutOfMemory;
			}
			bsRigidBody_CollideMesh(body, index, c->shape, tris, margin, d->contacts, d->contactCapacity, &d->contactCount);
		}
	}
	return bs_ok;
}

// A body's pose at t0 (a dynamic one's from its state) and its shape's bounding sphere in the world.
typedef struct bsBodyAt
{
	const bsBody* body;
	const bsBvh* bvh;
	bsTransform pose;
	bsVec3 scale;
	bsVec3 centre;
	double radius;
	double margin;   // how far it can move in the substep (0 for a body that is not dynamic)
	int rigid;       // index in d->rigid, or BS_RIGID_STATIC
	int index;       // in the world's bodies
} bsBodyAt;

static bsBodyAt bsWorldDynamics_BodyAt(const bsWorldDynamics* d, const bsWorldBodies* bodies, int k, double t0, double h)
{
	bsBodyAt a;
	a.body = bsWorldBodies_Body(bodies, k);
	a.index = k;
	a.bvh = bsWorldBodies_Shape(bodies, k);
	a.rigid = d->rigidOf[k] >= 0 ? d->rigidOf[k] : BS_RIGID_STATIC;
	bsBody_Pose(a.body, t0, &a.pose, &a.scale);
	a.margin = 0.0;
	if (a.rigid != BS_RIGID_STATIC)
	{
		a.pose = bsRigidBody_MeshTransform(d->rigid + a.rigid);
		a.margin = bsWorldDynamics_Margin(d, a.rigid, h);
	}
	const bsBvhNode* root = a.bvh->nodes;
	bsVec3 lo = bsV3(root->min[0], root->min[1], root->min[2]);
	bsVec3 hi = bsV3(root->max[0], root->max[1], root->max[2]);
	a.centre = bsTransform_Apply(a.pose, bsScale(0.5, bsAdd(lo, hi)));
	a.radius = 0.5 * bsDistance(lo, hi);
	return a;
}

static bsBodyPair* bsWorldDynamics_Pair(bsWorldDynamics* d, int i, int j)
{
	for (int k = 0; k < d->pairCount; ++k)
	{
		if (d->pairs[k].i == i && d->pairs[k].j == j)
		{
			return d->pairs + k;
		}
	}
	if (!BS_ARRAY_RESERVE(d->pairs, d->pairCapacity, (size_t)d->pairCount + 1))
	{
		return NULL;
	}
	bsBodyPair* p = d->pairs + d->pairCount++;
	memset(p, 0, sizeof *p);
	p->i = i;
	p->j = j;
	p->hintA = p->hintB = BS_NO_TRIANGLE;
	return p;
}

// A body's welded vertices where its shape is at t0 (NULL: its rest ones), for the sensors.
static bsResult bsWorldDynamics_Positions(const bsBodyAt* a, const bsMeshTopology* topo, double t0,
	bsVec3* buffer, const bsVec3** out)
{
	*out = NULL;
	if (bsBody_RigidShape(a->body) && a->scale.x == 1.0 && a->scale.y == 1.0 && a->scale.z == 1.0)
	{
		return bs_ok;
	}
	int n = bsBody_DeformWeightCount(a->body);
	bsVec3* weights = n > 0 ? malloc((size_t)n * sizeof(bsVec3)) : NULL;
	if (n > 0 && weights == NULL)
	{
		return bs_errOutOfMemory;
	}
	bsBody_DeformWeights(a->body, t0, weights);
	for (uint32_t v = 0; v < topo->vertexCount; ++v)
	{
		buffer[v] = bsBody_ShapePoint(a->body, weights, a->scale, topo->positions[v]);
	}
	free(weights);
	*out = buffer;
	return bs_ok;
}

static bsResult bsWorldDynamics_Topology(bsWorldDynamics* d, const bsWorldBodies* bodies, int k)
{
	if (d->topology[k] != NULL)
	{
		return bs_ok;
	}
	bsMeshTopology* topology = calloc(1, sizeof *topology);
	if (topology == NULL)
	{
		return bs_errOutOfMemory;
	}
	uint32_t count;
	const bsTriangle* tris = bsBody_Triangles(bsWorldBodies_Body(bodies, k), &count);
	bsResult r = bsMeshTopology_Build(topology, tris, count);
	if (r != bs_ok)
	{
		free(topology);
		return r;
	}
	d->topology[k] = topology;
	return bs_ok;
}

// One sensor query between bodies i and j: the closest points and the normal from B to A. Guarded
// (sensor.h): a separation within the margin is the exact one, from the shape BVHs the exact query uses.
static bsResult bsWorldDynamics_SensorQuery(bsWorldDynamics* d, const bsWorldBodies* bodies, bsBodyPair* pair,
	const bsBodyAt* a, const bsBodyAt* b, double t0, double margin, double* distance, bsVec3* pA, bsVec3* pB,
	bsVec3* normal)
{
	bsResult r = bsWorldDynamics_Topology(d, bodies, pair->i);
	r = r == bs_ok ? bsWorldDynamics_Topology(d, bodies, pair->j) : r;
	if (r != bs_ok)
	{
		return r;
	}
	const bsMeshTopology* ta = d->topology[pair->i];
	const bsMeshTopology* tb = d->topology[pair->j];
	if (pair->sensors == NULL)
	{
		bsSensorDef def = d->def.sensors;
		def.particlesA = bsBody_SensorParticles(a->body);
		def.particlesB = bsBody_SensorParticles(b->body);
		r = bsSensorPair_Create(&pair->sensors, ta, tb, &def);
		if (r != bs_ok)
		{
			return r;
		}
	}
	size_t need = (size_t)ta->vertexCount + tb->vertexCount;
	if (!BS_ARRAY_RESERVE(d->positions, d->positionCapacity, need))
	{
		return bs_errOutOfMemory;
	}
	bsSensorQueryInput in = {a->pose, b->pose, NULL, NULL, a->bvh, b->bvh, margin};
	r = bsWorldDynamics_Positions(a, ta, t0, d->positions, &in.positionsA);
	r = r == bs_ok ? bsWorldDynamics_Positions(b, tb, t0, d->positions + ta->vertexCount, &in.positionsB) : r;
	bsSensorQueryOutput out;
	r = r == bs_ok ? bsSensorPair_Query(pair->sensors, &in, &out) : r;
	if (r != bs_ok)
	{
		return r;
	}
	pair->queried = true;
	*distance = out.separation;
	*pA = out.pointA;
	*pB = out.pointB;
	*normal = bsNeg(out.normal);  // sensor.h's normal is from A to B
	return bs_ok;
}

static bsResult bsWorldDynamics_ExactQuery(bsBodyPair* pair, const bsBodyAt* a, const bsBodyAt* b, double maxDistance,
	double* distance, bsVec3* pA, bsVec3* pB, bsVec3* normal)
{
	bsMeshDistanceInput in = {a->bvh, a->pose, b->bvh, b->pose, maxDistance, pair->hintA, pair->hintB};
	bsMeshDistanceOutput out;
	bsResult r = bsMeshDistance(&in, &out);
	if (r != bs_ok || !out.hit)
	{
		*distance = HUGE_VAL;
		return r;
	}
	pair->hintA = out.leafA;
	pair->hintB = out.leafB;
	*distance = out.distance;
	*pA = out.pointA;
	*pB = out.pointB;
	// Touching faces have no direction between their points: B's face there faces A.
	*normal = bsQuat_Rotate(b->pose.rotation, b->bvh->tris[out.leafB].n);
	return bs_ok;
}

// A body's shape at t0 in its mesh frame: its rest triangles, or a deforming dynamic body's shape
// (the BVH's). NULL for a keyframed body whose shape changes.
static const bsTriangle* bsWorldDynamics_MeshShape(const bsWorldBodies* bodies, const bsBodyAt* a,
	uint32_t* count)
{
	bool rigid = bsBody_RigidShape(a->body) && a->scale.x == 1.0 && a->scale.y == 1.0 && a->scale.z == 1.0;
	const bsTriangle* tris = bsBody_Triangles(a->body, count);
	if (rigid)
	{
		return tris;
	}
	return a->rigid != BS_RIGID_STATIC ? bsWorldBodies_ShapeTriangles(bodies, a->index) : NULL;
}

// The pair's contact manifold (rigid.h's bsRigidBody_CollideBody): each dynamic body's vertices
// within the margin of the other's shape, when that shape is its rest mesh moved rigidly (not
// scaled) or a dynamic body's deformed one, so that a face resting on a face is held at its corners.
static bsResult bsWorldDynamics_Manifold(bsWorldDynamics* d, const bsWorldBodies* bodies, const bsBodyAt* a,
	const bsBodyAt* b, bsVec3 pA, bsVec3 pB, double margin)
{
	const bsBodyAt* side[2] = {a, b};
	bool edges = false;
	for (int k = 0; k < 2; ++k)
	{
		const bsBodyAt* x = side[k];
		const bsBodyAt* y = side[1 - k];
		uint32_t count, own;
		const bsTriangle* tris = bsWorldDynamics_MeshShape(bodies, y, &count);
		if (x->rigid == BS_RIGID_STATIC || tris == NULL)
		{
			continue;
		}
		const bsRigidBody* body = d->rigid + x->rigid;
		bsResult r = bsWorldDynamics_Reserve(d, body->vertexCount);
		if (r != bs_ok)
		{
			return r;
		}
		bsRigidBody_CollideBody(body, x->rigid, y->bvh, tris, y->pose, y->rigid, k == 0 ? pB : pA, bsDistance(pA, pB),
			margin, d->contacts, d->contactCapacity, &d->contactCount);
		if (!edges)
		{
			// The edge crossings, one way round (a crossing is both bodies' at once).
			const bsTriangle* mine = bsWorldDynamics_MeshShape(bodies, x, &own);
			r = bsWorldDynamics_Reserve(d, 6 * own);
			if (r != bs_ok)
			{
				return r;
			}
			edges = true;
			bsRigidBody_CollideEdges(body, x->rigid, mine, own, y->bvh, y->pose, y->rigid, k == 0 ? pB : pA,
				bsDistance(pA, pB), margin, d->contacts, d->contactCapacity, &d->contactCount);
		}
	}
	return bs_ok;
}

// The contact between two bodies, at least one dynamic, when they are within their margins.
static bsResult bsWorldDynamics_PairContact(bsWorldDynamics* d, const bsWorldBodies* bodies, int i, int j, double t0,
	double h)
{
	bsBodyAt a = bsWorldDynamics_BodyAt(d, bodies, i, t0, h);
	bsBodyAt b = bsWorldDynamics_BodyAt(d, bodies, j, t0, h);
	double margin = a.margin + b.margin;
	double gap = bsDistance(a.centre, b.centre) - a.radius - b.radius;
	bool sensors = d->def.method == bs_bodyContactSensors;
	// The sensors track a pair from farther away (their relaxation is coherent from query to query).
	if (gap > (sensors ? fmax(margin, a.radius + b.radius) : margin))
	{
		return bs_ok;
	}
	bsBodyPair* pair = bsWorldDynamics_Pair(d, i, j);
	if (pair == NULL)
	{
		return bs_errOutOfMemory;
	}
	double distance = HUGE_VAL;
	bsVec3 pA = {0}, pB = {0}, normal = {0};
	bsResult r = sensors ? bsWorldDynamics_SensorQuery(d, bodies, pair, &a, &b, t0, margin, &distance, &pA, &pB, &normal)
		: bsWorldDynamics_ExactQuery(pair, &a, &b, margin, &distance, &pA, &pB, &normal);
	if (r != bs_ok || !(distance <= margin))
	{
		return r;
	}
	// rigid.h: normal from b to a = (pA - pB) / d. Touching points have no direction between them:
	// then the pair's last normal (the way they approached), else the query's own normal, else the
	// centres' direction.
	bsVec3 between = bsSub(pA, pB);
	double length = bsLength(between);
	if (length > 1e-9 * (a.radius + b.radius))
	{
		normal = bsScale(1.0 / length, between);
	}
	else if (bsLength(pair->normal) > 0.5)
	{
		normal = pair->normal;
	}
	else if (!(bsLength(normal) > 0.5))
	{
		normal = bsSub(a.centre, b.centre);
	}
	normal = bsNormalize(normal);
	pair->normal = normal;
	// Resting (approaching slower than a bounce): the manifold, and the closest pair itself unless a
	// vertex of the manifold is as close (an edge across an edge has no vertex near): a second,
	// unkeyed contact where the corners already hold the pair made a stack of boxes creep and tilt.
	// A collision keeps the paper's one-point response: restitution solved over many points at once
	// is not symmetric (a ball landing on the vertices of one facet was set rolling for good).
	bsVec3 mid = bsScale(0.5, bsAdd(pA, pB));
	bsVec3 va = a.rigid != BS_RIGID_STATIC ? bsRigidBody_PointVelocity(d->rigid + a.rigid, mid) : bsV3(0, 0, 0);
	bsVec3 vb = b.rigid != BS_RIGID_STATIC ? bsRigidBody_PointVelocity(d->rigid + b.rigid, mid) : bsV3(0, 0, 0);
	bool resting = bsDot(bsSub(va, vb), normal) >= -d->def.step.restThreshold;
	int32_t first = d->contactCount;
	r = resting ? bsWorldDynamics_Manifold(d, bodies, &a, &b, pA, pB, margin) : bs_ok;
	double closest = HUGE_VAL;
	for (int32_t k = first; k < d->contactCount; ++k)
	{
		closest = fmin(closest, d->contacts[k].separation);
	}
	r = r == bs_ok ? bsWorldDynamics_Reserve(d, 1) : r;
	if (r != bs_ok || closest <= distance + 1e-9 * (a.radius + b.radius))
	{
		return r;
	}
	bsRigidContact c = {bsScale(0.5, bsAdd(pA, pB)), normal, distance, a.rigid, b.rigid, 0, 0.0};
	if (c.a == BS_RIGID_STATIC)
	{
		c.a = b.rigid;
		c.b = BS_RIGID_STATIC;
		c.normal = bsNeg(normal);
	}
	d->contacts[d->contactCount++] = c;
	return bs_ok;
}

bsResult bsWorldDynamics_Step(bsWorld* world, double t0, double t1)
{
	const bsWorldBodies* bodies = world->bodies;
	if (bodies == NULL || !(t1 > t0))
	{
		return bs_ok;
	}
	bsWorldDynamics* d = bsWorld_Dynamics(world);
	bsResult r = d == NULL ? bs_errOutOfMemory : bsWorldDynamics_Sync(d, bodies);
	if (r != bs_ok || d->rigidCount == 0)
	{
		return r;
	}
	double h = t1 - t0;
	d->contactCount = 0;
	bsWorldDynamics_Deform(d, t0, t1);
	for (int k = 0; r == bs_ok && k < d->rigidCount; ++k)
	{
		d->start[k] = bsRigidBody_MeshTransform(d->rigid + k);
		r = bsWorldDynamics_StaticContacts(d, world, k, bsWorldDynamics_Margin(d, k, h));
	}
	for (int i = 0; r == bs_ok && i < d->bodyCount; ++i)
	{
		for (int j = i + 1; r == bs_ok && j < d->bodyCount; ++j)
		{
			r = d->rigidOf[i] >= 0 || d->rigidOf[j] >= 0 ? bsWorldDynamics_PairContact(d, bodies, i, j, t0, h) : bs_ok;
		}
	}
	if (r == bs_ok)
	{
		bsWorldDynamics_Closing(d, h);
	}
	r = r == bs_ok ? bsRigid_Step(d->rigid, d->rigidCount, d->contacts, d->contactCount, &d->def.step, h, &d->cache, NULL) : r;
	r = r == bs_ok ? bsWorldDynamics_Reshape(d) : r;
	for (int k = 0; r == bs_ok && k < d->bodyCount; ++k)
	{
		int i = d->rigidOf[k];
		if (i >= 0)
		{
			bsBody_SetChord(bsWorldBodies_Body(bodies, k), t0, d->start[i], t1, bsRigidBody_MeshTransform(d->rigid + i));
		}
	}
	return r;
}

// --- two-way coupling ---

bsResult bsWorldDynamics_AddPushes(bsWorld* world, const bsPush* pushes, size_t count)
{
	bsWorldDynamics* d = bsWorld_Dynamics(world);
	if (d == NULL || !BS_ARRAY_RESERVE(d->pushes, d->pushCapacity, d->pushCount + count))
	{
		return bs_errOutOfMemory;
	}
	memcpy(d->pushes + d->pushCount, pushes, count * sizeof(bsPush));
	d->pushCount += count;
	return bs_ok;
}

static int bsPush_Compare(const void* a, const void* b)
{
	const bsPush* p = a;
	const bsPush* q = b;
	if (p->particle != q->particle)
	{
		return p->particle < q->particle ? -1 : 1;
	}
	return (p->seq > q->seq) - (p->seq < q->seq);
}

// Each dynamic body's sums applied: an awake body takes them; a sleeping one only when they would
// move it faster than the sleep speed (then it wakes).
static void bsWorldDynamics_TakePushes(bsWorldDynamics* d)
{
	for (int i = 0; i < d->rigidCount; ++i)
	{
		bsRigidBody* body = d->rigid + i;
		bsVec3 j = d->pushImpulse[i], L = d->pushAngular[i];
		if (j.x == 0.0 && j.y == 0.0 && j.z == 0.0 && L.x == 0.0 && L.y == 0.0 && L.z == 0.0)
		{
			continue;
		}
		if (!body->awake)
		{
			bsRigidBody moved = *body;
			moved.velocity = moved.angularVelocity = bsV3(0.0, 0.0, 0.0);
			bsRigidBody_ApplyImpulses(&moved, j, L);
			if (!(bsLength(moved.velocity) + bsLength(moved.angularVelocity) * body->radius > d->def.step.sleepSpeed))
			{
				continue;
			}
			body->awake = true;
			body->sleepTime = 0.0;
		}
		bsRigidBody_ApplyImpulses(body, j, L);
	}
}

bsResult bsWorldDynamics_ApplyPushes(bsWorld* world, const bsStepDef* def, const bsParticles* particles)
{
	bsWorldDynamics* d = world->dynamics;
	int workers = bsPool_ThreadCount(world->pool);
	bsResult r = bs_ok;
	for (int w = 0; w < workers; ++w)
	{
		bsPushList* list = &world->workers[w].pushes;
		r = r == bs_ok && list->count > 0 ? bsWorldDynamics_AddPushes(world, list->items, list->count) : r;
		list->count = 0;
	}
	d = world->dynamics;
	if (r != bs_ok || d == NULL || d->pushCount == 0)
	{
		return r;
	}
	// The fluid's phase of the first substep comes before the first rigid step: the states first.
	r = bsWorldDynamics_Sync(d, world->bodies);
	if (r != bs_ok)
	{
		return r;
	}
	qsort(d->pushes, d->pushCount, sizeof(bsPush), bsPush_Compare);
	for (int i = 0; i < d->rigidCount; ++i)
	{
		d->pushImpulse[i] = d->pushAngular[i] = bsV3(0.0, 0.0, 0.0);
	}
	for (size_t k = 0; k < d->pushCount; ++k)
	{
		const bsPush* p = d->pushes + k;
		int body = bsWorldBodies_PushedBody(world, p->collider);
		int i = body >= 0 && body < d->bodyCount ? d->rigidOf[body] : -1;
		if (i < 0 || p->particle >= particles->count)
		{
			continue;
		}
		double m = bsStep_ParticleMass(def, particles, p->particle);
		bsVec3 j = bsScale(-m, p->dv);
		d->pushImpulse[i] = bsAdd(d->pushImpulse[i], j);
		d->pushAngular[i] = bsAdd(d->pushAngular[i], bsCross(bsSub(p->at, d->rigid[i].position), j));
	}
	d->pushCount = 0;
	bsWorldDynamics_TakePushes(d);
	return bs_ok;
}

// --- what the world reports ---

size_t bsWorld_SensorParticles(const bsWorld* world, bsVec3* positions, uint8_t* side, size_t capacity)
{
	const bsWorldDynamics* d = world->dynamics;
	size_t n = 0;
	for (int k = 0; d != NULL && k < d->pairCount; ++k)
	{
		const bsBodyPair* p = d->pairs + k;
		for (int s = 0; p->queried && p->sensors != NULL && s < 2; ++s)
		{
			uint32_t count = bsSensorPair_ParticleCount(p->sensors, s);
			for (uint32_t i = 0; i < count; ++i, ++n)
			{
				if (n < capacity)
				{
					positions[n] = bsSensorPair_Particle(p->sensors, s, i);
					if (side != NULL)
					{
						side[n] = (uint8_t)s;
					}
				}
			}
		}
	}
	return n;
}

bsVec3 bsWorld_BodyMomentum(const bsWorld* world, double* kineticEnergy)
{
	const bsWorldDynamics* d = world->dynamics;
	bsVec3 p = bsV3(0.0, 0.0, 0.0);
	double e = 0.0;
	for (int k = 0; d != NULL && k < d->rigidCount; ++k)
	{
		p = bsAdd(p, bsRigidBody_Momentum(d->rigid + k));
		e += bsRigidBody_KineticEnergy(d->rigid + k);
	}
	if (kineticEnergy != NULL)
	{
		*kineticEnergy = e;
	}
	return p;
}

bsVec3 bsWorld_BodyAngularMomentum(const bsWorld* world)
{
	const bsWorldDynamics* d = world->dynamics;
	bsVec3 L = bsV3(0.0, 0.0, 0.0);
	for (int k = 0; d != NULL && k < d->rigidCount; ++k)
	{
		L = bsAdd(L, bsRigidBody_AngularMomentum(d->rigid + k));
	}
	return L;
}
