// fluid.c — the fluid solver's state, its neighbour lists and the order of its passes (fluid.h).
#include "fluid.h"

#include "array.h"
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(bsVec3) == 3 * sizeof(double), "the block's thirds are the viscosity's A p");

// The block of density, factor and kappa for n slots, also the viscosity solve's scratch[2] (none of
// them kept from a substep to the next).
static bool bsFluid_ReserveBlock(bsFluid* f, size_t n)
{
	if (!BS_ARRAY_RESIZE(f->block, 3 * n))
	{
		return false;
	}
	f->density = f->block;
	f->factor = f->block + n;
	f->kappa = f->block + 2 * n;
	f->scratch[2] = (bsVec3*)(void*)f->block;
	return true;
}

// Grows every by-slot array to hold `slots` (one capacity for all; the walls' array only with walls).
static bool bsFluid_ReserveSlots(bsFluid* f, size_t slots, bool walls)
{
	if (slots <= f->slotCapacity)
	{
		return !walls || f->wallOf != NULL || BS_ARRAY_RESIZE(f->wallOf, f->slotCapacity);
	}
	size_t n = bsArray_NextCapacity(f->slotCapacity, slots);
	bool ok = BS_ARRAY_RESIZE(f->first, n + 1) && bsFluid_ReserveBlock(f, n) && BS_ARRAY_RESIZE(f->volume, n) &&
		BS_ARRAY_RESIZE(f->nu, n);
	for (int k = 0; ok && k < 4; ++k)
	{
		ok = k == 2 || BS_ARRAY_RESIZE(f->scratch[k], n);
	}
	ok = ok && (!walls && f->wallOf == NULL ? true : BS_ARRAY_RESIZE(f->wallOf, n));
	if (ok)
	{
		f->slotCapacity = n;  // the arrays that grew before a failure keep their room: harmless
	}
	return ok;
}

// The warm starts by particle index: new particles start from none.
static bool bsFluid_ReserveParticles(bsFluid* f, size_t count)
{
	if (count <= f->particleCapacity)
	{
		return true;
	}
	size_t n = bsArray_NextCapacity(f->particleCapacity, count);
	if (!BS_ARRAY_RESIZE(f->warmDensity, n) || !BS_ARRAY_RESIZE(f->warmDivergence, n))
	{
		return false;
	}
	memset(f->warmDensity + f->particleCapacity, 0, (n - f->particleCapacity) * sizeof(float));
	memset(f->warmDivergence + f->particleCapacity, 0, (n - f->particleCapacity) * sizeof(float));
	f->particleCapacity = n;
	return true;
}

bsResult bsFluid_Reserve(bsFluid* fluid, const bsNeighbourGrid* grid, size_t particles, bool walls)
{
	size_t chunks = grid->count / bs_fluidGrain + 1;
	if (!bsFluid_ReserveSlots(fluid, grid->count, walls) || !bsFluid_ReserveParticles(fluid, particles) ||
		!BS_ARRAY_RESERVE(fluid->chunkSum, fluid->chunkCapacity, chunks * 4) ||
		!BS_ARRAY_RESERVE(fluid->chunkAt, fluid->chunkAtCapacity, chunks))
	{
		return bs_errOutOfMemory;
	}
	if (!walls && fluid->wallOf != NULL)
	{
		free(fluid->wallOf);
		fluid->wallOf = NULL;
	}
	return bs_ok;
}

bsResult bsFluid_ReserveStart(bsFluid* fluid, size_t slots)
{
	return BS_ARRAY_RESERVE(fluid->start, fluid->startCapacity, slots) ? bs_ok : bs_errOutOfMemory;
}

bsResult bsFluid_NumberWalls(bsFluid* fluid, uint32_t slots, bool bodies)
{
	uint32_t count = 0;
	for (uint32_t s = 0; s < slots; ++s)
	{
		fluid->wallOf[s] = fluid->wallOf[s] != 0 ? count++ : BS_FLUID_NO_WALL;
	}
	if (!bodies)
	{
		free(fluid->wallBodies);
		fluid->wallBodies = NULL;
		fluid->wallBodyCapacity = 0;
	}
	bool ok = BS_ARRAY_RESERVE(fluid->wall, fluid->wallCapacity, count) &&
		(!bodies || BS_ARRAY_RESERVE(fluid->wallBodies, fluid->wallBodyCapacity, (size_t)count + 1));
	return ok ? bs_ok : bs_errOutOfMemory;
}

void bsFluid_SumChunks(const bsFluid* fluid, uint32_t slots, int width, double* out)
{
	size_t chunks = slots / bs_fluidGrain + (slots % bs_fluidGrain != 0);
	for (int k = 0; k < width; ++k)
	{
		out[k] = 0.0;
	}
	for (size_t c = 0; c < chunks; ++c)
	{
		for (int k = 0; k < width; ++k)
		{
			out[k] += fluid->chunkSum[c * 4 + (size_t)k];
		}
	}
}

// --- neighbour lists ---

// One scan a slot: each worker writes the lists of the chunks it takes one after another into its own
// part of the pair factors' room (unused until the density pass), and records where each chunk's
// went; after the prefix sum of the counts each chunk's lists are copied into place. A chunk that does
// not fit its worker's part (the first substep, or a worker that took most chunks) is scanned again
// into place. The lists are the same whichever worker scanned which chunk.
typedef struct bsNeighbourJob
{
	bsFluid* fluid;
	const bsNeighbourGrid* grid;
	uint32_t* scratch;  // the pair factors' room as list entries
	size_t part;        // each worker's part of it: scratch + worker x part
} bsNeighbourJob;

// Slot s's neighbours within support, in the grid's fixed order: counted, and the first `room` written
// to out (when not NULL).
static uint32_t bsFluid_ScanSlot(const bsNeighbourGrid* grid, uint32_t s, uint32_t* out, size_t room)
{
	bsVec3 xi = grid->position[s];
	double ri = grid->radius[s];
	double far = 2.0 * (ri + grid->slotRadius);
	bsNeighbourRanges ranges;
	bsNeighbourGrid_Ranges(grid, s, &ranges);
	uint32_t n = 0;
	for (int k = 0; k < ranges.count; ++k)
	{
		for (uint32_t t = ranges.begin[k]; t < ranges.end[k]; ++t)
		{
			bsVec3 x = bsSub(grid->position[t], xi);
			double d2 = bsDot(x, x);
			if (!(d2 < far * far) || t == s)
			{
				continue;
			}
			double H = 2.0 * (ri + grid->radius[t]);
			if (d2 < H * H)
			{
				if (out != NULL && n < room)
				{
					out[n] = t;
				}
				n += 1;
			}
		}
	}
	return n;
}

// Counts into first[s + 1], the lists into the worker's part while they fit, the slots' volumes.
static void bsNeighboursScan_Range(void* context, size_t begin, size_t end, int worker)
{
	bsNeighbourJob* job = context;
	bsFluid* f = job->fluid;
	uint32_t* part = job->scratch != NULL ? job->scratch + (size_t)worker * job->part : NULL;
	size_t start = f->workerUsed[worker], used = start;
	bool fits = part != NULL;
	for (size_t s = begin; s < end; ++s)
	{
		size_t room = fits ? job->part - used : 0;
		uint32_t n = bsFluid_ScanSlot(job->grid, (uint32_t)s, fits ? part + used : NULL, room);
		fits = fits && n <= room;
		used += n;
		f->first[s + 1] = n;
		f->volume[s] = bsFluid_Volume(job->grid->radius[s]);
	}
	f->chunkAt[begin / bs_fluidGrain] = fits ? (size_t)worker * job->part + start : SIZE_MAX;
	f->workerUsed[worker] = fits ? used : start;
}

// Each chunk's lists into place: copied from where the scan left them, or scanned again.
static void bsNeighboursPlace_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsNeighbourJob* job = context;
	bsFluid* f = job->fluid;
	size_t at = f->chunkAt[begin / bs_fluidGrain];
	if (at != SIZE_MAX)
	{
		memcpy(f->list + f->first[begin], job->scratch + at, (f->first[end] - f->first[begin]) * sizeof(uint32_t));
		return;
	}
	for (size_t s = begin; s < end; ++s)
	{
		bsFluid_ScanSlot(job->grid, (uint32_t)s, f->list + f->first[s], SIZE_MAX);
	}
}

// Room for total list entries: an eighth more than they need when they grow (not double: they are
// most of the solver's bytes, and a fluid's pairs change little from a substep to the next).
static bool bsFluid_ReserveLists(bsFluid* f, size_t total)
{
	if (total <= f->listCapacity)
	{
		return true;
	}
	size_t n = total + total / 8;
	bool ok = BS_ARRAY_RESIZE(f->list, n) && BS_ARRAY_RESIZE(f->pairFactor, n);
	f->listCapacity = ok ? n : f->listCapacity;  // one that grew before a failure keeps its room: harmless
	return ok;
}

// The counts as offsets: first[s] the start of slot s's list; their total (bs_errTooLarge past 2^32 - 1).
static bsResult bsFluid_Offsets(bsFluid* fluid, uint32_t count, uint64_t* total)
{
	uint64_t sum = 0;
	fluid->first[0] = 0;
	for (uint32_t s = 0; s < count; ++s)
	{
		sum += fluid->first[s + 1];
		if (sum >= UINT32_MAX)
		{
			return bs_errTooLarge;
		}
		fluid->first[s + 1] = (uint32_t)sum;
	}
	*total = sum;
	return bs_ok;
}

bsResult bsFluid_FindNeighbours(bsFluid* fluid, const bsNeighbourGrid* grid, bsPool* pool)
{
	int threads = pool != NULL ? bsPool_ThreadCount(pool) : 1;
	if (!BS_ARRAY_RESERVE(fluid->workerUsed, fluid->workerCapacity, (size_t)threads))
	{
		return bs_errOutOfMemory;
	}
	memset(fluid->workerUsed, 0, (size_t)threads * sizeof(size_t));
	size_t room = fluid->listCapacity * (sizeof(*fluid->pairFactor) / sizeof(uint32_t));
	bsNeighbourJob job = {fluid, grid, (uint32_t*)fluid->pairFactor, room / (size_t)threads};
	bsPool_For(pool, grid->count, bs_fluidGrain, bsNeighboursScan_Range, &job);
	uint64_t total = 0;
	bsResult r = bsFluid_Offsets(fluid, grid->count, &total);
	if (r != bs_ok)
	{
		return r;
	}
	if (!bsFluid_ReserveLists(fluid, (size_t)total))
	{
		return bs_errOutOfMemory;
	}
	fluid->listLength = total;
	job.scratch = (uint32_t*)fluid->pairFactor;  // moved when it grew, its contents kept
	bsPool_For(pool, grid->count, bs_fluidGrain, bsNeighboursPlace_Range, &job);
	return bs_ok;
}

static void bsRate_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	const void** job = context;
	bsFluid* f = (bsFluid*)job[0];
	const bsNeighbourGrid* g = job[1];
	double largest = 0.0;
	for (size_t s = begin; s < end; ++s)
	{
		double rate = bsLength(g->velocity[s]) / g->radius[s];
		largest = rate > largest ? rate : largest;
	}
	f->chunkSum[(begin / bs_fluidGrain) * 4] = largest;
}

double bsFluid_LargestRate(bsFluid* fluid, const bsNeighbourGrid* grid, bsPool* pool)
{
	const void* job[2] = {fluid, grid};
	bsPool_For(pool, grid->count, bs_fluidGrain, bsRate_Range, (void*)job);
	size_t chunks = grid->count / bs_fluidGrain + (grid->count % bs_fluidGrain != 0);
	double largest = 0.0;
	for (size_t c = 0; c < chunks; ++c)
	{
		largest = fmax(largest, fluid->chunkSum[c * 4]);
	}
	return largest;
}

bsFluidBytes bsFluid_ByteParts(const bsFluid* f)
{
	bsFluidBytes b;
	b.lists = f->listCapacity * (sizeof(uint32_t) + sizeof(*f->pairFactor));
	b.slots = f->slotCapacity * (sizeof(uint32_t) + 5 * sizeof(double) + 3 * sizeof(bsVec3)) +
		f->startCapacity * sizeof(bsVec3);
	b.walls = (f->wallOf != NULL ? f->slotCapacity * sizeof(uint32_t) : 0) + f->wallCapacity * sizeof(bsFluidWall) +
		f->wallBodyCapacity * sizeof(bsFluidWallBodies);
	b.particles = f->particleCapacity * 2 * sizeof(float);
	b.chunks = f->chunkCapacity * sizeof(double) + f->chunkAtCapacity * sizeof(size_t) + f->workerCapacity * sizeof(size_t);
	return b;
}

size_t bsFluid_Bytes(const bsFluid* f)
{
	bsFluidBytes b = bsFluid_ByteParts(f);
	return b.lists + b.slots + b.walls + b.particles + b.chunks;
}

void bsFluid_Free(bsFluid* f)
{
	free(f->first);
	free(f->list);
	free(f->pairFactor);
	free(f->block);
	free(f->volume);
	free(f->nu);
	for (int k = 0; k < 4; ++k)
	{
		if (k != 2)
		{
			free(f->scratch[k]);
		}
	}
	free(f->start);
	free(f->wallOf);
	free(f->wall);
	free(f->wallBodies);
	free(f->warmDensity);
	free(f->warmDivergence);
	free(f->chunkSum);
	free(f->chunkAt);
	free(f->workerUsed);
	memset(f, 0, sizeof(*f));
}

// --- the walls ---

// Keeps the wall among the contact constraints when it is one of the nearest (owner: its body's entry
// in the slot's bsFluidWallBodies, -1: none).
static void bsFluidWall_Constrain(bsFluidWall* wall, double gap, bsVec3 n, int owner)
{
	int k = wall->contacts;
	if (k == BS_FLUID_CONTACTS)
	{
		int far = 0;
		for (int c = 1; c < k; ++c)
		{
			far = wall->gap[c] > wall->gap[far] ? c : far;
		}
		if (!(gap < wall->gap[far]))
		{
			return;
		}
		k = far;
	}
	else
	{
		wall->contacts += 1;
	}
	wall->gap[k] = gap > 0.0 ? gap : 0.0;
	wall->normal[k] = n;
	wall->owner[k] = (int8_t)owner;
}

bsVec3 bsFluid_ClipSlot(const bsFluid* fluid, const bsFluidWall* w, uint32_t s, bsVec3 v, double h)
{
	bsFluidWallBodies* bodies = bsFluid_WallBodiesOf(fluid, s);
	if (bodies == NULL)
	{
		return bsFluidWall_Clip(w, v, h);
	}
	for (int c = 0; c < w->contacts; ++c)
	{
		double vn = bsDot(v, w->normal[c]);
		double least = -w->gap[c] / h;
		if (vn < least)
		{
			bsVec3 cut = bsScale(least - vn, w->normal[c]);
			v = bsAdd(v, cut);
			if (w->owner[c] >= 0)
			{
				bodies->dv[w->owner[c]] = bsAdd(bodies->dv[w->owner[c]], cut);
			}
		}
	}
	return v;
}

bsVec3 bsFluidWall_Clip(const bsFluidWall* wall, bsVec3 v, double h)
{
	for (int c = 0; c < wall->contacts; ++c)
	{
		double vn = bsDot(v, wall->normal[c]);
		double least = -wall->gap[c] / h;
		if (vn < least)
		{
			v = bsMulAdd(v, least - vn, wall->normal[c]);
		}
	}
	return v;
}

#define BS_WALL_RIGHT_ANGLE 0.1  // |cos| below which two walls meet at a right angle

void bsFluidWall_Finish(bsFluidWall* wall, double r)
{
	bsFluidWall_FinishOwned(wall, NULL, r);
}

void bsFluidWall_FinishOwned(bsFluidWall* wall, bsFluidWallBodies* bodies, double r)
{
	for (int a = 0; a < wall->contacts; ++a)
	{
		for (int b = a + 1; b < wall->contacts; ++b)
		{
			if (!(fabs(bsDot(wall->normal[a], wall->normal[b])) < BS_WALL_RIGHT_ANGLE))
			{
				continue;
			}
			double phi, sa, sb;
			bsFluidWall_Edge(wall->gap[a] + r, wall->gap[b] + r, r, 4.0 * r, &phi, &sa, &sb);
			wall->phi -= phi;
			wall->gradPhi = bsMulSub(bsMulSub(wall->gradPhi, sa, wall->normal[a]), sb, wall->normal[b]);
			if (bodies != NULL && wall->owner[a] >= 0)
			{
				bodies->gradPhi[wall->owner[a]] = bsMulSub(bodies->gradPhi[wall->owner[a]], sa, wall->normal[a]);
			}
			if (bodies != NULL && wall->owner[b] >= 0)
			{
				bodies->gradPhi[wall->owner[b]] = bsMulSub(bodies->gradPhi[wall->owner[b]], sb, wall->normal[b]);
			}
		}
	}
}

// The entry of body id in *bodies (added when there is room), -1: none.
static int bsFluidWallBodies_Entry(bsFluidWallBodies* bodies, int32_t id)
{
	if (bodies == NULL || id < 0)
	{
		return -1;
	}
	for (int e = 0; e < bodies->count; ++e)
	{
		if (bodies->id[e] == id)
		{
			return e;
		}
	}
	if (bodies->count == BS_FLUID_WALL_BODIES)
	{
		return -1;
	}
	bodies->id[bodies->count] = id;
	return bodies->count++;
}

void bsFluidWall_Add(bsFluidWall* wall, const bsFluidDef* def, double density, double d, bsVec3 n, bsVec3 vw,
	double r)
{
	bsFluidWall_AddOwned(wall, NULL, -1, def, density, d, n, vw, r);
}

void bsFluidWall_AddOwned(bsFluidWall* wall, bsFluidWallBodies* bodies, int32_t id, const bsFluidDef* def,
	double density, double d, bsVec3 n, bsVec3 vw, double r)
{
	double H = 4.0 * r;
	int e = bsFluidWallBodies_Entry(bodies, id);
	bsFluidWall_Constrain(wall, d - r, n, e);
	bsWallKernels k = bsFluidWall_Kernels(d, r, H);
	bsVec3 grad = bsScale(-k.gradient, n);
	wall->phi += k.phi;
	wall->gradPhi = bsAdd(wall->gradPhi, grad);
	wall->flux += bsDot(grad, vw);
	// bt I + (bn - bt) n n^T
	double bt = k.viscosityTangential, dn = k.viscosityNormal - bt;
	double t[6] = {bt + dn * n.x * n.x, bt + dn * n.y * n.y, bt + dn * n.z * n.z, dn * n.x * n.y, dn * n.x * n.z,
		dn * n.y * n.z};
	for (int c = 0; c < 6; ++c)
	{
		wall->visc[c] += t[c];
	}
	bsVec3 tv = bsV3(t[0] * vw.x + t[3] * vw.y + t[4] * vw.z, t[3] * vw.x + t[1] * vw.y + t[5] * vw.z,
		t[4] * vw.x + t[5] * vw.y + t[2] * vw.z);
	wall->viscWall = bsAdd(wall->viscWall, tv);
	wall->adhesion = bsMulSub(wall->adhesion, def->adhesion * density * k.adhesion, n);
	if (e >= 0)
	{
		bodies->gradPhi[e] = bsAdd(bodies->gradPhi[e], grad);
		for (int c = 0; c < 6; ++c)
		{
			bodies->visc[e][c] += t[c];
		}
		bodies->viscWall[e] = bsAdd(bodies->viscWall[e], tv);
		bodies->adhesion[e] = bsMulSub(bodies->adhesion[e], def->adhesion * density * k.adhesion, n);
	}
}

// --- the substep ---

typedef struct bsClipJob
{
	bsFluid* fluid;
	bsNeighbourGrid* grid;
	double h;
} bsClipJob;

static void bsClip_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsClipJob* job = context;
	for (size_t s = begin; s < end; ++s)
	{
		const bsFluidWall* w = bsFluid_WallOf(job->fluid, (uint32_t)s);
		if (w != NULL)
		{
			job->grid->velocity[s] = bsFluid_ClipSlot(job->fluid, w, (uint32_t)s, job->grid->velocity[s], job->h);
		}
	}
}

// Every velocity within the walls' contact constraints (the forces' and the viscosity's steps are not
// clipped as they go).
static void bsFluid_ClipAll(bsFluid* fluid, bsNeighbourGrid* grid, double h, bsPool* pool)
{
	if (fluid->wallOf != NULL)
	{
		bsClipJob job = {fluid, grid, h};
		bsPool_For(pool, grid->count, bs_fluidGrain, bsClip_Range, &job);
	}
}

void bsFluid_Solve(bsFluid* fluid, const bsFluidDef* def, double density, bsNeighbourGrid* grid, double h,
	bsPool* pool, bsFluidReport* report)
{
	memset(report, 0, sizeof(*report));
	report->pairs = fluid->listLength;
	bsFluid_ComputeDensity(fluid, grid, pool);
	bool viscous = def->kinematicViscosity > 0.0 || def->yieldStress > 0.0;
	if (viscous)
	{
		bsFluid_EffectiveViscosity(fluid, grid, def, density, pool);
	}
	bsFluid_ClipAll(fluid, grid, h, pool);
	double mean, largest;
	int n = bsFluid_PressureSolve(fluid, grid, h, true, def->divergenceError, INFINITY, def->maxIterations, pool,
		&mean, &largest);
	report->divergenceIterations = (uint64_t)n;
	report->unconverged += n >= def->maxIterations;
	if (def->surfaceTension > 0.0 || (fluid->wallOf != NULL && def->adhesion > 0.0))
	{
		bsFluid_ApplyTension(fluid, grid, def, density, h, pool);
	}
	if (viscous)
	{
		bool converged;
		report->viscosityIterations = (uint64_t)bsFluid_ViscositySolve(fluid, grid, def, density, h, pool, &converged);
		report->unconverged += !converged;
		bsFluid_ClipAll(fluid, grid, h, pool);
	}
	n = bsFluid_PressureSolve(fluid, grid, h, false, def->densityError, def->densityErrorMax, def->maxIterations, pool,
		&mean, &largest);
	report->densityIterations = (uint64_t)n;
	report->unconverged += n >= def->maxIterations;
	report->densityErrorMean = mean;
	report->densityErrorMax = largest;
}
