// config_read.h — private to the config reader (config*.c): the sections of a config, from the JSON
// tree into a bsConfig.
#pragma once

#include "config_value.h"

// The whole config's schema, from the top level down (--set paths walk it).
extern const bsSchema bsRootSchema;

// Validates the tree into *config (zeroed by the caller). On failure the message is in c's error,
// and what was read so far is left for bsConfig_Free.
bool bsReadConfig(bsCtx* c, const cJSON* root, bsConfig* config);

// The `field` block (field_config.c): its schema, and the reader that fills *field (left with
// enabled false when the config has none).
extern const bsSchema bsFieldSchema;
bool bsReadFieldConfig(bsCtx* c, const cJSON* root, bsFieldConfig* field);
// A body's own grid (environment.bodies[i].field: {"build": {...}}, the keys of field.build): *has
// when given, its settings in *build (bsDefaultDistanceGridDef() for what it leaves out).
extern const bsSchema bsBodyFieldSchema;
bool bsReadBodyField(bsCtx* c, const cJSON* body, bool* has, bsDistanceGridDef* build);

// `environment.bodies` (config_bodies.c): the array's schema (for --set paths).
extern const bsSchema bsBodyArraySchema;
extern const bsSchema bsDynamicsSchema;
