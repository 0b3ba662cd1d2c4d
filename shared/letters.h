// letters.h — the letter models of Senin et al.'s section 5 ("polygonal models ... obtained from
// implicit models of the alphabet letters"): an implicit letter polygonized into a closed mesh.
//
// A letter is a few straight strokes in the x/y plane, 1 unit tall (y from 0 to 1, centred on x = 0,
// z = 0). Blob components (surface.h's field: S (1 - (d/R)^2)^2, S 1, threshold 0.6, R 0.25) sit
// every R / 4 along each stroke, so the implicit letter is a smooth tube about 0.15 thick with rounded
// ends and filleted joints. The mesh is blobsim's own polygonization of it (bsSurface_Build: closed,
// counter-clockwise from outside), at the lattice spacing that brings the triangle count closest to
// the target (secant steps on spacing ~ 1 / sqrt(count), the best of 10 tries). One thread, so the
// mesh is the same on every machine.
#pragma once

#include "blobsim/base.h"
#include "blobsim/bvh.h"
#include "blobsim/quat.h"
#include "blobsim/triangle.h"

#include <stdint.h>

// The paper's polygon counts.
enum
{
	bs_letterT = 1380,
	bs_letterM = 2968,
	bs_letterV = 1764,
	bs_letterW = 11920,
};

// The paper's count for letter 'T', 'M', 'V' or 'W', 0 for another.
uint32_t bsLetterPaperCount(char letter);

// Letter 'T', 'M', 'V' or 'W' with about targetTriangles triangles (0: the paper's count). The caller
// frees *outTris. Fails with bs_errInvalidArgument (another letter, a NULL output) or
// bs_errOutOfMemory.
bsResult bsMakeLetter(char letter, uint32_t targetTriangles, bsTriangle** outTris, uint32_t* outCount);

// --- A scripted approach of two letters (the sensor benchmark and tests) ---
//
// A stands at the origin unrotated. B comes in along x from 1.2 units away (and 0.25 up, 0.3 deep),
// turning 0.8 rad about (0.3, 1, 0.2) on the way, on top of a quarter turn about y (so the two letters
// meet crosswise), reaches its deepest point at the middle frame, and goes back the same way. s = 1
// at the ends and 0 at the middle: s = |1 - 2 frame / (frames - 1)|. B's x offset at s = 0 is
// `closestX`, which bsLetterApproach_Fit chooses so that the letters just touch there.
bsTransform bsLetterApproachPose(int frame, int frames, double closestX);

// The closestX at which the two meshes (their BVHs, in their local frames) are `depth` past first
// touching at the middle frame (depth 0: touching; the touching offset found by bisection on the
// exact distance to 1e-9). bs_errInvalidArgument when they cannot be separated along x within 4 units.
bsResult bsLetterApproach_Fit(const bsBvh* a, const bsBvh* b, double depth, double* closestX);
