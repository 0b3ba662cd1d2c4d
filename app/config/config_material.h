// config_material.h — private to the config reader (config*.c): materials, a preset name or an
// object of raw POV-Ray text (bsMaterialPreset, the presets themselves, is public in config.h).
#pragma once

#include "config_value.h"

extern const bsSchema bsMaterialSchema;     // a preset name or {pigment, finish, normal}
extern const bsSchema bsMaterialMapSchema;  // OBJ group name -> material

// parent[key] as a material; the preset def when absent.
bool bsReadMaterial(bsCtx* c, const cJSON* parent, const char* key, const char* def,
	bsMaterial* out);

// mesh's "materials", an object mapping OBJ group names to materials, into out->groups.
bool bsReadGroupMaterials(bsCtx* c, const cJSON* mesh, bsMeshConfig* out);

// Frees what the material owns and zeroes it.
void bsMaterial_Free(bsMaterial* m);
