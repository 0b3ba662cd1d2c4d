// fluid_pressure.c — the fluid's density and DFSPH's two pressure solves (Bender & Koschier 2017,
// "Divergence-Free SPH for Incompressible and Viscous Fluids", Algorithms 2 and 3), in density ratios
// (rho / rho0) and particle volumes V = (2r)^3:
//
//   density   rho_i = V_i W_ii + sum_j V_j W_ij + Phi_i (the walls' layers, fluid_wall.c)
//   factor    a_i = 1 / (|sum_j V_j grad W_ij + grad Phi_i|^2 + sum_j |V_j grad W_ij|^2)
//   rate      D_i = sum_j V_j (v_i - v_j) . grad W_ij + v_i . grad Phi_i - flux_i (d rho_i / dt)
//   pressure  divergence solve: k_i = max(D_i, 0) a_i / h; constant density: k_i = max(rho_i + h D_i -
//             max(1, rho_i - 0.1), 0) a_i / h^2 (only compression: a free surface pulls nothing; at
//             most a tenth off a substep, BS_FLUID_MOST_CORRECTION)
//   update    v_i -= h (sum_j V_j (k_i + k_j) grad W_ij + k_i grad Phi_i)
//
// Each iteration is two passes (the rates and pressures, then the update), each slot writing only its
// own values, Jacobi-style. The pressures k (h-free: p / (rho0 rho^2)) summed over a solve's iterations
// are kept by particle and start the next substep's solve at half their value (a warm start, as
// SPlisHSPlasH's DFSPH does). The solve only adds pressure where a particle is compressed; a
// projected Jacobi that also took pressure back (two-sided, relaxed by 1/2, with whole warm starts)
// diverged within a step on a 30-layer column in a box: measured and left.
#include "fluid.h"

#include <math.h>
#include <string.h>

// Particles with fewer neighbours than this (counting a wall's half-space as the neighbours it
// stands for) take no part in the divergence solve: at a free surface it would pull them apart.
#define BS_FLUID_SURFACE_NEIGHBOURS 20.0
// A full neighbourhood at the rest spacing: 26 neighbours within the support of the cubic lattice.
#define BS_FLUID_FULL_NEIGHBOURS 26.0
#ifndef BS_FLUID_WARM
#define BS_FLUID_WARM 1.0
#endif

typedef struct bsPressureJob
{
	bsFluid* fluid;
	bsNeighbourGrid* grid;
	double h;
	bool divergence;   // which solve
} bsPressureJob;


static void bsDensity_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsPressureJob* job = context;
	bsFluid* f = job->fluid;
	const bsNeighbourGrid* g = job->grid;
	for (size_t s = begin; s < end; ++s)
	{
		double ri = g->radius[s];
		double rho = bsFluid_Volume(ri) * bsSph_W(0.0, 4.0 * ri);
		bsVec3 sum = bsV3(0.0, 0.0, 0.0);
		double squares = 0.0;
		for (uint32_t k = f->first[s]; k < f->first[s + 1]; ++k)
		{
			uint32_t j = f->list[k];
			bsFluidPair p = bsFluid_Pair(g, (uint32_t)s, j);
			f->pairFactor[k] = (float)bsFluid_GradFactor(&p);
			rho += p.V * bsSph_W(p.r, p.H);
			bsVec3 grad = bsScale(p.V, p.grad);
			sum = bsAdd(sum, grad);
			squares += bsDot(grad, grad);
		}
		const bsFluidWall* w = bsFluid_WallOf(f, (uint32_t)s);
		if (w != NULL)
		{
			rho += w->phi;
			sum = bsAdd(sum, w->gradPhi);
		}
		double S = bsDot(sum, sum) + squares;
		f->density[s] = rho;
		f->factor[s] = S > 0.0 ? 1.0 / S : 0.0;
	}
}

// The rate of change of slot s's density ratio at the current velocities.
static double bsPressure_Rate(const bsFluid* f, const bsNeighbourGrid* g, uint32_t s)
{
	bsVec3 vi = g->velocity[s];
	double rate = 0.0;
	for (uint32_t k = f->first[s]; k < f->first[s + 1]; ++k)
	{
		bsFluidGrad p = bsFluid_Grad(f, g, s, k);
		rate += p.V * bsDot(bsSub(vi, g->velocity[f->list[k]]), p.grad);
	}
	const bsFluidWall* w = bsFluid_WallOf(f, s);
	return w != NULL ? rate + bsDot(vi, w->gradPhi) - w->flux : rate;
}

// Slot s's predicted density error for the solve: the compression rate x h (divergence solve), or
// rho + h D - 1 (constant density); negative for an expansion. A particle short of neighbours (a
// free surface) has none in the divergence solve.
static bool bsPressure_AtSurface(const bsPressureJob* job, uint32_t s)
{
	const bsFluid* f = job->fluid;
	const bsFluidWall* w = bsFluid_WallOf(f, s);
	double wallShare = w != NULL ? 2.0 * BS_FLUID_FULL_NEIGHBOURS * w->phi : 0.0;
	return (double)(f->first[s + 1] - f->first[s]) + wallShare < BS_FLUID_SURFACE_NEIGHBOURS;
}

// The most the constant-density solve takes off a particle's density ratio in one substep. A particle
// born overlapping others (a nozzle emits at random points of its disk) reads a density ratio of 2 or
// more; corrected in one substep, that overlap became a velocity of a spacing over the substep, which
// shrank the next substeps (the CFL rule), which raised the next velocities: a water pour threw
// particles out at 372 m/s within 7 steps. Taken off a tenth a substep, such an overlap parts at a
// tenth of a spacing a substep, and the same pour falls at 5.9 m/s at most (5.1 from its height). At
// 0.2 it still blew up; at 0.05 the dam-break figure changed its bytes, at 0.1 it keeps them (its
// particles stay within 10% of their rest density as a substep starts).
#define BS_FLUID_MOST_CORRECTION 0.1

static double bsPressure_Error(const bsPressureJob* job, uint32_t s)
{
	double rate = bsPressure_Rate(job->fluid, job->grid, s);
	if (job->divergence)
	{
		return rate * job->h;
	}
	double rho = job->fluid->density[s];
	double target = rho - BS_FLUID_MOST_CORRECTION > 1.0 ? rho - BS_FLUID_MOST_CORRECTION : 1.0;
	return rho + job->h * rate - target;
}

// Pass one of an iteration: every slot's pressure from its compression (an expansion has none: a free
// surface pulls nothing; a particle short of neighbours has none in the divergence solve), added to
// the particle's total; the chunk's sum and largest of the compressions.
static void bsPressureError_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsPressureJob* job = context;
	bsFluid* f = job->fluid;
	float* total = job->divergence ? f->warmDivergence : f->warmDensity;
	double sum = 0.0, largest = 0.0;
	for (size_t s = begin; s < end; ++s)
	{
		bool surface = job->divergence && bsPressure_AtSurface(job, (uint32_t)s);
		double e = surface ? 0.0 : fmax(bsPressure_Error(job, (uint32_t)s), 0.0);
		sum += e;
		largest = e > largest ? e : largest;
		f->kappa[s] = e * f->factor[s] / (job->h * job->h);
		total[job->grid->index[s]] += (float)f->kappa[s];
	}
	double* out = f->chunkSum + (begin / bs_fluidGrain) * 4;
	out[0] = sum;
	out[1] = largest;
}

// Pass two: every slot's velocity from the pressures (kappa), within its walls' contact constraints.
static void bsPressureUpdate_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsPressureJob* job = context;
	bsFluid* f = job->fluid;
	bsNeighbourGrid* g = job->grid;
	for (size_t s = begin; s < end; ++s)
	{
		double ki = f->kappa[s];
		bsVec3 dv = bsV3(0.0, 0.0, 0.0);
		for (uint32_t k = f->first[s]; k < f->first[s + 1]; ++k)
		{
			bsFluidGrad p = bsFluid_Grad(f, g, (uint32_t)s, k);
			dv = bsMulAdd(dv, p.V * (ki + f->kappa[f->list[k]]), p.grad);
		}
		const bsFluidWall* w = bsFluid_WallOf(f, (uint32_t)s);
		if (w != NULL)
		{
			dv = bsMulAdd(dv, ki, w->gradPhi);
			bsFluidWallBodies* bodies = bsFluid_WallBodiesOf(f, (uint32_t)s);
			for (int e = 0; bodies != NULL && e < bodies->count; ++e)
			{
				bodies->dv[e] = bsMulSub(bodies->dv[e], job->h * ki, bodies->gradPhi[e]);
			}
		}
		bsVec3 v = bsMulSub(g->velocity[s], job->h, dv);
		g->velocity[s] = w != NULL ? bsFluid_ClipSlot(f, w, (uint32_t)s, v, job->h) : v;
	}
}

// The warm start: half of last substep's total pressure for a particle compressed now (else none),
// which starts the new total. A whole one, or one for every particle, overshoots: the solve only adds
// pressure, so it could not take an excess back.
static void bsPressureWarm_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsPressureJob* job = context;
	bsFluid* f = job->fluid;
	float* total = job->divergence ? f->warmDivergence : f->warmDensity;
	for (size_t s = begin; s < end; ++s)
	{
		uint32_t p = job->grid->index[s];
		double k = 0.5 * (double)total[p];
		k = k > 0.0 && bsPressure_Error(job, (uint32_t)s) > 0.0 ? k : 0.0;
		f->kappa[s] = k;
		total[p] = (float)k;
	}
}

void bsFluid_ComputeDensity(bsFluid* fluid, bsNeighbourGrid* grid, bsPool* pool)
{
	bsPressureJob job = {fluid, grid, 0.0, false};
	bsPool_For(pool, grid->count, bs_fluidGrain, bsDensity_Range, &job);
}

// The largest of the chunks' maxima (in chunk order: any order gives the same maximum).
static double bsFluid_ChunkMax(const bsFluid* f, uint32_t slots)
{
	size_t chunks = slots / bs_fluidGrain + (slots % bs_fluidGrain != 0);
	double m = 0.0;
	for (size_t c = 0; c < chunks; ++c)
	{
		m = fmax(m, f->chunkSum[c * 4 + 1]);
	}
	return m;
}

// One DFSPH solve; returns its iterations. It stops when the mean error is at most tolerance and the
// largest at most peakTolerance (or at maxIterations). *mean and *largest: the errors it ended with.
int bsFluid_PressureSolve(bsFluid* fluid, bsNeighbourGrid* grid, double h, bool divergence, double tolerance,
	double peakTolerance,
	int maxIterations, bsPool* pool, double* mean, double* largest)
{
	bsPressureJob job = {fluid, grid, h, divergence};
	bsPool_For(pool, grid->count, bs_fluidGrain, bsPressureWarm_Range, &job);
	bsPool_For(pool, grid->count, bs_fluidGrain, bsPressureUpdate_Range, &job);
	int minimum = divergence ? 1 : 2;
	int iterations = 0;
	for (;;)
	{
		bsPool_For(pool, grid->count, bs_fluidGrain, bsPressureError_Range, &job);
		double sums[1];
		bsFluid_SumChunks(fluid, grid->count, 1, sums);
		*mean = grid->count > 0 ? sums[0] / grid->count : 0.0;
		*largest = bsFluid_ChunkMax(fluid, grid->count);
		bool converged = *mean <= tolerance && *largest <= peakTolerance && iterations >= minimum;
		if (converged || iterations >= maxIterations)
		{
			return iterations;
		}
		bsPool_For(pool, grid->count, bs_fluidGrain, bsPressureUpdate_Range, &job);
		iterations += 1;
	}
}
