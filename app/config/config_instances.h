// config_instances.h — private to the config reader (config*.c): render.instances, an object drawn at
// each particle instead of the blobs (docs/rendering.md, "Instances").
#pragma once

#include "config_value.h"

extern const bsSchema bsInstancesSchema;

// render.instances into *out (enabled false when absent). The current path is render's; surface is
// render.surface as read (instances replace the blobs, so a mesh surface with them is refused).
bool bsReadInstances(bsCtx* c, const cJSON* render, int surface, bsInstancesConfig* out);
