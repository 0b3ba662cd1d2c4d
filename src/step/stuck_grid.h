// stuck_grid.h — the spheres of stuck and sleeping particles in a static uniform hash grid, updated
// incrementally as particles stick, fall asleep, wake or leave; the stuck collider (collider_stuck.c)
// sweeps against it.
//
// Each sphere is kept once, in the cell of its centre; a query visits the cells of the sweep's bounds
// grown by the largest radius kept, and falls back to every sphere when that is more cells than
// spheres (a long sweep over a sparse grid). The answer is the contact of least (t, particle index),
// so it depends neither on the layout of the table nor on the order spheres were added.
#pragma once

#include "collide_internal.h"

#include "blobsim/collide.h"
#include "blobsim/particles.h"

typedef struct bsStuckGrid bsStuckGrid;

// cell: the cells' edge; <= 0 chooses 4 x the radius of the first sphere kept. NULL when out of memory.
bsStuckGrid* bsStuckGrid_Create(double cell);
void bsStuckGrid_Destroy(bsStuckGrid* grid);

// The grid's cell edge (0 until chosen) and largest radius kept, which its answers do not depend on
// but its walks do: a checkpoint (checkpoint.c) keeps them, and sets them in a new, empty grid.
void bsStuckGrid_Shape(const bsStuckGrid* grid, double* cell, double* maxRadius);
bool bsStuckGrid_SetShape(bsStuckGrid* grid, double cell, double maxRadius);

// Spheres kept.
uint32_t bsStuckGrid_Count(const bsStuckGrid* grid);

// Is particle i kept?
bool bsStuckGrid_Holds(const bsStuckGrid* grid, uint32_t particle);

// Makes the grid hold exactly the particles whose state is stuck or sleeping: removes those that are
// no longer (or no longer exist), then adds the new ones in index order. Positions are read when a
// particle is added (stuck and sleeping particles do not move). bs_errOutOfMemory leaves the grid
// holding a subset; bs_errTooLarge for a set of more than 2^32 - 2 particles.
bsResult bsStuckGrid_Sync(bsStuckGrid* grid, const bsParticles* particles);

// Lets go of particle i if kept (one that moved: a particle riding a body); the next sync adds it back
// where it is then.
void bsStuckGrid_Release(bsStuckGrid* grid, uint32_t particle);

// The contact of least (t, particle) of the sweep (sphere of radius movingRadius) with the spheres
// kept, for t < tmax (bsSphereSweep). *particle names the sphere's particle.
bool bsStuckGrid_Sweep(const bsStuckGrid* grid, const bsSweep* sweep, double movingRadius, double tmax,
	bsTriangleHit* hit, uint32_t* particle, bsVec3* center, double* radius);
