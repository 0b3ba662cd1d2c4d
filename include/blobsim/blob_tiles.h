// blob_tiles.h — a blob's components (surface.h's field) cut into tiles of at most `chunk` own
// components each, for a renderer that caps the components of one blob (POV-Ray: io/pov_writer.h).
//
// The tiles. A k-d tree splits the components at the median of their centres on the longest axis of
// the cell whose median falls strictly inside it, until each leaf owns at most the chunk; the leaves'
// cells (the tiles) tile the box of every component's sphere. A tile's blob holds every component whose
// sphere reaches its cell (its own and its neighbours') clipped by the cell: inside the cell the field
// is the whole field, so the surface is exact there and continues seamlessly into the next tile.
//
// Deterministic: the splits order by (coordinate, index) and the tree is built a depth at a time, so
// the tiles and their lists of components are the same for any thread count.
#pragma once

#include "blobsim/parallel.h"
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
