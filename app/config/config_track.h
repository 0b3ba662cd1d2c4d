// config_track.h — private to the config reader (config*.c): keyframe tracks (track.h) from JSON.
#pragma once

#include "config_value.h"

#include "blobsim/track.h"

// The schema of one key, {"time": t, "value": [x, y, z]}, for a section's table (--set paths).
extern const bsSchema bsTrackKeySchema;
// An array of such keys (a track: an emitter's motion and rate, a ramp, the wind's velocity).
extern const bsSchema bsTrackArraySchema;

// v is keys (an array whose first element is an object), not a plain value.
bool bsIsKeys(const cJSON* v);

// The keys v (the path at v) into *out: an array of 1 .. BS_MAX_KEYS objects {"time": t, "value": x},
// x 3 numbers, or one number when scalar (kept in x), finite, the times strictly increasing.
bool bsReadKeys(bsCtx* c, const cJSON* v, bool scalar, bsTrack* out);

// parent[key] into *out: 3 numbers (a constant track) or an array of 1 .. BS_MAX_KEYS keys
// {"time": t, "value": [x, y, z]} with finite numbers and strictly increasing times. A failure names
// the JSON path (motion.wind.velocity[2].time: ...). Absent: *out is left as it is, and a required key
// is an error.
bool bsReadTrack(bsCtx* c, const cJSON* parent, const char* key, bool required, bsTrack* out);

// parent[key], a ramp over a particle's life (particles.over_life): one value, or keys as bsReadKeys
// reads them whose times are ages; a value is a number when scalar (kept in x), else 3 numbers, each in
// `each`, a failure naming the key's value (particles.over_life.opacity[1].value: expected a number
// from 0 to 1, got 2). *given says whether the key is there (absent: *out left as it is).
bool bsReadRamp(bsCtx* c, const cJSON* parent, const char* key, bool scalar, const bsRange* each, bsTrack* out,
	bool* given);
