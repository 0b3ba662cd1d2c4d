// surface_cost.h — render.surface "auto": POV-Ray's cost of a scene's particles drawn as blobs or as
// the polygonized mesh, predicted by linear models fitted on this machine's measurements
// (docs/performance.md, "Auto surface: the cost model"), and the choice between them.
//
// The inputs. components: the particles (blob components); pixels: width x height; coverage: the
// sum over the components of the image area, in pixels, that each component's sphere (its reach,
// collision radius x render.blob.radius_scale) covers seen from the camera, clipped to the image:
// the primary rays' intersections with the components' spheres, which is where POV-Ray's blob solves
// its polynomials; triangles: the mesh's, known only after polygonizing.
//
// The models (CPU seconds of POV-Ray, and of blobsim's polygonizing), fitted on ten scenes (the
// figures at 160x120 and 320x240, two with a narrower camera: docs/performance.md):
//   blob  parse = a1 components                trace = b0 pixels + b2 coverage (transparent only)
//   mesh  parse = c1 triangles                 trace = d0 pixels + d2 coverage (transparent only)
//   polygonize  = p1 components
// An opaque blob stops its rays at the first surface, so its trace follows the image's pixels; a
// transparent one (a filter or transmit in the material) sends them on through every component in
// their way, which the coverage counts. The parse models fit within 5%; the trace models within 2x
// on the figures and up to 3x on small scenes of few particles, where both looks cost little.
// The choice, per scene: blob when its predicted cost is at most the mesh's without its parse
// (polygonize + trace: a lower bound, found before polygonizing); otherwise the scene is polygonized
// and the cheaper of blob (parse + trace) and mesh (parse + trace: the polygonizing is then spent)
// is written. Deterministic: the inputs are the scene's numbers, the coefficients constants.
#pragma once

#include "pov_writer.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct bsSurfaceCostInput
{
	double components;
	double pixels;
	double coverage;
	double triangles;  // < 0: not known (not polygonized)
	bool transparent;  // the particles' material lets light through (filter or transmit)
} bsSurfaceCostInput;

typedef struct bsSurfaceCost
{
	double blobParse, blobTrace;  // predicted seconds
	double meshParse, meshTrace;  // meshParse < 0 when the triangles are not known
	double polygonize;
} bsSurfaceCost;

// The inputs of a scene (triangles -1): the camera's image size and view, the particles' spheres.
bsSurfaceCostInput bsSurfaceCost_Inputs(const bsPovScene* scene);

bsSurfaceCost bsSurfaceCost_Predict(const bsSurfaceCostInput* in);

// Before polygonizing: true when the blob is predicted at most as costly as the mesh could be.
bool bsSurfaceCost_BlobBeforeMesh(const bsSurfaceCost* cost);

// After polygonizing (meshParse known): true when the mesh is predicted cheaper than the blob.
bool bsSurfaceCost_MeshAfter(const bsSurfaceCost* cost);
