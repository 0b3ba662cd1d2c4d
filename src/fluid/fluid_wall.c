// fluid_wall.c — the half-space integrals of the fluid's viscosity and adhesion kernels (a wall behind
// the plane at distance d from a particle, as sph_kernel.h's density integral), tabulated once in
// q = d / H by quadrature: they have no short closed form.
#include "fluid_wall.h"

#include "sph_kernel.h"

#include <math.h>
#include <pthread.h>

enum
{
	bs_wallTableSize = 256,     // intervals of q over [0, 1]
	bs_wallQuadrature = 512,    // Simpson intervals of each half of an integral
};

typedef struct bsWallTables
{
	double normal[bs_wallTableSize + 1];      // the viscosity kernel over a plane at q: normal part
	double tangential[bs_wallTableSize + 1];  // and tangential
	double adhesion[bs_wallTableSize + 1];    // a_n(q)
	double line[bs_wallTableSize + 1];        // l(u): the kernel's integral along a line at u H
	double lineSlope[bs_wallTableSize + 1];   // l'(u)
} bsWallTables;

#define BS_WALL_MIRROR_MAX 1.5  // Morris et al.'s cap on the mirrored velocity's factor

static bsWallTables bs_wallTables;
static pthread_once_t bs_wallOnce = PTHREAD_ONCE_INIT;

// The viscosity kernel's radial factor (8 / pi) w'(s) / s, s = r / H (fluid_viscosity.c's Laplacian
// without its constant), in units of 1 / H^4 after the integral.
static double bsWall_ViscosityKernel(double s)
{
	double dw = s <= 0.5 ? 18.0 * s - 12.0 : (s < 1.0 ? -6.0 * (1.0 - s) * (1.0 - s) / s : 0.0);
	return 8.0 / BS_SPH_PI * dw;
}

// Akinci et al.'s adhesion kernel without its 0.007 / H^3: (-4 s^2 + 6 s - 2)^(1/4) for 1/2 < s < 1.
static double bsWall_AdhesionKernel(double s)
{
	double u = -4.0 * s * s + 6.0 * s - 2.0;
	return s > 0.5 && s < 1.0 && u > 0.0 ? pow(u, 0.25) : 0.0;
}

// The adhesion kernel over the shell at s beyond the plane at q (c = cos of the angle to the normal,
// from a = q / s to 1), its component along the normal.
static double bsWall_Shell(double q, double s)
{
	double a = q / s;
	return bsWall_AdhesionKernel(s) * s * s * (1.0 - a * a) / 2.0;
}

// Simpson over [lo, hi] of the shell integrand at q.
static double bsWall_Simpson(double q, double lo, double hi)
{
	double step = (hi - lo) / bs_wallQuadrature, sum = 0.0;
	for (int k = 0; k <= bs_wallQuadrature; ++k)
	{
		double w = (k == 0 || k == bs_wallQuadrature) ? 1.0 : (k % 2 == 1 ? 4.0 : 2.0);
		sum += w * step / 3.0 * bsWall_Shell(q, lo + k * step) * 2.0 * BS_SPH_PI;
	}
	return sum;
}

// The dimensionless cubic spline w(s) (8 / pi included) and its slope.
static double bsWall_w(double s)
{
	return 8.0 / BS_SPH_PI * (s <= 0.5 ? 6.0 * s * s * (s - 1.0) + 1.0 : (s < 1.0 ? 2.0 * pow(1.0 - s, 3.0) : 0.0));
}

static double bsWall_dw(double s)
{
	return 8.0 / BS_SPH_PI * (s <= 0.5 ? s * (18.0 * s - 12.0) : (s < 1.0 ? -6.0 * (1.0 - s) * (1.0 - s) : 0.0));
}

// l(u) = the integral of w along a line at distance u, and its slope (Simpson in t).
static void bsWall_Line(double u, double* l, double* slope)
{
	double reach = u < 1.0 ? sqrt(1.0 - u * u) : 0.0;
	double step = reach / bs_wallQuadrature;
	*l = 0.0;
	*slope = 0.0;
	for (int k = 0; k <= bs_wallQuadrature && reach > 0.0; ++k)
	{
		double w = (k == 0 || k == bs_wallQuadrature) ? 1.0 : (k % 2 == 1 ? 4.0 : 2.0);
		double t = k * step;
		double s = sqrt(u * u + t * t);
		*l += 2.0 * w * step / 3.0 * bsWall_w(s);
		*slope += s > 0.0 ? 2.0 * w * step / 3.0 * bsWall_dw(s) * u / s : 0.0;
	}
}

// The viscosity kernel integrated over the plane at distance z (units of H): its normal (z^2) and
// tangential (rho^2 / 2) parts, Simpson in the plane's radius with a node where s = 1/2.
static void bsWall_Plane(double z, double* normal, double* tangential)
{
	*normal = *tangential = 0.0;
	double knee = z < 0.5 ? sqrt(0.25 - z * z) : 0.0, edge = z < 1.0 ? sqrt(1.0 - z * z) : 0.0;
	double bounds[3] = {0.0, knee, edge};
	for (int part = 0; part < 2; ++part)
	{
		double lo = bounds[part], step = (bounds[part + 1] - lo) / bs_wallQuadrature;
		for (int k = 0; k <= bs_wallQuadrature && step > 0.0; ++k)
		{
			double w = (k == 0 || k == bs_wallQuadrature) ? 1.0 : (k % 2 == 1 ? 4.0 : 2.0);
			double rho = lo + k * step;
			double s = sqrt(rho * rho + z * z);
			double g = s > 0.0 ? bsWall_ViscosityKernel(s) * 2.0 * BS_SPH_PI * rho * w * step / 3.0 : 0.0;
			*normal += g * z * z;
			*tangential += g * rho * rho / 2.0;
		}
	}
}

static void bsWall_Build(void)
{
	for (int k = 0; k <= bs_wallTableSize; ++k)
	{
		double q = (double)k / bs_wallTableSize;
		// The adhesion kernel is zero up to s = 1/2: its integral starts there.
		bs_wallTables.adhesion[k] = q < 1.0 ? bsWall_Simpson(q, fmax(q, 0.5), 1.0) : 0.0;
		bsWall_Plane(q, bs_wallTables.normal + k, bs_wallTables.tangential + k);
		bsWall_Line(q, bs_wallTables.line + k, bs_wallTables.lineSlope + k);
	}
}

static double bsWall_Lookup(const double* table, double q)
{
	if (!(q < 1.0))
	{
		return 0.0;
	}
	q = q > 0.0 ? q : 0.0;
	double x = q * bs_wallTableSize;
	int k = (int)x;
	double t = x - k;
	return table[k] + t * (table[k + 1] - table[k]);
}

// The wall's share of the density as the fluid's own lattice would give it: layers of particles at
// the rest spacing s = 2r behind the wall (the first a half spacing behind it, as a particle touching
// it sits a half spacing in front), each smeared over its plane: the density s P(z) of a layer at
// depth z. A particle at rest touching the wall then has the density ratio of one inside the fluid
// (1.0001 on the lattice, where the half-space integral Phi gave 1.038), and moving towards the wall
// raises its density as fast as moving towards its neighbours lowers it (50.0 against the lattice's
// 51.0 per unit of s), where Phi's slope (48.75) let a pressed particle ease its pressure by pressing
// into the wall.
static void bsWall_Layers(double d, double r, double H, double* phi, double* gradient)
{
	double s = 2.0 * r;
	*phi = 0.0;
	*gradient = 0.0;
	for (double z = d + r; z < H; z += s)
	{
		*phi += s * bsSph_WallP(z, H);
		*gradient -= s * bsSph_WallSlope(z, H);
	}
}

bsWallKernels bsFluidWall_Kernels(double d, double r, double H)
{
	pthread_once(&bs_wallOnce, bsWall_Build);
	double q = d / H;
	bsWallKernels k;
	bsWall_Layers(d, r, H, &k.phi, &k.gradient);
	// The viscosity's layers, as the density's: 2r x the plane integral (1 / H^3) at each layer, each
	// layer moving as the particle's velocity mirrored through the wall (Morris, Fox & Zhu 1997: a
	// layer b behind the wall moves at -(d_b / d) of the particle's velocity relative to the wall, the
	// factor at most 1.5), so that the no-slip point is the wall itself. With the layers at rest the
	// fluid slipped: a Poiseuille profile stood 0.004 m/s above the parabola at both walls.
	k.viscosityNormal = k.viscosityTangential = 0.0;
	for (double z = d + r; z < H; z += 2.0 * r)
	{
		double mirror = 1.0 + (d > 0.0 ? fmin((z - d) / d, BS_WALL_MIRROR_MAX) : BS_WALL_MIRROR_MAX);
		double layer = mirror * 2.0 * r / (H * H * H);
		k.viscosityNormal += layer * bsWall_Lookup(bs_wallTables.normal, z / H);
		k.viscosityTangential += layer * bsWall_Lookup(bs_wallTables.tangential, z / H);
	}
	k.adhesion = 0.007 * bsWall_Lookup(bs_wallTables.adhesion, q);
	return k;
}

// Two walls at right angles (an edge of a box) each counted as its layers of particles count the
// rows behind both twice: the rows at depths (d_a + r + 2ri, d_b + r + 2rj), each smeared along the
// edge (a line of particles 2r apart: (2r)^2 l(rho) / H^2 x 8 / pi). Their density, to subtract, and
// its slopes along each wall's distance.
void bsFluidWall_Edge(double da, double db, double r, double H, double* phi, double* slopeA, double* slopeB)
{
	pthread_once(&bs_wallOnce, bsWall_Build);
	double s = 2.0 * r;
	double scale = s * s / (H * H);
	*phi = *slopeA = *slopeB = 0.0;
	for (double a = da + r; a < H; a += s)
	{
		for (double b = db + r; a * a + b * b < H * H; b += s)
		{
			double rho = sqrt(a * a + b * b);
			double slope = bsWall_Lookup(bs_wallTables.lineSlope, rho / H) * scale / H;
			*phi += bsWall_Lookup(bs_wallTables.line, rho / H) * scale;
			*slopeA += slope * a / rho;
			*slopeB += slope * b / rho;
		}
	}
}

