// procedural.h — deterministic procedural scenes shared by the tests and the benchmark.
//
// Same seed, same triangles, on every platform (the generator is rng.h). Every triangle comes from
// bsMakeTriangle, so none is degenerate. On success the caller owns *outTris and frees it with free();
// on failure *outTris is NULL and *outCount is 0.
#pragma once

#include "blobsim/base.h"
#include "blobsim/rng.h"
#include "blobsim/triangle.h"

#include <stdbool.h>
#include <stdint.h>

// A noisy heightfield over [0, 1] x [0, 1] in x/z with y up: resolution x resolution cells, two
// triangles each (2 resolution^2 triangles, normals pointing up), heights in about [-0.15, 0.15]
// (smooth value noise plus small per-vertex bumps). On it stand `boxes` boxes (12 triangles each,
// normals outwards): half axis-aligned, half rotated about y; footprints 0.02-0.1 wide, 0.02-0.15
// tall, sunk a little into the ground. Fails with bs_errInvalidArgument (resolution < 1, boxes < 0,
// a NULL output), bs_errTooLarge (2^31 triangles or more) or bs_errOutOfMemory.
bsResult bsMakeHeightfieldScene(uint64_t seed, int resolution, int boxes, bsTriangle** outTris,
	uint32_t* outCount);

// `count` random triangles inside the unit cube [0, 1]^3 whose three sides are all 0.1-0.5 long,
// uniformly placed and oriented. Fails with bs_errInvalidArgument (a NULL output), bs_errTooLarge
// (count >= 2^31) or bs_errOutOfMemory. count 0 gives *outTris NULL, *outCount 0 and bs_ok.
bsResult bsMakeTriangleSoup(uint64_t seed, uint32_t count, bsTriangle** outTris, uint32_t* outCount);

// A closed box [lo, hi] whose six faces are each cut into cells x cells squares of two triangles
// (12 cells^2 triangles; the diagonals alternate like a checkerboard). Normals point outwards, or
// inwards when `inward`. A coordinate is computed from its axis and grid index alone, so a vertex
// shared by several faces is the same double in each (the mesh is watertight bit for bit); with
// dyadic bounds and a power-of-two `cells` every vertex is exact. Fails with bs_errInvalidArgument
// (cells < 1 or > 4096, lo not below hi on an axis, a NULL output) or bs_errOutOfMemory.
bsResult bsMakeBoxMesh(bsVec3 lo, bsVec3 hi, int cells, bool inward, bsTriangle** outTris,
	uint32_t* outCount);

// A closed icosphere around the origin: the icosahedron subdivided `level` times (20 4^level
// triangles), vertices on the sphere of `radius` and, when snap > 0, rounded to multiples of snap
// (dyadic vertices for an exact snap such as 2^-12; keep snap well below the edge length, about
// radius / 2^level). Shared vertices are the same doubles in every triangle. Normals outwards, or
// inwards when `inward`. Fails with bs_errInvalidArgument (level outside 0..7, radius not positive
// and finite, snap negative, a NULL output), bs_errDegenerateTriangle (a snap so coarse that a
// triangle collapses) or bs_errOutOfMemory.
bsResult bsMakeIcosphere(int level, double radius, double snap, bool inward, bsTriangle** outTris,
	uint32_t* outCount);

// A random point of the closed triangle for queries: a vertex (1 in 10), a point of an edge
// (2 in 10) or of the face, uniform over the face and edges.
bsVec3 bsRandomPointOn(const bsTriangle* t, bsRng* rng);
