// render_frames.h — the images of an output folder (the final scene.png and the frames of an
// animation) as a list of renders, each decided up to date or not, then rendered by several POV-Ray
// processes at once. `run --render` and `blobsim render DIR` use it.
//
// Up to date: every image blobsim renders carries a record (a PNG tEXt chunk, render.h) of what it was
// made from: the FNV-1a 64 hash of its .pov and the render settings (width, height, antialias,
// jitter), and in mesh mode (render.surface) the hash of the scene's NAME_surface.inc too, so a changed
// surface re-renders its frame; with motion blur, the sample count and one hash of every sample's scene. An image is up to date when its record equals the record its render would write now, so a
// second run that writes the same frames re-renders none, and a changed frame or setting re-renders
// exactly what it changes. An image without a record (rendered by POV-Ray from animation.ini, e.g. on
// a render farm) counts as up to date when it is newer than its .pov (and its _surface.inc) and has
// the configured size.
//
// In mesh mode under `run --render` the scenes and their includes are still pending (atomic_file.h)
// while POV-Ray runs, and a scene names its include's final name: the record hashes the pending
// include, and the render reads it through render.h's wrapper. `blobsim render DIR` finds every file
// under its final name, so the scene is rendered as it is.
//
// Jobs: `jobs` POV-Ray processes at once (default: one per core, at most one per image to render),
// each with cores / jobs render threads (+WT, at least 1), so the total stays within the cores. The
// cores are those of the process's affinity mask (a Slurm task's allocation), unless given.
// Renders are handed out in list order (scene first, then frames by number). Under `run --render`,
// after a failure no new render starts, the ones running finish, and the first error is reported.
// Under `blobsim render DIR` (commitNow) each image is claimed before its render (render_claim.h: an
// image another renderer holds is skipped, and one made meanwhile is kept), every image of the list
// is tried whatever failed before, and the error names every failed image, then the first failure.
// Each render's log is DIR/logs/frame_NNNN.log (the scene's: DIR/render.log), kept and listed.
#pragma once

#include "render.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct bsRenderSettings
{
	int width, height;  // pixels
	double antialias;   // > 0: the +A threshold; otherwise off
	double jitter;      // > 0: the +J amount; otherwise off
	bool surfaceMesh;   // render.surface "mesh": each scene NAME.pov includes NAME_surface.inc
	bool surfaceAuto;   // render.surface "auto": a scene includes NAME_surface.inc when it exists (its
	                    // pending file when this run wrote one)
	int blurSamples;    // render.motion_blur: each image averages N renders, NAME_blur0.pov ..
	                    // NAME_blur{N-2}.pov and NAME.pov (motion_blur.h); 0: none
} bsRenderSettings;

typedef struct bsRenderItem
{
	int frame;          // the frame number; -1: the final scene (scene.pov -> scene.png)
	char* readPath;     // the scene to read: DIR/NAME.pov or its pending temporary file (owned)
	char* surfacePath;  // mesh mode (auto: when there is one): DIR/NAME_surface.inc or its pending temporary file (owned); else NULL
	bool surfacePending;  // surfacePath is the pending file: rendered through render.h's wrapper
	char** samplePaths; // motion blur: the earlier samples' scenes, pending or in place (owned); NULL: none
	int sampleCount;
	char** sampleSurfaces;  // mesh or auto mode with motion blur: each sample's include as surfacePath
	                        // (owned; NULL when it draws blobs); NULL: none
	const char** sampleSurfacePending;  // the pending ones among them (not owned), else NULL
	char image[32];     // the image's name in DIR
	char record[192];   // what the image records (set by Decide)
	bool render;        // to make (set by Decide)
	int copyOf;         // >= 0: made as a copy of that item's image, which has the same record (the
	                    // last frame is the final scene); -1: rendered (set by Decide)
	bool failed;        // its render failed (set by Run)
	bool skipped;       // another renderer held its claim (set by Run; commitNow only)
} bsRenderItem;

typedef struct bsRenderPlan
{
	const char* directory;     // DIR
	bsRenderSettings settings;
	bool commitNow;            // each image into place when done (render DIR), not with the group (run):
	                           // each image claimed first (render_claim.h), and the rest rendered after
	                           // a failure
	bool force;                // set by Decide
	bsRenderMeter* meter;      // begun by the caller for the pending renders; NULL (Init): no progress
	bsRenderItem* items;
	int count;
	size_t capacity;
	int rendered;              // images made by Run (rendered or copied)
} bsRenderPlan;

// An empty plan for DIR.
void bsRenderPlan_Init(bsRenderPlan* plan, const char* dir, const bsRenderSettings* settings, bool commitNow);
void bsRenderPlan_Free(bsRenderPlan* plan);

// Adds frame k (>= 0) or the scene (-1), read from readPath (NULL: DIR/frame_NNNN.pov or
// DIR/scene.pov); in mesh mode its include is DIR/NAME_surface.inc, or its pending temporary file
// when there is one. False when memory runs out.
bool bsRenderPlan_Add(bsRenderPlan* plan, int frame, const char* readPath);

// Decides which items to make: all with force, else those not up to date (see the top). A frame whose
// scene has the same bytes as scene.pov (the last frame) is not rendered twice: its image is a copy
// of scene.png. False, with a message, when a scene cannot be read.
bool bsRenderPlan_Decide(bsRenderPlan* plan, bool force, char* err, size_t errlen);

// The number of items to render.
int bsRenderPlan_Pending(const bsRenderPlan* plan);

// Renders the items Decide chose (then copies the copies, through atomic_file.h) with `jobs` POV-Ray processes at once (0: the default) and cores
// render threads in all (0: the cores of the affinity mask). The deferred group (atomic_file.h) must
// be open. False, with the first failure's message.
bool bsRenderPlan_Run(bsRenderPlan* plan, int jobs, int cores, char* err, size_t errlen);

// Adds every item's image that exists in DIR to the open deferred group as one of the folder's
// outputs (bsAtomicFile_DeferKeep; output_set.h): the images kept as up to date, and with commitNow
// those already renamed into place. An image the group will rename into place stays as it is. False,
// with a message, when memory runs out.
bool bsRenderPlan_ListImages(const bsRenderPlan* plan, char* err, size_t errlen);

// The processes and threads each for `pending` renders on `cores` cores with `jobs` requested (0:
// the default).
void bsRender_SplitCores(int pending, int jobs, int cores, int* processes, int* threads);

// Parses "K/N" into a shard of N, 0 <= K < N. False when malformed.
bool bsRender_ParseShard(const char* text, int* shard, int* count);

// Parses "A-B" (or "A") into a frame range, 0 <= A <= B. False when malformed.
bool bsRender_ParseFrameRange(const char* text, int* first, int* last);
