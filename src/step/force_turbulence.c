// force_turbulence.c — curl-noise turbulence (step.h: bsStepDef.turbulence): a drag towards the curl of
// a seeded noise potential, with exact derivatives; solved exactly over each substep like the wind.
#include "forces.h"
#include "noise.h"

#include <math.h>
#include <string.h>

bsTurbulenceDef bsDefaultTurbulenceDef(void)
{
	bsTurbulenceDef def = {.rate = 0.0, .amplitude = 1.0, .scale = 1.0, .speed = 1.0, .seed = 1};
	return def;
}

bool bsTurbulenceDef_IsValid(const bsTurbulenceDef* def)
{
	return def->rate >= 0.0 && isfinite(def->rate) && def->amplitude >= 0.0 && isfinite(def->amplitude) &&
		def->scale > 0.0 && isfinite(def->scale) && def->speed >= 0.0 && isfinite(def->speed);
}

// The potential's three components at q and time tau: each one's gradient (grad[a][j] = dpsi_a / dq_j)
// and, when hess is not NULL, its second derivatives, blended from slice k to k + 1.
static void bsTurbulence_Potential(const bsTurbulenceDef* def, const double q[3], double tau, double grad[3][3],
	double (*hess)[3][3])
{
	double k = floor(tau);
	double u = tau - k;
	double blend = u * u * u * (u * (u * 6.0 - 15.0) + 10.0);
	int64_t slice = (int64_t)k;
	for (int a = 0; a < 3; ++a)
	{
		bsNoiseSample s0;
		bsGradientNoise(def->seed, 16u + (uint64_t)a, slice, q, hess != NULL, &s0);
		if (blend > 0.0)
		{
			bsNoiseSample s1;
			bsGradientNoise(def->seed, 16u + (uint64_t)a, slice + 1, q, hess != NULL, &s1);
			for (int i = 0; i < 3; ++i)
			{
				s0.gradient[i] += blend * (s1.gradient[i] - s0.gradient[i]);
				for (int j = 0; j < 3; ++j)
				{
					s0.hessian[i][j] += blend * (s1.hessian[i][j] - s0.hessian[i][j]);
				}
			}
		}
		memcpy(grad[a], s0.gradient, sizeof(s0.gradient));
		if (hess != NULL)
		{
			memcpy(hess[a], s0.hessian, sizeof(s0.hessian));
		}
	}
}

bsVec3 bsTurbulence_Velocity(const bsTurbulenceDef* def, bsVec3 p, double t, double jacobian[3][3])
{
	double q[3] = {p.x / def->scale, p.y / def->scale, p.z / def->scale};
	double tau = def->speed * t;
	if (!isfinite(tau) || fabs(tau) > 0x1.0p52)
	{
		tau = 0.0;
	}
	double g[3][3];
	double h[3][3][3];
	bsTurbulence_Potential(def, q, tau, g, jacobian != NULL ? h : NULL);
	double s = def->amplitude / BS_CURL_NOISE_RMS;
	if (jacobian != NULL)
	{
		// d(curl psi)_i / dq_j from the Hessians: curl_x = dpsi_z/dy - dpsi_y/dz, and so on round.
		double sj = s / def->scale;
		for (int j = 0; j < 3; ++j)
		{
			jacobian[0][j] = sj * (h[2][1][j] - h[1][2][j]);
			jacobian[1][j] = sj * (h[0][2][j] - h[2][0][j]);
			jacobian[2][j] = sj * (h[1][0][j] - h[0][1][j]);
		}
	}
	return bsV3(s * (g[2][1] - g[1][2]), s * (g[0][2] - g[2][0]), s * (g[1][0] - g[0][1]));
}

// --- the force class ---

static bool bsTurbulenceForce_Active(const bsForceContext* c)
{
	return c->def->turbulence.rate > 0.0 && c->def->turbulence.amplitude > 0.0;
}

// v <- u + e (v - u), u at the particle's position before the move: each particle from its own state.
static void bsTurbulenceForce_Adjust(const bsForceContext* c, bsParticles* p, size_t begin, size_t end)
{
	const bsTurbulenceDef* def = &c->def->turbulence;
	double t = c->time + 0.5 * c->h;
	double e = exp(-def->rate * c->h);
	for (size_t i = begin; i < end; ++i)
	{
		if (p->state[i] == bs_particleFree)
		{
			bsVec3 u = bsTurbulence_Velocity(def, p->position[i], t, NULL);
			p->velocity[i] = bsForce_Relax(p->velocity[i], u, e);
		}
	}
}

static void bsTurbulenceForce_SetDefaults(bsStepDef* def)
{
	def->turbulence = bsDefaultTurbulenceDef();
}

static bool bsTurbulenceForce_IsValid(const bsStepDef* def)
{
	return bsTurbulenceDef_IsValid(&def->turbulence);
}

const bsForceClass bs_turbulenceForce = {
	.name = "turbulence",
	.active = bsTurbulenceForce_Active,
	.adjust = bsTurbulenceForce_Adjust,
	.setDefaults = bsTurbulenceForce_SetDefaults,
	.isValid = bsTurbulenceForce_IsValid,
};
