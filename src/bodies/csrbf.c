// csrbf.c — Wendland C² CSRBF interpolation (csrbf.h): a Cholesky factor once, two triangular solves
// per set of values.
#include "csrbf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double bsWendland(double r)
{
	if (!(r < 1.0))
	{
		return 0.0;
	}
	double s = 1.0 - r;
	double s2 = s * s;
	return s2 * s2 * (4.0 * r + 1.0);
}

static double bsCsrbf_Phi(const bsCsrbf* rbf, bsVec3 a, bsVec3 b)
{
	return bsWendland(bsLength(bsSub(a, b)) / rbf->support);
}

bsResult bsCsrbf_Init(bsCsrbf* rbf, const bsVec3* centers, int count, double support)
{
	memset(rbf, 0, sizeof *rbf);
	if (count < 1 || count > 4096 || centers == NULL || !(support > 0.0) || !isfinite(support))
	{
		return bs_errInvalidArgument;
	}
	size_t n = (size_t)count;
	rbf->centers = malloc(n * sizeof(bsVec3));
	rbf->factor = calloc(n * n, sizeof(double));
	if (rbf->centers == NULL || rbf->factor == NULL)
	{
		bsCsrbf_Free(rbf);
		return bs_errOutOfMemory;
	}
	memcpy(rbf->centers, centers, n * sizeof(bsVec3));
	rbf->count = count;
	rbf->support = support;
	double* L = rbf->factor;
	for (size_t i = 0; i < n; ++i)
	{
		if (!bsIsValidVec3(centers[i]))
		{
			bsCsrbf_Free(rbf);
			return bs_errNonFinite;
		}
		for (size_t j = 0; j <= i; ++j)
		{
			double sum = bsCsrbf_Phi(rbf, centers[i], centers[j]);
			for (size_t k = 0; k < j; ++k)
			{
				sum -= L[i * n + k] * L[j * n + k];
			}
			if (i == j)
			{
				// A pivot this small means two centres nearly coincide: their values could not both
				// be met.
				if (!(sum > 1e-12))
				{
					bsCsrbf_Free(rbf);
					return bs_errInvalidArgument;
				}
				L[i * n + i] = sqrt(sum);
			}
			else
			{
				L[i * n + j] = sum / L[j * n + j];
			}
		}
	}
	return bs_ok;
}

void bsCsrbf_Free(bsCsrbf* rbf)
{
	free(rbf->centers);
	free(rbf->factor);
	memset(rbf, 0, sizeof *rbf);
}

void bsCsrbf_Solve(const bsCsrbf* rbf, const bsVec3* values, bsVec3* weights)
{
	size_t n = (size_t)rbf->count;
	const double* L = rbf->factor;
	for (size_t i = 0; i < n; ++i)  // L y = values
	{
		bsVec3 sum = values[i];
		for (size_t k = 0; k < i; ++k)
		{
			sum = bsMulSub(sum, L[i * n + k], weights[k]);
		}
		weights[i] = bsScale(1.0 / L[i * n + i], sum);
	}
	for (size_t i = n; i-- > 0;)  // L^T w = y
	{
		bsVec3 sum = weights[i];
		for (size_t k = i + 1; k < n; ++k)
		{
			sum = bsMulSub(sum, L[k * n + i], weights[k]);
		}
		weights[i] = bsScale(1.0 / L[i * n + i], sum);
	}
}

bsVec3 bsCsrbf_Eval(const bsCsrbf* rbf, const bsVec3* weights, bsVec3 x)
{
	bsVec3 u = bsV3(0.0, 0.0, 0.0);
	for (int j = 0; j < rbf->count; ++j)
	{
		double phi = bsCsrbf_Phi(rbf, x, rbf->centers[j]);
		if (phi != 0.0)
		{
			u = bsMulAdd(u, phi, weights[j]);
		}
	}
	return u;
}
