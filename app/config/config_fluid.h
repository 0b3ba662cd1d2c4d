// config_fluid.h — private to the config reader (config*.c): the fluid's material presets
// (particles.material: "water", "honey", ...), each the fluid interaction with its physical settings
// (docs/config.md lists them with their sources), and the checks across the fluid's keys.
#pragma once

#include "config_value.h"

// particles.material, when given, into *def (holding the defaults): the fluid interaction with the
// material's physical settings, and *name the preset's name (a static string, not
// owned; NULL when the key is absent, def then untouched). An unknown name lists the presets.
bool bsReadFluidMaterial(bsCtx* c, const cJSON* particles, bsInteractionDef* def, const char** name);

// The look (a render material preset, config_material.c) a fluid material preset gives the particles
// when render.particle_material is not given; NULL for none (or name NULL).
const char* bsFluidMaterial_Look(const char* name);

// The fluid's settings that one key's range cannot check: max_viscosity >= kinematic_viscosity. The
// error names the key the object v (particles.interaction, may be NULL or a string) gave, else the
// material. The current path is particles'.
bool bsCheckFluid(bsCtx* c, const cJSON* v, const bsInteractionDef* def);
