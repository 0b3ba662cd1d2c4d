// neighbour_grid.h — the free particles sorted into a uniform grid, for the particle-particle
// interaction (step.h) and anything else that asks "who is near particle i": rebuilt whenever the pair
// kinds' neighbour lists are (neighbour_list.h; between builds only the copies are refreshed), and
// every substep for the fluid.
//
// The cell edge is the largest interaction diameter (reach x 2 x the largest free radius), so every
// particle within reach of another lies in one of the 27 cells around it. The cells are a dense
// array of nx x ny x nz buckets over the free particles' bounding box, each count at least 3 and
// their product at most max(27, 2 x particles): when the box needs more cells than that, the grid
// wraps (cell c lands in bucket c mod n per axis, a spatial hash that keeps neighbouring cells
// neighbouring in memory). Far particles that share a bucket are rejected by the distance test; with
// n >= 3 the 27 buckets around a cell are distinct, so no neighbour is seen twice.
//
// Build: bounding box and largest radius (parallel, per-worker slots combined exactly), each
// particle's bucket (parallel), a counting sort by bucket (serial and stable: within a bucket, index
// order), then copies of position, velocity and radius in slot order (parallel), so that a
// neighbour's data is read from a compact, spatially ordered array. The result depends only on the
// particles, never on the thread count.
//
// Memory (docs/architecture.md): 4 (x + 1) bytes a bucket for at most 2 buckets a particle, 4 bytes
// a particle for its bucket, 4 for the slot order, 56 for the copies: at most 72 bytes a particle.
#pragma once

#include "blobsim/base.h"
#include "blobsim/particles.h"

typedef struct bsNeighbourGrid
{
	double cell;         // cell edge, > 0 when count > 0
	double inverseCell;  // 1 / cell
	bsVec3 origin;       // the free particles' lowest corner: cell (0, 0, 0) starts here
	int dims[3];         // buckets per axis, each >= 3
	uint32_t count;      // particles in the grid (slots): the free ones, and any fixed ones (BuildWith)
	double largestRadius;   // of the free particles
	double smallestRadius;
	double slotRadius;      // the largest radius of any slot (free or fixed)
	double largestSpeed;    // of the free particles
	double approach;        // 2 x travel x largestSpeed (BuildWith): the most two particles close in `travel`
	uint32_t* start;     // bucket b holds slots [start[b], start[b + 1]); dims product + 1 entries
	uint32_t* index;     // slot -> particle index
	uint32_t* bucketOf;  // particle -> bucket (UINT32_MAX when not free); build scratch
	bsVec3* position;    // by slot
	bsVec3* velocity;    // by slot
	double* radius;      // by slot
	unsigned fixedStates;   // the states of the fixed neighbours in this build (bsNeighbourGrid_BuildWith), 0: none
	uint32_t fixedCount;    // fixed neighbours among the slots
	uint8_t* fixed;         // by slot, when fixedStates != 0: 1 for a fixed neighbour
	size_t bucketCapacity, slotCapacity, particleCapacity, fixedCapacity;
	uint64_t builds;        // builds so far (a neighbour list built on this grid knows whether it is still the same one)
} bsNeighbourGrid;

// The slot ranges holding the 27 cells around a slot's cell, in a fixed order (z, then y, then x
// ascending; a row's three cells merged into one range when they are contiguous).
typedef struct bsNeighbourRanges
{
	uint32_t begin[27];
	uint32_t end[27];
	int count;
} bsNeighbourRanges;

// Sorts the free particles into grid (zeroed the first time; its arrays are reused and grown) with
// cells of reach x 2 x the largest free radius (reach >= 1). More than UINT32_MAX - 1 particles:
// bs_errTooLarge; bs_errOutOfMemory leaves the grid empty. pool may be NULL (one thread).
bsResult bsNeighbourGrid_Build(bsNeighbourGrid* grid, const bsParticles* particles, double reach, bsPool* pool);

// As bsNeighbourGrid_Build, with fixed neighbours too: the particles whose state s has bit 1u << s set
// in fixedStates (stuck, sleeping; never free) and that lie within a cell of the free particles' box
// are slots as well, flagged in fixed[], their velocity 0, so that a free particle finds them among
// its neighbours. The cell edge then covers the largest fixed radius as well, and the box is grown by
// a cell. When no particle is in a fixed state the grid is exactly bsNeighbourGrid_Build's (count is
// then the free particles only; with fixed ones it is free + fixedCount). 1 byte a slot more.
// travel (seconds, >= 0) widens the cells so that pairs that may touch within that time are neighbours
// too: the cell edge is at least 2 x the largest radius + approach (the granular spring starts a
// substep's approach before contact, step.h).
bsResult bsNeighbourGrid_BuildWith(bsNeighbourGrid* grid, const bsParticles* particles, double reach,
	double travel, unsigned fixedStates, bsPool* pool);

// As bsNeighbourGrid_BuildWith, with cells wider by skin x slotRadius (skin >= 0): every pair within
// max(reach (r_i + r_j), r_i + r_j + approach) + skin x slotRadius is in the 27 cells around each
// other, for a neighbour list with a skin (neighbour_list.h). skin 0: bsNeighbourGrid_BuildWith exactly.
bsResult bsNeighbourGrid_BuildSkin(bsNeighbourGrid* grid, const bsParticles* particles, double reach,
	double travel, unsigned fixedStates, double skin, bsPool* pool);

// The slots' copies of position and velocity (a fixed slot's velocity 0) taken again from the same
// particles in the same slots, after they moved (no particle changed its state: the caller checks),
// and the grid's largestSpeed and approach set to those given.
void bsNeighbourGrid_Refresh(bsNeighbourGrid* grid, const bsParticles* particles, double largestSpeed,
	double approach, bsPool* pool);

void bsNeighbourGrid_Ranges(const bsNeighbourGrid* grid, uint32_t slot, bsNeighbourRanges* ranges);

// Bytes the grid's arrays hold now.
size_t bsNeighbourGrid_Bytes(const bsNeighbourGrid* grid);

void bsNeighbourGrid_Free(bsNeighbourGrid* grid);
