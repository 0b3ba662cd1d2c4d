// output_writers.h — the files a run writes for a snapshot of its particles, as one table of writers
// (docs/architecture.md: "Adding an output writer"). `blobsim run` walks the table for its final
// state (scene.pov, particles.ply, animation.ini) and its frame writer walks it for every frame
// (frame_NNNN.pov), so a new format is a module and one line in output_writers.c.
//
// Writers run in table order and write through io/atomic_file.h, inside the run's deferred group
// (output_set.h): nothing is in place until the run commits, and outputs.txt lists what they wrote.
// The table lives in app/scene, beside scene_surface.c, because a writer needs the config and the
// assembled scene, and both `run` (app/commands) and the renderer (app/render, which reads the scene
// files by bsOutput_SceneName) sit above it.
#pragma once

#include "config.h"
#include "motion_blur.h"
#include "files.h"
#include "output_set.h"
#include "scene_surface.h"

#include "blobsim/particles.h"

#include <stdbool.h>
#include <stddef.h>

// Which snapshots a writer writes for (bsOutputWriter.snapshots).
enum
{
	bs_outputScene = 1,  // the run's final state (scene.pov, particles.ply, ...)
	bs_outputFrame = 2,  // every frame of an animation (output.frame_every)
};

enum
{
	bs_outputPathMax = 4096,
};

// The run's writers' shared state, set once by the run (frames: before the final walk).
typedef struct bsOutputContext
{
	const bsConfig* config;
	const char* dir;                // the output directory
	int frames;                     // the frames the run wrote (known by the final walk)
	const bsParticles* particles;
	bsPovScene* scene;              // camera, lights, environment, bodies; its particles are set per write
	bsSceneSurface* surface;        // render.surface: blobs, or a mesh beside each scene (and its totals)
	bsVec3* centers;                // the particles drawn (not escaped), made when some have escaped or
	double* radii;                  // particles.over_life changes their looks; drawnCapacity of each
	bsVec3* velocities;             // theirs, with render.instances oriented by velocity
	bsQuat* orientations;           // theirs, with render.instances oriented by rotation
	float* colors;                  // theirs, 4 a particle, with an over_life colour or opacity ramp
	size_t drawnCapacity;
	const struct bsWorld* world;    // the world stepping the particles, while frames are written (their
	                                // time and ages); NULL for the final state
	double* ages;                   // the particles' ages (bsOutput_Ages), ageCapacity of them
	size_t ageCapacity;
	const bsMotionBlur* blur;       // render.motion_blur's samples of the snapshot; NULL: none
	double* gasRadii;               // render.gas: each particle's puff radius and density at the world's
	double* gasDensities;           // time (bsOutputGas_Update), gasCount of them
	size_t gasCount, gasCapacity;
	double* densities;              // the densities of the particles that have not escaped, when some have
	char gasFile[48];               // the scene's df3 file, gas_HASH.df3
} bsOutputContext;

typedef struct bsOutputWriter
{
	const char* name;
	int snapshots;  // bs_outputScene and/or bs_outputFrame
	// Writes its files for the snapshot (frame < 0: the final state). False with a message naming
	// the file.
	bool (*write)(bsOutputContext* context, int frame, char* err, size_t errlen);
} bsOutputWriter;

extern const bsOutputWriter bs_sceneOutput;      // output_scene.c: scene.pov / frame_NNNN.pov (+ surface files)
extern const bsOutputWriter bs_particlesOutput;  // output_particles.c: particles.ply
extern const bsOutputWriter bs_animationOutput;  // output_animation.c: animation.ini
extern const bsOutputWriter bs_cacheOutput;      // output_cache.c: cache/frame_NNNN.ply (output.cache)

// Makes DIR/cache for output.cache (recording the folders made in created), before the first frame:
// false with a message naming the path when it is a file, a link, or cannot be written in.
bool bsOutputCache_Prepare(const bsConfig* config, const char* dir, bsCreatedFolders* created, char* err,
	size_t errlen);

// Walks the table for a snapshot: the final state's writers (bs_outputScene) when frame < 0, else
// frame's (bs_outputFrame; 0: the initial state), in table order, until one fails.
bool bsOutputWriters_Write(bsOutputContext* context, int frame, char* err, size_t errlen);

// Fills context->ages with every particle's age from the world, while there is one; without a world
// (the final state) they stay as the last call left them: the run calls it once more after its last
// step. False with a message when out of memory.
bool bsOutput_Ages(bsOutputContext* context, char* err, size_t errlen);

// render.gas (output_gas.c): sets gasRadii and gasDensities from the particles' ages in context->world
// (kept as they are when it is NULL: the final state is the last step's). False with a message when out of
// memory.
bool bsOutputGas_Update(bsOutputContext* context, char* err, size_t errlen);

// render.gas: a particle's puff, its radius and density at `age` (0 for a negative age), from its
// collision radius.
void bsOutputGas_Puff(const bsGasConfig* gas, double radius, double age, double* puffRadius, double* density);

// render.gas: the density grid of the scene's particles (context->scene->particles: centres, puff radii)
// with densities[i] each, written beside the scenes as gas_HASH.df3 (HASH: the file's bytes', so a
// file already there is kept, and one left by a failed run is still right) and named in the scene's
// particles.gas (no particles: no file, particles.gas.file NULL). False with a message naming the file.
bool bsOutputGas_WriteGrid(bsOutputContext* context, const double* densities, char* err, size_t errlen);

// render.gas's settings for the scene writer (file NULL: set per snapshot).
bsPovGas bsOutputGas_Pov(const bsRenderConfig* render);

// Frees the compacted particle arrays.
void bsOutputContext_Free(bsOutputContext* context);

// The scene file of a snapshot: "scene.pov" (frame < 0) or "frame_NNNN.pov" (pov_writer.h).
void bsOutput_SceneName(char* out, size_t size, int frame);

// Sample j (0 .. render.motion_blur.samples - 2, earliest first) of a snapshot's motion blur:
// "scene_blur0.pov" or "frame_NNNN_blur0.pov"; the snapshot's own scene is its closing sample.
void bsOutput_BlurSceneName(char* out, size_t size, int frame, int sample);

// DIR/NAME (out has bs_outputPathMax bytes).
void bsOutput_Path(char* out, const char* dir, const char* name);
