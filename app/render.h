// render.h — POV-Ray renders a run's scene: `povray +I<scene> +O<image> +W<w> +H<h> +A<a>|-A
// +J<j>|-J +FN -D -P +V` in a child process (process.h; tools/bench_render passes the same options),
// its stdout and stderr through a pipe to this process, which writes them to a log and reads POV-Ray's
// progress reports from them (render_progress.h). POV-Ray runs in DIR and gets the bare names of the scene and the
// image: it would read '=', '+', a leading '-', quotes or spaces in a path as options, and DIR may
// hold any of them.
//
// Every file it makes joins the run's deferred group (atomic_file.h), so a failed or interrupted run
// leaves the previous complete output folder as it was:
//   DIR/scene.tmp.<pid>.png        the image, renamed to DIR/scene.png with the other outputs
//   DIR/render.log.tmp.<pid>       POV-Ray's messages, renamed to DIR/render.log with them; when
//                                  POV-Ray fails, renamed at once, so the error can point at it
//   DIR/scene.tmp.<pid>.pov-state  POV-Ray's own state file (it removes it when it finishes), removed
// On SIGINT/SIGTERM the run's handler calls bsProcess_StopAllOnSignal (kills and reaps POV-Ray, so it
// writes nothing after) and then bsAtomicFile_CleanupOnSignal (removes the files above).
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct bsRenderMeter bsRenderMeter;

typedef struct bsRenderInput
{
	const char* scenePath;  // the scene to read: DIR/scene.pov, or its pending temporary file (a
	                        // file directly in DIR, named DIR + '/' + its name)
	const char* directory;  // DIR: where the image and the log go
	int width, height;      // pixels
	double antialias;       // > 0: +A<antialias>; otherwise -A (no antialiasing)
	double jitter;          // > 0: +J<jitter>; otherwise -J
	bsRenderMeter* meter;   // POV-Ray's progress goes here (render_progress.h); NULL: nowhere
	int meterSlot;          // this render's slot in the meter (one per render running at once)
} bsRenderInput;

// Renders in->scenePath to DIR/scene.png (pending in the deferred group, which must be open). False,
// with a message starting "--render: " (no POV-Ray on PATH, cannot start it, it failed or was lost,
// it wrote no image), when it cannot; the caller then aborts the group.
bool bsRender_Scene(const bsRenderInput* in, char* err, size_t errlen);
