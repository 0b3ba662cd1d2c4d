// surface.h — the blob surface as a triangle mesh: the iso-surface of the exact field POV-Ray renders
// for a blob, polygonized on a sparse grid.
//
// The field. A component of centre c, radius R and strength S adds S (1 - (d/R)^2)^2 at distance d < R
// from c and nothing beyond (POV-Ray 3.7's blob density, "sphere" components); the surface is where the
// sum reaches the threshold T, the inside where it exceeds T. A lone component's surface is the sphere of
// radius R sqrt(1 - sqrt(T/S)).
//
// The grid. Lattice points are k * spacing on each axis (a lattice fixed to the origin, so the same
// particles give the same mesh wherever the grid's neighbours are). The lattice is cut into bricks of
// bs_surfaceBrickCells^3 cells, and only bricks whose box meets some component's bounding box are
// visited: memory and time follow the particles' neighbourhood, never their bounding box.
//
// The mesh. Marching cubes with a table built from face rules: on a face whose four corners alternate
// inside/outside, the inside corners are cut off separately. The rule depends on the face alone, so the
// two cubes that share a face agree, and the mesh is closed: every edge belongs to exactly two
// triangles (the grid has no boundary). A vertex is the root of the exact field on a lattice edge
// (regula falsi, Illinois variant, to 1e-6 of the spacing), shared by every triangle that uses the edge;
// its normal is the field's analytic gradient, pointing out. Triangles are counter-clockwise seen from
// outside.
//
// Threads. Bricks are worked in parallel and their outputs joined in brick order (by z, y, x), so the
// mesh is byte-identical for any thread count.
#pragma once

#include "blobsim/base.h"
#include "blobsim/vec3.h"

#include <stddef.h>
#include <stdint.h>

enum
{
	bs_surfaceBrickCells = 8,        // cells along a brick's edge
	bs_surfaceMaxLattice = 1 << 19,  // |k| of a lattice point must stay below this
};

typedef struct bsSurfaceDef
{
	const bsVec3* centers;  // component centres
	const double* radii;    // component radii R; NULL: every component has `radius`
	double radius;          // used when radii is NULL
	size_t count;
	double strength;        // S > 0
	double threshold;       // T in (0, S)
	double spacing;         // grid spacing > 0; the lattice must hold every component
	int threads;            // <= 0: all cores
} bsSurfaceDef;

// No components, S 1, T 0.6, spacing 0 (must be set), all cores.
bsSurfaceDef bsDefaultSurfaceDef(void);

typedef struct bsSurfaceMesh
{
	bsVec3* positions;      // vertexCount
	bsVec3* normals;        // vertexCount, unit length
	size_t vertexCount;
	uint32_t* indices;      // 3 per triangle
	size_t triangleCount;
	size_t brickCount;      // bricks visited (statistics)
	double bounds[2][3];    // lower and upper corner of the vertices' box (zero when empty)
} bsSurfaceMesh;

// Polygonizes the field into *mesh (which the caller frees with bsSurfaceMesh_Free, also on failure).
// bs_errInvalidArgument for a bad def (non-positive spacing, radius or strength, T outside (0, S), a
// NULL array), bs_errNonFinite for a non-finite centre or radius, bs_errTooLarge when a component lies
// beyond the lattice (|coordinate| >= bs_surfaceMaxLattice * spacing) or the mesh has more than
// UINT32_MAX vertices, bs_errOutOfMemory.
bsResult bsSurface_Build(const bsSurfaceDef* def, bsSurfaceMesh* mesh);

void bsSurfaceMesh_Free(bsSurfaceMesh* mesh);
