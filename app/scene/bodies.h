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

// The sensor particles of the world's body pairs into the scene (radius 0: none drawn; render.sensors).
// Valid until the next call.
void bsEnvBodies_Sensors(bsEnvBodies* bodies, const bsWorld* world, double radius, bsPovScene* scene);

// The triangles of every body's mesh (0 for NULL): what --max-memory counts for them.
uint64_t bsEnvBodies_TriangleCount(const bsEnvBodies* bodies);
