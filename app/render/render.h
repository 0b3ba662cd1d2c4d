// render.h — POV-Ray renders one scene of an output folder to a PNG: `povray +I<scene> +O<image> +L..
// +W<w> +H<h> +A<a>|-A +J<j>|-J [+WT<n>] +FN -D -P +V` in a child process (process.h;
// tools/bench_render passes the same options), its stdout and stderr through a pipe to this process,
// which writes them to a log and reads POV-Ray's progress reports from them (render_progress.h).
// Several renders may run at once, from different threads (render_frames.h schedules them).
//
// Nothing is written by name in DIR, where anyone who may write in the folder could plant a link:
// each render makes a private folder DIR/<stem>.tmp.<node>.<pid>.bsXXXXXX (atomic_file.h: mode 0700,
// made by mkdir), and POV-Ray runs in it (fchdir), reading the scene as ../NAME (+L.. finds its
// includes in DIR) and writing its image and .pov-state there; the log is created in it exclusively
// (O_EXCL | O_NOFOLLOW). Then the files are renamed into place (a link at a target is replaced, never
// followed) and the folder removed:
//   the image   to DIR/<image> at once (commitNow), or to DIR/<stem>.tmp.<node>.<pid>.png, a file of
//               the deferred group (atomic_file.h, which must be open) renamed with the run's others
//   the log     to DIR/<log>: the scene's render.log joins the group like the image (at once after a
//               failure, so the error can point at it); under `blobsim render DIR` a frame's
//               logs/frame_NNNN.log is placed at once (through DIR/logs opened without following a
//               link), listed in DIR/outputs.txt at once and kept in the group, done or failed; under
//               `run --render` a frame's log is kept only after a failure, as render.log (of several
//               failing at once, the lowest rank's: bsRenderFailure)
//   a wrapper   with surfacePath: <stem>.wrapper.pov, the scene POV-Ray reads: #version 3.7 (so that
//               POV-Ray sees no declaration before it), two lines that declare BlobsimSurface as the
//               pending include's name, and the scene's include (whose own #declare of it is #ifndef)
//               (a motion-blur sample with a pending include of its own: <stem>.blurJ.wrapper.pov)
// On SIGINT/SIGTERM the command's handler calls bsProcess_StopAllOnSignal (kills and reaps POV-Ray, so
// it writes nothing after) and then bsAtomicFile_CleanupOnSignal (removes the files above and the
// private folder). A SIGKILLed render's folder is removed by the next command into DIR
// (output_set.h's rules for a dead writer).
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct bsRenderClaim bsRenderClaim;

// Renders of `run --render` running at once share DIR/render.log for a failure's log: the failure of
// the lowest rank keeps it, so the message and the log agree whichever render fails first.
typedef struct bsRenderFailure
{
	pthread_mutex_t lock;
	int rank;  // the lowest rank that failed so far; INT_MAX: none
} bsRenderFailure;
typedef struct bsRenderMeter bsRenderMeter;

typedef struct bsRenderInput
{
	const char* scenePath;  // the scene to read: DIR/NAME.pov, or its pending temporary file (a
	                        // file directly in DIR, named DIR + '/' + its name)
	const char* directory;  // DIR: where the image and the log go
	const char* imageName;  // the image's name in DIR ("scene.png", "frame_0003.png")
	const char* logName;    // the log's name in DIR ("render.log", "logs/frame_0003.log"); NULL:
	                        // none kept after a success, render.log after a failure
	int width, height;      // pixels
	double antialias;       // > 0: +A<antialias>; otherwise -A (no antialiasing)
	double jitter;          // > 0: +J<jitter>; otherwise -J
	int threads;            // > 0: +WT<threads> (POV-Ray's render threads); 0: POV-Ray's default
	const char* record;     // not NULL: written into the image as a tEXt chunk "blobsim-render"
	const char* surfacePath;  // not NULL: the scene includes its surface mesh (render.surface "mesh")
	                        // and that include is pending under this temporary name in DIR, while
	                        // the scene names its final one: POV-Ray then reads a wrapper (see the top)
	bool commitNow;         // rename the image (and log) into place as soon as it is complete
	bsRenderClaim* claim;   // refreshed while POV-Ray reports; NULL: none
	bsRenderFailure* failure;  // without logName: shared by renders running at once; NULL: this one alone
	int rank;               // this render's rank for failure
	bsRenderMeter* meter;   // POV-Ray's progress goes here (render_progress.h); NULL: nowhere
	int meterSlot;          // this render's slot in the meter (one per render running at once)
	const char* const* samplePaths;  // render.motion_blur: the earlier sub-frame scenes (files directly in
	                        // DIR, pending or not), rendered before the scene into the private folder;
	                        // the image is then the average of all (image.h, linear light)
	int sampleCount;        // 0: none
	const char* const* sampleSurfacePaths;  // mesh or auto surface with motion blur: sample j's pending
	                        // include (as surfacePath, through a wrapper of its own), or NULL (blobs, or
	                        // its include in place); NULL: none pending
} bsRenderInput;

// The PNG text keyword of bsRenderInput.record.
#define BS_RENDER_RECORD_KEY "blobsim-render"

// Renders in->scenePath to DIR/<imageName> (pending in the deferred group, which must be open, or in
// place with commitNow). False, with a message starting "--render: " (no POV-Ray on PATH, cannot start
// it, it failed or was lost, it wrote no image; "see" the log), when it cannot.
bool bsRender_Image(const bsRenderInput* in, char* err, size_t errlen);

// Finds POV-Ray on PATH, into out; false, with the message naming the package, when it is missing
// (what: the option or command that wants it, e.g. "--render"; dir: where the scenes are).
bool bsRender_FindPovray(const char* what, const char* dir, char* out, size_t size, char* err, size_t errlen);
