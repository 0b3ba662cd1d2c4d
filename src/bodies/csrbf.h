// csrbf.h — compactly supported radial basis functions (Wendland's C² function), as Kojekine et al.
// deform meshes (cited as [32] by Senin et al.): a displacement field
//     u(x) = sum_j w_j phi(|x - c_j| / a),   phi(r) = (1 - r)^4_+ (4 r + 1)
// whose weights w_j are solved so that u(c_i) is exactly the value given at each centre c_i. phi is
// positive definite in 3-D, so the system is symmetric positive definite for distinct centres and is
// solved by a Cholesky factor computed once; u is C² everywhere and zero farther than a from every
// centre.
#pragma once

#include "blobsim/base.h"
#include "blobsim/vec3.h"

typedef struct bsCsrbf
{
	bsVec3* centers;
	int count;
	double support;   // a
	double* factor;   // lower Cholesky factor of phi(|c_i - c_j| / a), count x count
} bsCsrbf;

double bsWendland(double r);

// Copies the centres and factors the system. bs_errInvalidArgument for count < 1, support <= 0 or
// centres too close to tell apart (not positive definite), bs_errOutOfMemory. *rbf zeroed on failure.
bsResult bsCsrbf_Init(bsCsrbf* rbf, const bsVec3* centers, int count, double support);
void bsCsrbf_Free(bsCsrbf* rbf);

// The weights whose field takes values[i] at centre i.
void bsCsrbf_Solve(const bsCsrbf* rbf, const bsVec3* values, bsVec3* weights);

// u(x) for those weights.
bsVec3 bsCsrbf_Eval(const bsCsrbf* rbf, const bsVec3* weights, bsVec3 x);
