// fluid.h — the particle fluid's solver (docs/fluids.md), run by the fluid interaction
// (src/step/interaction_fluid.c) once per substep over the free particles in the neighbour grid's
// slot order:
//
//     neighbours  each slot's neighbours within the support H = 2 (r_i + r_j), a list per slot
//     density     the density ratio rho / rho0 (particles and walls) and the DFSPH factor
//     nu          the effective viscosity (Herschel-Bulkley's from the strain rate as the substep
//                 starts); then the walls' contact constraints cut every velocity
//     divergence  DFSPH's divergence-free solve (Bender & Koschier 2017, Algorithm 2)
//     tension     Akinci et al.'s (2013) cohesion, curvature and wall adhesion (explicit)
//     viscosity   Weiler et al.'s (2018) implicit viscosity (a particle strength exchange
//                 Laplacian), conjugate gradients; with a yield stress a trial solve first, and nu
//                 again from the rates it leaves
//     density     DFSPH's constant-density solve (Algorithm 3), at most a tenth off a particle's
//                 density a substep
//
// on the grid's velocities (grid->velocity, the state after the forces phase), which the caller
// writes back to the particles. Every pass is a gather over a slot's list, every sum over particles
// is a sum of fixed chunks in chunk order: the result is the same bytes for any thread count.
// A particle of radius r is the fluid of a cube of side 2r: volume V = (2r)^3, mass rho0 V.
#pragma once

#include "fluid_wall.h"
#include "neighbour_grid.h"
#include "sph_kernel.h"

#include "blobsim/base.h"
#include "blobsim/fluid.h"

#define BS_FLUID_CONTACTS 3  // the nearest walls kept as contact constraints

// What the walls within a particle's support add to it, summed over the walls (a wall: a collider's
// nearest point within the support; the caller fills it, bsFluidWall_Add).
typedef struct bsFluidWall
{
	double phi;         // the walls' share of the density ratio
	bsVec3 gradPhi;     // its gradient at the particle
	double flux;        // sum over walls of gradPhi_w . v_w (a moving wall's share of the density change)
	double visc[6];     // the viscosity Laplacian's tensor of the walls (xx, yy, zz, xy, xz, yz), 1/m^2, times nu_w
	bsVec3 viscWall;    // that tensor times the walls' velocities
	bsVec3 adhesion;    // Akinci's adhesion, an acceleration towards the walls
	// The nearest walls as contact constraints (speculative contacts): the particle, of radius r, may
	// approach the wall along -normal at most gap / h in a substep of h (gap = d - r), so that the
	// solver sees what the move phase's exact sweep will do: a particle pressed against a wall stays
	// there, and its pressure pushes its neighbours instead.
	bsVec3 normal[BS_FLUID_CONTACTS];
	double gap[BS_FLUID_CONTACTS];
	int contacts;
	int8_t owner[BS_FLUID_CONTACTS];  // each constraint's entry in the slot's bsFluidWallBodies, -1: none
} bsFluidWall;

#define BS_FLUID_WALL_BODIES 2  // the bodies a particle's walls are told apart for

// The shares of a slot's walls that belong to bodies the fluid pushes back (two-way coupling: the
// caller names each by an id), kept beside the wall record only when some body is pushed
// (bsFluid.wallBodies), and what those walls did to the particle's velocity over the substep: the
// pressure's push (-h k gradPhi_b), the contact constraints' cuts, the viscosity's drag and the
// adhesion. A third body's walls near one particle act as static ones (not pushed back).
typedef struct bsFluidWallBodies
{
	int count;
	int32_t id[BS_FLUID_WALL_BODIES];
	bsVec3 gradPhi[BS_FLUID_WALL_BODIES];   // its walls' share of bsFluidWall.gradPhi
	double visc[BS_FLUID_WALL_BODIES][6];   // of visc
	bsVec3 viscWall[BS_FLUID_WALL_BODIES];  // of viscWall
	bsVec3 adhesion[BS_FLUID_WALL_BODIES];  // of adhesion
	bsVec3 dv[BS_FLUID_WALL_BODIES];        // the particle's velocity change by its walls so far
} bsFluidWallBodies;

// Adds one wall at distance d (< H) along the unit normal n (from the wall to the particle), moving at
// v_w, for a particle of support H, to *wall (zeroed first).
void bsFluidWall_Add(bsFluidWall* wall, const bsFluidDef* def, double density, double d, bsVec3 n, bsVec3 vw,
	double r);

// The same for a wall of the body `id` (>= 0) that the fluid pushes back: its shares also go into
// *bodies (zeroed first; NULL or id < 0: bsFluidWall_Add).
void bsFluidWall_AddOwned(bsFluidWall* wall, bsFluidWallBodies* bodies, int32_t id, const bsFluidDef* def,
	double density, double d, bsVec3 n, bsVec3 vw, double r);

// After the walls are added: the edges between walls at right angles counted once (bsFluidWall_Edge).
void bsFluidWall_Finish(bsFluidWall* wall, double r);

// The same, each edge's share of the gradient to the bodies of its two walls (bodies may be NULL).
void bsFluidWall_FinishOwned(bsFluidWall* wall, bsFluidWallBodies* bodies, double r);

// v with its approach to each wall of the constraints cut to the gap over h (relative to the wall's
// velocity, taken as at rest: a moving wall's own motion is the move phase's).
bsVec3 bsFluidWall_Clip(const bsFluidWall* wall, bsVec3 v, double h);

typedef struct bsFluid
{
	// By slot, for the substep.
	uint32_t* first;    // slot s's neighbours are list[first[s] .. first[s + 1])
	uint32_t* list;
	// By list entry, a factor of the pair that a solve reads every iteration: dW(r, H) / r (0 at r = 0)
	// for the pressure solves, kept by the density pass (run again after the viscosity solve); the
	// viscosity solve's tensor factor while it runs. Kept as floats (4
	// bytes a listed neighbour, not 8): a relative rounding of 6e-8 on a pair's factor, far below the
	// solves' tolerances (docs/fluids.md); each pair's is the same both ways, so the viscosity's
	// matrix stays symmetric.
	float* pairFactor;
	// density, factor and kappa are the thirds of one block of 3 x slotCapacity doubles, which is also
	// scratch[2], the viscosity solve's A p: its iterations read none of the three (its first pass
	// reads the densities), and the density pass runs again after each of its conjugate-gradient
	// solves, to the same bytes (24 bytes a slot less).
	double* block;
	double* volume;     // V = (2r)^3, by the neighbour search (computed from the radius instead, the
	                    // pressure passes took 7% more CPU on water)
	double* density;    // rho / rho0
	double* factor;     // DFSPH: 1 / (|sum V_j grad W_ij + grad Phi|^2 + sum |V_j grad W_ij|^2), 0: none
	double* kappa;      // a pressure solve's current pressure (p / (rho0 rho^2) h^2-free form), scratch
	double* nu;         // the effective kinematic viscosity
	bsVec3* scratch[4]; // the viscosity solve's vectors (scratch[2] in block); the normals of the tension pass
	bsVec3* start;      // a yield stress's: the velocities before the viscosity solve (v*), startCapacity slots
	size_t startCapacity;
	// The walls near each slot, kept only for the slots that have any (a wall record is 240 bytes;
	// most particles of a pour or a pool are farther than their support from every wall):
	// wall[wallOf[s]], wallOf[s] = BS_FLUID_NO_WALL for a slot with none. wallOf is NULL when no
	// collider has walls. bsFluid_WallOf reads it.
	uint32_t* wallOf;
	bsFluidWall* wall;
	size_t wallCapacity;
	// Two-way coupling: by wall record, the shares of the bodies the fluid pushes back (NULL when the
	// last bsFluid_NumberWalls was not asked for them).
	bsFluidWallBodies* wallBodies;
	size_t wallBodyCapacity;
	// By particle index, kept between substeps: the pressure solves' warm starts (p / rho^2 h^2).
	float* warmDensity;
	float* warmDivergence;
	double* chunkSum;   // per chunk sums of a pass, summed in chunk order
	size_t* chunkAt;    // the neighbour search's: where a chunk's lists were scanned to (SIZE_MAX: not kept)
	size_t* workerUsed; // the neighbour search's: the list entries each worker scanned so far
	size_t chunkAtCapacity, workerCapacity;
	size_t slotCapacity, listCapacity, particleCapacity, chunkCapacity;  // listCapacity: list and pairFactor
	uint64_t listLength;
	double substepScale; // the convergence rule's factor on the planned substeps (>= 1)
	double rate;         // the largest |v| / r after a solve in the step at stepTime, 1/s
	double stepTime;     // the world's time of that step
} bsFluid;

// The solve's counts for the step statistics.
typedef struct bsFluidReport
{
	uint64_t divergenceIterations, densityIterations, viscosityIterations, unconverged;
	double densityErrorMean, densityErrorMax;
	uint64_t pairs;
} bsFluidReport;

#define BS_FLUID_NO_WALL UINT32_MAX

// Slot s's walls, NULL when it has none.
static inline const bsFluidWall* bsFluid_WallOf(const bsFluid* f, uint32_t s)
{
	return f->wallOf != NULL && f->wallOf[s] != BS_FLUID_NO_WALL ? f->wall + f->wallOf[s] : NULL;
}

// Room for the slots of grid, its particles, and each slot's wall index when `walls`.
// bs_errOutOfMemory.
bsResult bsFluid_Reserve(bsFluid* fluid, const bsNeighbourGrid* grid, size_t particles, bool walls);

// A fluid whose viscosity varies with its strain rate (a yield stress or a flow index other than 1).
static inline bool bsFluidDef_Yields(const bsFluidDef* def)
{
	return def->yieldStress > 0.0 || def->flowIndex != 1.0;
}

// Room for v* by slot (bsFluid.start), for a fluid with a yield stress. bs_errOutOfMemory.
bsResult bsFluid_ReserveStart(bsFluid* fluid, size_t slots);

// Numbers the slots with walls in slot order, wallOf[s] holding 1 (walls) or 0 on the way in, and
// makes room for their records (and for their bodies' shares when `bodies`). bs_errOutOfMemory.
bsResult bsFluid_NumberWalls(bsFluid* fluid, uint32_t slots, bool bodies);

// Slot s's bodies' shares, NULL when it has no walls or none are kept.
static inline bsFluidWallBodies* bsFluid_WallBodiesOf(const bsFluid* f, uint32_t s)
{
	return f->wallBodies != NULL && f->wallOf != NULL && f->wallOf[s] != BS_FLUID_NO_WALL ? f->wallBodies + f->wallOf[s] :
		NULL;
}

// v of slot s (with walls w) within its walls' contact constraints (bsFluidWall_Clip), the cuts of the
// bodies' constraints added to their shares' dv.
bsVec3 bsFluid_ClipSlot(const bsFluid* fluid, const bsFluidWall* w, uint32_t s, bsVec3 v, double h);

// The neighbour lists of every slot. bs_errOutOfMemory, bs_errTooLarge (more than 2^32 - 1 pairs).
bsResult bsFluid_FindNeighbours(bsFluid* fluid, const bsNeighbourGrid* grid, bsPool* pool);

// One substep of h seconds on grid->velocity (the lists found, the walls numbered and filled, and
// room for v* when the fluid yields: bsFluid_ReserveStart).
void bsFluid_Solve(bsFluid* fluid, const bsFluidDef* def, double density, bsNeighbourGrid* grid, double h,
	bsPool* pool, bsFluidReport* report);

// The solver's bytes, and the same by kind: the neighbour lists with their pair factors (8 bytes a
// listed neighbour), the by-slot arrays (first, volume, density, factor, kappa, nu, 4 vectors, one
// of them over density, factor and kappa: 116 bytes a slot; v* for a yield stress's trial solve 24
// more), the wall records (a slot's, when any
// collider has walls), the warm starts by particle, and the chunks' and workers' small arrays.
typedef struct bsFluidBytes
{
	size_t lists, slots, walls, particles, chunks;
} bsFluidBytes;

bsFluidBytes bsFluid_ByteParts(const bsFluid* fluid);
size_t bsFluid_Bytes(const bsFluid* fluid);

// The largest |v| / r of the slots (their speed over their radius).
double bsFluid_LargestRate(bsFluid* fluid, const bsNeighbourGrid* grid, bsPool* pool);

void bsFluid_Free(bsFluid* fluid);

// --- shared by the solver's files ---

enum
{
	bs_fluidGrain = 512,  // slots per chunk of a pass
};

// The viscosity Laplacian's constant times H^2 (fluid_viscosity.c): 2d / <r^2>_W, the cubic spline's
// second moment <r^2>_W = 9/40 H^2 in 3D.
#define BS_FLUID_LAPLACIAN (80.0 / 3.0)

// The volume of a particle of radius r: a cube of side 2r.
static inline double bsFluid_Volume(double r)
{
	double d = 2.0 * r;
	return d * d * d;
}

// A pair of slots (s, j) as every pass reads it: x = x_s - x_j, its length r, the pair's support
// H = 2 (r_s + r_j), j's volume and grad W at x (from s towards j).
typedef struct bsFluidPair
{
	bsVec3 x;
	double r, H, V;
	bsVec3 grad;
} bsFluidPair;

static inline bsFluidPair bsFluid_Pair(const bsNeighbourGrid* g, uint32_t s, uint32_t j)
{
	bsFluidPair p;
	p.x = bsSub(g->position[s], g->position[j]);
	p.r = bsLength(p.x);
	p.H = 2.0 * (g->radius[s] + g->radius[j]);
	p.V = bsFluid_Volume(g->radius[j]);
	p.grad = bsSph_GradW(p.x, p.r, p.H);
	return p;
}

// The pair of slot s and its k-th list entry j as the pressure passes read it, from the factor the
// density pass kept: x = x_s - x_j, j's volume and grad W at x, the same bytes as bsFluid_Pair's.
typedef struct bsFluidGrad
{
	bsVec3 x;
	double V;
	bsVec3 grad;
} bsFluidGrad;

// dW(r, H) / r of a pair: bsSph_GradW's factor (0 at r = 0).
static inline double bsFluid_GradFactor(const bsFluidPair* p)
{
	return p->r > 0.0 ? bsSph_dW(p->r, p->H) / p->r : 0.0;
}

static inline bsFluidGrad bsFluid_Grad(const bsFluid* f, const bsNeighbourGrid* g, uint32_t s, uint32_t k)
{
	uint32_t j = f->list[k];
	bsFluidGrad p;
	p.x = bsSub(g->position[s], g->position[j]);
	p.V = f->volume[j];
	p.grad = bsScale((double)f->pairFactor[k], p.x);
	return p;
}

// Runs fn over the slots on the pool; fn writes sums[0..width) of its chunk into chunkSum[chunk *
// width ...]; returns nothing: bsFluid_SumChunks adds them in chunk order.
void bsFluid_SumChunks(const bsFluid* fluid, uint32_t slots, int width, double* out);

// The passes, in the order bsFluid_Solve runs them (fluid_pressure.c, fluid_tension.c,
// fluid_viscosity.c).
void bsFluid_ComputeDensity(bsFluid* fluid, bsNeighbourGrid* grid, bsPool* pool);

// One DFSPH solve (divergence-free or constant-density) until the mean error is at most `tolerance`
// and the largest at most `peakTolerance`, or maxIterations; its iterations, and the mean and largest
// error it ended with.
int bsFluid_PressureSolve(bsFluid* fluid, bsNeighbourGrid* grid, double h, bool divergence, double tolerance,
	double peakTolerance, int maxIterations, bsPool* pool, double* mean, double* largest);

void bsFluid_ApplyTension(bsFluid* fluid, bsNeighbourGrid* grid, const bsFluidDef* def, double density, double h,
	bsPool* pool);

// The effective viscosity of every slot (nu, or Herschel-Bulkley's from its strain rate), from the
// velocities as the substep starts.
void bsFluid_EffectiveViscosity(bsFluid* fluid, bsNeighbourGrid* grid, const bsFluidDef* def, double density,
	bsPool* pool);

// The implicit viscosity solve; its iterations (*converged false when it stopped at the limit).
int bsFluid_ViscositySolve(bsFluid* fluid, bsNeighbourGrid* grid, const bsFluidDef* def, double density, double h,
	bsPool* pool, bool* converged);
