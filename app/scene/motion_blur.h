// motion_blur.h — render.motion_blur's sub-frame samples: the particles at `samples - 1` times spread
// over the shutter before each image (the closing sample is the image's own scene), recorded from the
// simulation's substeps through the world's substep observer (world.h), for the scene writer to write
// as NAME_blurJ.pov (output_scene.c) and the renderer to average (render_frames.h, docs/rendering.md).
//
// Times are counted in steps from the run's start (u = step - 1 + done / substeps for an observation
// after `done` of a step's substeps: the last substep ends at the step exactly). The shutter ends at
// the image's time E and lasts shutter_angle / 360 of the frame interval (output.frame_every steps;
// one step for a run without frames): sample j of the N - 1 earlier ones is at
// E - shutter (N - 1 - j) / (N - 1), clamped to the previous image's time (the interval's start: a
// last, shorter frame's shutter opens no earlier, and a resumed run, which starts at an image, needs
// nothing from before it). A sample time that is a substep's end takes that substep's positions; one
// that falls between two observations takes the straight line between them, per particle (a particle
// emitted in the step takes its position after the emit phase). Escaped particles are left out. With
// several species, over-life ramps or render.gas each sample keeps every particle's species and its
// age at the sample's time (bsWorld_BirthTime), so its scene draws each species' looks (or the puffs)
// as they were then; with instances turned by rotation, each particle's orientation there (the slerp
// between the two observations: the constant-spin turn of the substep, step.c). The
// moving bodies are recorded with them (bsMotionBlur_Attach): each body's pose at the sample's time in
// seconds (a dynamic body's on the chord of the substep holding it, the path the particles' sweep
// assumes), and a deforming body's shape is made at that time when the sample is written. The
// observer runs on the stepping thread, so the samples are the same for any thread count.
#pragma once

#include "bodies.h"
#include "config.h"

#include "blobsim/particles.h"
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum
{
	bs_motionBlurMaxSamples = 64,
};

// One sample: the particles drawn at its time, compacted (escaped ones left out).
typedef struct bsBlurSample
{
	double time;        // in steps
	double seconds;     // the world's time there (the bodies' poses)
	bool taken;
	size_t count;
	bsVec3* centers;
	double* radii;
	bsVec3* velocities;
	double* ages;        // with looks (bsMotionBlur.looks): each one's age at the sample's time
	uint8_t* species;    // and its species (bsSpecies_Of)
	bsQuat* orientations;  // with turns (bsMotionBlur.turns): each one's at the sample's time
	size_t capacity;
	bsEnvBodyPose* poses;  // each body's at the sample's time (bsEnvBodies_Count of them)
} bsBlurSample;

typedef struct bsMotionBlur
{
	int samples;          // N, the closing one (the image's own scene) included; 0: off
	double shutterSteps;  // the shutter's length in steps
	int step;             // the step being taken (set before bsWorld_Step)
	bsBlurSample earlier[bs_motionBlurMaxSamples - 1];
	bsVec3* prev;         // the last observation's positions
	size_t prevCount, prevCapacity;
	double prevTime;
	bool outOfMemory;     // a sample or the last observation could not be kept
	bsEnvBodies* bodies;  // the moving bodies (bsMotionBlur_Attach), or NULL
	const bsWorld* world; // the world stepping the particles (its time), or NULL
	double dt;            // a step's seconds
	bsPovBody* povBodies; // the bodies as a sample's scene draws them (bsEnvBodies_Count of them)
	const bsParticlesConfig* looks;  // several species, over-life ramps or render.gas: the samples keep each
	                                 // particle's age and species for its look at their time; else NULL
	bool turns;           // render.instances.orient "rotation": the samples keep the orientations
	bsQuat* prevTurn;     // the last observation's orientations, with turns
	size_t prevTurnCapacity;
} bsMotionBlur;

// The renders averaged per image: render.motion_blur.samples, or 0 without blur (no key, or shutter 0).
int bsMotionBlur_Samples(const bsRenderConfig* render);

// Off (samples 0) unless samples >= 2; shutterSteps = shutter_angle / 360 x the frame interval.
void bsMotionBlur_Init(bsMotionBlur* b, int samples, double shutterAngle, int frameEvery);
void bsMotionBlur_Free(bsMotionBlur* b);

// The world whose steps the samples are taken from (its time: bsWorld_Time, its particles' birth times)
// with its step's seconds (config->step.dt), the run's moving bodies (NULL: none), whose poses each
// sample records, and what else the config's looks need of each particle: with several species,
// over-life ramps or render.gas its age and species, with render.instances oriented by rotation its
// orientation. Before bsMotionBlur_Begin. Out of memory for the poses makes bsMotionBlur_Ready false.
void bsMotionBlur_Attach(bsMotionBlur* b, bsEnvBodies* bodies, const bsWorld* world, const bsConfig* config);

// The image to come is at step `end`; the particles `p` are at step `start` (the previous image, or
// where the run begins or resumes). Samples at or before start are taken from p at once.
void bsMotionBlur_Begin(bsMotionBlur* b, int start, int end, const bsParticles* p);

// The world's substep observer (world.h), context a bsMotionBlur.
void bsMotionBlur_Observe(void* context, int done, int substeps, const bsParticles* p);

// All N - 1 earlier samples taken (false after running out of memory, or before their times).
bool bsMotionBlur_Ready(const bsMotionBlur* b);
