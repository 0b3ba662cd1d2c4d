// bodies.h — a run's moving bodies (config_bodies.h -> include/blobsim/body.h): loaded with the
// environment, added to the world after its meshes and planes, and drawn in every scene at the
// scene's time (a rigid body: body_N_HASH.inc declared once + a matrix per scene; a deforming one: its
// shape inline per scene).
#pragma once

#include "config_bodies.h"
#include "pov_writer.h"

#include "blobsim/world.h"

typedef struct bsEnvBodies bsEnvBodies;

// Loads every body's OBJ and builds it. NULL in *bodies when the config has none. False with a message
// naming the file or the JSON path.
bool bsEnvBodies_Load(bsEnvBodies** bodies, const bsConfig* config, char* err, size_t errlen);
void bsEnvBodies_Free(bsEnvBodies* bodies);

bsResult bsEnvBodies_AddToWorld(const bsEnvBodies* bodies, bsWorld* world);

// Body i of environment.bodies, NULL when out of range (or no bodies).
const bsBody* bsEnvBodies_Body(const bsEnvBodies* bodies, int i);

// The grids the bodies carry (environment.bodies[i].field, built by bsEnvBodies_Load around each
// body's rest mesh), for bsStepDef.bodyFields: NULL and *count 0 when none. Owned by bodies.
const bsBodyField* bsEnvBodies_Fields(const bsEnvBodies* bodies, int* count);

// Puts DIR/body_N_HASH.inc of each rigid body in place at once (HASH: of its content; a file already
// there is kept) and adds it to the open deferred group's outputs. False with a message.
bool bsEnvBodies_WriteIncludes(const bsEnvBodies* bodies, const char* dir, char* err, size_t errlen);

// The bodies as the scene draws them (count in *count), posed by bsEnvBodies_Pose.
const bsPovBody* bsEnvBodies_Scene(const bsEnvBodies* bodies, size_t* count);

// Poses the bodies of bsEnvBodies_Scene at the world's time: a deforming one's shape is the world's
// (bsWorld_BodyShape), copied, since the scene is written once more after the world is gone.
void bsEnvBodies_Pose(bsEnvBodies* bodies, const bsWorld* world);

// The bodies' count (0 for NULL).
int bsEnvBodies_Count(const bsEnvBodies* bodies);

// A body's pose and scale at one time (bsBody_Pose), kept for a motion-blur sample (motion_blur.h).
typedef struct bsEnvBodyPose
{
	bsTransform pose;
	bsVec3 scale;
} bsEnvBodyPose;

// Each body's pose at time t (seconds) into poses, bsEnvBodies_Count of them. A dynamic body's comes from
// the chord the world gave it for the substep being taken (body.h), so t must lie in that substep: call
// it from the world's substep observer, or when the world is at t.
void bsEnvBodies_Record(const bsEnvBodies* bodies, double t, bsEnvBodyPose* poses);

// The bodies as a motion-blur sample's scene draws them at time t, posed as bsEnvBodies_Record recorded
// them there, into out (bsEnvBodies_Count of them): a rigid one by its include and the recorded pose; a
// deforming one's shape made at t (in a buffer of the bodies', valid until the next call). The image's
// own bodies (bsEnvBodies_Scene) stay as they are. False when out of memory.
bool bsEnvBodies_PoseSample(bsEnvBodies* bodies, double t, const bsEnvBodyPose* poses, bsPovBody* out);

// The sensor particles of the world's body pairs into the scene (radius 0: none drawn; render.sensors).
// Valid until the next call.
void bsEnvBodies_Sensors(bsEnvBodies* bodies, const bsWorld* world, double radius, bsPovScene* scene);

// The triangles of every body's mesh (0 for NULL): what --max-memory counts for them.
uint64_t bsEnvBodies_TriangleCount(const bsEnvBodies* bodies);
