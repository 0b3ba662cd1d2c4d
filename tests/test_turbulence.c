// Curl-noise turbulence (step.h: bsTurbulenceDef) against closed forms: the noise's exact gradient and
// Hessian against central differences of its value and gradient; the field against the curl of the
// potential by central differences (~1e-6 relative); its divergence, from the exact Jacobian, at most
// 1e-6 of its magnitude at random points and times (and by central differences of the field to the
// differences' own error); its RMS speed about the amplitude; smooth and still in time as set; the
// drag towards it through bsWorld_Step; the refusal of bad settings.
#include "test.h"
#include "noise.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <math.h>
#include <string.h>

static bsTurbulenceDef Turbulence(void)
{
	bsTurbulenceDef def = bsDefaultTurbulenceDef();
	def.rate = 4.0;
	def.amplitude = 2.0;
	def.scale = 0.7;
	def.speed = 0.8;
	def.seed = 2024;
	return def;
}

static bsVec3 RandomPoint(bsRng* rng, double size)
{
	return bsV3(size * (2.0 * bsRng_Uniform(rng) - 1.0), size * (2.0 * bsRng_Uniform(rng) - 1.0),
		size * (2.0 * bsRng_Uniform(rng) - 1.0));
}

// The noise's gradient and Hessian against central differences of its value and gradient.
static int NoiseDerivatives(void)
{
	bsRng rng = bsMakeRng(5);
	const double e = 1e-5;
	for (int n = 0; n < 200; ++n)
	{
		bsVec3 r = RandomPoint(&rng, 4.0);
		double p[3] = {r.x, r.y, r.z};
		bsNoiseSample s;
		bsGradientNoise(77, 3, n % 5, p, true, &s);
		ENSURE(fabs(s.value) <= 1.5);
		for (int j = 0; j < 3; ++j)
		{
			double a[3] = {p[0], p[1], p[2]};
			double b[3] = {p[0], p[1], p[2]};
			a[j] += e;
			b[j] -= e;
			bsNoiseSample sa;
			bsNoiseSample sb;
			bsGradientNoise(77, 3, n % 5, a, true, &sa);
			bsGradientNoise(77, 3, n % 5, b, true, &sb);
			ENSURE_SMALL((sa.value - sb.value) / (2.0 * e) - s.gradient[j], 1e-7);
			for (int i = 0; i < 3; ++i)
			{
				ENSURE_SMALL((sa.gradient[i] - sb.gradient[i]) / (2.0 * e) - s.hessian[i][j], 1e-6);
			}
		}
	}
	return 0;
}

// The potential's component a at (p, t), from its definition (step.h): the noise of slice k blended
// into that of slice k + 1.
static double Potential(const bsTurbulenceDef* def, int a, bsVec3 p, double t)
{
	double q[3] = {p.x / def->scale, p.y / def->scale, p.z / def->scale};
	double tau = def->speed * t;
	double k = floor(tau);
	double u = tau - k;
	double blend = u * u * u * (u * (u * 6.0 - 15.0) + 10.0);
	bsNoiseSample s0;
	bsNoiseSample s1;
	bsGradientNoise(def->seed, 16u + (uint64_t)a, (int64_t)k, q, false, &s0);
	bsGradientNoise(def->seed, 16u + (uint64_t)a, (int64_t)k + 1, q, false, &s1);
	return s0.value + blend * (s1.value - s0.value);
}

// dpsi_a / dp_j by central differences.
static double PotentialDerivative(const bsTurbulenceDef* def, int a, int j, bsVec3 p, double t, double e)
{
	double d[3] = {0.0, 0.0, 0.0};
	d[j] = e;
	bsVec3 step = bsV3(d[0], d[1], d[2]);
	return (Potential(def, a, bsAdd(p, step), t) - Potential(def, a, bsSub(p, step), t)) / (2.0 * e);
}

// The field is amplitude / C times the curl of the potential (in q = p / scale): against central
// differences of the potential, to ~1e-6 of its size.
static int CurlOfPotential(void)
{
	bsTurbulenceDef def = Turbulence();
	bsRng rng = bsMakeRng(6);
	const double e = 1e-6;
	for (int n = 0; n < 300; ++n)
	{
		bsVec3 p = RandomPoint(&rng, 3.0);
		double t = 10.0 * bsRng_Uniform(&rng);
		bsVec3 u = bsTurbulence_Velocity(&def, p, t, NULL);
		double s = def.amplitude / BS_CURL_NOISE_RMS * def.scale;  // d/dq = scale d/dp
		bsVec3 fd = bsV3(PotentialDerivative(&def, 2, 1, p, t, e) - PotentialDerivative(&def, 1, 2, p, t, e),
			PotentialDerivative(&def, 0, 2, p, t, e) - PotentialDerivative(&def, 2, 0, p, t, e),
			PotentialDerivative(&def, 1, 0, p, t, e) - PotentialDerivative(&def, 0, 1, p, t, e));
		fd = bsScale(s, fd);
		ENSURE(bsLength(bsSub(u, fd)) <= 1e-6 * fmax(bsLength(u), def.amplitude));
	}
	return 0;
}

// Divergence-free: the trace of the exact Jacobian at most 1e-6 of |u| (in units of |u| / scale);
// the Jacobian itself against central differences of the field; and the divergence by central
// differences of the field, within the differences' error (1e-6 of amplitude / scale at e = 1e-4).
static int DivergenceFree(void)
{
	bsTurbulenceDef def = Turbulence();
	bsRng rng = bsMakeRng(7);
	const double e = 1e-5;
	double worst = 0.0;
	for (int n = 0; n < 1000; ++n)
	{
		bsVec3 p = RandomPoint(&rng, 5.0);
		double t = 20.0 * bsRng_Uniform(&rng);
		double jac[3][3];
		bsVec3 u = bsTurbulence_Velocity(&def, p, t, jac);
		double norm = 0.0;
		for (int i = 0; i < 3; ++i)
		{
			for (int j = 0; j < 3; ++j)
			{
				norm = fmax(norm, fabs(jac[i][j]));
			}
		}
		double divergence = jac[0][0] + jac[1][1] + jac[2][2];
		ENSURE(fabs(divergence) <= 1e-6 * bsLength(u) / def.scale + 1e-300);
		worst = fmax(worst, fabs(divergence) / fmax(norm, 1e-300));
		double fdDivergence = 0.0;
		for (int j = 0; j < 3; ++j)
		{
			double d[3] = {0.0, 0.0, 0.0};
			d[j] = e;
			bsVec3 step = bsV3(d[0], d[1], d[2]);
			bsVec3 ua = bsTurbulence_Velocity(&def, bsAdd(p, step), t, NULL);
			bsVec3 ub = bsTurbulence_Velocity(&def, bsSub(p, step), t, NULL);
			bsVec3 column = bsScale(1.0 / (2.0 * e), bsSub(ua, ub));
			ENSURE_SMALL(column.x - jac[0][j], 1e-6 * fmax(norm, 1.0));
			ENSURE_SMALL(column.y - jac[1][j], 1e-6 * fmax(norm, 1.0));
			ENSURE_SMALL(column.z - jac[2][j], 1e-6 * fmax(norm, 1.0));
			fdDivergence += (&column.x)[j];
		}
		ENSURE_SMALL(fdDivergence, 1e-6 * def.amplitude / def.scale);
	}
	ENSURE(worst <= 1e-12);
	return 0;
}

// amplitude is about the RMS speed (C = BS_CURL_NOISE_RMS), over many points and times; a still flow
// (speed 0) does not change in time, a moving one does, smoothly; another seed gives another flow.
static int SpeedAndTime(void)
{
	bsTurbulenceDef def = Turbulence();
	bsRng rng = bsMakeRng(8);
	double sum = 0.0;
	enum { samples = 20000 };
	for (int n = 0; n < samples; ++n)
	{
		bsVec3 u = bsTurbulence_Velocity(&def, RandomPoint(&rng, 20.0), 50.0 * bsRng_Uniform(&rng), NULL);
		sum += bsDot(u, u);
	}
	double rms = sqrt(sum / samples);
	ENSURE(rms > 0.95 * def.amplitude && rms < 1.05 * def.amplitude);
	bsVec3 p = bsV3(0.3, -0.2, 1.1);
	bsVec3 a = bsTurbulence_Velocity(&def, p, 1.0, NULL);
	bsVec3 b = bsTurbulence_Velocity(&def, p, 1.0 + 1e-7, NULL);
	ENSURE(bsLength(bsSub(a, b)) < 1e-5 * def.amplitude);
	ENSURE(bsLength(bsSub(a, bsTurbulence_Velocity(&def, p, 6.0, NULL))) > 1e-3);
	bsTurbulenceDef still = def;
	still.speed = 0.0;
	bsVec3 s0 = bsTurbulence_Velocity(&still, p, 0.0, NULL);
	bsVec3 s1 = bsTurbulence_Velocity(&still, p, 9.0, NULL);
	ENSURE(memcmp(&s0, &s1, sizeof(s0)) == 0);
	bsTurbulenceDef other = def;
	other.seed = 2025;
	ENSURE(bsLength(bsSub(a, bsTurbulence_Velocity(&other, p, 1.0, NULL))) > 1e-3);
	return 0;
}

// Through the step: a particle with a rate so high that exp(-rate h) underflows takes the field's
// velocity at its position before the move, at the substep's middle, every step.
static int Follows(void)
{
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 1;
	bsWorld* world = bsWorld_Create(&wd);
	ENSURE(world != NULL);
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.01;
	st.turbulence = Turbulence();
	st.turbulence.rate = 1e6;
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 1) == bs_ok);
	p.position[0] = bsV3(0.1, 0.2, 0.3);
	p.velocity[0] = bsV3(0.0, 0.0, 0.0);
	p.radius[0] = 0.001;
	for (int n = 0; n < 50; ++n)
	{
		bsVec3 x = p.position[0];
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		bsVec3 u = bsTurbulence_Velocity(&st.turbulence, x, (n + 0.5) * st.dt, NULL);
		ENSURE(bsLength(bsSub(p.velocity[0], u)) <= 1e-12);
		ENSURE(bsLength(bsSub(p.position[0], bsMulAdd(x, st.dt, u))) <= 1e-12);
	}
	bsStepDef bad = st;
	bad.turbulence.scale = 0.0;
	ENSURE(bsWorld_Step(world, &bad, &p, NULL) == bs_errInvalidArgument);
	bad = st;
	bad.turbulence.amplitude = -1.0;
	ENSURE(bsWorld_Step(world, &bad, &p, NULL) == bs_errInvalidArgument);
	bad = st;
	bad.turbulence.speed = NAN;
	ENSURE(bsWorld_Step(world, &bad, &p, NULL) == bs_errInvalidArgument);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

int TurbulenceTest(void)
{
	RUN_SUBTEST(NoiseDerivatives());
	RUN_SUBTEST(CurlOfPotential());
	RUN_SUBTEST(DivergenceFree());
	RUN_SUBTEST(SpeedAndTime());
	RUN_SUBTEST(Follows());
	return 0;
}
