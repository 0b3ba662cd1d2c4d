// config_override.h — private to the config reader (config*.c): --set overrides, applied to the JSON
// tree before it is read (see bsConfig_ParseWithOverrides in config.h).
#pragma once

#include "config_path.h"

// Applies each "dotted.path=VALUE" in order to root (nothing when root is not an object: the reader
// reports that), and records the paths written in c so that later messages about those values say
// " (set by --set)". On failure c's error reads "--set OVERRIDE: message".
bool bsApplyOverrides(bsCtx* c, cJSON* root, const char* const* overrides, int count);
