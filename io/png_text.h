// png_text.h — one tEXt chunk in a PNG file, read and added at the chunk level (no decoding): the
// renderer records in each image what it was made from (render_frames.h), so a later render can tell
// whether the image is up to date without trusting file times.
//
// Both walk the chunk list (8-byte signature, then length, type, data, CRC per chunk) and treat the
// file as hostile: a file that is not a PNG, a truncated chunk or a length past the end is an error
// or "not found", never a crash.
#pragma once

#include <stdbool.h>
#include <stddef.h>

// The text of the first tEXt chunk whose keyword is key (1..79 bytes of Latin-1, no NUL), NUL-
// terminated into out. False when the file cannot be read, is not a PNG, has no such chunk, or the
// text does not fit in size - 1 bytes.
bool bsPng_ReadText(const char* path, const char* key, char* out, size_t size);

// Rewrites the PNG at path in place with a tEXt chunk key=text inserted before its IEND chunk (the
// last 12 bytes). For a file nobody else reads yet (a render's temporary image): it is rewritten in
// place. False, with a message naming the path, when the
// file is not a PNG ending in IEND or cannot be read or written.
bool bsPng_AddText(const char* path, const char* key, const char* text, char* err, size_t errlen);

// The width and height in the PNG's IHDR chunk (the first after the signature). False when the file
// cannot be read or does not start like a PNG.
bool bsPng_ReadSize(const char* path, int* width, int* height);
