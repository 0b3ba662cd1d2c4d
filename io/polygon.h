// polygon.h — a mesh file's n-gon cut into n - 2 triangles that cover it once (the OBJ loader's faces).
//
// Ear clipping on the polygon's best-fit plane: the Newell normal N (exact for a planar polygon, the
// least-squares plane's normal for a slightly non-planar one) picks the plane, the corners are
// projected along N's largest axis and oriented so the polygon turns counter-clockwise, and a corner
// is cut off when its triangle turns the same way and holds no other corner (on its edges included;
// corners at the same position as the triangle's own are not counted, so bridged holes cut). Each
// cut keeps the file's winding, and the search starts after the first corner and goes on after the
// last cut, so a convex polygon gets the fan (v1 v2 v3), (v1 v3 v4), ... as before.
//
// When no corner is an ear (a self-intersecting polygon, one whose corners touch, or rounding), the
// fallback cuts a corner whose triangle has zero area if there is one, else one that turns the right
// way without the containment test, else the current corner. Every cut, ear or not, keeps the sum of
// the triangles' signed areas in the plane equal to the polygon's (each cut removes exactly its
// triangle), so no area is dropped or invented for a simple polygon, and zero-area triangles are
// what a degenerate polygon gives (the loader drops them). The work is bounded per polygon
// (BS_POLYGON_TEST_BUDGET corner tests, about 10 ms): beyond it the rest of the ring is cut as a fan
// from the current corner (still every signed area kept), so a hostile face of many corners costs
// O(n) more at most; real faces (a few hundred corners) stay far below it.
#pragma once

#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BS_POLYGON_TEST_BUDGET ((uint64_t)1 << 22)

// Work arrays for polygons of up to `capacity` corners, kept between faces.
typedef struct bsPolygonScratch
{
	double* u;
	double* v;
	uint32_t* prev;
	uint32_t* next;
	size_t capacity;
} bsPolygonScratch;

// Makes room for n corners; false when out of memory (the scratch is unchanged then).
bool bsPolygonScratch_Reserve(bsPolygonScratch* s, size_t n);

void bsPolygonScratch_Free(bsPolygonScratch* s);

// The n >= 3 corners vertices[corner[0..n)] into n - 2 triangles of vertex indices in out (room for
// n - 2), each in the polygon's winding. The scratch must hold n corners.
void bsTriangulatePolygon(const bsVec3* vertices, const uint32_t* corner, uint32_t n,
	bsPolygonScratch* s, uint32_t (*out)[3]);
