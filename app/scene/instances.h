// instances.h — render.instances in a run: the object drawn at each particle instead of the blobs
// (pov_writer.h, bsPovInstances). A built-in or an include's object is named in each scene as it is;
// an OBJ is read once with the other inputs and written once, as a mesh2, into the include
// instance_HASH.inc beside the scenes (HASH: FNV-1a 64 of its triangles and blobsim's version), which
// every scene includes and draws as BlobsimInstance.
#pragma once

#include "config.h"
#include "pov_writer.h"

#include "blobsim/triangle.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct bsSceneInstances
{
	bool enabled;
	bsTriangle* triangles;  // the OBJ's, NULL for a built-in or an include's object
	size_t triangleCount;
	char include[48];       // instance_HASH.inc, or the include's path (config) in the scene
	const char* path;       // the OBJ's (the config's string)
} bsSceneInstances;

// Reads render.instances.obj when given: false with "CONFIG: render.instances.obj: FILE:LINE:COLUMN:
// message".
bool bsSceneInstances_Load(bsSceneInstances* s, const bsConfig* config, char* err, size_t errlen);

// Writes the OBJ's include into dir, at once (POV-Ray must find it by its final name while the run's
// other outputs are held back), listed in outputs.txt; kept when it is there already (its name is
// its content). Nothing for a built-in or an include's object.
bool bsSceneInstances_WriteInclude(const bsSceneInstances* s, const char* dir, char* err, size_t errlen);

// The scene's instances (without velocities: those are the snapshot's, set by the scene writer).
bsPovInstances bsSceneInstances_Pov(const bsSceneInstances* s, const bsRenderConfig* rc);

void bsSceneInstances_Free(bsSceneInstances* s);
