// sph_kernel.h — the smoothing kernels of the fluid (src/fluid): the cubic spline, Akinci et al.'s
// cohesion and adhesion kernels, and the cubic spline's integral over a half-space (a wall behind the
// plane at distance d), all in closed form. A pair of particles of radii r_i and r_j has the support
// H = 2 (r_i + r_j): 4r for equal radii, twice the rest spacing 2r.
#pragma once

#include "blobsim/vec3.h"

#include <math.h>

#define BS_SPH_PI 3.14159265358979323846

// The cubic spline (Monaghan 1992) W(r) = 8 / (pi H^3) w(q), q = r / H, w = 6q^3 - 6q^2 + 1 up to
// q = 1/2, then 2 (1 - q)^3 to q = 1, then 0. It integrates to 1 over space.
static inline double bsSph_W(double r, double H)
{
	double q = r / H;
	double s = 8.0 / (BS_SPH_PI * H * H * H);
	if (q <= 0.5)
	{
		return s * (6.0 * q * q * (q - 1.0) + 1.0);
	}
	double t = 1.0 - q;
	return q < 1.0 ? s * 2.0 * t * t * t : 0.0;
}

// dW/dr at r (<= 0).
static inline double bsSph_dW(double r, double H)
{
	double q = r / H;
	double s = 8.0 / (BS_SPH_PI * H * H * H * H);
	if (q <= 0.5)
	{
		return s * q * (18.0 * q - 12.0);
	}
	double t = 1.0 - q;
	return q < 1.0 ? -6.0 * s * t * t : 0.0;
}

// The gradient of W(|x|) with respect to x, x = x_i - x_j at distance r = |x| > 0: it points from i
// towards j (W falls with distance).
static inline bsVec3 bsSph_GradW(bsVec3 x, double r, double H)
{
	return r > 0.0 ? bsScale(bsSph_dW(r, H) / r, x) : bsV3(0.0, 0.0, 0.0);
}

// Akinci, Akinci & Teschner (2013), "Versatile surface tension and adhesion for SPH fluids", eq. 2:
// the cohesion kernel, 32 / (pi H^9) x ((H - r)^3 r^3) for r > H/2, 2 (H - r)^3 r^3 - H^6 / 64 below
// (negative close in: a pair too close is pushed apart).
static inline double bsSph_Cohesion(double r, double H)
{
	if (!(r < H) || r <= 0.0)
	{
		return 0.0;
	}
	double H3 = H * H * H;
	double s = 32.0 / (BS_SPH_PI * H3 * H3 * H3);
	double u = (H - r) * r;
	double u3 = u * u * u;
	return 2.0 * r > H ? s * u3 : s * (2.0 * u3 - H3 * H3 / 64.0);
}

// The half-space integrals of the cubic spline: a wall whose nearest point is d from a particle,
// taken as the half-space behind the plane through that point. Phi(d) = the integral of W over it
// (1/2 at d = 0, 0 from d = H), its share of the particle's density ratio; dPhi/dd = -P(d), P the
// integral of W over the plane at distance d, so the gradient of Phi at the particle is -P(d) n with n
// the unit normal from the wall to the particle. Derived from W by integrating over planes, then
// over depth (docs/fluids.md); tests/test_fluid.c checks both against quadrature.
static inline double bsSph_WallPhi(double d, double H)
{
	double q = d / H;
	if (q <= 0.5)
	{
		double q2 = q * q, q3 = q2 * q;
		return 16.0 * (1.0 / 32.0 - 7.0 * q / 80.0 + q3 * q3 / 5.0 - 0.3 * q3 * q2 + q3 / 6.0);
	}
	double t = 1.0 - q;
	double t5 = t * t * t * t * t;
	return q < 1.0 ? 16.0 * (t5 / 10.0 - t5 * t / 15.0) : 0.0;
}

static inline double bsSph_WallP(double d, double H)
{
	double q = d / H;
	if (q <= 0.5)
	{
		double q2 = q * q;
		return 16.0 / H * (7.0 / 80.0 - 1.2 * q2 * q2 * q + 1.5 * q2 * q2 - 0.5 * q2);
	}
	double t = 1.0 - q;
	double t4 = t * t * t * t;
	return q < 1.0 ? 16.0 / H * (t4 / 2.0 - 0.4 * t4 * t) : 0.0;
}

// dP/dd: the plane integral's slope, -(16 / H^2) q w(q) (<= 0).
static inline double bsSph_WallSlope(double d, double H)
{
	double q = d / H;
	if (q <= 0.5)
	{
		return -16.0 / (H * H) * q * (6.0 * q * q * (q - 1.0) + 1.0);
	}
	double t = 1.0 - q;
	return q < 1.0 ? -16.0 / (H * H) * q * 2.0 * t * t * t : 0.0;
}
