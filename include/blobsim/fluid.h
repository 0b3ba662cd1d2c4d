// fluid.h — the particle fluid's settings (bsFluidDef), the `fluid` interaction's part of
// bsInteractionDef (step.h). The solver is src/fluid/; docs/fluids.md says what it computes.
#pragma once

// The fluid interaction (src/fluid, src/step/interaction_fluid.c; docs/fluids.md): an SPH fluid solved
// with DFSPH (Bender & Koschier 2017: a divergence-free solve and a constant-density solve, both
// Jacobi iterations on the pressure), Weiler et al.'s (2018) implicit viscosity (conjugate gradients),
// a regularised Herschel-Bulkley effective viscosity for a yield stress, Akinci et al.'s (2013)
// cohesion, curvature and adhesion. Each particle of radius r stands for a cube of fluid (2r)^3 (its
// rest spacing is 2r, its mass density (2r)^3); the kernel is the cubic spline with support 4r. The
// walls (meshes, planes, bodies) add to a particle's density and pressure as the half-space behind
// their nearest point within the support (an exact integral of the kernel), and the move phase's
// exact sweeps keep every particle out of them. The forces (gravity, drag, the field) act before the
// fluid's phase, so that its pressure corrects the velocity the move phase uses.
typedef struct bsFluidDef
{
	double kinematicViscosity; // nu, m^2/s, >= 0 (water 1e-6) [1e-6]
	double wallViscosity;      // nu against walls, m^2/s, >= 0; NaN: as kinematicViscosity [NaN]
	double yieldStress;        // Herschel-Bulkley tau_y, Pa, >= 0, yielding by Tresca's criterion (the
	                           // largest shear stress; |gamma'| below: the largest principal strain
	                           // rate less the smallest); 0: Newtonian [0]
	double flowIndex;          // Herschel-Bulkley n, 0.2..2: nu_eff = (tau_y / |gamma'| + rho nu
	                           // |gamma'|^(n-1)) / rho, at most maxViscosity [1]
	double maxViscosity;       // the cap of the effective viscosity, m^2/s, >= kinematicViscosity [1000]
	double surfaceTension;     // Akinci's gamma, the cohesion and curvature coefficient, >= 0 [0]
	double adhesion;           // Akinci's beta, the pull of the walls, >= 0 [0]
	double densityError;       // the constant-density solve stops when the mean compression
	                           // (rho / rho0 - 1, over compressed particles) is at most this, > 0 [5e-4]
	double densityErrorMax;    // and the largest compression of any particle at most this, > 0 [5e-3]
	double divergenceError;    // the divergence solve stops when the mean compression rate times the
	                           // substep is at most this, > 0 [1e-3]
	int maxIterations;         // of each pressure solve, 1..10000 [100]
	double viscosityError;     // the viscosity solve stops at this relative residual, > 0 [1e-4]
	int maxViscosityIterations; // 1..10000 [200]
	double cfl;                // a substep moves no particle more than cfl x 2r, 0 < cfl <= 1 [0.4]
} bsFluidDef;
