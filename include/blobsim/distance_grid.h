// distance_grid.h — the distance/normal (DN) grid of Ilmonen, Takala & Laitinen (WSCG 2006): a voxel
// grid holding, per cell, the signed distance from the cell's centre to the nearest surface and a
// smoothed unit normal, so that a particle asks one lookup whatever the mesh.
//
// Construction (bsDistanceGrid_Build), in phases:
//   1. band: every cell centre within `band` cells of the surface gets its exact distance, nearest
//      point and triangle from bsBvh_ClosestPoint (maxDistance = band h); only cells within band
//      cells of a surface voxel (phase 5, run first) are asked. Its side is decided here (phase 4).
//   2. propagation: the other cells take a neighbour's nearest point when it is nearer, in line
//      sweeps along x, y and z (forwards and backwards, three rounds; from the second round only the
//      cells that changed in the last one offer), then are measured to their own triangle, then one
//      round offers whole triangles. The distance is to a real surface point, so never below the
//      true distance; above it by at most half a cell or 3% of the distance, whichever is larger,
//      over the meshes measured in docs/dngrid.md (the error grows with the depth inside a large
//      solid: 0.41 cells inside a sphere 96 cells across).
//   3. far field (exactFar, off by default): every cell beyond the band asks bsBvh_ClosestPoint with
//      the propagated distance as its bound (never a miss), so every distance in the grid is exact
//      (the float of the double answer). It costs much more inside large solids, where a cell has
//      many triangles at nearly the same distance.
//   4. sign, by generalized winding number (Jacobson et al. 2013) so that meshes with holes get the
//      right inside. The triangles are split into connected components (triangles sharing a vertex,
//      vertices equal to the bit); a component is *closed* when the mean, over up to 16 of its
//      triangles, of its own winding number halfway between just behind and just in front of the
//      triangle is at least 0.25 in magnitude (a closed surface: +-0.5; a flat sheet: 0).
//      Components wound inside out (mean < 0, like a room seen from inside) count as their
//      complement. A band cell is inside when the summed winding number of the closed components,
//      each inside-out one plus 1, is >= 0.5: evaluated at seeds (band cells farther than a cell
//      from the surface with i, j, k all even), passed on in line sweeps between neighbours whose
//      distances add up to more than a cell (the segment between them then crosses no triangle), and
//      evaluated where no sweep reaches; the sum is evaluated over a BVH of the closed triangles, a far node by its dipole term (Barill et
//      al. 2018, order 1, beta = 2), near nodes triangle by triangle. Beyond the band a cell takes the
//      side of the neighbour its nearest triangle came from: the segment between the two centres is
//      shorter than the cell's distance, so it crosses no surface (exact for a watertight mesh; with
//      holes, the side of the band cells the propagation came through). A cell whose nearest triangle
//      is on an open component (a sheet) is outside: its distance is unsigned and the field is
//      two-sided (its normal points from the sheet towards the cell).
//   5. surface voxels: every cell whose box the triangles touch (separating-axis test), holding the
//      average of their face normals.
//   6. normals, by the paper's method:
//      - bs_gridBlur (first method): the surface voxels' normals, zero elsewhere, are blurred K rounds
//        with a linear-attenuation kernel of radius R (separable: the product of 1-D tents
//        (R + 1 - |k|) / (R + 1)^2), the surface voxels re-pinned to their normal after each round,
//        then normalized.
//      - bs_gridPotential (second method, for thin objects): occupancy (the surface voxels and the
//        inside cells, 1; 0 elsewhere) is blurred K rounds into a potential (not re-pinned: that
//        keeps the voxels' staircase in the gradient), and the normal is minus its gradient by
//        central differences, normalized.
//      Where either gives no direction (beyond the blur's reach, or a flat potential inside a solid)
//      the normal is the distance's gradient: from the nearest point towards the cell, outwards for an
//      inside cell, the face normal for a cell on the surface.
// Every phase cuts its work by cell, line or z plane alone (each cell's sum over triangles is made
// in the same order whatever the thread), so the grid is byte-identical for any thread count.
#pragma once

#include "blobsim/base.h"
#include "blobsim/triangle.h"
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum bsGridMethod
{
	bs_gridBlur = 0,       // the paper's first method: blurred surface normals
	bs_gridPotential = 1,  // the second: the gradient of a blurred occupancy potential
	bs_gridMethodCount
} bsGridMethod;

// The method's name ("blur", "potential"), "unknown" out of range.
const char* bsGridMethodName(bsGridMethod method);

// The most cells a grid may have (2^27: 2 GiB of cells; building takes about 89 bytes a cell).
#define BS_GRID_MAX_CELLS ((uint64_t)1 << 27)

typedef struct bsDistanceGridDef
{
	double cellSize;       // the cell's edge (> 0), or 0: from resolution
	int resolution;        // cells along the box's longest axis, margins included, when cellSize is 0
	int margin;            // cells added beyond the mesh's bounds on every side (0..1024)
	int band;              // exact distances within band cells of the surface (1..64)
	bsGridMethod method;
	int blurRadius;        // R of the kernel, in cells (1..8; the paper used 2-4)
	int blurRounds;        // K (0..64)
	bool exactFar;         // exact distances beyond the band too (else propagated: see above)
	int threads;           // <= 0: all cores
} bsDistanceGridDef;

// resolution 64, margin 4, band 3, blur, R = 3, K = 4, propagated far field, all cores.
bsDistanceGridDef bsDefaultDistanceGridDef(void);

// bs_errInvalidArgument for a setting out of the ranges above (or a NaN/negative cellSize, a
// resolution not above 2 margin when cellSize is 0).
bsResult bsDistanceGridDef_Check(const bsDistanceGridDef* def);

// One cell: what the file stores and a lookup returns.
typedef struct bsGridCell
{
	float distance;   // signed: negative inside a closed surface
	float normal[3];  // unit
} bsGridCell;

_Static_assert(sizeof(bsGridCell) == 16, "a cell is four floats");

enum
{
	bs_gridHasOpen = 1,    // some cells' nearest triangle is on an open component (unsigned there)
	bs_gridHasInside = 2,  // some cell is inside
};

typedef struct bsDistanceGrid
{
	int nx, ny, nz;
	double cellSize;
	bsVec3 origin;         // the grid's minimum corner: cell (i, j, k) has centre origin + (i + 1/2, ...) h
	bsGridCell* cells;     // nx ny nz, x fastest: index i + nx (j + ny k)
	bsGridMethod method;   // and the settings it was built with (kept in the file)
	int band;
	int blurRadius;
	int blurRounds;
	bool exactFar;
	uint32_t flags;        // bs_gridHasOpen | bs_gridHasInside
	uint64_t meshHash;     // bsMeshHash of the source triangles
} bsDistanceGrid;

typedef struct bsDistanceGridStats
{
	uint64_t cells;
	uint64_t bandCells;          // cells given an exact distance in phase 1
	uint64_t surfaceVoxels;
	uint32_t components;         // connected components of the mesh
	uint32_t openComponents;     // of them, sheets (unsigned)
	uint32_t invertedComponents; // closed and wound inside out
	uint64_t insideCells;
	double bandSeconds, propagateSeconds, farSeconds, signSeconds, rasterSeconds, normalSeconds;
	double totalSeconds;         // wall clock, the phases' sum
	double cpuSeconds;           // CPU time of the whole process over the build, all threads
} bsDistanceGridStats;

// Builds the grid around count triangles (count >= 1). *grid owns its cells (bsDistanceGrid_Free).
// Fails with bs_errInvalidArgument (NULL pointers, count 0, a bad def), bs_errNonFinite (a NaN/inf
// vertex), bs_errTooLarge (more than BS_GRID_MAX_CELLS cells) or bs_errOutOfMemory; *grid is then
// zeroed. stats may be NULL.
bsResult bsDistanceGrid_Build(bsDistanceGrid* grid, const bsTriangle* tris, uint32_t count,
	const bsDistanceGridDef* def, bsDistanceGridStats* stats);

void bsDistanceGrid_Free(bsDistanceGrid* grid);

static inline uint64_t bsDistanceGrid_CellCount(const bsDistanceGrid* grid)
{
	return (uint64_t)grid->nx * (uint64_t)grid->ny * (uint64_t)grid->nz;
}

// The centre of cell (i, j, k).
static inline bsVec3 bsDistanceGrid_Centre(const bsDistanceGrid* grid, int i, int j, int k)
{
	double h = grid->cellSize;
	return bsV3(grid->origin.x + (i + 0.5) * h, grid->origin.y + (j + 0.5) * h,
		grid->origin.z + (k + 0.5) * h);
}

// The cell containing p (the paper's nearest-voxel lookup). Returns NULL outside the grid (or for a
// NaN point).
const bsGridCell* bsDistanceGrid_Nearest(const bsDistanceGrid* grid, bsVec3 p);

// Along one axis of n cells from origin, the lower of the two cell centres around x and the weight
// of the upper one, clamped to the centres at the border (the trilinear lookups' axis).
static inline void bsDistanceGrid_Axis(double x, double origin, double h, int n, int* i0, double* t)
{
	double f = (x - origin) / h - 0.5;
	if (f <= 0.0)
	{
		*i0 = 0;
		*t = 0.0;
	}
	else if (f >= n - 1)
	{
		*i0 = n > 1 ? n - 2 : 0;
		*t = n > 1 ? 1.0 : 0.0;
	}
	else
	{
		*i0 = (int)f;
		*t = f - *i0;
	}
}

// Trilinear interpolation of distance and normal between the 8 nearest cell centres (clamped to the
// grid's centres at the border); the normal is normalized (or the nearest cell's when the blend
// cancels). Returns false outside the grid.
bool bsDistanceGrid_Trilinear(const bsDistanceGrid* grid, bsVec3 p, bsGridCell* out);

// FNV-1a over the triangles' vertices as little-endian IEEE doubles (p1, p2, p3 of each triangle in
// order): names the mesh a grid was built from, so a cached grid can be matched to its mesh.
uint64_t bsMeshHash(const bsTriangle* tris, uint32_t count);

// The generalized winding number of point p with respect to the triangles, summed directly
// (van Oosterom & Strackee's solid angle of each): 1 inside a closed outward-wound surface, 0 outside.
double bsWindingNumber(const bsTriangle* tris, uint32_t count, bsVec3 p);
