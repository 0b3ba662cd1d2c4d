// render.h — POV-Ray renders one scene of an output folder to a PNG: `povray +I<scene> +O<image>
// +W<w> +H<h> +A<a>|-A +J<j>|-J [+WT<n>] +FN -D -P +V` in a child process (process.h;
// tools/bench_render passes the same options), its stdout and stderr through a pipe to this process,
// which writes them to a log and reads POV-Ray's progress reports from them (render_progress.h).
// POV-Ray runs in DIR and gets the bare names of the scene and the image: it would read '=', '+', a
// leading '-', quotes or spaces in a path as options, and DIR may hold any of them. Several renders
// may run at once, from different threads (render_frames.h schedules them).
//
// Every file it makes joins the deferred group of atomic_file.h (which must be open), so a signal
// removes it, and a failed or interrupted `run` leaves the previous complete output folder as it was:
//   DIR/<stem>.tmp.<pid>.png        the image, renamed to DIR/<image> with the run's other outputs
//                                   (or at once, with commitNow)
//   DIR/<stem>.tmp.<pid>.log        POV-Ray's messages: renamed to DIR/<log> like the image; without a
//                                   log name (frames), removed after a success; after a failure
//                                   renamed at once to DIR/render.log, so the error can point at it
//                                   (of several failing at once, the lowest rank's: bsRenderFailure)
//   DIR/<stem>.tmp.<pid>.pov-state  POV-Ray's own state file (it removes it when it finishes), removed
//   DIR/<stem>.tmp.<pid>.pov        with surfacePath: the scene POV-Ray reads, #version and two lines that declare
//                                   BlobsimSurface as the pending include's name and include the
//                                   scene (whose own #declare of it is #ifndef), removed after
// On SIGINT/SIGTERM the command's handler calls bsProcess_StopAllOnSignal (kills and reaps POV-Ray, so
// it writes nothing after) and then bsAtomicFile_CleanupOnSignal (removes the files above).
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

// Renders running at once share DIR/render.log for a failure's log: the failure of the lowest rank
// keeps it, so the message and the log agree whichever render fails first.
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
	const char* logName;    // the log's name in DIR ("render.log"); NULL: none kept after a success
	int width, height;      // pixels
	double antialias;       // > 0: +A<antialias>; otherwise -A (no antialiasing)
	double jitter;          // > 0: +J<jitter>; otherwise -J
	int threads;            // > 0: +WT<threads> (POV-Ray's render threads); 0: POV-Ray's default
	const char* record;     // not NULL: written into the image as a tEXt chunk "blobsim-render"
	const char* surfacePath;  // not NULL: the scene includes its surface mesh (render.surface "mesh")
	                        // and that include is pending under this temporary name in DIR, while
	                        // the scene names its final one: POV-Ray then reads a wrapper (see the top)
	bool commitNow;         // rename the image (and log) into place as soon as it is complete
	bsRenderFailure* failure;  // shared by renders running at once; NULL: this one alone
	int rank;               // this render's rank for failure
	bsRenderMeter* meter;   // POV-Ray's progress goes here (render_progress.h); NULL: nowhere
	int meterSlot;          // this render's slot in the meter (one per render running at once)
} bsRenderInput;

// The PNG text keyword of bsRenderInput.record.
#define BS_RENDER_RECORD_KEY "blobsim-render"

// Renders in->scenePath to DIR/<imageName> (pending in the deferred group, which must be open, or in
// place with commitNow). False, with a message starting "--render: " (no POV-Ray on PATH, cannot start
// it, it failed or was lost, it wrote no image), when it cannot; the caller then aborts the group.
bool bsRender_Image(const bsRenderInput* in, char* err, size_t errlen);

// Finds POV-Ray on PATH, into out; false, with the message naming the package, when it is missing
// (what: the option or command that wants it, e.g. "--render"; dir: where the scenes are).
bool bsRender_FindPovray(const char* what, const char* dir, char* out, size_t size, char* err, size_t errlen);
