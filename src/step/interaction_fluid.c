// interaction_fluid.c — the fluid interaction (step.h: bsFluidDef): its settings, its substep rule
// (a CFL number, raised when the solves stop converging) and its phase, which runs after the forces:
// the neighbour grid of the free particles, the walls each particle sees (every collider's nearest
// point within its support), the solver's substep (src/fluid/fluid.h) on the grid's copy of the
// velocities, and the velocities written back. Stuck and sleeping particles take no part.
#include "interaction_class.h"

#include "body_dynamics.h"
#include "collider_body.h"
#include "core.h"
#include "fluid.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// The constant-density solve's bound on the largest compression of any particle (issue 24: largest <= 1%
// in a settled column): half of that, so a substep's rounding cannot tip it over.
#define BS_FLUID_DEFAULT_ERROR_MAX 5e-3

// The convergence rule: a step whose solves stopped at their limit multiplies the next steps'
// substeps by this (up to the largest factor); a step whose solves converged well lowers it again.
#define BS_FLUID_SCALE_UP 1.5
#define BS_FLUID_SCALE_DOWN 1.1
#define BS_FLUID_SCALE_MAX 64.0

static void bsFluid_SetDefaults(bsInteractionDef* def)
{
	bsFluidDef* f = &def->fluid;
	f->kinematicViscosity = 1e-6;
	f->wallViscosity = (double)NAN;
	f->yieldStress = 0.0;
	f->flowIndex = 1.0;
	f->maxViscosity = 1000.0;
	f->surfaceTension = 0.0;
	f->adhesion = 0.0;
	f->densityError = 5e-4;
	f->densityErrorMax = BS_FLUID_DEFAULT_ERROR_MAX;
	f->divergenceError = 1e-3;
	f->maxIterations = 100;
	f->viscosityError = 1e-4;
	f->maxViscosityIterations = 200;
	f->cfl = 0.4;
}

static bool bsFluid_IsValid(const bsInteractionDef* def)
{
	const bsFluidDef* f = &def->fluid;
	const double big = DBL_MAX;
	return bsWithin(def->density, DBL_MIN, big) && bsWithin(f->kinematicViscosity, 0.0, big) &&
		(isnan(f->wallViscosity) || bsWithin(f->wallViscosity, 0.0, big)) && bsWithin(f->yieldStress, 0.0, big) &&
		bsWithin(f->flowIndex, 0.2, 2.0) && bsWithin(f->maxViscosity, f->kinematicViscosity, big) &&
		bsWithin(f->surfaceTension, 0.0, big) && bsWithin(f->adhesion, 0.0, big) &&
		bsWithin(f->densityError, DBL_MIN, 1.0) && bsWithin(f->densityErrorMax, DBL_MIN, big) &&
		bsWithin(f->divergenceError, DBL_MIN, 1.0) &&
		f->maxIterations >= 1 && f->maxIterations <= 10000 && bsWithin(f->viscosityError, DBL_MIN, 1.0) &&
		f->maxViscosityIterations >= 1 && f->maxViscosityIterations <= 10000 && bsWithin(f->cfl, DBL_MIN, 1.0);
}

// The support is 2 (r_i + r_j): twice the contact distance.
static double bsFluid_Reach(const bsInteractionDef* def)
{
	(void)def;
	return 2.0;
}

// Surface tension is explicit: a substep is at most a tenth of the period of its stiffest pull. Its
// stiffness per unit displacement, summed over a particle's neighbours, is about gamma (1.27 rho0 +
// 190) / H (the cohesion kernel's steepest slope, 0.1 / H in its own units, times about 10 neighbours
// on it, and the curvature term's), so the period is 2 pi / sqrt(that). A droplet with gamma = 1
// (rho0 = 1000, H = 4 mm) at one substep of 10 ms threw particles 0.1 m out; its period is 10 ms.
#define BS_FLUID_TENSION_SUBSTEPS 10.0

static double bsFluid_TensionSubsteps(const bsInteractionDef* def, double dt, double smallestRadius)
{
	double gamma = def->fluid.surfaceTension;
	if (!(gamma > 0.0) || !(smallestRadius > 0.0))
	{
		return 1.0;
	}
	double omega = sqrt(gamma * (1.27 * def->density + 190.0) / (4.0 * smallestRadius));
	return dt * omega * BS_FLUID_TENSION_SUBSTEPS / (2.0 * BS_PI);
}

// The CFL rule: no particle moves more than cfl x 2r in a substep; and the tension's.
static double bsFluid_Substeps(const bsInteractionDef* def, double dt, double smallestRadius,
	const bsSubstepPlan* plan)
{
	double cfl = plan->radius > 0.0 ? dt * plan->speed / (def->fluid.cfl * 2.0 * plan->radius) : 1.0;
	return fmax(cfl, bsFluid_TensionSubsteps(def, dt, smallestRadius));
}

static double bsFluid_WorldSubsteps(const bsWorld* world, const bsInteractionDef* def, double dt, double planned)
{
	const bsFluid* f = world->fluid;
	if (f == NULL)
	{
		return planned;
	}
	double fastest = dt * f->rate / (def->fluid.cfl * 2.0);
	return ceil(fmax(planned, fastest) * f->substepScale);
}

// --- the walls ---

typedef struct bsWallJob
{
	const bsWorld* world;
	bsFluid* fluid;
	const bsNeighbourGrid* grid;
	const bsInteractionDef* def;
	bool fill;  // false: mark the slots with walls (wallOf 1 or 0); true: fill their records
	bool push;  // some body is pushed back (two-way coupling): its walls are told apart
} bsWallJob;

// The walls every collider puts within slot s's support, added to *wall when not NULL; how many.
static int bsWalls_At(const bsWallJob* job, uint32_t s, bsFluidWall* wall, bsFluidWallBodies* bodies)
{
	const bsWorld* world = job->world;
	double r = job->grid->radius[s];
	int count = 0;
	for (int c = 0; c < world->colliderCount; ++c)
	{
		const bsCollider* collider = world->colliders + c;
		const bsColliderClass* k = bs_colliderClasses[collider->kind];
		bsWallPoint p[BS_WALLS_MAX];
		int n = k->walls != NULL ? k->walls(collider, job->grid->position[s], 4.0 * r, p, BS_WALLS_MAX) : 0;
		int32_t id = job->push && n > 0 && bsWorldBodies_PushedBody(world, c) >= 0 ? c : -1;
		for (int w = 0; w < n && wall != NULL; ++w)
		{
			bsFluidWall_AddOwned(wall, bodies, id, &job->def->fluid, job->def->density, p[w].distance, p[w].normal,
				p[w].velocity, r);
		}
		count += n;
	}
	return count;
}

static void bsWalls_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsWallJob* job = context;
	bsFluid* f = job->fluid;
	for (size_t s = begin; s < end; ++s)
	{
		if (!job->fill)
		{
			f->wallOf[s] = bsWalls_At(job, (uint32_t)s, NULL, NULL) > 0;
		}
		else if (f->wallOf[s] != BS_FLUID_NO_WALL)
		{
			bsFluidWall* wall = f->wall + f->wallOf[s];
			bsFluidWallBodies* bodies = bsFluid_WallBodiesOf(f, (uint32_t)s);
			memset(wall, 0, sizeof(*wall));
			if (bodies != NULL)
			{
				memset(bodies, 0, sizeof(*bodies));
			}
			bsWalls_At(job, (uint32_t)s, wall, bodies);
			bsFluidWall_FinishOwned(wall, bodies, job->grid->radius[s]);
		}
	}
}

// The walls of every slot near one: marked, numbered in slot order (the same for any thread count),
// then filled. Each slot asks the colliders twice, so that only the slots with walls keep a record.
static bsResult bsFluid_Walls(bsWorld* world, const bsInteractionDef* def, bool push)
{
	bsWallJob job = {world, world->fluid, &world->grid, def, false, push};
	bsPool_For(world->pool, world->grid.count, bs_fluidGrain, bsWalls_Range, &job);
	bsResult r = bsFluid_NumberWalls(world->fluid, world->grid.count, push);
	if (r == bs_ok)
	{
		job.fill = true;
		bsPool_For(world->pool, world->grid.count, bs_fluidGrain, bsWalls_Range, &job);
	}
	return r;
}

static bool bsFluid_HasWalls(const bsWorld* world)
{
	for (int c = 0; c < world->colliderCount; ++c)
	{
		if (bs_colliderClasses[world->colliders[c].kind]->walls != NULL)
		{
			return true;
		}
	}
	return false;
}

// Is any collider a body the particles push back (two-way coupling)?
static bool bsFluid_PushesBodies(const bsWorld* world)
{
	for (int c = 0; world->bodies != NULL && c < world->colliderCount; ++c)
	{
		if (bsWorldBodies_PushedBody(world, c) >= 0)
		{
			return true;
		}
	}
	return false;
}

// The pushed bodies' walls' reactions: each slot's shares in slot order (the same for any thread
// count), applied to the bodies with the move phase's rule (bsWorldDynamics_ApplyPushes).
static bsResult bsFluid_PushBodies(bsWorld* world, const bsStepDef* def, const bsParticles* particles)
{
	const bsFluid* f = world->fluid;
	const bsNeighbourGrid* grid = &world->grid;
	bsResult r = bs_ok;
	for (uint32_t s = 0; r == bs_ok && s < grid->count; ++s)
	{
		const bsFluidWallBodies* bodies = bsFluid_WallBodiesOf(f, s);
		for (int e = 0; r == bs_ok && bodies != NULL && e < bodies->count; ++e)
		{
			bsPush push = {grid->index[s], (uint16_t)e, (uint16_t)bodies->id[e], bodies->dv[e], grid->position[s]};
			r = bsWorldDynamics_AddPushes(world, &push, 1);
		}
	}
	return r == bs_ok ? bsWorldDynamics_ApplyPushes(world, def, particles) : r;
}

// --- the phase ---

static void bsFluid_WriteBack(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	const bsNeighbourGrid* grid = ((const void**)context)[0];
	bsParticles* particles = ((void**)context)[1];
	for (size_t s = begin; s < end; ++s)
	{
		particles->velocity[grid->index[s]] = grid->velocity[s];
	}
}

// The report into worker 0's statistics (the phase is one solve: no other worker adds to these), and
// the convergence rule's factor for the next steps.
static void bsFluid_Record(bsWorld* world, const bsFluidDef* def, const bsFluidReport* r)
{
	bsStepStats add;
	memset(&add, 0, sizeof(add));
	add.fluidSubsteps = 1;
	add.pairs = r->pairs;
	add.divergenceIterations = r->divergenceIterations;
	add.densityIterations = r->densityIterations;
	add.viscosityIterations = r->viscosityIterations;
	add.unconverged = r->unconverged;
	add.densityErrorMean = r->densityErrorMean;
	add.densityErrorMax = r->densityErrorMax;
	bsStepStats_Add(&world->workers[0].stats, &add);
	bsFluid* f = world->fluid;
	if (r->unconverged > 0)
	{
		f->substepScale = fmin(f->substepScale * BS_FLUID_SCALE_UP, BS_FLUID_SCALE_MAX);
	}
	else if ((int)r->densityIterations * 4 < def->maxIterations)
	{
		f->substepScale = fmax(f->substepScale / BS_FLUID_SCALE_DOWN, 1.0);
	}
}

static bsResult bsFluid_Prepare(bsWorld* world)
{
	if (world->fluid == NULL)
	{
		world->fluid = calloc(1, sizeof(bsFluid));
		if (world->fluid == NULL)
		{
			return bs_errOutOfMemory;
		}
		world->fluid->substepScale = 1.0;
	}
	return bs_ok;
}

static bsResult bsFluid_Run(bsWorld* world, const bsStepDef* def, double h, double wakeSpeed, bsParticles* particles)
{
	(void)wakeSpeed;
	bsNeighbourGrid* grid = &world->grid;
	bsResult r = bsFluid_Prepare(world);
	r = r == bs_ok ? bsNeighbourGrid_BuildWith(grid, particles, 2.0, 0.0, 0u, world->pool) : r;
	if (r != bs_ok || grid->count == 0)
	{
		return r;
	}
	bsFluid* fluid = world->fluid;
	if (fluid->stepTime != world->time)
	{
		fluid->stepTime = world->time;  // a new step: its fastest particle so far
		fluid->rate = 0.0;
	}
	bool walls = bsFluid_HasWalls(world);
	bool push = walls && bsFluid_PushesBodies(world);
	r = bsFluid_Reserve(fluid, grid, particles->count, walls);
	r = r == bs_ok && bsFluidDef_Yields(&def->interaction.fluid) ? bsFluid_ReserveStart(fluid, grid->count) : r;
	r = r == bs_ok ? bsFluid_FindNeighbours(fluid, grid, world->pool) : r;
	if (r != bs_ok)
	{
		return r;
	}
	r = walls ? bsFluid_Walls(world, &def->interaction, push) : bs_ok;
	if (r != bs_ok)
	{
		return r;
	}
	bsFluidReport report;
	bsFluid_Solve(fluid, &def->interaction.fluid, def->interaction.density, grid, h, world->pool, &report);
	void* back[2] = {grid, particles};
	bsPool_For(world->pool, grid->count, bs_fluidGrain, bsFluid_WriteBack, back);
	fluid->rate = fmax(fluid->rate, bsFluid_LargestRate(fluid, grid, world->pool));
	bsFluid_Record(world, &def->interaction.fluid, &report);
	return push ? bsFluid_PushBodies(world, def, particles) : bs_ok;
}

const bsInteractionClass bs_fluidInteraction = {.name = "fluid", .setDefaults = bsFluid_SetDefaults,
	.isValid = bsFluid_IsValid, .reach = bsFluid_Reach, .substeps = bsFluid_Substeps, .run = bsFluid_Run,
	.afterForces = true, .ownTravel = true, .worldSubsteps = bsFluid_WorldSubsteps, .volume = bsFluid_Volume};
