// rigid.h — dynamic rigid bodies and the collision response of Senin, Kojekine, Savchenko &
// Hagiwara, "Particle-based Collision Detection", section 4 (effective mass and pulses).
//
// A body is a closed triangle mesh with a density. Its mass, centre of mass and inertia tensor come
// from the mesh's volume integrals (Eberly, "Polyhedral Mass Properties (Revisited)", the divergence
// theorem over each triangle); the tensor is diagonalised by Jacobi rotations, and the body frame is
// the principal frame (the paper's oxyz): origin at the centre of mass, axes the principal axes, so
// the inertia is three numbers I_x, I_y, I_z.
//
// The per-substep API (bsRigid_Step) takes contacts from anywhere: the generators here (a body's
// vertices against static planes and static meshes), helper queries between two bodies (sensor
// particles or the exact mesh distance): each is a bsRigidContact. See docs/bodies_dynamics.md.
//
// A private header of src/bodies: a program sets dynamic bodies up through body.h, which holds the
// settings (bsRigidBodyDef, bsRigidStepDef) and the mass properties; the solver is the engine's.
#pragma once

#include "blobsim/base.h"
#include "blobsim/body.h"
#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "blobsim/quat.h"
#include "blobsim/triangle.h"

#include <stdbool.h>
#include <stdint.h>

// Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations: a = V diag(values) V^T,
// values ascending, V a proper rotation (det +1) whose columns are the eigenvectors.
void bsJacobiEigen(const double a[3][3], double values[3], double vectors[3][3]);

// The unit quaternion of a proper rotation matrix (column k = the image of e_k).
bsQuat bsQuat_FromMatrix(const double m[3][3]);

// Index of the static environment in a contact (infinite mass, zero velocity).
#define BS_RIGID_STATIC (-1)

// One contact between two bodies, or between a body and the static environment.
// - point: world space, on (or midway between) the two surfaces;
// - normal: world space, unit, from b towards a: the direction a must move to separate;
// - separation: signed distance between the surfaces along normal, > 0 apart (a speculative
//   contact: it acts only if the bodies would close the gap within the substep), < 0 overlapping;
// - a, b: indices into the bodies array of bsRigid_Step, or BS_RIGID_STATIC for the environment
//   (at most one of them). A query between two bodies (closest points pA on A, pB on B at distance
//   d) maps as point = (pA + pB) / 2, normal = (pA - pB) / d, separation = d (negative when its
//   method reports overlap).
// - key: names the contact's features within the pair (the generators here use the body's vertex
//   and the static feature) so the same contact found again next substep starts from the pulse it
//   ended with (warm starting: a box resting on four corners then needs few iterations); 0 for a
//   contact with no identity (no warm start).
// - closing: the speed (m/s) at which the surfaces approach along normal by something other than the
//   bodies' rigid motion: a deforming body's surface moving in its own frame (body_dynamics.c). The
//   solver asks the rigid motion to make up for it: 0 for rigid surfaces.
typedef struct bsRigidContact
{
	bsVec3 point;
	bsVec3 normal;
	double separation;
	int32_t a, b;
	uint64_t key;
	double closing;
} bsRigidContact;

// The pulses of the last substep's contacts, by (a, b, key), for warm starting. Zero-initialise it
// ({0}); bsRigid_Step replaces its contents; free with bsRigidContactCache_Destroy.
typedef struct bsRigidCachedPulse
{
	int32_t a, b;
	uint64_t key;
	bsVec3 pulse;   // world impulse on a (normal and friction parts together)
} bsRigidCachedPulse;

typedef struct bsRigidContactCache
{
	bsRigidCachedPulse* items;  // sorted by (a, b, key)
	int32_t count;
} bsRigidContactCache;

void bsRigidContactCache_Destroy(bsRigidContactCache* cache);


typedef struct bsRigidBody
{
	bsMassProperties mass;    // from the mesh
	double invMass;           // 1 / m
	bsVec3 invInertia;        // 1 / I_x, 1 / I_y, 1 / I_z
	bsTransform bodyToMesh;   // principal frame -> mesh coordinates: {mass.axes, mass.centre}
	bsVec3* vertices;         // the mesh's distinct vertices in the principal frame (owned)
	uint32_t vertexCount;
	double radius;            // largest |vertex| in the principal frame (bounds the body)

	// State, world space.
	bsVec3 position;          // centre of mass
	bsQuat orientation;       // principal frame -> world
	bsVec3 velocity;          // of the centre of mass
	bsVec3 angularVelocity;   // world axes (the paper's w_c is its image in oxyz)
	double sleepTime;         // seconds spent below the sleep speeds (0: moving)
	bool awake;               // a sleeping body is not integrated; a moving body touching it wakes it
} bsRigidBody;

// Builds a body from count triangles of a closed mesh (copied: the caller keeps its array). Fails as
// bsComputeMassProperties, with bs_errNonFinite on a NaN/inf def field or bs_errOutOfMemory. On
// failure *body is zeroed and bsRigidBody_Destroy accepts it.
bsResult bsRigidBody_Create(bsRigidBody* body, const bsTriangle* tris, uint32_t count,
	const bsRigidBodyDef* def);

void bsRigidBody_Destroy(bsRigidBody* body);

// A deforming body's new shape (docs/bodies_dynamics.md, "Deforming dynamic bodies"): count triangles
// of the closed mesh and its vertexCount distinct vertices, both in mesh coordinates, its shape now.
// The mass stays (the material is the same, its density follows the volume); the centre of mass,
// the inertia and the principal frame are the new shape's. The deformation is internal, so it keeps
// the world centre of mass, the velocity and the world angular momentum (the angular velocity
// follows the new inertia); the mesh frame keeps its rotation and moves so that its new centre of
// mass lies where the old one did. The vertices become the contact generators' (in this order). Fails
// as bsComputeMassProperties (a volume that is not positive: the deformation turned the mesh inside
// out) or with bs_errOutOfMemory, leaving the body unchanged.
bsResult bsRigidBody_Reshape(bsRigidBody* body, const bsTriangle* tris, uint32_t count, const bsVec3* vertices,
	uint32_t vertexCount);

// The body's mesh -> world transform now (for drawing it, or for helper C's mesh queries).
bsTransform bsRigidBody_MeshTransform(const bsRigidBody* body);

// Velocity of the body's material point at world point p.
bsVec3 bsRigidBody_PointVelocity(const bsRigidBody* body, bsVec3 p);

// Kinetic energy, linear momentum and angular momentum about the world origin.
double bsRigidBody_KineticEnergy(const bsRigidBody* body);
bsVec3 bsRigidBody_Momentum(const bsRigidBody* body);
bsVec3 bsRigidBody_AngularMomentum(const bsRigidBody* body);

// The paper's effective mass at world point p along world normal n:
// m_e = m / (1 + m l_x^2 / I_x + m l_y^2 / I_y + m l_z^2 / I_z), l = r_c x n_c in oxyz.
double bsRigidBody_EffectiveMass(const bsRigidBody* body, bsVec3 p, bsVec3 n);

// Applies the world impulse j at world point p: V' = V + j / m, and in oxyz w' = w + L_c / I
// component by component with L_c = r_c x j_c (the paper's last two formulas).
void bsRigidBody_ApplyImpulse(bsRigidBody* body, bsVec3 p, bsVec3 j);

// Applies a world linear impulse j (at the centre of mass) and a world angular impulse L about the
// centre of mass: V' = V + j / m, and in oxyz w' = w + L_c / I. The sum of bsRigidBody_ApplyImpulse's
// over many points is this with j their sum and L the sum of (p - x) x j.
void bsRigidBody_ApplyImpulses(bsRigidBody* body, bsVec3 j, bsVec3 L);

// Section 4 for one contact, literally: the effective masses, the effective pulses before
// (p = m_e v_n n, v_n the contact point's velocity along n), the pulses after
// p1' = ((m_e1 - e m_e2) p1 + (1 + e) m_e1 p2) / (m_e1 + m_e2) (the paper's formula is e = 1), and
// the velocity updates with the applied pulse p1' - p1 (and -(p1' - p1) on b, which equals p2' - p2).
// b may be NULL for the static environment (m_e2 infinite: p1' = -e p1). Acts only when the contact
// points approach (v_n1 < v_n2). Returns the impulse applied to a (along n).
bsVec3 bsRigid_SeninResponse(bsRigidBody* a, bsRigidBody* b, bsVec3 point, bsVec3 normal,
	double restitution);


// Counts of one step.
typedef struct bsRigidStepStats
{
	uint32_t activeContacts;   // contacts that received a normal impulse
	uint32_t bounces;          // contacts that used the restitution target
	uint32_t sleeping;         // bodies asleep after the step
} bsRigidStepStats;

// Advances count bodies by one substep dt with the given contacts (computed by the caller from the
// poses at the start of the substep): gravity into velocities (symplectic Euler), the contact
// response (collision speeds taken before the gravity; sequential impulses, warm-started from cache,
// which keeps the pulses for the next substep; NULL: none), then positions and orientations from
// the new velocities, and sleep. Sequential in the order given, so the result depends only on the
// inputs. Fails with bs_errInvalidArgument (a NULL array with a count, dt not positive, a contact
// index out of range, two static sides, a normal not of unit length, a def field out of range) or
// bs_errOutOfMemory, leaving the bodies unchanged. stats may be NULL.
bsResult bsRigid_Step(bsRigidBody* bodies, int32_t count, const bsRigidContact* contacts,
	int32_t contactCount, const bsRigidStepDef* def, double dt, bsRigidContactCache* cache,
	bsRigidStepStats* stats);

// The margin the contact generators need for the next substep: no point of the body can move
// farther than (|V| + |g| dt + |w| radius) dt in it (the chord of a turn is shorter than its arc),
// plus 2 slop for the overlap a resting contact keeps. A contact generated within it is never
// missed, and a smaller margin means fewer speculative contacts to solve.
double bsRigidBody_ContactMargin(const bsRigidBody* body, const bsRigidStepDef* def, double dt);

// Contact generation against the static environment. Each appends at most capacity - *count
// contacts to out (advancing *count) and returns false when some did not fit.

// Every vertex of the body within `margin` of the plane (or behind it) gives a contact at the point
// midway between the vertex and the plane, normal the plane's normal on the side of the body's
// centre of mass, separation the vertex's signed distance. Exact for the vertices: a convex body's
// deepest point against a plane is always one of them.
bool bsRigidBody_CollidePlane(const bsRigidBody* body, int32_t index, const bsPlane* plane,
	double margin, bsRigidContact* out, int32_t capacity, int32_t* count);

// Every vertex of the body whose nearest point on the static mesh (bsBvh_ClosestPoint) is within
// `margin` gives a contact: point midway, separation + distance on the side the nearest triangle
// faces (its winding normal points into free space), - distance behind it, normal from the surface
// out. Vertices deeper than margin are not seen: keep margin above the largest overlap a substep can
// make (|v| dt plus slop). Edge-edge crossings and mesh vertices poking into the body's faces are
// not found (a vertex test): fine meshes or the body-body query cover them.
// tris is the array the BVH was built from (for the winding normals).
bool bsRigidBody_CollideMesh(const bsRigidBody* body, int32_t index, const bsBvh* bvh,
	const bsTriangle* tris, double margin, bsRigidContact* out, int32_t capacity, int32_t* count);

// A pair's contact manifold: the same for the body's vertices against another body's mesh (bvh over
// tris, in its own frame, placed in the world by pose; body index `other`, or BS_RIGID_STATIC for a
// keyframed one), each a contact of body `index` against `other`. A face resting on a face gets a
// contact at each of its corners, so it rests flat instead of rocking on the pair's one closest
// point. Every contact takes one normal, as Box2D's manifolds take their reference face's: of the
// other body's faces within the larger of `distance` (the pair's) and `margin` of `point` (world: the
// pair's closest point on the other body), the one whose outward normal faces this body's centre of
// mass most. The vertex test's own normal fails there: the corners of two boxes stacked exactly lie
// on the other's edges, where the nearest triangle may be a side face (a horizontal normal holds
// nothing up), and so does the closest point (a box sunk 1e-6 into another met it on a side face
// 1e-6 under the top, where the faces through the point are that side's). For the same
// reason a vertex on or behind the other's surface takes the lower of its signed distance (0 on an
// edge, however deep the boxes overlap) and its height over the reference face's plane, down to
// -margin. The other body's vertices against this body's mesh are the other half (the caller asks
// both ways).
bool bsRigidBody_CollideBody(const bsRigidBody* body, int32_t index, const bsBvh* bvh, const bsTriangle* tris,
	bsTransform pose, int32_t other, bsVec3 point, double distance, double margin, bsRigidContact* out,
	int32_t capacity, int32_t* count);

// The rest of a face-on-face support: where an edge of the body's mesh (own, its mesh frame) crosses
// an edge of the other's, seen along the reference plane's normal (above), both within margin of
// the plane, a contact with that normal and separation the body's point's height over the other's.
// Two boxes of one size stacked exactly, or one set off-centre on another, rest on corners that are
// such crossings, which no vertex test finds (Box2D clips the faces for them). Each edge once (the
// way from its lower end); the ends of the edges are the vertex contacts'. Ask it one way round.
bool bsRigidBody_CollideEdges(const bsRigidBody* body, int32_t index, const bsTriangle* own, uint32_t ownCount,
	const bsBvh* bvh, bsTransform pose, int32_t other, bsVec3 point, double distance, double margin,
	bsRigidContact* out, int32_t capacity, int32_t* count);
