// track.h — a keyframe track: values (3-vectors) at strictly increasing times, read at any time by
// linear interpolation between the two keys around it; before the first key the first value, after
// the last the last. A scalar track keeps its values in x (y and z 0). The forces that vary in time
// (step.h: wind) and the moving emitters (emitter.h) hold one; its keys live in the struct, so a def holding a track copies by value.
#pragma once

#include "blobsim/vec3.h"

#include <stdbool.h>

#define BS_MAX_KEYS 64  // the most keys a track holds

typedef struct bsTrack
{
	int count;                // 1 .. BS_MAX_KEYS
	double time[BS_MAX_KEYS]; // seconds, finite, strictly increasing
	bsVec3 value[BS_MAX_KEYS];
} bsTrack;

// One key (time 0) holding value: the same value at every time.
bsTrack bsConstantTrack(bsVec3 value);

// The index of the first bad key, or -1 when the track is valid: count in 1 .. BS_MAX_KEYS (a bad count
// gives 0), every time and value finite, each time greater than the one before.
int bsTrack_FirstBadKey(const bsTrack* track);

static inline bool bsTrack_IsValid(const bsTrack* track)
{
	return bsTrack_FirstBadKey(track) < 0;
}

// The value at time t: value[k] at time[k] exactly; between keys k and k + 1 the value
// v_k + u (v_{k+1} - v_k), u = (t - t_k) / (t_{k+1} - t_k); value[0] for t <= time[0] and
// value[count - 1] for t >= time[count - 1] (a NaN t gives the first value).
bsVec3 bsTrack_At(const bsTrack* track, double t);

// The value's rate of change at t, the derivative of bsTrack_At from the right: the slope
// (v_{k+1} - v_k) / (t_{k+1} - t_k) of the span time[k] <= t < time[k + 1]; 0 before the first key,
// from the last key on, and for a track of one key (a NaN t gives 0).
bsVec3 bsTrack_Slope(const bsTrack* track, double t);
