// procedural.h — deterministic procedural scenes shared by the tests and the benchmark.
//
// Same seed, same triangles, on every platform (the generator is rng.h). Every triangle comes from
// bsMakeTriangle, so none is degenerate. On success the caller owns *outTris and frees it with free();
// on failure *outTris is NULL and *outCount is 0.
#pragma once

#include "blobsim/result.h"
#include "blobsim/triangle.h"

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
