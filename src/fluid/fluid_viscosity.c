// fluid_viscosity.c — the implicit viscosity solve of Weiler, Koschier, Brand & Bender (2018), "A
// Physically Consistent Implicit Viscosity Solver for SPH Fluids", with the Laplacian of the velocity
// in particle strength exchange's form (Degond & Mas-Gallic 1989):
//
//   (lap v)_i = C / H^2 sum_j nu_ij (V_j / rho_ij) ((v_i - v_j) . x_ij) (dW_ij / r) x_ij
//
// (rho_ij the pair's mean density ratio, nu_ij its mean viscosity, C = 2d / <r^2>_W = 80/3 with the
// cubic spline's second moment <r^2>_W = 9/40 H^2). Each pair acts along x_ij, as in Weiler et al.'s
// form, so a rigid rotation feels none of it and the pairs keep angular momentum; in the continuum
// both read lap v + 2 grad(div v). Weiler et al. weigh the pair by dW / (r (r^2 + 0.01 H^2)): with
// about 26 neighbours its fourth moment leans on the neighbours at one spacing, and wherever the
// particles stand in layers (on the starting lattice, and in every flow along a wall) it reads a shear
// across the layers at 0.72-0.80 of lap v, so a channel flow ran 22-28% fast. Weighed by dW / r the
// same sums read 0.99-1.04 on a lattice, in layers and in a disordered packing alike (docs/fluids.md).
// The Laplacian is taken implicitly: V_i v_i - h V_i (lap v)_i = V_i v*_i, with the walls' share (the
// same kernel over their layers, fluid_wall.c) on the diagonal and in the right-hand side. Multiplied
// by V_i the matrix is symmetric positive definite (each pair's 3x3 block x x^T dW / r is the same
// both ways and negative semidefinite), solved by conjugate gradients with a Jacobi preconditioner
// from v* (the velocity after the forces), every dot product a sum of fixed chunks.
//
// A yield stress makes the viscosity the regularised Herschel-Bulkley effective one, from the strain
// rate of the velocities as the substep starts (D the symmetric part of the SPH velocity gradient),
// before the walls' contact constraints and the pressure touch them: gravity's step h g, cut at the
// floor for the particles resting on it but not yet for those above, read as a shear of g h / 2r (5
// per second at h = 1 ms, r = 1 mm), which held every particle of a slumping cylinder of mud far below
// its yield viscosity, so that it slumped as a liquid whatever its yield stress (s' = 0.61 at
// tau' = 0.3, where Pashias et al. give 0.07):
// nu_i = min(tau_y / (rho0 |gamma'|) + nu |gamma'|^(n - 1), nu_max), |gamma'| Tresca's (the largest
// principal rate of D' less the smallest, bsViscosity_StrainRate). Where the mud barely moves the
// viscosity is nu_max and the solve holds it nearly rigid: it stops, and its free surface stays put.
// Those rates carry the pressure solves' noise (a particle's neighbours approaching or receding within
// their tolerances), which a rate cannot tell from flow: a heap under its yield stress read it as
// yielding and crept, most at the finest resolution (24 particles over H: s' 0.005 more every 0.1 s,
// docs/fluids.md). So the viscosity is read again from the rates the solve leaves, and the solve run
// again with it: in a plug the first solve, stiff, damps the noise and leaves the rate its stress
// needs (sigma / (rho0 nu)), so the plug yields only where its stress passes tau_y; in a flowing layer
// the flow's rate stays. The first solve is the trial, the second the step's (bsFluid_ViscositySolve).
// A pair's viscosity is the harmonic mean of its two (the arithmetic one for equal viscosities, the
// same bytes for a Newtonian fluid): a yielded layer between a plug at nu_max and the floor shears
// as layers in series do, where the arithmetic mean lent it half the plug's viscosity.
#include "fluid.h"

#include "core.h"

#include <math.h>
#include <string.h>

typedef struct bsViscosityJob
{
	bsFluid* fluid;
	bsNeighbourGrid* grid;
	const bsFluidDef* def;
	double density;  // rho0
	double h;
	double alpha, beta;  // the CG step's
	const bsVec3* rhs;   // v*, the velocities the right-hand side is made of (the solve starts from grid->velocity)
} bsViscosityJob;

// The pair's tensor factor: the block is factor x x^T (<= 0).
static double bsViscosity_Pair(const bsViscosityJob* job, uint32_t s, uint32_t j, bsVec3 x, double r)
{
	const bsFluid* f = job->fluid;
	const bsNeighbourGrid* g = job->grid;
	double H = 2.0 * (g->radius[s] + g->radius[j]);
	double a = f->nu[s], b = f->nu[j];
	double nu = a == b ? a : 2.0 * a * b / (a + b);  // the harmonic mean: a layer's in series with its neighbour
	double rho = 0.5 * (f->density[s] + f->density[j]);
	double c = BS_FLUID_LAPLACIAN / (H * H) * nu * bsFluid_Volume(g->radius[s]) * bsFluid_Volume(g->radius[j]) / rho;
	return r > 0.0 ? c * bsSph_dW(r, H) / r : 0.0;
}

// The walls' tensor times p (their Laplacian's share, times nu_w and 10).
static bsVec3 bsViscosity_Wall(const bsFluidWall* w, bsVec3 p)
{
	const double* t = w->visc;
	return bsV3(t[0] * p.x + t[3] * p.y + t[4] * p.z, t[3] * p.x + t[1] * p.y + t[5] * p.z,
		t[4] * p.x + t[5] * p.y + t[2] * p.z);
}

static double bsViscosity_WallNu(const bsViscosityJob* job, uint32_t s)
{
	return isnan(job->def->wallViscosity) ? job->fluid->nu[s] : job->def->wallViscosity;
}

// Every pair's tensor factor of slot s into the fluid's pairFactor, read by every iteration.
static void bsViscosity_KeepPairs(const bsViscosityJob* job, uint32_t s)
{
	bsFluid* f = job->fluid;
	const bsNeighbourGrid* g = job->grid;
	for (uint32_t k = f->first[s]; k < f->first[s + 1]; ++k)
	{
		uint32_t j = f->list[k];
		bsVec3 x = bsSub(g->position[s], g->position[j]);
		f->pairFactor[k] = (float)bsViscosity_Pair(job, s, j, x, bsLength(x));
	}
}

// (A p)_i: V_i p_i - h V_i (lap p)_i, walls at rest (their velocity is in the right-hand side); the
// pairs' factors as bsViscosity_KeepPairs kept them (as the Jacobi diagonal reads them too).
static bsVec3 bsViscosity_Apply(const bsViscosityJob* job, uint32_t s, const bsVec3* p)
{
	const bsFluid* f = job->fluid;
	const bsNeighbourGrid* g = job->grid;
	double Vi = bsFluid_Volume(g->radius[s]);
	bsVec3 lap = bsV3(0.0, 0.0, 0.0);
	for (uint32_t k = f->first[s]; k < f->first[s + 1]; ++k)
	{
		uint32_t j = f->list[k];
		bsVec3 x = bsSub(g->position[s], g->position[j]);
		lap = bsMulAdd(lap, (double)f->pairFactor[k] * bsDot(bsSub(p[s], p[j]), x), x);
	}
	bsVec3 out = bsMulSub(bsScale(Vi, p[s]), job->h, lap);
	const bsFluidWall* w = bsFluid_WallOf(f, s);
	if (w != NULL)
	{
		double scale = BS_FLUID_LAPLACIAN * bsViscosity_WallNu(job, s) * Vi * job->h;
		out = bsMulSub(out, scale, bsViscosity_Wall(w, p[s]));
	}
	return out;
}

// The Jacobi preconditioner's diagonal of slot s.
static bsVec3 bsViscosity_Diagonal(const bsViscosityJob* job, uint32_t s)
{
	const bsFluid* f = job->fluid;
	const bsNeighbourGrid* g = job->grid;
	double Vi = bsFluid_Volume(g->radius[s]);
	bsVec3 d = bsV3(Vi, Vi, Vi);
	for (uint32_t k = f->first[s]; k < f->first[s + 1]; ++k)
	{
		uint32_t j = f->list[k];
		bsVec3 x = bsSub(g->position[s], g->position[j]);
		d = bsSub(d, bsScale(job->h * (double)f->pairFactor[k], bsV3(x.x * x.x, x.y * x.y, x.z * x.z)));
	}
	const bsFluidWall* w = bsFluid_WallOf(f, s);
	if (w != NULL)
	{
		double scale = BS_FLUID_LAPLACIAN * bsViscosity_WallNu(job, s) * Vi * job->h;
		const double* t = w->visc;
		d = bsSub(d, bsScale(scale, bsV3(t[0], t[1], t[2])));
	}
	return d;
}

static bsVec3 bsDivide(bsVec3 a, bsVec3 b)
{
	return bsV3(a.x / b.x, a.y / b.y, a.z / b.z);
}

static void bsAddOuter(double G[3][3], bsVec3 a, bsVec3 b)
{
	double u[3] = {a.x, a.y, a.z}, w[3] = {b.x, b.y, b.z};
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			G[r][c] += u[r] * w[c];
		}
	}
}

// The strain rate |gamma'| of slot s from the grid's velocities: D' the deviatoric part of the
// symmetric velocity gradient G = sum_j V_j / rho_j (v_j - v_i) grad W_ij^T, and |gamma'| = d1 - d3,
// its largest principal value less its smallest: Tresca's criterion, the largest shear stress
// rho nu_eff (d1 - d3) at tau_y. A simple shear reads its shear rate either way; von Mises'
// sqrt(2 D':D') reads sqrt(3) d in a uniaxial compression (d1 - d3 = 1.5 d), so a column yields at an
// axial stress of sqrt(3) tau_y instead of 2 tau_y, the stress of Pashias et al.'s slump model; it
// slumped as if its yield stress were 0.87 of its own (s' = 0.137 at tau' = 0.3, Pashias 0.094; their
// model at 0.26 gives 0.14). Shear alone, not compression: the pressure solves leave a particle's
// neighbours approaching or receding within their tolerance; counted as strain, that compression kept
// a resting heap yielding (a Bingham cylinder at tau' = 0.15 crept from s' = 0.395 at 0.7 s to 0.505
// at 2.8 s with the full D, to 0.479 with D'). The walls add nothing: as a neighbour at the walls'
// velocity, (v_w - v_i) grad Phi^T along the wall, they read gravity's step down a slope (h g sin a,
// before the contact constraints) as a shear under every resting particle, and the mud of
// configs/mud-slope.json, stopped within a second without them, ran on 1.2-2.6 cm a second for 5 s.
static double bsViscosity_StrainRate(const bsFluid* f, const bsNeighbourGrid* g, uint32_t s)
{
	double G[3][3];
	memset(G, 0, sizeof(G));
	for (uint32_t k = f->first[s]; k < f->first[s + 1]; ++k)
	{
		uint32_t j = f->list[k];
		bsFluidPair p = bsFluid_Pair(g, s, j);
		bsAddOuter(G, bsSub(g->velocity[j], g->velocity[s]), bsScale(p.V / f->density[j], p.grad));
	}
	double D[3][3], dd = 0.0, trace = (G[0][0] + G[1][1] + G[2][2]) / 3.0;
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			D[r][c] = 0.5 * (G[r][c] + G[c][r]) - (r == c ? trace : 0.0);
			dd += D[r][c] * D[r][c];
		}
	}
	if (!(dd > 0.0))
	{
		return 0.0;
	}
	// The principal values 2 p cos(phi + 2 pi k / 3) of the traceless D' (p = sqrt(D':D' / 6), cos 3 phi
	// = det(D' / p) / 2), so d1 - d3 = 2 sqrt(3) p sin(phi + pi / 3) = sqrt(2 D':D') sin(phi + pi / 3).
	double p = sqrt(dd / 6.0);
	double det = D[0][0] * (D[1][1] * D[2][2] - D[1][2] * D[2][1]) - D[0][1] * (D[1][0] * D[2][2] - D[1][2] * D[2][0]) +
		D[0][2] * (D[1][0] * D[2][1] - D[1][1] * D[2][0]);
	double cos3 = fmax(-1.0, fmin(1.0, det / (2.0 * p * p * p)));
	double phi = acos(cos3) / 3.0;
	return sqrt(2.0 * dd) * sin(phi + BS_PI / 3.0);
}

static void bsViscosityNu_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsViscosityJob* job = context;
	const bsFluidDef* d = job->def;
	for (size_t s = begin; s < end; ++s)
	{
		double rate = bsViscosity_StrainRate(job->fluid, job->grid, (uint32_t)s);
		double nu = d->maxViscosity;
		if (rate > 0.0)
		{
			double power = d->flowIndex == 1.0 ? 1.0 : pow(rate, d->flowIndex - 1.0);
			nu = fmin(d->yieldStress / (job->density * rate) + d->kinematicViscosity * power, nu);
		}
		job->fluid->nu[s] = nu;
	}
}

// r = b - A x, z = r / diag, p = z; chunk sums r.z, |b|^2. scratch: 0 r, 1 p, 2 Ap, 3 diagonal.
static void bsViscosityStart_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsViscosityJob* job = context;
	bsFluid* f = job->fluid;
	bsNeighbourGrid* g = job->grid;
	double rz = 0.0, bb = 0.0;
	for (size_t s = begin; s < end; ++s)
	{
		bsViscosity_KeepPairs(job, (uint32_t)s);
		double Vi = bsFluid_Volume(g->radius[s]);
		bsVec3 b = bsScale(Vi, job->rhs[s]);
		const bsFluidWall* w = bsFluid_WallOf(f, (uint32_t)s);
		if (w != NULL)
		{
			double scale = BS_FLUID_LAPLACIAN * bsViscosity_WallNu(job, (uint32_t)s) * Vi * job->h;
			b = bsMulSub(b, scale, w->viscWall);
		}
		bsVec3 r = bsSub(b, bsViscosity_Apply(job, (uint32_t)s, g->velocity));
		bsVec3 diag = bsViscosity_Diagonal(job, (uint32_t)s);
		bsVec3 z = bsDivide(r, diag);
		f->scratch[0][s] = r;
		f->scratch[1][s] = z;
		f->scratch[3][s] = diag;
		rz += bsDot(r, z);
		bb += bsDot(b, b);
	}
	double* out = f->chunkSum + (begin / bs_fluidGrain) * 4;
	out[0] = rz;
	out[1] = bb;
}

// Ap; chunk sum p.Ap.
static void bsViscosityApply_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsViscosityJob* job = context;
	bsFluid* f = job->fluid;
	double pAp = 0.0;
	for (size_t s = begin; s < end; ++s)
	{
		bsVec3 ap = bsViscosity_Apply(job, (uint32_t)s, f->scratch[1]);
		f->scratch[2][s] = ap;
		pAp += bsDot(f->scratch[1][s], ap);
	}
	f->chunkSum[(begin / bs_fluidGrain) * 4] = pAp;
}

// x += alpha p, r -= alpha Ap; chunk sums r.z (z = r / diag) and |r|^2.
static void bsViscosityStep_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsViscosityJob* job = context;
	bsFluid* f = job->fluid;
	double rz = 0.0, rr = 0.0;
	for (size_t s = begin; s < end; ++s)
	{
		job->grid->velocity[s] = bsMulAdd(job->grid->velocity[s], job->alpha, f->scratch[1][s]);
		bsVec3 r = bsMulSub(f->scratch[0][s], job->alpha, f->scratch[2][s]);
		f->scratch[0][s] = r;
		rz += bsDot(r, bsDivide(r, f->scratch[3][s]));
		rr += bsDot(r, r);
	}
	double* out = f->chunkSum + (begin / bs_fluidGrain) * 4;
	out[0] = rz;
	out[1] = rr;
}

// p = z + beta p.
static void bsViscosityDirection_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsViscosityJob* job = context;
	bsFluid* f = job->fluid;
	for (size_t s = begin; s < end; ++s)
	{
		bsVec3 z = bsDivide(f->scratch[0][s], f->scratch[3][s]);
		f->scratch[1][s] = bsMulAdd(z, job->beta, f->scratch[1][s]);
	}
}

static void bsViscosityConstant_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsViscosityJob* job = context;
	for (size_t s = begin; s < end; ++s)
	{
		job->fluid->nu[s] = job->def->kinematicViscosity;
	}
}

void bsFluid_EffectiveViscosity(bsFluid* fluid, bsNeighbourGrid* grid, const bsFluidDef* def, double density,
	bsPool* pool)
{
	bsViscosityJob job = {fluid, grid, def, density, 0.0, 0.0, 0.0, NULL};
	bsPool_For(pool, grid->count, bs_fluidGrain, bsFluidDef_Yields(def) ? bsViscosityNu_Range : bsViscosityConstant_Range,
		&job);
}

// Two-way coupling: each pushed body's walls' share of the solve's change, h C nu_w (T_b v - T_b v_b)
// (the wall terms of A v = b over V_i, at the solved v), added to its share's dv.
static void bsViscosityBodies_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsViscosityJob* job = context;
	for (size_t s = begin; s < end; ++s)
	{
		bsFluidWallBodies* bodies = bsFluid_WallBodiesOf(job->fluid, (uint32_t)s);
		double scale = BS_FLUID_LAPLACIAN * bsViscosity_WallNu(job, (uint32_t)s) * job->h;
		bsVec3 v = job->grid->velocity[s];
		for (int e = 0; bodies != NULL && e < bodies->count; ++e)
		{
			const double* t = bodies->visc[e];
			bsVec3 Tv = bsV3(t[0] * v.x + t[3] * v.y + t[4] * v.z, t[3] * v.x + t[1] * v.y + t[5] * v.z,
				t[4] * v.x + t[5] * v.y + t[2] * v.z);
			bodies->dv[e] = bsMulAdd(bodies->dv[e], scale, bsSub(Tv, bodies->viscWall[e]));
		}
	}
}

static int bsFluid_ViscositySolveCG(bsViscosityJob* job, bsPool* pool, bool* converged);

int bsFluid_ViscositySolve(bsFluid* fluid, bsNeighbourGrid* grid, const bsFluidDef* def, double density, double h,
	bsPool* pool, bool* converged)
{
	bsViscosityJob job = {fluid, grid, def, density, h, 0.0, 0.0, grid->velocity};
	int n = 0;
	if (bsFluidDef_Yields(def))
	{
		// The trial solve, with the viscosity of the rates as the substep started; the viscosity again
		// from the rates it leaves (the stress it needed); the solve again from v*, started from the
		// trial's solution. Only the second's convergence counts (the substeps' rule reads it).
		memcpy(fluid->start, grid->velocity, grid->count * sizeof(bsVec3));
		job.rhs = fluid->start;
		bool trial;
		n = bsFluid_ViscositySolveCG(&job, pool, &trial);
		bsPool_For(pool, grid->count, bs_fluidGrain, bsViscosityNu_Range, &job);
	}
	n += bsFluid_ViscositySolveCG(&job, pool, converged);
	if (fluid->wallBodies != NULL)
	{
		bsPool_For(pool, grid->count, bs_fluidGrain, bsViscosityBodies_Range, &job);
	}
	return n;
}

static int bsFluid_ViscosityIterate(bsViscosityJob* jobp, bsPool* pool, bool* converged)
{
	bsViscosityJob job = *jobp;
	bsFluid* fluid = job.fluid;
	bsNeighbourGrid* grid = job.grid;
	const bsFluidDef* def = job.def;
	bsPool_For(pool, grid->count, bs_fluidGrain, bsViscosityStart_Range, &job);
	double sums[2];
	bsFluid_SumChunks(fluid, grid->count, 2, sums);
	double rz = sums[0], target = def->viscosityError * def->viscosityError * sums[1];
	*converged = true;
	for (int k = 0; k < def->maxViscosityIterations; ++k)
	{
		bsPool_For(pool, grid->count, bs_fluidGrain, bsViscosityApply_Range, &job);
		bsFluid_SumChunks(fluid, grid->count, 1, sums);
		if (!(sums[0] > 0.0))
		{
			return k;  // p = 0: r = 0, solved
		}
		job.alpha = rz / sums[0];
		bsPool_For(pool, grid->count, bs_fluidGrain, bsViscosityStep_Range, &job);
		bsFluid_SumChunks(fluid, grid->count, 2, sums);
		if (sums[1] <= target)
		{
			return k + 1;
		}
		job.beta = sums[0] / rz;
		rz = sums[0];
		bsPool_For(pool, grid->count, bs_fluidGrain, bsViscosityDirection_Range, &job);
	}
	*converged = false;
	return def->maxViscosityIterations;
}

// One conjugate-gradient solve, then the density pass again: the solve's A p is the block of the
// densities, factors and pressures (bsFluid.block), so whatever reads them after it (the next
// viscosity read from the strain rates, the constant-density solve) reads them as the density pass
// left them, the same bytes.
static int bsFluid_ViscositySolveCG(bsViscosityJob* job, bsPool* pool, bool* converged)
{
	int n = bsFluid_ViscosityIterate(job, pool, converged);
	bsFluid_ComputeDensity(job->fluid, job->grid, pool);
	return n;
}
