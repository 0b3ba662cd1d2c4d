// ply.h — particle snapshots as PLY point clouds (the format of MeshLab, CloudCompare, Blender and
// Houdini), one vertex per particle.
//
// bsPly_WriteParticles writes binary little-endian PLY with this header (VERSION is blobsim's):
//     ply
//     format binary_little_endian 1.0
//     comment blobsim VERSION
//     element vertex N
//     property float x / y / z / radius / vx / vy / vz      (seven lines, in this order)
//     property uchar state                                  (0 free, 1 stuck, 2 escaped, 3 sleeping)
//     property uint id                                      (the particle's birth order, particles.h)
//     property float wx / wy / wz                           (only when the particles spin: their
//                                                            angular velocity, rad/s; 12 bytes more)
//     end_header
// followed by N records of 33 bytes (45 with spin); but x, y and z are `double` (records of 45 bytes, 57 with spin) when a float
// would round some particle's position by more than 1/2048 of its radius (bsPly_NeedsDoubles: a
// coordinate beyond bs_plyFloatReach radii from the origin, e.g. a model at survey coordinates), so
// the file keeps every position to that precision wherever the model sits, and a scene near the
// origin gives the float file it always gave. Both are standard PLY (meshio reads either). The bytes are assembled explicitly (IEEE-754, least significant byte first), so the same
// particles give the same file on every host.
//
// bsPly_Read / bsPly_Parse read PLY files with x, y, z and optionally radius, vx, vy, vz, state, id and wx, wy, wz, in
// any order, of any numeric type (char ... double, also the int8 ... float64 spellings), in ascii,
// binary_little_endian or binary_big_endian. Other properties and other elements (faces, ...) are
// skipped, lists included. Both entry points treat the input as hostile and are safe for untrusted
// data (they are the fuzzing targets): the header has line and size limits, every count is checked
// against the bytes that remain before anything is allocated, and every error is one message
// `name: message`, or `name:LINE: message` for header errors, e.g. `a.ply:3: unknown property
// type 'flaot'`.
#pragma once

#include "blobsim/particles.h"  // bsParticleState, bsParticles
#include "blobsim/surface.h"    // bsSurfaceMesh
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// One particle as stored in a PLY file. Doubles in memory; the writer narrows them to float (so a
// write/read round trip returns (double)(float)v; positions far from the origin stay doubles: above),
// the reader keeps float or double input exactly.
typedef struct bsPlyParticle
{
	bsVec3 position;
	bsVec3 velocity;
	double radius;
	uint8_t state;  // a bsParticleState
	uint32_t id;    // the particle's id (an integer 0 .. 2^32 - 1 in the file, of any numeric type)
	bsVec3 spin;    // angular velocity (wx, wy, wz)
} bsPlyParticle;

// Which optional properties a file held (x, y and z are required).
enum
{
	bs_plyHasRadius = 1,
	bs_plyHasVelocity = 2,  // all three of vx, vy, vz
	bs_plyHasState = 4,
	bs_plyHasId = 8,
	bs_plyHasSpin = 16,     // all three of wx, wy, wz
};

// What the reader returns. Properties absent from the file read as 0 (radius 0, velocity 0, state
// free, id 0): check `fields` and substitute defaults where needed. A velocity given only in part is an
// error, not a partial bs_plyHasVelocity.
typedef struct bsPlyData
{
	bsPlyParticle* particles;  // malloc'd, count entries (NULL when count is 0); the caller frees it
	size_t count;
	unsigned fields;           // bs_plyHas* bits
} bsPlyData;

// Limits of the reader (errors, not asserts).
enum
{
	bs_plyMaxLineLength = 1024,   // bytes in one header line, newline excluded
	bs_plyMaxHeaderLines = 10000,
	bs_plyMaxElements = 64,
	bs_plyMaxProperties = 256,    // over all elements
	bs_plyMaxNameLength = 63,
};

// A float rounds |x| <= 8192 r by at most 8192 r 2^-24 = r / 2048.
#define bs_plyFloatReach 8192.0

// Does some particle have a coordinate beyond bs_plyFloatReach times its radius (or a NaN)? Then
// bsPly_WriteParticles writes x, y, z as doubles.
bool bsPly_NeedsDoubles(const bsParticles* particles);

// Writes the particles to path through bsAtomicFile (the file is either complete or not replaced).
// Fails with a message when a value does not fit a finite float, a radius is negative or a state is not
// a bsParticleState, or on an I/O error.
bool bsPly_WriteParticles(const char* path, const bsParticles* particles, char* errbuf, size_t errlen);

// Reads a whole PLY file. On success *out holds the particles; on failure *out is zeroed and errbuf
// holds `path: message`.
bool bsPly_Read(const char* path, bsPlyData* out, char* errbuf, size_t errlen);

// The same on bytes in memory; name is only used in messages. Safe on any input.
bool bsPly_Parse(const uint8_t* data, size_t size, const char* name, bsPlyData* out, char* errbuf,
	size_t errlen);

// Writes a surface mesh (surface.h) as binary little-endian PLY for MeshLab, ParaView or Blender:
// `element vertex` with float x, y, z, nx, ny, nz and `element face` with `list uchar uint
// vertex_indices`, counter-clockwise seen from outside. Through bsAtomicFile, like the particles.
bool bsPly_WriteSurface(const char* path, const bsSurfaceMesh* mesh, char* errbuf, size_t errlen);
