// test_dynamics.c — many steps that a user relies on, for every method: no particle leaves a closed
// container, passes a thin plate, gets behind a wall of a crease or skates on a flat floor; a slide
// down an incline accelerates at g sin(theta); a bounce reaches restitution^2 of its height; a particle
// at rest stays at rest. Each scene checks its invariant on every frame and counts the violations,
// which must be 0. Distances are measured by brute force over the triangles, apart from the code
// under test.
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "test.h"
#include "array.h"
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- meshes ---

typedef struct Mesh
{
	bsTriangle* tris;
	uint32_t count;
	size_t capacity;
} Mesh;

static void Mesh_Add(Mesh* m, bsVec3 a, bsVec3 b, bsVec3 c, bool flip)
{
	if (!BS_ARRAY_RESERVE(m->tris, m->capacity, (size_t)m->count + 1))
	{
		abort();  // a test mesh of a few hundred triangles: out of memory is not a case here
	}
	if (bsMakeTriangle(a, flip ? c : b, flip ? b : c, m->tris + m->count) == bs_ok)
	{
		m->count += 1;
	}
}

// The box [-1, 1]^3, two triangles a face, normals outwards (or inwards when flip).
static Mesh MakeBox(bool flip)
{
	Mesh m = {0};
	for (int axis = 0; axis < 3; ++axis)
	{
		for (int sign = -1; sign <= 1; sign += 2)
		{
			double p[4][3];
			int u = (axis + 1) % 3, v = (axis + 2) % 3;
			const double cu[4] = {-1, 1, 1, -1}, cv[4] = {-1, -1, 1, 1};
			for (int k = 0; k < 4; ++k)
			{
				p[k][axis] = sign;
				p[k][u] = cu[k];
				p[k][v] = cv[k];
			}
			bsVec3 q[4];
			for (int k = 0; k < 4; ++k)
			{
				q[k] = bsV3(p[k][0], p[k][1], p[k][2]);
			}
			bool out = sign > 0;  // u x v = axis: counter-clockwise seen from +axis
			Mesh_Add(&m, q[0], q[1], q[2], out == flip);
			Mesh_Add(&m, q[0], q[2], q[3], out == flip);
		}
	}
	return m;
}

// An icosphere of radius 1: an icosahedron subdivided `levels` times (20 4^levels triangles).
static Mesh MakeIcosphere(int levels, bool flip)
{
	double t = (1.0 + sqrt(5.0)) / 2.0;
	bsVec3 v[12] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
		{0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
	const int f[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
		{11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
		{4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
	size_t n = 20;
	bsVec3* tri = malloc(20 * 3 * sizeof(bsVec3));
	for (int i = 0; i < 20; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			tri[3 * i + k] = bsNormalize(v[f[i][k]]);
		}
	}
	for (int l = 0; l < levels; ++l)
	{
		bsVec3* next = malloc(n * 4 * 3 * sizeof(bsVec3));
		for (size_t i = 0; i < n; ++i)
		{
			bsVec3 a = tri[3 * i], b = tri[3 * i + 1], c = tri[3 * i + 2];
			bsVec3 ab = bsNormalize(bsAdd(a, b)), bc = bsNormalize(bsAdd(b, c)), ca = bsNormalize(bsAdd(c, a));
			bsVec3 out[12] = {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca};
			memcpy(next + 12 * i, out, sizeof(out));
		}
		free(tri);
		tri = next;
		n *= 4;
	}
	Mesh m = {0};
	for (size_t i = 0; i < n; ++i)
	{
		Mesh_Add(&m, tri[3 * i], tri[3 * i + 1], tri[3 * i + 2], flip);
	}
	free(tri);
	return m;
}

// The square [-1, 1]^2 in the plane y = 0, two triangles (a thin plate, a floor).
static Mesh MakeSquare(void)
{
	Mesh m = {0};
	Mesh_Add(&m, bsV3(-1, 0, -1), bsV3(-1, 0, 1), bsV3(1, 0, 1), false);
	Mesh_Add(&m, bsV3(-1, 0, -1), bsV3(1, 0, 1), bsV3(1, 0, -1), false);
	return m;
}

// A copy the caller owns (a Scene frees its mesh).
static Mesh Mesh_Copy(const Mesh* m)
{
	Mesh copy = *m;
	copy.tris = malloc(m->count * sizeof(bsTriangle));
	memcpy(copy.tris, m->tris, m->count * sizeof(bsTriangle));
	copy.capacity = m->count;
	return copy;
}

// Brute force: the distance from x to the mesh.
static double MeshDistance(const Mesh* m, bsVec3 x)
{
	double best = HUGE_VAL;
	for (uint32_t k = 0; k < m->count; ++k)
	{
		best = fmin(best, bsDistance(x, bsTriangle_ClosestPoint(m->tris + k, x, NULL, NULL)));
	}
	return best;
}

// --- worlds ---

typedef struct Scene
{
	Mesh mesh;
	bsBvh bvh;
	bsWorld* world;
} Scene;

static int Scene_Make(Scene* s, Mesh mesh, int threads)
{
	s->mesh = mesh;
	ENSURE(bsBvh_Build(&s->bvh, mesh.tris, mesh.count, NULL) == bs_ok);
	bsWorldDef def = bsDefaultWorldDef();
	def.threads = threads;
	s->world = bsWorld_Create(&def);
	ENSURE(s->world != NULL && bsWorld_AddMesh(s->world, &s->bvh) == bs_ok);
	return 0;
}

static void Scene_Free(Scene* s)
{
	bsWorld_Destroy(s->world);
	bsBvh_Destroy(&s->bvh);
	free(s->mesh.tris);
}

static bsStepDef Def(bsMethod method, bsResponse response, double dt)
{
	bsStepDef def = bsDefaultStepDef();
	def.method = method;
	def.response = response;
	def.dt = dt;
	def.restitution = 0.9;
	return def;
}

// The clearance a method promises over many steps: the swept-sphere methods keep the sphere clear of
// every surface (less a relative 1e-6 for rounding), the ray method keeps its point on its side.
static double Clearance(bsMethod method, double radius)
{
	return method == bs_methodRay ? 0.0 : radius * (1.0 - 1e-6);
}

// --- closed containers ---

// Inside the convex container of `mesh` (box or icosphere of radius 1 about the origin): a point
// behind a face plane is outside.
static bool Inside(const Mesh* m, bsVec3 x)
{
	for (uint32_t k = 0; k < m->count; ++k)
	{
		const bsTriangle* t = m->tris + k;
		double s = bsTriangle_PlaneDistance(t, x);
		double outward = bsDot(t->n, t->p1) > 0.0 ? 1.0 : -1.0;  // normals of either winding
		if (outward * s > 0.0)
		{
			return false;
		}
	}
	return true;
}

static int Container(Mesh mesh, bsMethod method, bsResponse response, int particles, int steps,
	uint64_t* escapes, double* minClearance)
{
	Scene s;
	RUN_SUBTEST(Scene_Make(&s, mesh, 2));
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, (size_t)particles) == bs_ok);
	bsRng rng = bsMakeRng(31 + (uint64_t)method * 7 + (uint64_t)response);
	double radius = 0.02;
	for (int i = 0; i < particles; ++i)
	{
		// Inside the inscribed cube of the icosphere too, clear of the walls.
		p.position[i] = bsV3(bsRng_Range(&rng, -0.5, 0.5), bsRng_Range(&rng, -0.5, 0.5), bsRng_Range(&rng, -0.5, 0.5));
		p.velocity[i] = bsScale(bsRng_Range(&rng, 0.0, 3.0), bsRng_UnitVector(&rng));
		p.radius[i] = radius;
	}
	bsStepDef def = Def(method, response, 0.01);
	double least = HUGE_VAL;
	for (int k = 0; k < steps; ++k)
	{
		// Gravity turns, so particles slide and bounce into every wall, edge and corner.
		double a = 0.01 * k;
		def.gravity = bsScale(9.81, bsV3(sin(a), -cos(0.7 * a), sin(1.3 * a) * cos(a)));
		ENSURE(bsWorld_Step(s.world, &def, &p, NULL) == bs_ok);
		for (int i = 0; i < particles; ++i)
		{
			if (!Inside(&s.mesh, p.position[i]))
			{
				*escapes += 1;
				continue;
			}
			if (k % 50 == 49 || k == steps - 1)
			{
				least = fmin(least, MeshDistance(&s.mesh, p.position[i]) / radius);
			}
		}
	}
	*minClearance = fmin(*minClearance, least);
	bsParticles_Free(&p);
	Scene_Free(&s);
	return 0;
}

static int Containers(void)
{
	enum
	{
		kParticles = 1000,
		kSteps = 1000,
	};
	const char* names[] = {"box", "box (inward)", "icosphere", "icosphere (inward)"};
	for (int m = 0; m < bs_methodCount; ++m)
	{
		uint64_t escapes = 0;
		double clearance = HUGE_VAL;
		for (int r = bs_responseSlide; r <= bs_responseBounce; ++r)
		{
			for (int c = 0; c < 4; ++c)
			{
				Mesh mesh = c < 2 ? MakeBox(c == 1) : MakeIcosphere(2, c == 3);
				uint64_t before = escapes;
				RUN_SUBTEST(Container(mesh, (bsMethod)m, (bsResponse)r, kParticles, kSteps, &escapes, &clearance));
				if (escapes != before)
				{
					fprintf(stderr, "  %s, %s, %s: %llu particle-steps outside\n", bsMethodName((bsMethod)m),
						bsResponseName((bsResponse)r), names[c], (unsigned long long)(escapes - before));
				}
			}
		}
		printf("  containers, %s: %d particle-steps, %llu outside, least clearance %.9f R\n",
			bsMethodName((bsMethod)m), 2 * 4 * kParticles * kSteps, (unsigned long long)escapes, clearance);
		ENSURE(escapes == 0);
		ENSURE(clearance >= Clearance((bsMethod)m, 1.0));
	}
	return 0;
}

// --- a thin plate at 20 R per step ---

static int ThinPlate(void)
{
	for (int m = 0; m < bs_methodCount; ++m)
	{
		Scene s;
		RUN_SUBTEST(Scene_Make(&s, MakeSquare(), 1));
		size_t n = 400;
		double radius = 0.005;
		bsParticles p;
		ENSURE(bsParticles_Alloc(&p, n) == bs_ok);
		bsRng rng = bsMakeRng(5);
		for (size_t i = 0; i < n; ++i)
		{
			double side = i % 2 ? 1.0 : -1.0;
			p.position[i] = bsV3(bsRng_Range(&rng, -0.9, 0.9), side * bsRng_Range(&rng, 0.01, 0.3), bsRng_Range(&rng, -0.9, 0.9));
			// 20 R per step of 0.01 s towards the plate, with some sideways motion.
			p.velocity[i] = bsV3(bsRng_Range(&rng, -1, 1), -side * 20.0 * radius / 0.01, bsRng_Range(&rng, -1, 1));
			p.radius[i] = radius;
		}
		uint64_t crossed = 0;
		for (int r = bs_responseSlide; r <= bs_responseBounce; ++r)
		{
			bsStepDef def = Def((bsMethod)m, (bsResponse)r, 0.01);
			for (int k = 0; k < 300; ++k)
			{
				ENSURE(bsWorld_Step(s.world, &def, &p, NULL) == bs_ok);
				for (size_t i = 0; i < n; ++i)
				{
					bool above = (i % 2) != 0;
					bool overPlate = fabs(p.position[i].x) < 1.0 && fabs(p.position[i].z) < 1.0;
					crossed += overPlate && (above ? p.position[i].y < 0.0 : p.position[i].y > 0.0);
				}
			}
		}
		printf("  thin plate at 20 R a step, %s: %llu crossings\n", bsMethodName((bsMethod)m), (unsigned long long)crossed);
		ENSURE(crossed == 0);
		bsParticles_Free(&p);
		Scene_Free(&s);
	}
	return 0;
}

// --- creases ---

// Two walls through the line x = y = 0 (along z), each at `half` degrees from the vertical: a V.
static Mesh MakeCrease(double halfDegrees, int strips)
{
	double a = halfDegrees * BS_PI / 180.0;
	bsVec3 left = bsV3(-sin(a), cos(a), 0), right = bsV3(sin(a), cos(a), 0);
	Mesh m = {0};
	for (int k = 0; k < strips; ++k)
	{
		double z0 = -2.0 + 4.0 * k / strips, z1 = -2.0 + 4.0 * (k + 1) / strips;
		bsVec3 o0 = bsV3(0, 0, z0), o1 = bsV3(0, 0, z1);
		Mesh_Add(&m, o0, bsAdd(o1, left), o1, false);
		Mesh_Add(&m, o0, bsAdd(o0, left), bsAdd(o1, left), false);
		Mesh_Add(&m, o0, o1, bsAdd(o1, right), false);
		Mesh_Add(&m, o0, bsAdd(o1, right), bsAdd(o0, right), false);
	}
	return m;
}

static int Crease(double halfDegrees)
{
	double a = halfDegrees * BS_PI / 180.0;
	bsVec3 inLeft = bsV3(cos(a), sin(a), 0), inRight = bsV3(-cos(a), sin(a), 0);  // wall normals, inwards
	for (int m = 0; m < bs_methodCount; ++m)
	{
		Scene s;
		RUN_SUBTEST(Scene_Make(&s, MakeCrease(halfDegrees, 16), 1));
		double radius = 0.02;
		size_t n = 50;
		bsParticles p;
		ENSURE(bsParticles_Alloc(&p, n) == bs_ok);
		bsRng rng = bsMakeRng(8);
		for (size_t i = 0; i < n; ++i)
		{
			p.position[i] = bsV3(bsRng_Range(&rng, -0.05, 0.05), bsRng_Range(&rng, 0.1, 0.3), bsRng_Range(&rng, 1.0, 1.5));
			p.radius[i] = radius;
		}
		bsStepDef def = Def((bsMethod)m, bs_responseSlide, 0.01);
		def.gravity = bsV3(0, -9.81, -1.0);
		uint64_t behind = 0;
		for (int k = 0; k < 100; ++k)
		{
			ENSURE(bsWorld_Step(s.world, &def, &p, NULL) == bs_ok);
			for (size_t i = 0; i < n; ++i)
			{
				double c = Clearance((bsMethod)m, radius) - 1e-9;
				behind += bsDot(p.position[i], inLeft) < c || bsDot(p.position[i], inRight) < c;
			}
		}
		// Down the crease line it slides freely (no friction): after 1 s at g_z t = 1 m/s.
		uint64_t frozen = 0;
		for (size_t i = 0; i < n; ++i)
		{
			frozen += p.velocity[i].z > -0.9;
		}
		printf("  crease of %.0f degrees, %s: %llu particle-frames behind a wall, %llu not sliding\n",
			2 * halfDegrees, bsMethodName((bsMethod)m), (unsigned long long)behind, (unsigned long long)frozen);
		ENSURE(behind == 0 && frozen == 0);
		bsParticles_Free(&p);
		Scene_Free(&s);
	}
	return 0;
}

static int Creases(void)
{
	RUN_SUBTEST(Crease(30.0));  // 60 degrees
	RUN_SUBTEST(Crease(45.0));  // 90 degrees
	return 0;
}

// --- a floor of many triangles: dropped straight down, no sideways motion ---

static int Floor(void)
{
	Mesh mesh = {0};
	int cells = 40;
	for (int i = 0; i < cells; ++i)
	{
		for (int j = 0; j < cells; ++j)
		{
			double x0 = -1.0 + 2.0 * i / cells, x1 = -1.0 + 2.0 * (i + 1) / cells;
			double z0 = -1.0 + 2.0 * j / cells, z1 = -1.0 + 2.0 * (j + 1) / cells;
			Mesh_Add(&mesh, bsV3(x0, 0, z0), bsV3(x0, 0, z1), bsV3(x1, 0, z1), false);
			Mesh_Add(&mesh, bsV3(x0, 0, z0), bsV3(x1, 0, z1), bsV3(x1, 0, z0), false);
		}
	}
	for (int m = 0; m < bs_methodCount; ++m)
	{
		Scene s;
		RUN_SUBTEST(Scene_Make(&s, Mesh_Copy(&mesh), 1));
		size_t n = 41 * 41;
		double radius = 0.01;
		bsParticles p;
		ENSURE(bsParticles_Alloc(&p, n) == bs_ok);
		for (size_t i = 0; i < n; ++i)
		{
			// On and beside the shared edges and vertices of the grid, and in between.
			p.position[i] = bsV3(-0.5 + (double)(i % 41) / 80.0, 0.3, -0.5 + (double)(i / 41) / 80.0);
			p.radius[i] = radius;
		}
		uint64_t below = 0;
		double drift = 0.0;
		for (int r = bs_responseSlide; r <= bs_responseBounce; ++r)
		{
			for (size_t i = 0; i < n; ++i)
			{
				p.position[i].y = 0.3;
				p.velocity[i] = bsV3(0, 0, 0);
			}
			bsStepDef def = Def((bsMethod)m, (bsResponse)r, 0.005);
			def.gravity = bsV3(0, -9.81, 0);
			def.restitution = 0.5;
			for (int k = 0; k < 200; ++k)
			{
				ENSURE(bsWorld_Step(s.world, &def, &p, NULL) == bs_ok);
				for (size_t i = 0; i < n; ++i)
				{
					below += p.position[i].y < Clearance((bsMethod)m, radius) - 1e-9;
					double x = -0.5 + (double)(i % 41) / 80.0, z = -0.5 + (double)(i / 41) / 80.0;
					drift = fmax(drift, fmax(fabs(p.position[i].x - x), fabs(p.position[i].z - z)));
				}
			}
		}
		printf("  floor of %u triangles, %s: %llu particle-frames below, largest sideways drift %.3g R\n",
			mesh.count, bsMethodName((bsMethod)m), (unsigned long long)below, drift / radius);
		ENSURE(below == 0);
		ENSURE(drift <= 1e-5 * radius);  // rounding only: skating was 53 R after 1 s
		bsParticles_Free(&p);
		Scene_Free(&s);
	}
	free(mesh.tris);
	return 0;
}

// --- an incline: the slide accelerates at g sin(theta) ---

static int Incline(void)
{
	double theta = 25.0 * BS_PI / 180.0;
	bsVec3 down = bsV3(cos(theta), -sin(theta), 0);  // along the slope, downhill
	bsVec3 normal = bsV3(sin(theta), cos(theta), 0);
	Mesh mesh = {0};
	for (int k = 0; k < 20; ++k)
	{
		bsVec3 a = bsScale(-2.0 + 0.4 * k, down), b = bsScale(-2.0 + 0.4 * (k + 1), down);
		Mesh_Add(&mesh, bsAdd(a, bsV3(0, 0, -1)), bsAdd(a, bsV3(0, 0, 1)), bsAdd(b, bsV3(0, 0, 1)), false);
		Mesh_Add(&mesh, bsAdd(a, bsV3(0, 0, -1)), bsAdd(b, bsV3(0, 0, 1)), bsAdd(b, bsV3(0, 0, -1)), false);
	}
	for (int m = 0; m < bs_methodCount; ++m)
	{
		Scene s;
		RUN_SUBTEST(Scene_Make(&s, Mesh_Copy(&mesh), 1));
		double radius = 0.01;
		double rest = m == bs_methodRay ? 0.0 : radius;
		bsParticles p;
		ENSURE(bsParticles_Alloc(&p, 1) == bs_ok);
		bsVec3 start = bsMulAdd(bsScale(-1.5, down), rest + 1e-7, normal);
		p.position[0] = start;
		p.radius[0] = radius;
		bsStepDef def = Def((bsMethod)m, bs_responseSlide, 0.001);
		def.gravity = bsV3(0, -9.81, 0);
		int steps = 1000;
		for (int k = 0; k < steps; ++k)
		{
			ENSURE(bsWorld_Step(s.world, &def, &p, NULL) == bs_ok);
		}
		double t = steps * def.dt;
		double along = bsDot(bsSub(p.position[0], start), down);
		double expected = 0.5 * 9.81 * sin(theta) * t * t;
		printf("  incline of 25 degrees, %s: distance %.6f of g sin(theta) t^2 / 2\n", bsMethodName((bsMethod)m),
			along / expected);
		// Symplectic Euler over 1000 steps travels (1 + 1/1000) of the closed form.
		ENSURE(fabs(along / expected - 1.0) < 0.005);
		ENSURE(fabs(bsDot(bsSub(p.position[0], start), normal)) < 1e-5);
		bsParticles_Free(&p);
		Scene_Free(&s);
	}
	free(mesh.tris);
	return 0;
}

// --- a bounce: restitution^2 of the height; then rest ---

static int Bounce(void)
{
	for (int m = 0; m < bs_methodCount; ++m)
	{
		Scene s;
		RUN_SUBTEST(Scene_Make(&s, MakeSquare(), 1));
		double radius = 0.01;
		double floor = m == bs_methodRay ? 0.0 : radius;
		bsParticles p;
		ENSURE(bsParticles_Alloc(&p, 1) == bs_ok);
		p.position[0] = bsV3(0.1, floor + 1.0, 0.2);
		p.radius[0] = radius;
		bsStepDef def = Def((bsMethod)m, bs_responseBounce, 0.0005);
		def.gravity = bsV3(0, -9.81, 0);
		def.restitution = 0.7;
		double apex = 0.0;
		int bounces = 0;
		double lastVy = 0.0;
		double heights[3] = {0};
		for (int k = 0; k < 20000 && bounces < 3; ++k)
		{
			ENSURE(bsWorld_Step(s.world, &def, &p, NULL) == bs_ok);
			double vy = p.velocity[0].y;
			if (lastVy > 0.0 && vy <= 0.0)
			{
				heights[bounces++] = apex - floor;
			}
			apex = vy > 0.0 ? fmax(apex, p.position[0].y) : (lastVy <= 0.0 ? 0.0 : apex);
			lastVy = vy;
		}
		ENSURE(bounces == 3);
		for (int b = 0; b < 3; ++b)
		{
			double expected = pow(0.7, 2.0 * (b + 1));
			printf("  bounce %d, %s: height %.5f, restitution^%d = %.5f\n", b + 1, bsMethodName((bsMethod)m),
				heights[b], 2 * (b + 1), expected);
			ENSURE(fabs(heights[b] / expected - 1.0) < 0.02);
		}
		// Then it comes to rest and stays: speed exactly 0 at the end of every step after 4 s.
		uint64_t moving = 0;
		for (int k = 0; k < 16000; ++k)
		{
			ENSURE(bsWorld_Step(s.world, &def, &p, NULL) == bs_ok);
			moving += k >= 8000 && bsLength(p.velocity[0]) != 0.0;
		}
		printf("  bounce to rest, %s: %llu steps of the last 8,000 with a speed\n", bsMethodName((bsMethod)m),
			(unsigned long long)moving);
		ENSURE(moving == 0);
		ENSURE(p.position[0].y >= floor - 1e-9 && p.position[0].y < floor + 1e-5);
		bsParticles_Free(&p);
		Scene_Free(&s);
	}
	return 0;
}

int DynamicsTest(void)
{
	RUN_SUBTEST(Bounce());
	RUN_SUBTEST(Incline());
	RUN_SUBTEST(Floor());
	RUN_SUBTEST(Creases());
	RUN_SUBTEST(ThinPlate());
	RUN_SUBTEST(Containers());
	return 0;
}
