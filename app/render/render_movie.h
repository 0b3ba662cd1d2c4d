// render_movie.h — an output folder's frames (frame_0000.png ...) encoded by ffmpeg (through
// process.h, in a private folder of DIR reading ../frame_%04d.png, like POV-Ray) into
//   DIR/animation.mp4   H.264 (libx264), yuv420p, even dimensions (padded by one pixel when odd),
//                       +faststart: plays in every browser
//   DIR/preview.gif     at most 320 pixels wide, its own palette (palettegen/paletteuse)
// both at render.fps frames per second. Each is written in the private folder (atomic_file.h), then
// renamed to DIR/<name>.tmp.<node>.<pid>.<ext> in the deferred group of atomic_file.h (which must be
// open), so an interrupted encode leaves no partial movie, and nothing is written through a link.
#pragma once

#include <stdbool.h>
#include <stddef.h>

// ffmpeg's path into out; false, with a message naming the Debian package, when it is not on PATH
// (what: the option that wants it).
bool bsMovie_FindFfmpeg(const char* what, char* out, size_t size, char* err, size_t errlen);

// True when both movie files exist and are newer than every frame image 0 .. lastFrame.
bool bsMovie_UpToDate(const char* dir, int lastFrame);

// Encodes DIR/frame_0000.png .. frame_<lastFrame>.png (all must exist) at fps into the two files.
// False, with a message (a missing frame, ffmpeg's own last lines), when it cannot.
bool bsMovie_Encode(const char* dir, int lastFrame, int fps, char* err, size_t errlen);
