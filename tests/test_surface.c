// test_surface.c — the blob surface mesh: closed and consistently oriented, vertices on the iso-surface
// of a field evaluated here by brute force over every component, normals along its gradient, a lone
// component's sphere at the closed-form radius, byte-identical output at 1, 2 and 3 threads.
#include "blobsim/rng.h"
#include "blobsim/surface.h"
#include "surface_file.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The blob field written out again from its definition: sum over components of S (1 - d^2/R^2)^2 for
// d < R, and its gradient.
static double Field(const bsSurfaceDef* d, bsVec3 p, bsVec3* gradient)
{
	double f = 0.0;
	bsVec3 g = {0.0, 0.0, 0.0};
	for (size_t i = 0; i < d->count; ++i)
	{
		double r = d->radii != NULL ? d->radii[i] : d->radius;
		bsVec3 v = bsSub(p, d->centers[i]);
		double u = 1.0 - bsDot(v, v) / (r * r);
		if (u > 0.0)
		{
			f += d->strength * u * u;
			g = bsAdd(g, bsScale(-4.0 * d->strength * u / (r * r), v));
		}
	}
	if (gradient != NULL)
	{
		*gradient = g;
	}
	return f;
}

static int CompareU64(const void* a, const void* b)
{
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return x < y ? -1 : (x > y ? 1 : 0);
}

// Every edge is used by exactly two triangles, once in each direction (closed and consistently
// oriented), and no triangle repeats a vertex.
static int EnsureClosed(const bsSurfaceMesh* m)
{
	size_t n = 3 * m->triangleCount;
	uint64_t* directed = malloc((n + 1) * sizeof(uint64_t));
	ENSURE(directed != NULL);
	for (size_t t = 0; t < m->triangleCount; ++t)
	{
		const uint32_t* v = m->indices + 3 * t;
		ENSURE(v[0] != v[1] && v[1] != v[2] && v[2] != v[0]);
		for (int k = 0; k < 3; ++k)
		{
			ENSURE(v[k] < m->vertexCount);
			directed[3 * t + (size_t)k] = (uint64_t)v[k] << 32 | v[(k + 1) % 3];
		}
	}
	qsort(directed, n, sizeof(uint64_t), CompareU64);
	int bad = 0;
	for (size_t i = 0; i < n && bad == 0; ++i)
	{
		if (i + 1 < n && directed[i] == directed[i + 1])
		{
			bad = 1;  // the same directed edge twice: more than two triangles, or flipped ones
		}
		uint64_t reverse = directed[i] << 32 | directed[i] >> 32;
		if (bsearch(&reverse, directed, n, sizeof(uint64_t), CompareU64) == NULL)
		{
			bad = 2;  // an edge with one triangle: a hole
		}
	}
	free(directed);
	ENSURE(bad == 0);
	return 0;
}

// Every vertex within 1e-3 spacings of the iso-surface (|f - T| / |grad f| to first order) and its
// normal along minus the gradient.
static int EnsureOnSurface(const bsSurfaceDef* d, const bsSurfaceMesh* m)
{
	for (size_t v = 0; v < m->vertexCount; ++v)
	{
		bsVec3 g;
		double f = Field(d, m->positions[v], &g);
		double len = bsLength(g);
		ENSURE(len > 0.0);
		ENSURE_SMALL((f - d->threshold) / len, 1e-3 * d->spacing);
		ENSURE(bsDot(m->normals[v], bsScale(-1.0 / len, g)) > 1.0 - 1e-9);
	}
	return 0;
}

static int EnsureSameMesh(const bsSurfaceMesh* a, const bsSurfaceMesh* b)
{
	ENSURE(a->vertexCount == b->vertexCount && a->triangleCount == b->triangleCount);
	ENSURE(memcmp(a->positions, b->positions, a->vertexCount * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(a->normals, b->normals, a->vertexCount * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(a->indices, b->indices, 3 * a->triangleCount * sizeof(uint32_t)) == 0);
	return 0;
}

// One component: a sphere of radius R sqrt(1 - sqrt(T/S)) (POV-Ray's blob documentation), closed, with
// V - E + F = 2, outward triangles and normals, wherever it sits against the lattice.
static int Sphere(void)
{
	const double offsets[3] = {0.0, 0.0123, 0.5};
	for (int k = 0; k < 3; ++k)
	{
		bsVec3 c = bsV3(1.0 + offsets[k], -2.0 + offsets[k], 0.25 + 0.3 * offsets[k]);
		bsSurfaceDef d = bsDefaultSurfaceDef();
		d.centers = &c;
		d.count = 1;
		d.radius = 0.8;
		d.strength = 1.5;
		d.threshold = 0.6;
		d.spacing = 0.05;
		bsSurfaceMesh m;
		ENSURE(bsSurface_Build(&d, &m) == bs_ok);
		ENSURE(m.triangleCount > 500);
		double expected = d.radius * sqrt(1.0 - sqrt(d.threshold / d.strength));
		for (size_t v = 0; v < m.vertexCount; ++v)
		{
			bsVec3 out = bsSub(m.positions[v], c);
			ENSURE_SMALL(bsLength(out) - expected, 1e-6 * d.spacing);
			ENSURE(bsDot(m.normals[v], bsNormalize(out)) > 1.0 - 1e-9);
		}
		for (size_t t = 0; t < m.triangleCount; ++t)
		{
			const uint32_t* i = m.indices + 3 * t;
			bsVec3 a = m.positions[i[0]], b = m.positions[i[1]], e = m.positions[i[2]];
			bsVec3 n = bsCross(bsSub(b, a), bsSub(e, a));
			ENSURE(bsDot(n, bsSub(a, c)) >= 0.0);  // counter-clockwise seen from outside
		}
		RUN_SUBTEST(EnsureClosed(&m));
		// Euler: a sphere has V - E + F = 2 with E = 3F/2.
		ENSURE((long)m.vertexCount - (long)(3 * m.triangleCount / 2) + (long)m.triangleCount == 2);
		bsSurfaceMesh_Free(&m);
	}
	return 0;
}

// Random clusters: coarse spacings (many ambiguous faces), radii that vary, components on lattice
// points and on top of each other.
static int Clusters(void)
{
	bsRng rng = bsMakeRng(7);
	for (int trial = 0; trial < 6; ++trial)
	{
		size_t n = 200 + 150 * (size_t)trial;
		bsVec3* c = malloc(n * sizeof(bsVec3));
		double* r = malloc(n * sizeof(double));
		ENSURE(c != NULL && r != NULL);
		double spacing = trial < 3 ? 0.05 : 0.11;  // component radii 0.1 .. 0.2
		for (size_t i = 0; i < n; ++i)
		{
			c[i] = bsV3(bsRng_Range(&rng, -1.0, 1.0), bsRng_Range(&rng, -0.3, 0.3), bsRng_Range(&rng, -1.0, 1.0));
			r[i] = bsRng_Range(&rng, 0.1, 0.2);
			if (i % 17 == 0)
			{
				c[i] = bsV3(spacing * (double)(int)(c[i].x / spacing), spacing * 3.0, 0.0);  // on the lattice
			}
			if (i % 23 == 1)
			{
				c[i] = c[i - 1];  // a duplicate
			}
		}
		bsSurfaceDef d = bsDefaultSurfaceDef();
		d.centers = c;
		d.radii = r;
		d.count = n;
		d.strength = 1.0;
		d.threshold = trial % 2 == 0 ? 0.6 : 0.25;
		d.spacing = spacing;
		bsSurfaceMesh m[3];
		for (int threads = 1; threads <= 3; ++threads)
		{
			d.threads = threads;
			ENSURE(bsSurface_Build(&d, m + threads - 1) == bs_ok);
		}
		ENSURE(m[0].triangleCount > 1000);
		RUN_SUBTEST(EnsureClosed(m));
		RUN_SUBTEST(EnsureOnSurface(&d, m));
		RUN_SUBTEST(EnsureSameMesh(m, m + 1));
		RUN_SUBTEST(EnsureSameMesh(m, m + 2));
		for (int k = 0; k < 3; ++k)
		{
			bsSurfaceMesh_Free(m + k);
		}
		free(c);
		free(r);
	}
	return 0;
}

// A surface across many bricks, with the grid centred on the origin (negative brick keys).
static int Sheet(void)
{
	size_t n = 0;
	bsVec3 c[4000];
	bsRng rng = bsMakeRng(3);
	for (int i = 0; i < 60; ++i)
	{
		for (int j = 0; j < 60 && n < 4000; ++j)
		{
			c[n++] = bsV3(-0.6 + 0.02 * i, 0.01 * sin(0.3 * i * j) + bsRng_Range(&rng, -0.002, 0.002), -0.6 + 0.02 * j);
		}
	}
	bsSurfaceDef d = bsDefaultSurfaceDef();
	d.centers = c;
	d.count = n;
	d.radius = 0.024;
	d.threshold = 0.6;
	d.spacing = 0.35 * d.radius;
	bsSurfaceMesh m;
	ENSURE(bsSurface_Build(&d, &m) == bs_ok);
	ENSURE(m.brickCount > 100);
	RUN_SUBTEST(EnsureClosed(&m));
	RUN_SUBTEST(EnsureOnSurface(&d, &m));
	bsSurfaceMesh_Free(&m);
	return 0;
}

static int BadInput(void)
{
	bsVec3 c = bsV3(0.0, 0.0, 0.0);
	bsSurfaceDef d = bsDefaultSurfaceDef();
	d.centers = &c;
	d.count = 1;
	d.radius = 1.0;
	bsSurfaceMesh m;
	ENSURE(bsSurface_Build(&d, &m) == bs_errInvalidArgument);  // no spacing
	d.spacing = 0.1;
	d.threshold = 1.0;
	ENSURE(bsSurface_Build(&d, &m) == bs_errInvalidArgument);  // T = S
	d.threshold = 0.5;
	c.x = NAN;
	ENSURE(bsSurface_Build(&d, &m) == bs_errNonFinite);
	c.x = 1e9;
	ENSURE(bsSurface_Build(&d, &m) == bs_errTooLarge);
	d.count = 0;
	ENSURE(bsSurface_Build(&d, &m) == bs_ok);
	ENSURE(m.vertexCount == 0 && m.triangleCount == 0);
	bsSurfaceMesh_Free(&m);
	return 0;
}

// The compact fixed-point numbers of the mesh files: within half a unit of the last decimal of x (what
// printf("%.*f") rounds to, read back with strtod), with no trailing zero and no "-0"; POV-Ray's with no
// leading "0.", OBJ's with a digit before every point (".5" and "-.5" are miscounted by assimp 5.2).
static int FixedNumbers(void)
{
	bsRng rng = bsMakeRng(11);
	for (int i = 0; i < 20000; ++i)
	{
		int d = (int)bsRng_Below(&rng, 10);
		double x = i < 10 ? (double)(i - 5) * 0.1 : bsRng_Range(&rng, -1.0, 1.0) * pow(10.0, bsRng_Range(&rng, -7.0, 4.0));
		char out[32], ref[64], obj[32];
		size_t n = bsSurfaceFile_FormatFixed(out, x, d, false);
		ENSURE(n == strlen(out) && n > 0);
		size_t k = bsSurfaceFile_FormatFixed(obj, x, d, true);
		ENSURE(k == strlen(obj) && strtod(obj, NULL) == strtod(out, NULL) && strcmp(obj, "-0") != 0);
		const char* digits = obj[0] == '-' ? obj + 1 : obj;
		ENSURE(digits[0] >= '0' && digits[0] <= '9' && (strchr(obj, '.') == NULL || obj[k - 1] != '0'));
		snprintf(ref, sizeof(ref), "%.*f", d, x);
		ENSURE_SMALL(strtod(out, NULL) - strtod(ref, NULL), 1e-12 * (1.0 + fabs(x)));
		ENSURE(fabs(strtod(out, NULL) - x) <= 0.5 * pow(10.0, -d) * (1.0 + 1e-9) + 1e-15 * fabs(x));
		ENSURE(strchr(out, '.') == NULL || out[n - 1] != '0');
		ENSURE(strncmp(out, "0.", 2) != 0 && strncmp(out, "-0.", 3) != 0 && strcmp(out, "-0") != 0);
	}
	ENSURE(bsSurfaceFile_Decimals(0.00576, 1.0 / 64.0) == 5);  // 1e-5 <= 9e-5 < 1e-4
	ENSURE(bsSurfaceFile_Decimals(1.0, 1.0) == 0);
	return 0;
}

int SurfaceTest(void)
{
	RUN_SUBTEST(FixedNumbers());
	RUN_SUBTEST(Sphere());
	RUN_SUBTEST(Clusters());
	RUN_SUBTEST(Sheet());
	RUN_SUBTEST(BadInput());
	return 0;
}
