// fluid_wall.h — what a wall adds to a fluid particle: the integrals of the fluid's kernels over the
// half-space behind the plane through the wall's nearest point, at distance d < H (the support) from
// the particle (docs/fluids.md: "Walls"). The density integral and its gradient are closed forms
// (sph_kernel.h); the viscosity and adhesion integrals are tables built once by quadrature.
#pragma once

typedef struct bsWallKernels
{
	double phi;                  // the wall's share of the density ratio
	double gradient;             // >= 0: the density ratio's gradient is -gradient n (n: wall to particle)
	double viscosityNormal;      // the viscosity Laplacian's tensor of the wall's layers over its constant
	                             // (<= 0; fluid_viscosity.c), normal part, 1/m^2
	double viscosityTangential;  // its tangential part
	double adhesion;             // Akinci's adhesion kernel integrated, its component along n (>= 0)
} bsWallKernels;

// The kernels' integrals for a wall at distance d from a particle of radius r and support H; all 0
// from d = H. The density's is the lattice's (fluid_wall.c: layers at the rest spacing 2r).
bsWallKernels bsFluidWall_Kernels(double d, double r, double H);

// The density the layers of two walls at right angles, at distances da and db, count twice (an edge
// of a box), to subtract, and its slopes along da and db (<= 0).
void bsFluidWall_Edge(double da, double db, double r, double H, double* phi, double* slopeA, double* slopeB);

