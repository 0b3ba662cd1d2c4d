// fluid_tension.c — Akinci, Akinci & Teschner (2013), "Versatile Surface Tension and Adhesion for SPH
// Fluids": cohesion between particles (a kernel that pulls within the support and pushes close in),
// a curvature term from the particles' normals that smooths the surface, and the walls' adhesion
// (their half-space integral, fluid_wall.c, summed into bsFluidWall.adhesion by the caller):
//
//   n_i = H sum_j (V_j / rho_j) grad W_ij
//   a_i = -gamma sum_j 2 / (rho_i + rho_j) (rho0 V_j C(|x_ij|) x_ij / |x_ij| + n_i - n_j) + adhesion_i
//
// (densities as ratios rho / rho0), explicit: v += h a.
#include "fluid.h"

#include <math.h>

typedef struct bsTensionJob
{
	bsFluid* fluid;
	bsNeighbourGrid* grid;
	double gamma, density, h;
} bsTensionJob;

static void bsTensionNormal_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsTensionJob* job = context;
	bsFluid* f = job->fluid;
	const bsNeighbourGrid* g = job->grid;
	for (size_t s = begin; s < end; ++s)
	{
		bsVec3 n = bsV3(0.0, 0.0, 0.0);
		for (uint32_t k = f->first[s]; k < f->first[s + 1]; ++k)
		{
			uint32_t j = f->list[k];
			bsFluidPair p = bsFluid_Pair(g, (uint32_t)s, j);
			n = bsMulAdd(n, p.V / f->density[j], p.grad);
		}
		f->scratch[0][s] = bsScale(4.0 * g->radius[s], n);
	}
}

static bsVec3 bsTension_Acceleration(const bsTensionJob* job, uint32_t s)
{
	const bsFluid* f = job->fluid;
	const bsNeighbourGrid* g = job->grid;
	const bsVec3* normal = f->scratch[0];
	bsVec3 a = bsV3(0.0, 0.0, 0.0);
	for (uint32_t k = f->first[s]; k < f->first[s + 1]; ++k)
	{
		uint32_t j = f->list[k];
		bsFluidPair p = bsFluid_Pair(g, s, j);
		double K = 2.0 / (f->density[s] + f->density[j]);
		bsVec3 term = bsSub(normal[s], normal[j]);
		if (p.r > 0.0)
		{
			term = bsMulAdd(term, job->density * p.V * bsSph_Cohesion(p.r, p.H) / p.r, p.x);
		}
		a = bsMulSub(a, job->gamma * K, term);
	}
	return a;
}

static void bsTension_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsTensionJob* job = context;
	bsFluid* f = job->fluid;
	bsNeighbourGrid* g = job->grid;
	for (size_t s = begin; s < end; ++s)
	{
		bsVec3 a = job->gamma > 0.0 ? bsTension_Acceleration(job, (uint32_t)s) : bsV3(0.0, 0.0, 0.0);
		bsVec3 v;
		const bsFluidWall* w = bsFluid_WallOf(f, (uint32_t)s);
		if (w != NULL)
		{
			a = bsAdd(a, w->adhesion);
			bsFluidWallBodies* bodies = bsFluid_WallBodiesOf(f, (uint32_t)s);
			for (int e = 0; bodies != NULL && e < bodies->count; ++e)
			{
				bodies->dv[e] = bsMulAdd(bodies->dv[e], job->h, bodies->adhesion[e]);
			}
			v = bsFluid_ClipSlot(f, w, (uint32_t)s, bsMulAdd(g->velocity[s], job->h, a), job->h);
		}
		else
		{
			v = bsMulAdd(g->velocity[s], job->h, a);
		}
		g->velocity[s] = v;
	}
}

// The velocities' change by cohesion, curvature and adhesion over h. The normals are computed for
// every slot before any velocity changes (they read only positions).
void bsFluid_ApplyTension(bsFluid* fluid, bsNeighbourGrid* grid, const bsFluidDef* def, double density, double h,
	bsPool* pool)
{
	bsTensionJob job = {fluid, grid, def->surfaceTension, density, h};
	if (def->surfaceTension > 0.0)
	{
		bsPool_For(pool, grid->count, bs_fluidGrain, bsTensionNormal_Range, &job);
	}
	bsPool_For(pool, grid->count, bs_fluidGrain, bsTension_Range, &job);
}
