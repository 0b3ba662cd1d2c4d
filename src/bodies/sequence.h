// sequence.h — a mesh sequence as a deformation (body.h, bsSequenceDef): the first frame is the rest
// shape, and each frame's vertex displacements from it are the deformation's "weights". The field
// u(x, t) at a point x of the rest frame is the displacement of x's nearest rest point: the
// barycentric blend of its triangle's vertex displacements (a vertex's own at a vertex), so every
// frame's triangles are met exactly and a point off the surface moves with the surface below it.
#pragma once

#include "blobsim/body.h"
#include "blobsim/bvh.h"

typedef struct bsSequence
{
	bsVec3* positions;   // [frame * vertexCount + v]
	uint32_t vertexCount;
	uint32_t* indices;   // 3 per triangle
	uint32_t triangleCount;
	double* times;       // strictly increasing, frameCount of them
	int frameCount;
	bsTriangle* rest;    // the first frame's triangles
	bsBvh bvh;           // of rest
} bsSequence;

// Copies def and builds the rest triangles and their BVH. bs_errInvalidArgument for no frames, times
// not increasing, an index past the vertices, a degenerate triangle in the first frame;
// bs_errNonFinite, bs_errOutOfMemory. *s is zeroed on failure.
bsResult bsSequence_Init(bsSequence* s, const bsSequenceDef* def, uint32_t triangleCount);
void bsSequence_Free(bsSequence* s);

// The vertices' displacements from the rest at fraction u from frame k towards frame k + 1.
void bsSequence_Displacements(const bsSequence* s, int k, double u, bsVec3* out);

// u(x) for those displacements.
bsVec3 bsSequence_Field(const bsSequence* s, const bsVec3* displacements, bsVec3 x);
