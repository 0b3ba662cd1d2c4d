// body.h — a body that moves through the particles: a triangle mesh (its rest shape, in the body's
// own frame) and a motion that says where it is and what shape it has at any time.
//
// Motion kinds (one switch in body.c, bsBody_Pose, decides where a pose comes from):
//   keyframed  translate / rotate / scale keys over time: linear for translation and scale, slerp
//              (constant angular speed) for rotation; before the first key the first holds, after
//              the last the last holds, or with `loop` each track repeats its span [first, last]
//              (it jumps from its last key back to its first: make them equal for a smooth loop).
//   deforming  the same keys for the pose, plus a CSRBF deformation of the rest shape (csrbf.h):
//              control points with displacements keyed at shared times, linear between keys.
//   dynamic    a rigid body (rigid.h) moved by gravity and contacts: it starts at its keys' pose at
//              time 0 with the given velocities (no scale keys, no deformation); the world integrates
//              it per substep (body_dynamics.c) and gives it the chord of that substep
//              (bsBody_SetChord): bsBody_Pose between the substep's ends is the linear + slerp
//              interpolation of its two poses, the same chord the particle sweep assumes.
//
// A rest point x maps to the world at time t as  pose(t)( scale(t) * (x + u(x, t)) )  with u the
// deformation (zero for keyframed bodies) and * componentwise. The part before the pose is the body's
// "shape" at t; the pose is rotation then translation (quat.h).
#pragma once

#include "blobsim/base.h"
#include "blobsim/csrbf.h"
#include "blobsim/quat.h"
#include "blobsim/rigid.h"
#include "blobsim/sensor.h"
#include "blobsim/triangle.h"

#include <stdbool.h>
#include <stdint.h>

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

typedef struct bsBodyDef
{
	const bsTriangle* triangles;  // the rest mesh (copied)
	uint32_t triangleCount;
	bsMotionKind kind;
	bsKeyframes keys;
	bsDeformDef deform;           // deforming only
	double maxAngle;              // radians a substep may turn the body (bsBody_MaxAngularSpeed) [0.1]
	// dynamic only:
	double density;               // mass per unit volume [1000]
	bsVec3 velocity;              // of the centre of mass at time 0, world [0]
	bsVec3 angularVelocity;       // radians per second, world [0]
	int sensorParticles;          // sensor particles on it (sensor.h); 0: the paper's auto rule [0]
} bsBodyDef;

bsBodyDef bsDefaultBodyDef(void);

typedef struct bsBody bsBody;

// bs_errInvalidArgument for keys out of order, a non-unit rotation, a scale <= 0, a deformation
// without support or keys or with coincident control points, no triangles; bs_errNonFinite,
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
// body): the displacement at each control point is exactly its keyed value, linear between keys.
int bsBody_DeformWeightCount(const bsBody* body);
void bsBody_DeformWeights(const bsBody* body, double t, bsVec3* weights);

// A rest point's shape-frame position for given weights (NULL: no deformation) and scale.
bsVec3 bsBody_ShapePoint(const bsBody* body, const bsVec3* weights, bsVec3 scale, bsVec3 rest);

// Dynamic bodies: the initial state for rigid.h (density, pose at time 0, velocities), the sensor
// particle count, and the chord the world sets each substep: pose p0 at t0, p1 at t1 (poses before
// t0 hold p0, after t1 hold p1). Until the first chord the body stands at its time-0 pose.
bsRigidBodyDef bsBody_DynamicDef(const bsBody* body);
int bsBody_SensorParticles(const bsBody* body);
void bsBody_SetChord(bsBody* body, double t0, bsTransform p0, double t1, bsTransform p1);

// The body's fastest rotation, radians per second, over every rotation key span (slerp turns at a
// constant speed within a span): a substep of h seconds turns it by at most this x h.
double bsBody_MaxAngularSpeed(const bsBody* body);

// How the world finds contacts between two bodies (at least one dynamic): the exact BVH-BVH closest
// pair (mesh_distance.h; the default: docs/sensors.md measured it faster on every frame) or Senin's
// sensor particles (sensor.h).
typedef enum bsBodyContactMethod
{
	bs_bodyContactExact = 0,
	bs_bodyContactSensors,
} bsBodyContactMethod;

// The world's settings for dynamic bodies (bsWorld_SetBodyDynamics).
typedef struct bsBodyDynamicsDef
{
	bsRigidStepDef step;           // rigid.h's step: gravity, restitution, friction, sleep...
	bsBodyContactMethod method;    // [exact]
	bsSensorDef sensors;           // sensors: N_min, N_max, tolerance...; particlesA/B come from the bodies
} bsBodyDynamicsDef;

bsBodyDynamicsDef bsDefaultBodyDynamicsDef(void);
