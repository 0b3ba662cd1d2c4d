// surface.h — the blob surface: as a triangle mesh, the iso-surface of the exact field POV-Ray renders
// for a blob, polygonized on a sparse grid; and as tiles, the blob cut for a renderer (at the end).
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

#include <stdbool.h>
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

// --- Decimation (src/surface/surface_simplify.c): the mesh simplified by half-edge collapses onto its
// own vertices, so every vertex kept is still a root of the exact field with its analytic normal. Each
// vertex kept lies within def.maxError (scene units) of the plane of every triangle of the undecimated
// mesh merged into it (an unweighted quadric bound, not a mean); a vertex is removed only where the
// normals around it lie within maxNormalAngle of its own; collapses keep the link condition (the
// mesh stays closed, oriented and of the same topology) and fold no triangle (tests/test_surface.c
// measures the distance to the undecimated mesh by sampling, both ways). The result is checked with
// bsSurfaceMesh_CheckClosed before it replaces the mesh; a mesh that fails (never seen) is left as it
// was and stats.closed is false.
typedef struct bsSurfaceSimplifyStats
{
	size_t trianglesBefore;
	size_t trianglesAfter;
	double error;   // the bound used, scene units (0 when the mesh was left as it was)
	bool closed;    // false: the decimated mesh was not closed and oriented, and was not kept
	int passes;     // passes of independent collapses that applied some
} bsSurfaceSimplifyStats;

typedef struct bsSurfaceSimplifyDef
{
	double maxError;        // > 0, scene units
	double maxNormalAngle;  // (0, pi] radians: a vertex is removed only when its neighbours' normals lie within this of its own
	int threads;      // <= 0: all cores; the result is the same for any count
} bsSurfaceSimplifyDef;

// maxError 0 (must be set), maxNormalAngle 10 degrees, all cores.
bsSurfaceSimplifyDef bsDefaultSurfaceSimplifyDef(void);

// In place: indices replaced, unused vertices dropped (the others keep their order), bounds
// recomputed. bs_errInvalidArgument for maxError not positive and finite or maxNormalAngle outside (0, pi],
// bs_errOutOfMemory (the
// mesh is then valid, possibly with vertices no triangle uses).
bsResult bsSurfaceMesh_Simplify(bsSurfaceMesh* mesh, const bsSurfaceSimplifyDef* def, bsSurfaceSimplifyStats* stats);

// *badEdges counts the directed edges that break "closed and consistently oriented": an edge used
// twice in one direction, one whose reverse is missing, a triangle repeating a vertex, an index out of
// range. 0 for a closed, oriented mesh. bs_errOutOfMemory.
bsResult bsSurfaceMesh_CheckClosed(const bsSurfaceMesh* mesh, size_t* badEdges);

// --- Tiles: a blob's components (the field above) cut into tiles of at most `chunk` own
// components each, for a renderer that caps the components of one blob (POV-Ray: io/pov_writer.h;
// src/surface/blob_tiles.c).
//
// The tiles. A k-d tree splits the components at the median of their centres on the longest axis of
// the cell whose median falls strictly inside it, until each leaf owns at most the chunk; the leaves'
// cells (the tiles) tile the box of every component's sphere. A tile's blob holds every component whose
// sphere reaches its cell (its own and its neighbours') clipped by the cell: inside the cell the field
// is the whole field, so the surface is exact there and continues seamlessly into the next tile.
//
// Deterministic: the splits order by (coordinate, index) and the tree is built a depth at a time, so
// the tiles and their lists of components are the same for any thread count.
typedef struct bsBlobTilesDef
{
	const bsVec3* centers;
	const double* radii;  // per component; NULL: every one has `radius`
	double radius;
	double radiusScale;   // a component's reach (the radius of its sphere): its radius x radiusScale
	size_t count;         // < 2^32
	size_t chunk;         // most components a tile owns, >= 1
} bsBlobTilesDef;

// A node of the tree; a tile is a leaf.
typedef struct bsBlobTile
{
	double lo[3], hi[3];  // the cell
	uint32_t first;       // leaf: first index into the tiling's ids
	uint32_t count;       // leaf: components owned
	uint32_t child;       // interior: left child (right = child + 1); 0 for a leaf
	uint32_t edgeFirst;   // leaf: its components that may reach another cell, edges[edgeFirst ..
	uint32_t edgeCount;   // edgeFirst + edgeCount), in the order of ids
} bsBlobTile;

typedef struct bsBlobTiles bsBlobTiles;

// Builds the tiles, splitting on the pool's threads (borrowed; NULL: the caller's thread alone). One
// tile (nothing to clip) when the count fits a chunk. NULL when out of memory.
bsBlobTiles* bsBlobTiles_Create(const bsBlobTilesDef* def, bsPool* pool);
void bsBlobTiles_Destroy(bsBlobTiles* tiles);

// The tiles in tree order (depth first, left before right), >= 1.
uint32_t bsBlobTiles_Count(const bsBlobTiles* tiles);
const bsBlobTile* bsBlobTiles_Tile(const bsBlobTiles* tiles, uint32_t k);

// Tile k's candidate components, in an order that depends on the tiles alone: for every tile near it,
// in tree order, visit gets that tile's list: tile k's own components (own true: every one is in its
// blob), another tile's edge components (own false: those near its cell's faces, the only ones that
// can reach another cell; those that bsBlobTile_Reaches tile k are in its blob).
typedef void bsBlobTilesVisit(void* context, const uint32_t* ids, uint32_t count, bool own);
void bsBlobTiles_Components(const bsBlobTiles* tiles, uint32_t k, bsBlobTilesVisit* visit, void* context);

// Component id's reach: the radius of its sphere.
static inline double bsBlobTilesDef_Reach(const bsBlobTilesDef* def, uint32_t id)
{
	return (def->radii != NULL ? def->radii[id] : def->radius) * def->radiusScale;
}

// Does the sphere (c, r) reach the tile's cell?
static inline bool bsBlobTile_Reaches(const bsBlobTile* tile, bsVec3 c, double r)
{
	double v[3] = {c.x, c.y, c.z};
	double d2 = 0.0;
	for (int a = 0; a < 3; ++a)
	{
		double e = v[a] < tile->lo[a] ? tile->lo[a] - v[a] : (v[a] > tile->hi[a] ? v[a] - tile->hi[a] : 0.0);
		d2 += e * e;
	}
	return d2 <= r * r;
}

// --- Culling: the components that cannot change the surface, left out (src/surface/blob_cull.c;
// the rule and its proof: docs/algorithm.md, "Blob components that cannot change the surface").
//
// The rule. Component i may be left out when the field of the components that stay exceeds T over
// i's whole support (the ball of radius R_i around c_i): there the field stays above T without it,
// and elsewhere it adds nothing, so {field >= T} is the same point set. The converse holds too (a
// point of the support where the others fall short of T is inside only thanks to i), so the rule
// leaves out every component it may, up to the bound that shows it.
//
// The bound. Each component's field is monotone in the distance from its centre, so over a box its
// least value is at the box's farthest point from the centre: the sum of these least values is a lower
// bound of the others' field over the box. A second one, around the box's centre m, errs by the
// square of the box: f(m) - sum_a |df/dx_a(m)| h_a - 1/2 K |h|^2, K = sum 4 S / R_j^2 over the others
// that reach the box (a component's second derivative along any line is >= -4 S / R^2). The
// support's cube is cut into octants, recursively to `depth`, until every box that meets the support
// shows the others >= T (1 + 1e-6) + 1e-12 S by either bound; a box that does not at the deepest
// level keeps the component. Distances and radii are taken `slack` the worse way, so the rule holds
// for the written (rounded) centres and radii too. The work is bounded: a test looks at 1,024 others
// at most (a subset's field is a lower bound too) and keeps the component past 20,000 boxes.
//
// Several components. Candidates are those that pass against every other component (phase 1, in
// parallel); then, in index order, each candidate is tested again against the components still kept
// (every candidate not yet left out counts as kept) and left out when it passes. Leaving i out keeps
// the point set, so by induction the final set has the full set's surface. Deterministic: the same
// components are left out for any thread count.
enum
{
	bs_blobCullMaxDepth = 8,
};

typedef struct bsBlobCullDef
{
	const bsVec3* centers;
	const double* radii;  // component radii R; NULL: every component has `radius`
	double radius;
	size_t count;         // < 2^32
	double strength;      // S > 0
	double threshold;     // T in (0, S)
	double slack;         // >= 0: how far a written centre or radius may lie from the one given
	int depth;            // octant levels below a component's cube, 0 .. bs_blobCullMaxDepth [6]
	int threads;          // <= 0: all cores [1]
} bsBlobCullDef;

// No components, S 1, T 0.6, slack 0, depth 6, one thread.
bsBlobCullDef bsDefaultBlobCullDef(void);

// keep[i] (count bytes, written) is 1 for a component to write, 0 for one left out; *dropped counts
// the zeros. bs_errInvalidArgument for a bad def (NULL arrays, a non-positive radius or strength, T
// outside (0, S), a negative slack, depth out of range), bs_errNonFinite for a non-finite centre or
// radius, bs_errTooLarge for 2^32 components or more, bs_errOutOfMemory (keep is then all ones).
bsResult bsBlobCull(const bsBlobCullDef* def, uint8_t* keep, size_t* dropped);
