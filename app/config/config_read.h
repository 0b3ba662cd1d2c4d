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

// Shared by the sections' tables: what a normal's 3 numbers must be.
#define BS_NORMAL_WHAT "3 numbers, not all zero"

// config_emitters.c
extern const bsSchema bsEmitterArraySchema;
bool bsReadEmitter(bsCtx* c, const cJSON* v, void* element, void* user);

// config_interaction.c
extern const bsSchema bsInteractionSchema;
bool bsReadInteraction(bsCtx* c, const cJSON* root, bsConfig* config);

// config_species.c
extern const bsSchema bsBuoyancySchema;
extern const bsSchema bsParticlesSchema;
extern const bsSchema bsSpeciesPairArraySchema;
bool bsReadParticles(bsCtx* c, const cJSON* root, bsParticlesConfig* p);
bool bsReadInteractions(bsCtx* c, const cJSON* root, bsConfig* config);

// config_motion.c
extern const bsSchema bsMotionSchema;
extern const bsSchema bsCollisionSchema;
bool bsReadMotion(bsCtx* c, const cJSON* root, bsConfig* config);
bool bsReadCollision(bsCtx* c, const cJSON* root, bsStepDef* col);

// config_render.c
extern const bsSchema bsRenderSchema;
bool bsReadRender(bsCtx* c, const cJSON* root, bsRenderConfig* r, const char* look);
bool bsCheckGasLooks(bsCtx* c, const bsConfig* config);
bool bsCheckSpeciesLooks(bsCtx* c, const bsConfig* config);
bool bsCheckInstanceRotation(bsCtx* c, const bsConfig* config);
