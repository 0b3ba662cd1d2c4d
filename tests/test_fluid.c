// test_fluid.c — the particle fluid (step.h: bsFluidDef; src/fluid), against independent references:
// the kernel's half-space integral and its slope against quadrature; a wall's and an edge's share of
// a particle's density against the brute-force sum of the fluid lattice they stand for; a settled
// column (density error, volume kept, no wall crossed); no particle out of a closed box or an
// icosphere whose gravity turns every step; the same bytes at 1, 2 and 3 threads with every term on;
// bad settings refused; the walls' BVH query (bsBvh_VisitNear) against brute force; births that
// overlap part without being thrown out; the viscosity's Laplacian against a quadratic's and a rigid
// rotation's, on a lattice and in shifted layers; the yield stress's strain rate (Tresca's) in a shear
// and a compression; a Bingham cylinder's slump against Pashias et al. (1996), and its surface at rest.
#include "fluid.h"
#include "sph_kernel.h"
#include "test.h"

#include "blobsim/bvh.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// --- the kernels ---

// The integral of W over z > d (midpoint rule in z and in the plane's radius).
static double HalfSpaceIntegral(double d, double H)
{
	int n = 400;
	double sum = 0.0, dz = (H - d) / n;
	for (int i = 0; i < n; ++i)
	{
		double z = d + (i + 0.5) * dz;
		double R = sqrt(H * H - z * z), dr = R / n;
		for (int k = 0; k < n; ++k)
		{
			double rho = (k + 0.5) * dr;
			sum += bsSph_W(sqrt(rho * rho + z * z), H) * 2.0 * BS_SPH_PI * rho * dr * dz;
		}
	}
	return sum;
}

static int KernelIntegrals(void)
{
	double H = 0.02;
	ENSURE_SMALL(bsSph_WallPhi(0.0, H) - 0.5, 1e-12);
	for (double q = 0.05; q < 1.0; q += 0.15)
	{
		double d = q * H;
		ENSURE_SMALL(bsSph_WallPhi(d, H) - HalfSpaceIntegral(d, H), 2e-4);
		double e = 1e-7;
		double slope = (bsSph_WallPhi(d + e, H) - bsSph_WallPhi(d - e, H)) / (2.0 * e);
		ENSURE_SMALL(slope + bsSph_WallP(d, H), 1e-5 * bsSph_WallP(0.0, H));
		double p = (bsSph_WallP(d + e, H) - bsSph_WallP(d - e, H)) / (2.0 * e);
		ENSURE_SMALL(p - bsSph_WallSlope(d, H), 1e-5 * fabs(bsSph_WallSlope(0.5 * H, H)));
	}
	return 0;
}

// The density ratio the fluid lattice (spacing 2r) gives a particle at the origin from its points with
// z < -zCut (and x < -xCut when xCut > 0: the edge of two walls).
static double LatticeShare(double r, bool edge)
{
	double s = 2.0 * r, H = 4.0 * r, V = s * s * s, sum = 0.0;
	for (int i = -3; i <= 3; ++i)
	{
		for (int j = -3; j <= 3; ++j)
		{
			for (int k = -3; k <= 3; ++k)
			{
				bool behind = k < 0 || (edge && i < 0);
				if (behind)
				{
					sum += V * bsSph_W(s * sqrt((double)(i * i + j * j + k * k)), H);
				}
			}
		}
	}
	return sum;
}

// A particle touching a wall (d = r) gets the density its missing half of the lattice would give,
// within 0.5% of a particle's full density; touching two walls at right angles (a box's edge), the
// share of the quarter of the lattice the walls stand for.
static int WallsMatchLattice(void)
{
	double r = 0.005;
	bsFluidDef def = bsDefaultInteractionDef().fluid;
	bsFluidWall wall;
	memset(&wall, 0, sizeof(wall));
	bsFluidWall_Add(&wall, &def, 1000.0, r, bsV3(0, 0, 1), bsV3(0, 0, 0), r);
	bsFluidWall_Finish(&wall, r);
	ENSURE_SMALL(wall.phi - LatticeShare(r, false), 5e-3);
	memset(&wall, 0, sizeof(wall));
	bsFluidWall_Add(&wall, &def, 1000.0, r, bsV3(0, 0, 1), bsV3(0, 0, 0), r);
	bsFluidWall_Add(&wall, &def, 1000.0, r, bsV3(1, 0, 0), bsV3(0, 0, 0), r);
	bsFluidWall_Finish(&wall, r);
	ENSURE_SMALL(wall.phi - LatticeShare(r, true), 5e-3);
	// The full lattice sums to 1: the particle's own density is its rest density.
	return 0;
}

// --- scenes ---

typedef struct Scene
{
	bsWorld* world;
	bsParticles p;
	bsStepDef def;
	bsPlane planes[6];
	bsBvh bvh;
	bool hasBvh;
} Scene;

static bsStepDef FluidDef(void)
{
	bsStepDef def = bsDefaultStepDef();
	def.method = bs_methodExact;
	def.response = bs_responseSlide;
	def.interaction.type = bs_interactionFluid;
	def.substeps = 0;
	def.maxSubsteps = 2000;
	def.gravity = bsV3(0, -9.81, 0);
	return def;
}

// A block of nx x ny x nz particles of radius r at the rest spacing, its lowest corner at `low`.
static void Scene_Init(Scene* s, int threads, bsVec3 low, int nx, int ny, int nz, double r)
{
	memset(s, 0, sizeof(*s));
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	s->world = bsWorld_Create(&wd);
	bsParticles_Alloc(&s->p, (size_t)nx * ny * nz);
	size_t n = 0;
	for (int k = 0; k < nz; ++k)
	{
		for (int j = 0; j < ny; ++j)
		{
			for (int i = 0; i < nx; ++i)
			{
				s->p.position[n] = bsAdd(low, bsV3((2 * i + 1) * r, (2 * j + 1) * r, (2 * k + 1) * r));
				s->p.radius[n++] = r;
			}
		}
	}
	s->def = FluidDef();
}

// The box [0, size] as planes facing in.
static void Scene_Box(Scene* s, bsVec3 size)
{
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), s->planes + 0);
	bsMakePlane(bsV3(0, 0, 0), bsV3(1, 0, 0), s->planes + 1);
	bsMakePlane(size, bsV3(-1, 0, 0), s->planes + 2);
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 0, 1), s->planes + 3);
	bsMakePlane(size, bsV3(0, 0, -1), s->planes + 4);
	bsMakePlane(size, bsV3(0, -1, 0), s->planes + 5);
	bsWorld_AddPlanes(s->world, s->planes, 6);
}

static void Scene_Free(Scene* s)
{
	bsWorld_Destroy(s->world);
	bsParticles_Free(&s->p);
	if (s->hasBvh)
	{
		bsBvh_Destroy(&s->bvh);
	}
}

// Water (8 x 8 x 8, r = 5 mm) dropped 5 cm into a box twice its width, 0.3 s: after every
// constant-density solve that converged, no particle is compressed by more than density_error_max
// (5e-3), through the splash. Stopping on the mean compression alone left single particles at
// 1.3% here (0.45% with it).
static int SplashKeepsLargestCompression(void)
{
	Scene s;
	double r = 0.005;
	Scene_Init(&s, 2, bsV3(0.02, 0.05, 0.02), 8, 8, 8, r);
	Scene_Box(&s, bsV3(0.12, 1.0, 0.12));
	s.def.dt = 0.01;
	double largest = 0.0;
	for (int step = 0; step < 30; ++step)
	{
		bsStepStats st;
		memset(&st, 0, sizeof(st));
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, &st) == bs_ok);
		ENSURE(st.unconverged == 0);
		largest = fmax(largest, st.densityErrorMax);
	}
	ENSURE(s.def.interaction.fluid.densityErrorMax == 5e-3);
	ENSURE(largest <= 5e-3);
	Scene_Free(&s);
	return 0;
}

// A viscous column 6 x 12 x 6 (r = 5 mm) in a box of its own width, 1.5 s: at the end the solve's
// mean compression is within its tolerance (5e-4) and the largest within 0.5%, no particle left the box
// or stands closer than its radius to a wall, and the column's top is within 3% of its start (the
// fluid kept its volume).
static int ColumnSettles(void)
{
	Scene s;
	double r = 0.005;
	Scene_Init(&s, 2, bsV3(0, 0, 0), 6, 12, 6, r);
	Scene_Box(&s, bsV3(0.06, 1.0, 0.06));
	s.def.interaction.fluid.kinematicViscosity = 1e-3;
	s.def.dt = 0.02;
	bsStepStats last;
	for (int step = 0; step < 75; ++step)
	{
		memset(&last, 0, sizeof(last));
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, &last) == bs_ok);
	}
	ENSURE(last.densityErrorMean <= 5e-4);
	ENSURE(last.densityErrorMax <= 5e-3);
	double top = 0.0;
	for (size_t i = 0; i < s.p.count; ++i)
	{
		bsVec3 x = s.p.position[i];
		ENSURE(s.p.state[i] == bs_particleFree);
		ENSURE(x.x >= r * (1 - 1e-9) && x.x <= 0.06 - r * (1 - 1e-9) && x.y >= r * (1 - 1e-9));
		ENSURE(x.z >= r * (1 - 1e-9) && x.z <= 0.06 - r * (1 - 1e-9));
		top = fmax(top, x.y);
	}
	ENSURE_SMALL(top / (0.12 - r) - 1.0, 0.03);
	Scene_Free(&s);
	return 0;
}

// --- determinism ---

static int RunDamBreak(int threads, bsParticles* out)
{
	Scene s;
	double r = 0.004;
	Scene_Init(&s, threads, bsV3(0, 0, 0), 8, 10, 5, r);
	Scene_Box(&s, bsV3(0.2, 0.2, 0.04));
	s.def.dt = 0.01;
	bsFluidDef* f = &s.def.interaction.fluid;
	f->kinematicViscosity = 1e-2;
	f->yieldStress = 2.0;
	f->surfaceTension = 0.5;
	f->adhesion = 0.5;
	for (int step = 0; step < 10; ++step)
	{
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
	}
	*out = s.p;
	memset(&s.p, 0, sizeof(s.p));
	Scene_Free(&s);
	return 0;
}

static int SameBytesAnyThreads(void)
{
	bsParticles one, other;
	RUN_SUBTEST(RunDamBreak(1, &one));
	for (int threads = 2; threads <= 3; ++threads)
	{
		RUN_SUBTEST(RunDamBreak(threads, &other));
		ENSURE(memcmp(one.position, other.position, one.count * sizeof(bsVec3)) == 0);
		ENSURE(memcmp(one.velocity, other.velocity, one.count * sizeof(bsVec3)) == 0);
		bsParticles_Free(&other);
	}
	bsParticles_Free(&one);
	return 0;
}

// --- containment ---

// The closed unit box [-L, L]^3 as 12 triangles facing in.
static void BoxMesh(double L, bsTriangle* t)
{
	bsVec3 c[8];
	for (int k = 0; k < 8; ++k)
	{
		c[k] = bsV3(k & 1 ? L : -L, k & 2 ? L : -L, k & 4 ? L : -L);
	}
	static const int faces[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
	for (int f = 0; f < 6; ++f)
	{
		const int* q = faces[f];
		bsMakeTriangle(c[q[0]], c[q[1]], c[q[2]], t + 2 * f);
		bsMakeTriangle(c[q[0]], c[q[2]], c[q[3]], t + 2 * f + 1);
	}
}

// An icosphere of radius R (one subdivision of the icosahedron: 80 triangles).
static int IcoSphere(double R, bsTriangle* out)
{
	double g = (1.0 + sqrt(5.0)) / 2.0;
	bsVec3 v[12] = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0}, {0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g},
		{g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
	static const int f[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
		{11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9}, {4, 9, 5},
		{2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
	int n = 0;
	for (int k = 0; k < 20; ++k)
	{
		bsVec3 a = bsScale(R, bsNormalize(v[f[k][0]])), b = bsScale(R, bsNormalize(v[f[k][1]]));
		bsVec3 c = bsScale(R, bsNormalize(v[f[k][2]]));
		bsVec3 ab = bsScale(R, bsNormalize(bsAdd(a, b))), bc = bsScale(R, bsNormalize(bsAdd(b, c)));
		bsVec3 ca = bsScale(R, bsNormalize(bsAdd(c, a)));
		bsMakeTriangle(a, ab, ca, out + n++);
		bsMakeTriangle(ab, b, bc, out + n++);
		bsMakeTriangle(ca, bc, c, out + n++);
		bsMakeTriangle(ab, bc, ca, out + n++);
	}
	return n;
}

// A block of fluid inside a closed mesh whose gravity turns by 40 degrees a step about a tilted axis,
// 60 steps: no particle escapes, and every one stays inside (the box: within its faces; the sphere:
// within its radius, which its inscribed facets are inside of by 1 - cos(facet) of R).
static int StaysInside(bool sphere)
{
	Scene s;
	double r = 0.01;
	Scene_Init(&s, 2, bsV3(-0.1, -0.1, -0.1), 10, 8, 10, r);
	bsTriangle tris[80];
	int n = sphere ? IcoSphere(0.25, tris) : 12;
	if (!sphere)
	{
		BoxMesh(0.15, tris);
	}
	ENSURE(bsBvh_Build(&s.bvh, tris, (uint32_t)n, NULL) == bs_ok);
	s.hasBvh = true;
	ENSURE(bsWorld_AddMesh(s.world, &s.bvh) == bs_ok);
	s.def.dt = 0.02;
	s.def.interaction.fluid.kinematicViscosity = 1e-4;
	for (int step = 0; step < 60; ++step)
	{
		double a = 0.7 * step;
		s.def.gravity = bsScale(9.81, bsV3(sin(a), cos(a) * 0.8, cos(a) * 0.6));
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
		for (size_t i = 0; i < s.p.count; ++i)
		{
			bsVec3 x = s.p.position[i];
			ENSURE(s.p.state[i] == bs_particleFree);
			if (sphere)
			{
				ENSURE(bsLength(x) <= 0.25 - r * (1 - 1e-9));
			}
			else
			{
				ENSURE(fabs(x.x) <= 0.15 - r * (1 - 1e-9) && fabs(x.y) <= 0.15 - r * (1 - 1e-9));
				ENSURE(fabs(x.z) <= 0.15 - r * (1 - 1e-9));
			}
		}
	}
	Scene_Free(&s);
	return 0;
}

static int NoParticleEscapes(void)
{
	RUN_SUBTEST(StaysInside(false));
	RUN_SUBTEST(StaysInside(true));
	return 0;
}

// --- births that overlap ---

// 500 particles of radius 5 mm born at random in a cube of 5 cm (4 times their rest density, as a
// nozzle's random births overlap) inside a closed box, no gravity, 0.5 s: they part and fill about
// their rest volume without being thrown out: every one free, none faster than 1 m/s (measured: 0.21
// m/s at most). Without the solve's cap on its correction a substep (fluid_pressure.c) this fails,
// and a water pour from a nozzle threw particles out at 372 m/s.
static int OverlappingBirthsPart(void)
{
	Scene s;
	Scene_Init(&s, 2, bsV3(0, 0, 0), 1, 1, 500, 0.005);
	bsRng rng = bsMakeRng(3);
	for (size_t i = 0; i < s.p.count; ++i)
	{
		s.p.position[i] = bsV3(bsRng_Range(&rng, 0.125, 0.175), bsRng_Range(&rng, 0.125, 0.175),
			bsRng_Range(&rng, 0.125, 0.175));
	}
	Scene_Box(&s, bsV3(0.3, 0.3, 0.3));
	s.def.gravity = bsV3(0, 0, 0);
	s.def.dt = 0.01;
	double fastest = 0.0;
	for (int step = 0; step < 50; ++step)
	{
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
		for (size_t i = 0; i < s.p.count; ++i)
		{
			ENSURE(s.p.state[i] == bs_particleFree);
			fastest = fmax(fastest, bsLength(s.p.velocity[i]));
		}
	}
	ENSURE(fastest < 1.0);
	Scene_Free(&s);
	return 0;
}

// --- the walls' query ---

typedef struct Visited
{
	uint8_t seen[80];
	int count;
} Visited;

static void Visit(void* context, const bsTriangle* t, uint32_t index)
{
	(void)t;
	Visited* v = context;
	v->seen[index] = 1;
	v->count += 1;
}

// bsBvh_VisitNear against brute force: at 2,000 random points and radii, every triangle of the
// icosphere within the radius (by bsTriangle_ClosestPoint) is visited, and none twice.
static int VisitNearFindsEveryTriangle(void)
{
	bsTriangle tris[80];
	int n = IcoSphere(1.0, tris);
	bsBvhOptions options = bsDefaultBvhOptions();
	options.maxLeafSize = 2;
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, (uint32_t)n, &options) == bs_ok);
	bsRng rng = bsMakeRng(7);
	for (int k = 0; k < 2000; ++k)
	{
		bsVec3 q = bsV3(bsRng_Range(&rng, -1.5, 1.5), bsRng_Range(&rng, -1.5, 1.5), bsRng_Range(&rng, -1.5, 1.5));
		double radius = bsRng_Range(&rng, 0.0, 0.6);
		Visited v;
		memset(&v, 0, sizeof(v));
		bsBvh_VisitNear(&bvh, q, radius, Visit, &v);
		int distinct = 0;
		for (int t = 0; t < n; ++t)
		{
			distinct += v.seen[t];
			bsVec3 c = bsTriangle_ClosestPoint(tris + t, q, NULL, NULL);
			ENSURE(!(bsDistance(c, q) < radius) || v.seen[t]);
		}
		ENSURE(distinct == v.count);
	}
	bsBvh_Destroy(&bvh);
	return 0;
}

// --- the viscosity's Laplacian ---

// n^3 particles of radius r = 0.5 at spacing 1 in layers of constant y, each layer a square lattice
// shifted by a random offset in x and z when `shifted` (the layers of a flow along a wall), given the
// velocity field v(x); the implicit viscosity solve over a step h nu = 0.01 then reads, in the
// particles at least two spacings from the block's faces, (v_new - v) / (h nu) = lap v where v is a
// quadratic (the solve's own v_new - v is nearly uniform there, and the Laplacian of a uniform field
// is zero). Returns the mean of that over the interior and its largest departure from `expect`, or,
// for a rigid rotation, the largest |v_new - v| / (h nu) over every particle.
typedef struct LapProbe
{
	bsVec3 mean;
	double largest;  // max |reading - expect| over the particles read
} LapProbe;

static bsVec3 LapShear(bsVec3 x)
{
	return bsV3((x.y - 4.0) * (x.y - 4.0), 0.0, 0.0);
}

static bsVec3 LapRotation(bsVec3 x)
{
	return bsCross(bsV3(0.3, -0.5, 0.8), bsSub(x, bsV3(1.0, 2.0, 3.0)));
}

static void LapBlock(bsParticles* p, int n, bool shifted)
{
	bsRng rng = bsMakeRng(7);
	bsParticles_Alloc(p, (size_t)n * n * n);
	size_t k = 0;
	for (int j = 0; j < n; ++j)
	{
		double ox = shifted ? bsRng_Uniform(&rng) : 0.0, oz = shifted ? bsRng_Uniform(&rng) : 0.0;
		for (int i = 0; i < n; ++i)
		{
			for (int l = 0; l < n; ++l)
			{
				p->position[k] = bsV3(i + ox, j, l + oz);
				p->radius[k++] = 0.5;
			}
		}
	}
}

// LapBlock's particles in a neighbour grid with their lists and densities, on a pool of 2.
typedef struct LapFluid
{
	bsParticles p;
	bsNeighbourGrid grid;
	bsFluid fluid;
	bsPool* pool;
} LapFluid;

static int LapFluid_Init(LapFluid* l, int n, bool shifted)
{
	memset(l, 0, sizeof(*l));
	LapBlock(&l->p, n, shifted);
	l->pool = bsPool_Create(2);
	ENSURE(l->pool != NULL);
	ENSURE(bsNeighbourGrid_Build(&l->grid, &l->p, 2.0, l->pool) == bs_ok);
	ENSURE(bsFluid_Reserve(&l->fluid, &l->grid, l->p.count, false) == bs_ok);
	ENSURE(bsFluid_FindNeighbours(&l->fluid, &l->grid, l->pool) == bs_ok);
	bsFluid_ComputeDensity(&l->fluid, &l->grid, l->pool);
	return 0;
}

static void LapFluid_Free(LapFluid* l)
{
	bsPool_Destroy(l->pool);
	bsFluid_Free(&l->fluid);
	bsNeighbourGrid_Free(&l->grid);
	bsParticles_Free(&l->p);
}

static int LapRead(bool shifted, bsVec3 (*field)(bsVec3), bsVec3 expect, bool everywhere, LapProbe* out)
{
	const int n = 9;
	const double nu = 0.01, h = 1.0;
	LapFluid l;
	RUN_SUBTEST(LapFluid_Init(&l, n, shifted));
	bsNeighbourGrid* grid = &l.grid;
	bsFluidDef def = bsDefaultStepDef().interaction.fluid;
	def.kinematicViscosity = nu;
	def.viscosityError = 1e-12;
	bsVec3* start = malloc(grid->count * sizeof(bsVec3));
	ENSURE(start != NULL);
	for (uint32_t s = 0; s < grid->count; ++s)
	{
		grid->velocity[s] = start[s] = field(grid->position[s]);
	}
	bsFluid_EffectiveViscosity(&l.fluid, grid, &def, 1000.0, l.pool);
	bool converged;
	bsFluid_ViscositySolve(&l.fluid, grid, &def, 1000.0, h, l.pool, &converged);
	ENSURE(converged);
	memset(out, 0, sizeof(*out));
	int read = 0;
	for (uint32_t s = 0; s < grid->count; ++s)
	{
		bsVec3 x = grid->position[s];
		bool inner = x.x >= 2.0 && x.x <= n - 3.0 && x.y >= 2.0 && x.y <= n - 3.0 && x.z >= 2.0 && x.z <= n - 3.0;
		if (everywhere || inner)
		{
			bsVec3 lap = bsScale(1.0 / (h * nu), bsSub(grid->velocity[s], start[s]));
			out->mean = bsAdd(out->mean, lap);
			out->largest = fmax(out->largest, bsLength(bsSub(lap, expect)));
			++read;
		}
	}
	ENSURE(read > 0);
	out->mean = bsScale(1.0 / read, out->mean);
	free(start);
	LapFluid_Free(&l);
	return 0;
}

// The Laplacian of the shear v = ((y - 4)^2, 0, 0) is (2, 0, 0): read within 5% on the lattice (every
// interior particle) and in shifted layers (their mean; Weiler et al.'s weighting read 0.70 and 0.76
// of it there), and a rigid rotation feels nothing, at the block's faces too.
static int LaplacianReadsShear(void)
{
	LapProbe probe;
	RUN_SUBTEST(LapRead(false, LapShear, bsV3(2.0, 0.0, 0.0), false, &probe));
	ENSURE(probe.largest < 0.1);
	RUN_SUBTEST(LapRead(true, LapShear, bsV3(2.0, 0.0, 0.0), false, &probe));
	ENSURE(fabs(probe.mean.x - 2.0) < 0.1);
	ENSURE(fabs(probe.mean.y) < 0.1 && fabs(probe.mean.z) < 0.1);
	RUN_SUBTEST(LapRead(true, LapRotation, bsV3(0.0, 0.0, 0.0), true, &probe));
	ENSURE(probe.largest < 1e-6);
	return 0;
}

// --- the yield stress ---

// The strain rate the yield stress reads, on the lattice of LapBlock (interior particles), from the
// effective viscosity nu = tau_y / (rho0 |gamma'|) + nu_K: a simple shear v = (g y, 0, 0) reads g, and
// a uniaxial compression v = (d x / 2, -d y, d z / 2) reads 1.5 d, the largest principal strain rate
// less the smallest (Tresca's criterion: it yields at an axial stress of 2 tau_y, as Pashias et al.'s
// slump model assumes), where von Mises' sqrt(2 D:D) reads sqrt(3) d. Each within 3%.
static bsVec3 YieldShear(bsVec3 x)
{
	return bsV3(0.1 * x.y, 0.0, 0.0);
}

static bsVec3 YieldCompression(bsVec3 x)
{
	return bsV3(0.05 * x.x, -0.1 * x.y, 0.05 * x.z);
}

static int YieldRead(bsVec3 (*field)(bsVec3), double expect)
{
	const int n = 9;
	LapFluid l;
	RUN_SUBTEST(LapFluid_Init(&l, n, false));
	bsNeighbourGrid* grid = &l.grid;
	bsFluidDef def = bsDefaultStepDef().interaction.fluid;
	def.kinematicViscosity = 0.01;
	def.yieldStress = 10.0;
	for (uint32_t s = 0; s < grid->count; ++s)
	{
		grid->velocity[s] = field(grid->position[s]);
	}
	bsFluid_EffectiveViscosity(&l.fluid, grid, &def, 1000.0, l.pool);
	int read = 0;
	for (uint32_t s = 0; s < grid->count; ++s)
	{
		bsVec3 x = grid->position[s];
		if (x.x >= 2.0 && x.x <= n - 3.0 && x.y >= 2.0 && x.y <= n - 3.0 && x.z >= 2.0 && x.z <= n - 3.0)
		{
			double rate = def.yieldStress / (1000.0 * (l.fluid.nu[s] - def.kinematicViscosity));
			ENSURE_SMALL(rate / expect - 1.0, 0.03);
			++read;
		}
	}
	ENSURE(read > 0);
	LapFluid_Free(&l);
	return 0;
}

static int YieldReadsTresca(void)
{
	RUN_SUBTEST(YieldRead(YieldShear, 0.1));
	RUN_SUBTEST(YieldRead(YieldCompression, 0.15));
	return 0;
}

// A cylinder of Bingham mud (height and diameter H = 5 cm, 8 particles over H, rho0 = 1000, plastic
// viscosity 0.01 m^2/s) on a floor, released at rest, at tau' = tau_y / (rho0 g H). Pashias, Boger,
// Summers & Glenister (1996), J. Rheol. 40, 1179: the slump s' = 1 - 2 tau' (1 - ln 2 tau').
#define SLUMP_H 0.05
#define SLUMP_CELLS 8  // the height map's cells across 2H

typedef struct SlumpRun
{
	double slump;  // s' = 1 - h / H, h the mean top of the 4 cells about the axis
	double moved;  // the height map's largest change over the last second, m
	double r;
} SlumpRun;

// The highest particle top in each cell of side H / 4 about the axis, over 2H x 2H (0: none).
static void Slump_HeightMap(const bsParticles* p, double map[SLUMP_CELLS][SLUMP_CELLS])
{
	memset(map, 0, sizeof(double) * SLUMP_CELLS * SLUMP_CELLS);
	double cell = 2.0 * SLUMP_H / SLUMP_CELLS;
	for (size_t i = 0; i < p->count; ++i)
	{
		int a = (int)floor(p->position[i].x / cell) + SLUMP_CELLS / 2;
		int b = (int)floor(p->position[i].z / cell) + SLUMP_CELLS / 2;
		if (a >= 0 && a < SLUMP_CELLS && b >= 0 && b < SLUMP_CELLS)
		{
			map[a][b] = fmax(map[a][b], p->position[i].y + p->radius[i]);
		}
	}
}

// The particles of radius r on the lattice cells of the cylinder (axis y, from y = 0), a world on a
// floor, the fluid's step.
static void Slump_Init(Scene* s, double r)
{
	memset(s, 0, sizeof(*s));
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 2;
	s->world = bsWorld_Create(&wd);
	int n = (int)(SLUMP_H / (2.0 * r) + 0.5);
	bsParticles_Alloc(&s->p, (size_t)(n * n * n));
	size_t count = 0;
	for (int j = 0; j < n; ++j)
	{
		for (int i = 0; i < n; ++i)
		{
			for (int k = 0; k < n; ++k)
			{
				bsVec3 x = bsV3((2 * i + 1 - n) * r, (2 * j + 1) * r, (2 * k + 1 - n) * r);
				if (x.x * x.x + x.z * x.z <= 0.25 * SLUMP_H * SLUMP_H)
				{
					s->p.position[count] = x;
					s->p.radius[count++] = r;
				}
			}
		}
	}
	s->p.count = count;
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), s->planes);
	bsWorld_AddPlanes(s->world, s->planes, 1);
	s->def = FluidDef();
}

// A slump at tau' of a cylinder `across` particles over H, 2.5 s.
static int Slump_Run(double tau, int across, SlumpRun* out)
{
	Scene s;
	double r = SLUMP_H / (2.0 * across);
	Slump_Init(&s, r);
	s.def.dt = 0.01;
	bsFluidDef* f = &s.def.interaction.fluid;
	f->kinematicViscosity = 0.01;
	f->yieldStress = tau * 1000.0 * 9.81 * SLUMP_H;
	double before[SLUMP_CELLS][SLUMP_CELLS], after[SLUMP_CELLS][SLUMP_CELLS];
	for (int step = 0; step < 250; ++step)
	{
		if (step == 150)
		{
			Slump_HeightMap(&s.p, before);
		}
		ENSURE(bsWorld_Step(s.world, &s.def, &s.p, NULL) == bs_ok);
	}
	Slump_HeightMap(&s.p, after);
	out->moved = 0.0;
	for (int a = 0; a < SLUMP_CELLS; ++a)
	{
		for (int b = 0; b < SLUMP_CELLS; ++b)
		{
			out->moved = fmax(out->moved, fabs(after[a][b] - before[a][b]));
		}
	}
	int mid = SLUMP_CELLS / 2;
	double top = 0.25 * (after[mid - 1][mid - 1] + after[mid - 1][mid] + after[mid][mid - 1] + after[mid][mid]);
	out->slump = 1.0 - top / SLUMP_H;
	out->r = r;
	Scene_Free(&s);
	return 0;
}

// The slump at tau' = 0.2 and 0.3, 12 particles over H (the validation's quick size), within 10% of
// Pashias et al.'s or half a particle spacing over H where that is more (the height map's resolution,
// 0.042 here), and the free surface stays put once stopped: its height map (the top in each cell of
// H / 4) changes by less than 0.1 r over the last second of 2.5 s. Measured: s' = 0.206 and 0.092
// (Pashias 0.233 and 0.094), the map within 0.003 r. With the yield read from the rates as the substep
// starts (the pressure solves' noise in them) the heap at 0.3 yielded where it should not have: 0.147.
// Not judged here: tau' = 0.15 reads 0.289 (Pashias 0.339: 0.050 off); at 8 particles over H the
// heaps are too coarse for the trial solve's yield (0.258 and 0.001 at 0.15 and 0.3: the yielded foot
// of the 0.3 heap is thinner than one support).
static int BinghamSlumpStops(void)
{
	const double taus[2] = {0.2, 0.3};
	for (int k = 0; k < 2; ++k)
	{
		SlumpRun run;
		RUN_SUBTEST(Slump_Run(taus[k], 12, &run));
		double two = 2.0 * taus[k], ref = 1.0 - two * (1.0 - log(two));
		double tolerance = fmax(0.1 * ref, run.r / SLUMP_H);
		ENSURE_SMALL(run.slump - ref, tolerance);
		ENSURE(run.moved < 0.1 * run.r);
	}
	return 0;
}

// --- settings ---

static int BadSettingsRefused(void)
{
	bsStepDef good = FluidDef();
	ENSURE(bsInteractionDef_IsValid(&good.interaction));
	bsStepDef d = good;
	d.interaction.fluid.kinematicViscosity = -1.0;
	ENSURE(!bsInteractionDef_IsValid(&d.interaction));
	d = good;
	d.interaction.fluid.yieldStress = (double)NAN;
	ENSURE(!bsInteractionDef_IsValid(&d.interaction));
	d = good;
	d.interaction.density = 0.0;
	ENSURE(!bsInteractionDef_IsValid(&d.interaction));
	d = good;
	d.interaction.fluid.densityErrorMax = 0.0;
	ENSURE(!bsInteractionDef_IsValid(&d.interaction));
	d = good;
	d.interaction.fluid.maxViscosity = 0.5 * d.interaction.fluid.kinematicViscosity;
	ENSURE(!bsInteractionDef_IsValid(&d.interaction));
	d = good;
	d.interaction.fluid.cfl = 0.0;
	ENSURE(!bsInteractionDef_IsValid(&d.interaction));
	Scene s;
	Scene_Init(&s, 1, bsV3(0, 0, 0), 2, 2, 2, 0.01);
	d = good;
	d.interaction.fluid.flowIndex = 3.0;
	ENSURE(bsWorld_Step(s.world, &d, &s.p, NULL) == bs_errInvalidArgument);
	Scene_Free(&s);
	return 0;
}

int FluidTest(void)
{
	RUN_SUBTEST(KernelIntegrals());
	RUN_SUBTEST(WallsMatchLattice());
	RUN_SUBTEST(LaplacianReadsShear());
	RUN_SUBTEST(YieldReadsTresca());
	RUN_SUBTEST(VisitNearFindsEveryTriangle());
	RUN_SUBTEST(BadSettingsRefused());
	RUN_SUBTEST(SameBytesAnyThreads());
	RUN_SUBTEST(OverlappingBirthsPart());
	RUN_SUBTEST(NoParticleEscapes());
	RUN_SUBTEST(ColumnSettles());
	RUN_SUBTEST(SplashKeepsLargestCompression());
	RUN_SUBTEST(BinghamSlumpStops());
	return 0;
}
