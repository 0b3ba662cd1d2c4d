// body.h — a body that moves through the particles: a triangle mesh (its rest shape, in the body's
// own frame) and a motion that says where it is and what shape it has at any time.
//
// Motion kinds (one switch in body.c, bsBody_Pose, decides where a pose comes from):
//   keyframed  translate / rotate / scale keys over time: linear for translation and scale, slerp
//              (constant angular speed) for rotation; before the first key the first holds, after
//              the last the last holds, or with `loop` each track repeats its span [first, last]
//              (it jumps from its last key back to its first: make them equal for a smooth loop).
//   deforming  the same keys for the pose, plus a CSRBF deformation of the rest shape (Wendland's C2 function):
//              control points with displacements keyed at shared times, linear between keys; or a
//              mesh sequence (bsSequenceDef): the same triangles with each frame's vertices, linear
//              between frames (the first frame is the rest shape).
//   dynamic    a rigid body (below) moved by gravity and contacts: it starts at its keys' pose at
//              time 0 with the given velocities (no scale keys, no mesh sequence); with control points
//              (bsDeformDef) its shape deforms in its own frame while the dynamics move the frame
//              (a deforming dynamic body: docs/bodies_dynamics.md, "Deforming dynamic bodies"); the world integrates
//              it per substep (body_dynamics.c) and gives it the chord of that substep
//              (bsBody_SetChord): bsBody_Pose between the substep's ends is the linear + slerp
//              interpolation of its two poses, the same chord the particle sweep assumes.
//
// A rest point x maps to the world at time t as  pose(t)( scale(t) * (x + u(x, t)) )  with u the
// deformation (zero for keyframed bodies) and * componentwise. The part before the pose is the body's
// "shape" at t; the pose is rotation then translation (quat.h).
#pragma once

#include "blobsim/base.h"
#include "blobsim/quat.h"
#include "blobsim/triangle.h"

#include <stdbool.h>
#include <stdint.h>

// --- Rigid dynamics' settings (rigid.c, rigid_solver.c, mass_properties.c) ---

// A dynamic body is a rigid body of Senin, Kojekine, Savchenko & Hagiwara, "Particle-based Collision
// Detection", section 4: a closed triangle mesh with a density, its mass, centre of mass and inertia
// from the mesh's volume integrals, moved by gravity and contacts with the collision response of
// effective mass and pulses (docs/bodies_dynamics.md). The world integrates it (bsWorld_SetBodyDynamics
// takes the settings below); the solver itself is the engine's.

// Mass properties of a closed mesh of uniform density.
typedef struct bsMassProperties
{
	double volume;          // > 0 for a closed mesh whose normals point outwards
	double mass;            // density * volume
	bsVec3 centre;          // centre of mass, mesh coordinates
	double inertia[3][3];   // inertia tensor about the centre, mesh axes (products with minus sign)
	bsVec3 principal;       // principal moments (I_x, I_y, I_z), ascending
	bsQuat axes;            // principal frame -> mesh axes: axis k of oxyz is Rotate(axes, e_k)
} bsMassProperties;

// Mass properties of count triangles at `density`. Fails with bs_errInvalidArgument (tris NULL,
// count 0, density not positive and finite, a volume that is not positive: an open mesh or one
// whose normals point inwards) or bs_errNonFinite. On failure *out is zeroed.
bsResult bsComputeMassProperties(const bsTriangle* tris, uint32_t count, double density,
	bsMassProperties* out);

// A body's initial state. The mesh is given in its own coordinates; pose maps it to the world.
typedef struct bsRigidBodyDef
{
	double density;           // mass per unit volume (default 1000, water)
	bsTransform pose;         // mesh -> world at the start (default identity)
	bsVec3 velocity;          // of the centre of mass, world (default 0)
	bsVec3 angularVelocity;   // world (default 0)
} bsRigidBodyDef;

bsRigidBodyDef bsDefaultRigidBodyDef(void);

// Settings of the rigid step the world takes each substep (bsBodyDynamicsDef.step).
typedef struct bsRigidStepDef
{
	bsVec3 gravity;            // default (0, -9.81, 0)
	double restitution;        // e of the response, 0..1 (default 0.5)
	double friction;           // Coulomb coefficient (default 0.5; 0: the paper, normal pulses only)
	double restThreshold;      // approach speeds below this get e = 0 (default 0.2 m/s)
	double slop;               // overlap left uncorrected, keeps contacts alive (default 0.001 m)
	double positionFactor;     // fraction of overlap beyond slop removed per substep (default 0.2)
	int iterations;            // sequential passes over the contacts (default 10; 1..1000)
	double sleepSpeed;         // a body whose |v| and |w| * radius stay below this... (0.05 m/s)
	double sleepDelay;         // ...for this long falls asleep (default 0.5 s; 0 disables sleep)
} bsRigidStepDef;

bsRigidStepDef bsDefaultRigidStepDef(void);

// --- Sensor particles' settings (sensor.c) ---

// How two bodies' separation is tracked by Senin et al.'s sensor particles (section 3), when the
// world is told to find body contacts that way (bsBodyDynamicsDef.method).
typedef struct bsSensorDef
{
	int particlesA;          // particles on body A; 0: 2 x its estimated convex parts
	int particlesB;
	double effectiveRadius;  // R_eff; 0: auto
	int maxSteps;            // N_max; 0: auto
	int minMoved;            // N_min; 0: auto
	double tolerance;        // exact check below this particle separation; 0: auto; < 0: never
	int exactRings;          // face rings around each particle in the exact check; 0..8 (default 1)
	double cacheDistance;    // distant particles' influence cached beyond this; 0: auto; < 0: off
	uint64_t seed;           // the initial random sites (default 1)
} bsSensorDef;

bsSensorDef bsDefaultSensorDef(void);

// --- Bodies (body.c) ---

typedef enum bsMotionKind
{
	bs_motionKeyframed = 0,
	bs_motionDeforming,
	bs_motionDynamic,
	bs_motionKindCount
} bsMotionKind;

typedef struct bsVec3Key
{
	double time;
	bsVec3 value;
} bsVec3Key;

typedef struct bsQuatKey
{
	double time;
	bsQuat value;  // unit
} bsQuatKey;

// Tracks of keys in strictly increasing time; a track with no keys is the identity (origin, no
// rotation, scale 1). The body copies them.
typedef struct bsKeyframes
{
	const bsVec3Key* translate;
	int translateCount;
	const bsQuatKey* rotate;
	int rotateCount;
	const bsVec3Key* scale;  // every component > 0
	int scaleCount;
	bool loop;
} bsKeyframes;

// A deformation: controlCount control points (rest frame) with keyCount displacement keys each, at
// shared times: displacement[k * controlCount + j] is control j's at times[k].
typedef struct bsDeformDef
{
	const bsVec3* controls;
	int controlCount;
	double support;            // the CSRBF's radius of support, > 0
	const double* times;       // strictly increasing
	const bsVec3* displacement;
	int keyCount;
} bsDeformDef;

// Can a deformation take def's control points at def's support? bs_ok when the CSRBF system over
// them can be solved (what bsBody_Create asks of them, for a reader that checks its input before it
// makes a body); bs_errInvalidArgument for two points too close to tell apart at this support (or
// no points, a support not > 0), bs_errNonFinite, bs_errOutOfMemory. The keys are not looked at.
bsResult bsDeformDef_CheckControls(const bsDeformDef* def);

// A mesh sequence (one OBJ per frame, same topology): frameCount frames at strictly increasing
// times, frame k's vertices at positions[k * vertexCount + v], the triangles' corners at indices (3 per
// triangle, bsBodyDef.triangleCount of them, counter-clockwise seen from outside), the same in every
// frame. Between frames each vertex moves linearly. The first frame is the rest shape: its triangles
// must not be degenerate (later frames' may be: such a triangle keeps its last shape). A point off
// the surface moves with its nearest point of the rest shape (the barycentric blend of that triangle's
// vertex displacements). Memory: 24 bytes per vertex and frame, copied by the body.
typedef struct bsSequenceDef
{
	const bsVec3* positions;
	uint32_t vertexCount;
	const uint32_t* indices;
	const double* times;
	int frameCount;               // 0: no sequence
} bsSequenceDef;

typedef struct bsBodyDef
{
	const bsTriangle* triangles;  // the rest mesh (copied)
	uint32_t triangleCount;
	bsMotionKind kind;
	bsKeyframes keys;
	bsDeformDef deform;           // deforming, or dynamic (controlCount > 0: it deforms in its own frame)
	bsSequenceDef sequence;       // deforming only, instead of deform when frameCount > 0 (triangles:
	                              // ignored, may be NULL; the first frame's are the rest mesh)
	double maxAngle;              // radians a substep may turn the body (bsBody_MaxAngularSpeed) [0.1]
	// dynamic only:
	double density;               // mass per unit volume [1000]
	bsVec3 velocity;              // of the centre of mass at time 0, world [0]
	bsVec3 angularVelocity;       // radians per second, world [0]
	int sensorParticles;          // sensor particles on it (above); 0: the paper's auto rule [0]
	bool twoWay;                  // particles push it back (two-way coupling, body_coupling.h) [false]
} bsBodyDef;

bsBodyDef bsDefaultBodyDef(void);

typedef struct bsBody bsBody;

// bs_errInvalidArgument for keys out of order, a non-unit rotation, a scale <= 0, a deformation
// without support or keys or with coincident control points, a dynamic body with scale keys or a
// mesh sequence, no triangles; bs_errNonFinite,
// bs_errOutOfMemory. *body is NULL on failure.
bsResult bsBody_Create(const bsBodyDef* def, bsBody** body);
void bsBody_Destroy(bsBody* body);

bsMotionKind bsBody_Kind(const bsBody* body);
const bsTriangle* bsBody_Triangles(const bsBody* body, uint32_t* count);
double bsBody_MaxAngle(const bsBody* body);

// True when the shape (scale and deformation) never changes: the world then keeps one BVH of it.
bool bsBody_RigidShape(const bsBody* body);

// The pose (rotation, translation) and scale at time t.
void bsBody_Pose(const bsBody* body, double t, bsTransform* pose, bsVec3* scale);

// The deformation's CSRBF weights at time t (bsBody_DeformWeightCount of them; none for a keyframed
// body): the displacement at each control point is exactly its keyed value, linear between keys. For
// a mesh sequence, the vertices' displacements from the first frame at t (one per vertex).
int bsBody_DeformWeightCount(const bsBody* body);
void bsBody_DeformWeights(const bsBody* body, double t, bsVec3* weights);

// A rest point's shape-frame position for given weights (NULL: no deformation) and scale.
bsVec3 bsBody_ShapePoint(const bsBody* body, const bsVec3* weights, bsVec3 scale, bsVec3 rest);

// Dynamic bodies: the rigid body's initial state (above: density, pose at time 0, velocities), the
// sensor particle count, and the chord the world sets each substep: pose p0 at t0, p1 at t1 (poses before
// t0 hold p0, after t1 hold p1). Until the first chord the body stands at its time-0 pose.
bsRigidBodyDef bsBody_DynamicDef(const bsBody* body);
int bsBody_SensorParticles(const bsBody* body);

// A dynamic body with two-way coupling: the particles' contact impulses on it (their collisions, the
// granular particles resting on it, a fluid's wall pressure, viscosity and adhesion) are applied to
// its momentum and angular momentum (docs/bodies.md, "Two-way coupling"). False for other kinds.
bool bsBody_TwoWay(const bsBody* body);
void bsBody_SetChord(bsBody* body, double t0, bsTransform p0, double t1, bsTransform p1);

// The body's fastest rotation, radians per second, over every rotation key span (slerp turns at a
// constant speed within a span): a substep of h seconds turns it by at most this x h.
double bsBody_MaxAngularSpeed(const bsBody* body);

// How the world finds contacts between two bodies (at least one dynamic): the exact BVH-BVH closest
// pair (the default: docs/sensors.md measured it faster on every frame) or Senin's sensor particles
// (above).
typedef enum bsBodyContactMethod
{
	bs_bodyContactExact = 0,
	bs_bodyContactSensors,
} bsBodyContactMethod;

// The world's settings for dynamic bodies (bsWorld_SetBodyDynamics).
typedef struct bsBodyDynamicsDef
{
	bsRigidStepDef step;           // the rigid step (above): gravity, restitution, friction, sleep...
	bsBodyContactMethod method;    // [exact]
	bsSensorDef sensors;           // sensors: N_min, N_max, tolerance...; particlesA/B come from the bodies
} bsBodyDynamicsDef;

bsBodyDynamicsDef bsDefaultBodyDynamicsDef(void);
