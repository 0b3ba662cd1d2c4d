// dng.h — the distance/normal grid file (.dng): a bsDistanceGrid with the settings it was built with,
// the hash of its mesh, and checksums. The reader treats its input as hostile (fuzz target
// tests/fuzz/fuzz_dng.c): every size is checked before it is used, memory is bounded by 1032 times
// the file's size (deflate's largest ratio) and by BS_GRID_MAX_CELLS, and every failure is one message
// naming the file and the byte offset.
//
// Layout (version 1; every number little-endian, floats IEEE 754):
//   offset size  field
//        0    8  magic "\x89DNG\r\n\x1a\n" (catches text-mode transfers, like PNG's)
//        8    4  version (1)
//       12    4  header bytes (128)
//       16   12  nx, ny, nz (u32 each, >= 1; nx ny nz <= BS_GRID_MAX_CELLS)
//       28    4  method (0 blur, 1 potential)
//       32    4  band (1..64)
//       36    4  blur radius (1..8)
//       40    4  blur rounds (0..64)
//       44    4  flags: 1 exact far field, 2 has open (unsigned) cells, 4 has inside cells
//       48    4  compression: 0 none, 1 zlib (deflate stream with zlib header)
//       52    4  reserved (0)
//       56    8  cell size (f64, finite, > 0)
//       64   24  origin x, y, z (f64, finite; the far corner origin + n h finite too)
//       88    8  mesh hash (bsMeshHash)
//       96    8  payload bytes as stored (nx ny nz 16 when not compressed)
//      104    4  CRC-32 of the uncompressed payload
//      108   16  reserved (0)
//      124    4  CRC-32 of bytes 0..123
//      128       payload: per cell, x fastest, the distance and the normal's x, y, z (4 f32)
// A cell's distance must be finite and its normal unit within 1e-3. Nothing may follow the payload.
//
// Messages (in the order they are checked):
//   name: byte N: truncated header (N bytes, expected 128)
//   name: byte 0: not a distance/normal grid (bad magic)
//   name: byte 124: header checksum mismatch (stored 0x..., computed 0x...)
//   name: byte 8: unsupported version V (this reader reads 1)
//   name: byte 12: header size N, expected 128
//   name: byte 16: grid of NX x NY x NZ cells (each at least 1, at most 134217728 in all)
//   name: byte 28: unknown method M          byte 32: band B out of range 1..64
//   name: byte 36: blur radius R out of range 1..8      byte 40: blur rounds K out of range 0..64
//   name: byte 44: unknown flags 0x...        byte 48: unknown compression C
//   name: byte 52 | 108: reserved bytes not zero
//   name: byte 56: cell size not finite and positive    byte 64: origin not finite (or its far corner)
//   name: byte 96: payload of N bytes, expected M (not compressed) | more than the file holds
//   name: byte 96: compressed payload of N bytes cannot hold M bytes (deflate packs 1032:1 at most)
//   name: byte 128: truncated payload (N bytes, expected M)
//   name: byte 128 + M: N bytes after the payload
//   name: byte 128: corrupt compressed payload (zlib: ...) | it inflates to other than M bytes
//   name: byte 104: payload checksum mismatch (stored 0x..., computed 0x...)
//   name: payload byte N: cell (I, J, K): distance not finite | normal not unit (length L)
// (payload byte N is the offset in the uncompressed payload; without compression it is file byte
// 128 + N). Loading adds: "path: cannot open: <strerror>", "cannot read: <strerror>", "not a regular
// file", "file too large".
#pragma once

#include "blobsim/field.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BS_DNG_VERSION 1
#define BS_DNG_HEADER_BYTES 128

// Encodes the grid into a new buffer (*data, *size; free() it). compress: zlib the payload.
// Fails (false, message in err) only when out of memory or the grid is malformed.
bool bsDng_Encode(const bsDistanceGrid* grid, bool compress, uint8_t** data, size_t* size, char* err,
	size_t errlen);

// What the file says beyond the grid.
typedef struct bsDngInfo
{
	uint32_t version;
	bool compressed;
	uint64_t fileBytes;
	uint64_t payloadBytes;  // as stored
	uint32_t payloadCrc;
} bsDngInfo;

// Decodes `size` bytes; `name` prefixes the messages. On success *grid owns its cells
// (bsDistanceGrid_Free) and *info (when not NULL) is filled; on failure *grid is zeroed and err says
// why.
bool bsDng_Decode(const uint8_t* data, size_t size, const char* name, bsDistanceGrid* grid,
	bsDngInfo* info, char* err, size_t errlen);

// Writes the file atomically (io/atomic_file.h).
bool bsDng_Write(const char* path, const bsDistanceGrid* grid, bool compress, char* err, size_t errlen);

// Reads and decodes a regular file, naming it by path.
bool bsDng_Load(const char* path, bsDistanceGrid* grid, bsDngInfo* info, char* err, size_t errlen);

// bsDng_Load within a memory budget (0: none): a file whose header's cells would take more than
// maxBytes to inflate and hold (the file, the payload and the cells: 32 bytes a cell) is refused
// before anything is inflated, "path: loading the grid needs about N bytes (...), more than the M
// bytes it may use" (a 260 KB file may claim 256 MiB of cells).
bool bsDng_LoadWithin(const char* path, uint64_t maxBytes, bsDistanceGrid* grid, bsDngInfo* info, char* err,
	size_t errlen);
