// field.h — the distance/normal field of Ilmonen, Takala & Laitinen (WSCG 2006), in three parts:
// the dense grid (distance_grid.c), its compressed two-level tree (grid_tree.c), and the rules that
// turn either into a change of a particle's velocity (field.c).
#pragma once

#include "blobsim/base.h"
#include "blobsim/quat.h"
#include "blobsim/triangle.h"
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// --- The grid (distance_grid.c) ---

// The distance/normal (DN) grid of Ilmonen, Takala & Laitinen (WSCG 2006): a voxel
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

// The build's peak bytes a cell (the cells' 16 and its working arrays), for a memory cap checked
// before building (bsDistanceGrid_Layout).
enum
{
	bs_gridBuildBytesPerCell = 89,
};

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

// The grid bsDistanceGrid_Build would make, without its cells (grid->cells NULL, nothing to free):
// size, cell, origin, settings and mesh hash, bit for bit the build's. What a caller checks a memory
// cap against before building (bs_gridBuildBytesPerCell) and a cached grid's header against. The
// build's errors, but for bs_errOutOfMemory.
bsResult bsDistanceGrid_Layout(bsDistanceGrid* grid, const bsTriangle* tris, uint32_t count,
	const bsDistanceGridDef* def);

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

// --- A mesh's orientation (orientation.c) ---

// What a mesh's edges and winding say. Edges are those of the mesh welded by exact position (corners
// with the same coordinates are one vertex, as OBJ files share them). A face's front is the side from
// which its corners turn counter-clockwise (its normal, triangle.h).
typedef struct bsOrientation
{
	uint32_t boundaryEdges;      // edges of one face: the mesh is open there
	uint32_t nonManifoldEdges;   // edges of more than two faces
	uint32_t inconsistentEdges;  // edges of two faces that run them the same way: one of the two
	                             // faces is wound the other way
	uint32_t inconsistentFace;   // an example: the face of the first inconsistent edge and the
	int inconsistentEdge;        // edge's index in it (0: p1p2, 1: p2p3, 2: p3p1); UINT32_MAX, -1: none
	uint32_t boundaryFace;       // the same for the first boundary edge
	int boundaryEdge;
	// bsOrientation_Outside only:
	uint32_t inward;             // faces to turn round: their front faces the inside of a closed
	                             // piece, or (on an open piece) is wound against most of its area
	uint32_t open;               // faces on pieces too open to have an inside
} bsOrientation;

// The edges of count triangles: the counts and examples above (inward and open 0). bs_errInvalidArgument
// for a NULL pointer or count 0, bs_errNonFinite, bs_errTooLarge (count >= 2^30), bs_errOutOfMemory.
bsResult bsOrientation_Edges(const bsTriangle* tris, uint32_t count, bsOrientation* out);

// The edges, and which side of each face is out, whatever the file's winding: faces joined by
// manifold edges are first wound consistently (breadth first from the lowest face of each piece);
// then the generalized winding number of each piece so wound (its own faces alone: a floor under a
// roof says nothing of the roof's sides), averaged just in front of and just behind each of its faces
// (the face's own jump cancels: 1/2 on a closed outward surface, -1/2 on an inward one, near 0 where
// the piece is open), summed by area, says whether the piece faces out (> 1/4), in (< -1/4) or neither
// (an open piece: it takes the winding of most of its area). Each closed piece faces its own outside:
// the inner wall of a hollow shell, a piece of its own, faces into the cavity.
// inward[k] = 1 when face k's front faces the inside, else 0 (count entries, filled). Errors as above.
bsResult bsOrientation_Outside(const bsTriangle* tris, uint32_t count, uint8_t* inward, bsOrientation* out);

// --- The compressed tree (grid_tree.c) ---

// The compressed distance/normal grid of Ilmonen, Takala & Laitinen (WSCG 2006,
// section 3.2): a two-level tree over a dense bsDistanceGrid (above). The grid is cut into
// blocks of B x B x B cells. A block whose cells the tree can stand for within the tolerances becomes
// one "plane": a distance affine in the cell's position, c + g . (i, j, k) (indices local to the
// block), and one normal, the normalized mean of its cells'. Any other block (where the surface
// curves, or across an edge of the mesh) keeps its B^3 cells as they are, as a dense subgrid. Far from
// the surface the blurred normals of the paper's method turn slowly and the distance is nearly
// linear, so most blocks are planes and the grid is dense only near high curvature.
//
// A block is a plane when, at every one of its cells' centres, the plane's distance is within
// distanceTolerance cells of the dense grid's and the mean normal within maxAngle of the cell's.
// Optionally (farDistance > 0) a block whose cells are all farther than farDistance from the surface,
// on one side, is a plane whatever its error: its distance is then the block's smallest (a lower
// bound, never nearer than farDistance) and the rules that act only nearer than farDistance
// (below) see exactly what the dense grid gives them.
//
// Lookups mirror the dense grid's: nearest (the cell containing the point, the plane evaluated at its
// centre) and trilinear (the blend of the 8 cells around the point, each as the tree stores it; inside
// one plane block, the plane at the point, which is the same blend). bsGridTreeStats says, measured at
// every cell of the grid, how far the tree's cells are from the dense grid's: the nearest lookup is
// within those bounds of the dense nearest lookup at any point; the trilinear distance too (a convex
// blend); the trilinear normal within asin(2 sin(a/2) / |m|) where a is the cell bound and |m| the
// length of the dense blend of the 8 normals before it is normalized.

typedef struct bsGridTreeDef
{
	int blockSize;             // B, cells along a block's edge: 2, 4, 8 or 16 [4]
	double distanceTolerance;  // a plane's largest distance error, in cells (>= 0) [0.25]
	double maxAngle;           // a plane's largest normal error, radians (0..pi) [10 degrees]
	double farDistance;        // > 0: blocks all beyond it are planes (see above); 0: none [0]
} bsGridTreeDef;

bsGridTreeDef bsDefaultGridTreeDef(void);

// bs_errInvalidArgument for a setting out of range.
bsResult bsGridTreeDef_Check(const bsGridTreeDef* def);

// A block: its cell (li, lj, lk) (local indices) has the distance c + g . (li, lj, lk) + the
// subgrid's cell's distance and the normal n + the subgrid's cell's normal. A plane's subgrid is
// subgrid 0, all zeros; a dense block's plane is all zeros and its subgrid holds its cells. So every
// lookup is the same arithmetic, without a branch on the block's kind, and exact for both (x + 0 = x).
typedef struct bsGridTreeNode
{
	float c;
	float g[3];
	float n[3];
	uint32_t first;  // index in subgrids of the block's first cell (0: a plane, subgrid 0)
} bsGridTreeNode;

_Static_assert(sizeof(bsGridTreeNode) == 32, "a node is eight words");

// What one cell index along one axis gives a lookup, so that it needs no shift or mask by the
// block size: the index's part of its node's index (low 32 bits) and of its cell's offset in the
// subgrid (high 32 bits; the three axes' sum without a carry between them), and the index local to
// its block as a float (the plane's coordinate).
typedef struct bsGridTreeAxis
{
	uint64_t key;
	float local;
	uint32_t pad;
} bsGridTreeAxis;

typedef struct bsGridTree
{
	int nx, ny, nz;           // the dense grid's cells
	double cellSize;
	bsVec3 origin;
	int blockShift;           // B = 1 << blockShift
	int bx, by, bz;           // blocks along each axis (the last ones may be partly outside)
	bsGridTreeNode* nodes;    // bx by bz, x fastest
	bsGridCell* subgrids;     // B^3 cells a subgrid, local x fastest; subgrid 0 is all zeros
	uint32_t subgridCount;    // the zero one included
	float farDistance;
	bsGridTreeAxis* axis[3];  // nx, ny and nz entries (one allocation, at axis[0])
} bsGridTree;

typedef struct bsGridTreeStats
{
	uint32_t blocks;
	uint32_t planes;           // of them, planes (farPlanes included)
	uint32_t farPlanes;        // planes only because all their cells are beyond farDistance
	uint64_t denseBytes;       // the dense grid's cells
	uint64_t treeBytes;        // nodes and subgrids
	// Measured at every cell centre, cells of far planes left out (their distance is a lower bound):
	double maxDistanceError;   // |tree - dense|, scene units
	double maxAngle;           // radians between the normals
	bool farLowerBound;        // every cell of a far plane: same sign, nearer than dense, beyond far
} bsGridTreeStats;

// Builds the tree from a dense grid. *tree owns its arrays (bsGridTree_Free). Fails with
// bs_errInvalidArgument (NULL, an empty grid, a bad def) or bs_errOutOfMemory; *tree is then zeroed.
// stats may be NULL.
bsResult bsGridTree_Build(bsGridTree* tree, const bsDistanceGrid* grid, const bsGridTreeDef* def,
	bsGridTreeStats* stats);

void bsGridTree_Free(bsGridTree* tree);

// The bytes the tree's arrays take (nodes, subgrids and the axes' tables).
uint64_t bsGridTree_Bytes(const bsGridTree* tree);

// Cell (i, j, k) as the tree stores it (0 <= i < nx, ...).
bsGridCell bsGridTree_Cell(const bsGridTree* tree, int i, int j, int k);

// The cell containing p, as the tree stores it. Returns false outside the grid (or for a NaN point).
bool bsGridTree_Nearest(const bsGridTree* tree, bsVec3 p, bsGridCell* out);

// The trilinear blend of the 8 cells around p (clamped to the centres at the border, as
// bsDistanceGrid_Trilinear). Returns false outside the grid.
bool bsGridTree_Trilinear(const bsGridTree* tree, bsVec3 p, bsGridCell* out);

// --- The rules (field.c) ---

// The rules of Ilmonen, Takala & Laitinen (WSCG 2006, sections 3.3-3.6) that turn a
// distance/normal grid (above) into a change of a particle's velocity: spring, impact, drag
// and surface flow. Each reads only the grid's cell at the particle (or the trilinear blend of the 8
// around it) and the particle's own velocity, so a step can apply them to every particle in parallel.
//
// The step applies them in its forces phase (src/step/forces.c, bs_field) through bsField_ApplyRange.
// What the field does not guarantee: it is a lookup at the particle's position, not a sweep, so a
// particle fast enough to cross the field's thickness (the impact's reach below) in one step passes
// through; and a particle is a point to it (its radius is not taken into account beyond what the
// thresholds add). The exact swept-sphere collisions guarantee no penetration; the field shapes the
// flow.

typedef struct bsFieldDef
{
	// Spring (3.3): within springDistance of the surface, an acceleration spring (springDistance - d)
	// along the normal: the deeper, the stronger. 0 turns it off.
	double spring;           // 1/s^2
	double springDistance;   // scene units

	// Impact (3.4): a particle moving towards the surface (v . N < 0) whose next position would be
	// within `threshold` of it (d + (v . N) dt <= threshold) has its normal velocity reflected with
	// restitution beta: v - (1 + beta)(v . N) N. The reach grows with the approach speed, so a fast
	// particle bounces as it enters the field and a slow one close to the surface (the paper's
	// Figure 4). A threshold < 0 turns it off.
	double threshold;        // L, scene units
	double restitution;      // beta, 0..1

	// Drag (3.5): within contactDistance of the surface, the velocity decays at rate `drag`
	// (v <- v exp(-drag dt)). 0 turns it off.
	double drag;             // delta, 1/s
	double contactDistance;  // theta, scene units

	// Surface flow (3.6), the paper's pseudocode: within flowDistance, gamma = N . V,
	// E = (V x N) x V, F = rho_in E/|E| when gamma < 0 (incoming) else rho_out E/|E|. F is
	// perpendicular to V: it turns the velocity by F dt and keeps its speed (an explicit step would add
	// |F dt|^2 / 2|V| each time). 0 and 0 turn it off.
	double flowIn;           // rho_in, scene units/s^2
	double flowOut;          // rho_out
	double flowDistance;

	bool trilinear;          // blend the 8 cells around the particle (else the paper's nearest cell)
} bsFieldDef;

// All rules off, nearest-cell lookup.
bsFieldDef bsDefaultFieldDef(void);

// False for a setting out of range: any value not finite, spring, drag or a distance below 0,
// restitution outside 0..1, or a rule on (spring or drag above 0, rho_in or rho_out not 0) with its
// distance 0. bsWorld_Step refuses such a bsStepDef.field (bs_errInvalidArgument).
bool bsFieldDef_IsValid(const bsFieldDef* def);

// The particle's velocity after one step of dt at position x under the grid's field: spring, surface
// flow and drag first (accelerations and damping over dt), then impact on the result. Outside the
// grid, v is returned as it is. Returns true when the particle was in the grid.
bool bsField_Apply(const bsDistanceGrid* grid, const bsFieldDef* def, bsVec3 x, double dt, bsVec3* v);

// The same over the compressed grid (above): the tree's cell (or trilinear blend) instead of the
// dense grid's, the rules the same.
bool bsField_ApplyTree(const bsGridTree* tree, const bsFieldDef* def, bsVec3 x, double dt, bsVec3* v);

// bsField_Apply (tree NULL) or bsField_ApplyTree (tree not NULL; grid is then not read) for
// particles begin..end-1, v[i] at x[i], those whose state[i] is 0 (bs_particleFree) only when state
// is not NULL. Each particle's result is bit for bit the single call's; the grid's scale and the
// rules' constants are worked out once for the range.
void bsField_ApplyRange(const bsDistanceGrid* grid, const bsGridTree* tree, const bsFieldDef* def, double dt,
	const bsVec3* x, bsVec3* v, const uint8_t* state, size_t begin, size_t end);

// --- A grid that moves with its object (field.c) ---

// Ilmonen, Takala & Laitinen, section 3.1: "Each independently moving object must have a specific DN
// grid that moves with it", rotated and translated freely and scaled uniformly (not sheared: a shear
// changes the angles between the normals and the surface). The grid is built once around the object's
// mesh in its rest frame; its pose maps a rest point p to the world as rotation (scale p) + position.
// A world point x is looked up at p = R^T (x - position) / scale; the distance found there times scale
// is the world's (a uniform scale scales every distance), the normal rotated by R the world's. So the
// lookup equals the lookup of a grid built around the posed mesh, within the two grids' own errors.
typedef struct bsGridPose
{
	bsVec3 position;
	bsQuat rotation;  // unit
	double scale;     // > 0
} bsGridPose;

// The identity pose (the grid where it was built).
static inline bsGridPose bsGridPose_Identity(void)
{
	bsGridPose p = {bsV3(0.0, 0.0, 0.0), bsQuat_Identity(), 1.0};
	return p;
}

// The world's distance and unit normal at x through the posed grid (the nearest cell, or the trilinear
// blend). False outside the grid (the rest point outside its box), a NaN point, or a scale not > 0.
bool bsField_PosedLookup(const bsDistanceGrid* grid, bsGridPose pose, bool trilinear, bsVec3 x, double* d,
	bsVec3* n);

// The rules (bsField_Apply) around a moving object: they change the particle's velocity relative to
// the object's surface, v - surfaceVelocity (the object's velocity at x: its linear velocity plus
// omega x (x - its centre)), and add surfaceVelocity back, so a particle resting on a moving object
// stays at rest on it and one bounces off it as off a still object in the object's frame. The
// distances of def (springDistance, threshold, contactDistance, flowDistance) are the world's, so the
// field's thickness, which the paper says scales with the object, is the grid's (its reach) times the
// scale. Outside the grid, v is returned as it is; returns whether x was in the grid.
bool bsField_ApplyPosed(const bsDistanceGrid* grid, bsGridPose pose, const bsFieldDef* def, bsVec3 x,
	bsVec3 surfaceVelocity, double dt, bsVec3* v);
