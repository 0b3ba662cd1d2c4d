// neighbour_list.h — Verlet neighbour lists with a skin over the neighbour grid (neighbour_grid.h):
// each slot's candidate neighbours, kept from substep to substep while no particle has moved far
// enough to bring a pair that is not listed within reach (LIGGGHTS's `neighbor skin bin` with
// `neigh_modify delay 0 every 1 check yes`).
//
// A build sorts the particles into the grid with cells wider by the skin and lists for every free
// slot the slots t within
//     cut(s, t) = max(reach (r_s + r_t), r_s + r_t + A_b) + skin
// of it at the build, A_b the grid's approach then (2 h x the largest free speed: the granular spring
// acts that far before contact). Stored compactly (CSR): start[] by slot, entry[] the neighbours'
// slots, each slot's in ascending particle index. The order is the particles' own, not the grid's, so
// a gather that sums a slot's pairs in list order adds the same terms in the same order whether the
// list was built this substep or many substeps ago: reuse gives the same bits as a rebuild every
// substep (the test `interaction` checks it), and both the same for any thread count.
//
// Reuse (bsNeighbourList_Update): the pair phase asks for pairs within
//     far_t(s, t) = max(reach (r_s + r_t), r_s + r_t + A_t)
// A pair not listed had d_b >= cut(s, t) at the build. Each particle moved at most D since (D the
// largest distance of any particle in the grid, free or fixed, from where it was at the build), so
// now d_t >= d_b - 2 D >= max(reach S, S + A_b) + skin - 2 D. The list is kept while
//     2 D + max(0, A_t - A_b) <= skin - slack,
// which gives d_t >= far_t: every pair the gather would take is listed. slack (1e-9 of the largest
// radius + 1e-12 of the largest coordinate) covers the rounding of the distances. The list is also
// rebuilt when the particles' count or any particle's state changed (a free particle stuck or fell
// asleep, a sleeper woke, new ones were emitted), when the grid was built by someone else since, or
// when the reach or the fixed states asked differ. A fixed particle left out of the grid
// lies more than a cell (>= the largest cut) from every free one along some axis, and is held to the
// same displacement check, so it cannot come within reach unseen either. Radii are taken as they were
// at the build: a particle's radius never changes after its emission.
//
// Memory: 4 bytes a slot (start), 4 an entry (about 8-14 a particle in a packing, with the default
// skin), 25 a particle (the position and state at the build).
#pragma once

#include "neighbour_grid.h"

typedef struct bsNeighbourList
{
	bool valid;            // false: the next update builds
	uint32_t count;        // slots listed (the grid's count at the build)
	uint32_t* start;       // slot s's neighbours: entries [start[s], start[s + 1]); count + 1 entries
	uint32_t* entry;       // the neighbours' slots, each slot's in ascending particle index
	size_t entryCount;
	double skin;           // metres, at the build
	double approach;       // the grid's approach at the build (A_b)
	double reach;          // asked at the build (a substep of another length needs no build: the approach check covers it)
	unsigned fixedStates;  // asked at the build
	uint64_t gridBuild;    // the grid's build count at the build
	size_t particleCount;  // particles at the build
	bsVec3* anchor;        // by particle: its position at the build
	uint8_t* state;        // by particle: its state at the build
	uint64_t builds, reuses;  // statistics: updates that built, updates that kept the list
	size_t startCapacity, entryCapacity, particleCapacity;
} bsNeighbourList;

// What bsNeighbourList_Update builds with (bsNeighbourGrid_BuildWith's arguments and the skin).
typedef struct bsNeighbourListDef
{
	double reach;          // x (r_i + r_j), >= 1
	double travel;         // seconds: the grid's approach is 2 travel x the largest free speed
	unsigned fixedStates;  // the states that are fixed neighbours (neighbour_grid.h)
	double skin;           // x the largest radius in the grid, >= 0; 0: a build every update (a test's reference)
} bsNeighbourListDef;

// Brings grid and list up to date with particles: keeps the list and refreshes the grid's copies
// (bsNeighbourGrid_Refresh) when it is still valid (above), else builds both. *built (may be NULL)
// says which. bs_errOutOfMemory or bs_errTooLarge leave the list invalid. pool may be NULL.
bsResult bsNeighbourList_Update(bsNeighbourList* list, bsNeighbourGrid* grid, const bsParticles* particles,
	const bsNeighbourListDef* def, bsPool* pool, bool* built);

// Bytes the list's arrays hold now.
size_t bsNeighbourList_Bytes(const bsNeighbourList* list);

void bsNeighbourList_Free(bsNeighbourList* list);
