// config_bodies.h — the config's `environment.bodies`: meshes that move through the particles
// (include/blobsim/body.h, docs/bodies.md), read and checked here, built into bsBody objects by
// bodies.h.
#pragma once

#include "config.h"

#include <cjson/cJSON.h>

#include <stdbool.h>

// One key: a time and any of the three tracks (absent ones are not keyed at this time).
typedef struct bsBodyKeyConfig
{
	double time;
	bool hasTranslate, hasRotate, hasScale;
	bsVec3 translate;
	bsVec3 axis;      // rotate.axis, non-zero
	double angle;     // rotate.angle, radians (degrees in the config)
	bsVec3 scale;     // each > 0; a single number s is <s, s, s>
} bsBodyKeyConfig;

struct bsBodyConfig
{
	char* file;              // the OBJ, resolved against the config's directory (required unless a
	                         // sequence is given)
	bsMaterial material;     // ["white"]
	bool loop;               // [false]
	double maxAngle;         // max_angle, radians (degrees in the config), in (0, 180] [0.1 rad]
	bsBodyKeyConfig* keys;   // strictly increasing times
	int keyCount;
	bool deforming;          // a `deform` block or a `sequence` is given
	double support;          // deform.support, > 0
	double* times;           // deform.times, strictly increasing (>= 1)
	int timeCount;
	bsVec3* controls;        // deform.controls[j].point
	bsVec3* displacements;   // deform.controls[j].displacements[k] at [k * controlCount + j]
	int controlCount;        // >= 1
	bool dynamic;            // a `dynamic` block is given (then at most one key, no scale, no sequence)
	double density;          // dynamic.density, > 0 [1000]
	bsVec3 velocity;         // dynamic.velocity [0, 0, 0]
	bsVec3 angularVelocity;  // dynamic.angular_velocity, radians per second (degrees in the config) [0]
	int sensorParticles;     // dynamic.sensor_particles, 0..64 (0: the paper's auto rule) [0]
	bool twoWay;             // dynamic.coupling: "two_way" (particles push it) or "one_way" [one_way]
	char** frames;           // sequence: the OBJ of each frame, resolved (then `file` is the first)
	int frameCount;          // 0: no sequence; frame k is at time start + k / fps
	double fps;              // sequence.fps, > 0 [24]
	double start;            // sequence.start, seconds [0]
	bool hasField;           // a `field` block: the body carries its own distance/normal grid
	bsDistanceGridDef fieldBuild;  // field.build: its settings (the world field.build's keys)
};

// environment.dynamics: the settings of the dynamic bodies and of body-body contact (body.h), with
// the engine's defaults; env->bodyDynamics (NULL when absent).
// environment.bodies (absent: none) into env->bodies and env->bodyCount; the message in c on failure
// (what was read is left for bsBodiesConfig_Free).
typedef struct bsCtx bsCtx;
bool bsReadBodiesConfig(bsCtx* c, const cJSON* environment, bsEnvironmentConfig* env);
void bsBodiesConfig_Free(bsEnvironmentConfig* env);
