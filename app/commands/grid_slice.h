// grid_slice.h — a plane slice of a distance/normal grid as an image: the paper's Figure 1 (Ilmonen,
// Takala & Laitinen, WSCG 2006), `blobsim grid slice` (grid_command.c).
//
// Two steps, so that a test can check the numbers the picture is made of:
//   bsGridSlice_Sample: the grid's distance at every pixel centre of the plane, and the normal at the
//     arrows' points (one a grid cell, or one every few cells so arrows stay apart), both by the
//     grid's own lookups (trilinear, or the paper's nearest cell);
//   bsGridSlice_Render: the picture. Each pixel's colour is bsGridSlice_Shade of its distance (darker
//     is closer, as in the paper; grey outside, warm inside), the surface's contour (a sign change
//     between a pixel and its right or lower neighbour) in yellow, and the arrows (the normal's part
//     in the plane, from the arrow's point, as long as the spacing times that part's length) in blue.
//
// The plane: axis 0, 1 or 2 (x, y, z) at `at` (0..1 of the grid's extent along it, from the first cell
// centre to the last). The picture's right and up are (y, z) for x, (x, z) for y, (x, y) for z; its
// size is `size` pixels along the longer of the two, the other in proportion (at least 1).
#pragma once

#include "image.h"

#include "blobsim/field.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bsGridSliceDef
{
	int axis;         // 0, 1, 2: x, y, z
	double at;        // 0..1 along the axis, between the first and the last cell centre [0.5]
	int size;         // pixels along the longer side (16..8192) [800]
	bool nearest;     // the paper's nearest-cell lookup (else trilinear) [false]
	double range;     // the distance shaded from dark to light (> 0), or 0: the largest |distance| of
	                  // the slice [0]
} bsGridSliceDef;

bsGridSliceDef bsDefaultGridSliceDef(void);

typedef struct bsGridSliceArrow
{
	double px, py;    // the arrow's point, in pixels (x right, y down)
	bsVec3 point;     // the same in scene units, on the plane
	bsVec3 normal;    // the grid's normal there (unit)
	double dx, dy;    // the normal's part in the plane, in pixels per unit (y down): its length is
	                  // the part's length, 0..1
} bsGridSliceArrow;

typedef struct bsGridSlice
{
	int width, height;
	int axis, u, v;       // the plane's normal axis and its right and up axes
	double coordinate;    // the plane's position along axis, in scene units
	double x0, y0;        // scene coordinates (along u and v) of the image's left and bottom edges
	double pixel;         // a pixel's edge, scene units
	float* distance;      // width * height, rows top to bottom
	double range;         // the distance shaded from dark to light
	bsGridSliceArrow* arrows;
	int arrowCount;
	double arrowSpacing;  // pixels between arrows
} bsGridSlice;

// Fails (false, *slice zeroed, err says what is wrong) for a def out of range or an empty grid, or out
// of memory. *slice owns its arrays (bsGridSlice_Free).
bool bsGridSlice_Sample(const bsDistanceGrid* grid, const bsGridSliceDef* def, bsGridSlice* slice, char* err,
	size_t errlen);

// The scene point at the centre of pixel (x, y).
bsVec3 bsGridSlice_Point(const bsGridSlice* slice, double x, double y);

void bsGridSlice_Free(bsGridSlice* slice);

// The colour of distance d with range r: t = min(|d| / r, 1); outside (d >= 0) grey 60 + 195 t in
// every channel, inside red 60 + 195 t, green 60 + 80 t, blue 60 + 40 t (both (60, 60, 60) on the
// surface).
void bsGridSlice_Shade(double d, double range, uint8_t rgb[3]);

// The contour's and the arrows' colours.
extern const uint8_t bsGridSliceContourRgb[3];
extern const uint8_t bsGridSliceArrowRgb[3];

// The picture (RGB). False (err says why) when the image cannot be allocated.
bool bsGridSlice_Render(const bsGridSlice* slice, bsImage* image, char* err, size_t errlen);
