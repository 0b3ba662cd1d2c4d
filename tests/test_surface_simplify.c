// test_surface_simplify.c — the decimated blob surface (bsSurfaceMesh_Simplify): closed and
// consistently oriented before and after (every directed edge once, its reverse once), smaller, every
// vertex one of the polygonizer's (so on the iso-surface, with its normal), and within the stated error
// of the undecimated mesh both ways, measured independently: points sampled over every triangle of one
// mesh, their distance to the other taken by the BVH's exact closest-point query.
#include "blobsim/bvh.h"
#include "blobsim/rng.h"
#include "blobsim/surface.h"
#include "core.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int EnsureClosedOriented(const bsSurfaceMesh* m)
{
	size_t bad = 1;
	ENSURE(bsSurfaceMesh_CheckClosed(m, &bad) == bs_ok);
	ENSURE(bad == 0);
	return 0;
}

static bsBvh* BuildBvh(const bsSurfaceMesh* m)
{
	bsTriangle* tris = malloc((m->triangleCount + 1) * sizeof(bsTriangle));
	bsBvh* bvh = malloc(sizeof(bsBvh));
	if (tris == NULL || bvh == NULL)
	{
		free(tris);
		free(bvh);
		return NULL;
	}
	for (size_t t = 0; t < m->triangleCount; ++t)
	{
		const uint32_t* v = m->indices + 3 * t;
		bsMakeTriangle(m->positions[v[0]], m->positions[v[1]], m->positions[v[2]], tris + t);
	}
	bsResult r = bsBvh_Build(bvh, tris, (uint32_t)m->triangleCount, NULL);
	free(tris);
	if (r != bs_ok)
	{
		free(bvh);
		return NULL;
	}
	return bvh;
}

// The largest distance from points of `from` (its vertices, and a 4 x 4 barycentric grid over each
// triangle) to the surface of `to`.
static double SampledDistance(const bsSurfaceMesh* from, const bsSurfaceMesh* to)
{
	bsBvh* bvh = BuildBvh(to);
	if (bvh == NULL)
	{
		return INFINITY;
	}
	enum
	{
		steps = 4,
	};
	double worst = 0.0;
	for (size_t t = 0; t < from->triangleCount; ++t)
	{
		const uint32_t* v = from->indices + 3 * t;
		bsVec3 a = from->positions[v[0]], b = from->positions[v[1]], c = from->positions[v[2]];
		for (int i = 0; i <= steps; ++i)
		{
			for (int j = 0; i + j <= steps; ++j)
			{
				double u = (double)i / steps, w = (double)j / steps;
				bsClosestPointInput in = {bsAdd(a, bsAdd(bsScale(u, bsSub(b, a)), bsScale(w, bsSub(c, a)))), HUGE_VAL};
				bsClosestPointOutput out;
				if (bsBvh_ClosestPoint(bvh, &in, &out, NULL) != bs_ok)
				{
					worst = INFINITY;
				}
				worst = out.distance > worst ? out.distance : worst;
			}
		}
	}
	bsBvh_Destroy(bvh);
	free(bvh);
	return worst;
}

static int CopyMesh(const bsSurfaceMesh* m, bsSurfaceMesh* copy)
{
	*copy = *m;
	copy->positions = malloc(m->vertexCount * sizeof(bsVec3));
	copy->normals = malloc(m->vertexCount * sizeof(bsVec3));
	copy->indices = malloc(3 * m->triangleCount * sizeof(uint32_t));
	ENSURE(copy->positions != NULL && copy->normals != NULL && copy->indices != NULL);
	memcpy(copy->positions, m->positions, m->vertexCount * sizeof(bsVec3));
	memcpy(copy->normals, m->normals, m->vertexCount * sizeof(bsVec3));
	memcpy(copy->indices, m->indices, 3 * m->triangleCount * sizeof(uint32_t));
	return 0;
}

// Every vertex of the decimated mesh is one of the original's, with the same normal (its order kept).
static int EnsureOwnVertices(const bsSurfaceMesh* full, const bsSurfaceMesh* m)
{
	size_t j = 0;
	for (size_t v = 0; v < m->vertexCount; ++v)
	{
		while (j < full->vertexCount && memcmp(&full->positions[j], &m->positions[v], sizeof(bsVec3)) != 0)
		{
			++j;
		}
		ENSURE(j < full->vertexCount);
		ENSURE(memcmp(&full->normals[j], &m->normals[v], sizeof(bsVec3)) == 0);
	}
	return 0;
}

// The full mesh of d decimated within 1/4 and 1/2 of its spacing h (and 1/2 with the shading rule): closed, oriented, of the same
// topology, made of the full mesh's vertices, at most `most` of its triangles, and within the bound
// of the full mesh both ways.
static int EnsureDecimated(const bsSurfaceDef* d, double most, int threads)
{
	bsSurfaceMesh full;
	ENSURE(bsSurface_Build(d, &full) == bs_ok);
	RUN_SUBTEST(EnsureClosedOriented(&full));
	// Without the shading rule (any normal angle), then with the default 10 degrees.
	const double errors[3] = {0.25, 0.5, 0.5};
	for (int k = 0; k < 3; ++k)
	{
		double bound = errors[k] * d->spacing;
		bsSurfaceMesh m;
		RUN_SUBTEST(CopyMesh(&full, &m));
		bsSurfaceSimplifyStats stats;
		bsSurfaceSimplifyDef sd = bsDefaultSurfaceSimplifyDef();
		sd.maxError = bound;
		sd.maxNormalAngle = k < 2 ? BS_PI : sd.maxNormalAngle;
		sd.threads = threads;
		ENSURE(bsSurfaceMesh_Simplify(&m, &sd, &stats) == bs_ok);
		ENSURE(stats.closed && stats.trianglesBefore == full.triangleCount && stats.trianglesAfter == m.triangleCount);
		ENSURE((double)m.triangleCount <= (k < 2 ? most : 1.0) * (double)full.triangleCount);
		ENSURE(k == 2 || m.triangleCount < full.triangleCount);
		RUN_SUBTEST(EnsureClosedOriented(&m));
		RUN_SUBTEST(EnsureOwnVertices(&full, &m));
		// Euler characteristic (the topology) kept: V - E + F with E = 3F/2 on a closed mesh.
		ENSURE((long)full.vertexCount - (long)full.triangleCount / 2 == (long)m.vertexCount - (long)m.triangleCount / 2);
		double out = SampledDistance(&m, &full), in = SampledDistance(&full, &m);
		ENSURE(out <= bound);
		ENSURE(in <= bound);
		bsSurfaceMesh_Free(&m);
	}
	bsSurfaceMesh_Free(&full);
	return 0;
}

// Random clusters of components, as the figures' piles and pours (one radius a cluster, as a figure's).
static int Clusters(void)
{
	enum
	{
		most = 440,
	};
	bsVec3 c[most];
	bsRng rng = bsMakeRng(11);
	for (int trial = 0; trial < 4; ++trial)
	{
		bsSurfaceDef d = bsDefaultSurfaceDef();
		d.centers = c;
		d.radius = 0.1 + 0.03 * trial;
		d.count = 200 + 80 * (size_t)trial;
		for (size_t i = 0; i < d.count; ++i)
		{
			c[i] = bsV3(bsRng_Range(&rng, -1.0, 1.0), bsRng_Range(&rng, -0.25, 0.25), bsRng_Range(&rng, -1.0, 1.0));
		}
		d.spacing = 0.3 * d.radius;  // the default surface_spacing
		RUN_SUBTEST(EnsureDecimated(&d, 0.75, 1 + trial % 3));
	}
	return 0;
}

// Pairs of components joined by necks a few cells thin or thinner (the pair separates at 0.269 for
// R 0.2, T 0.6): where a collapse without the link condition pinches the neck into an edge of four
// triangles.
static int Necks(void)
{
	enum
	{
		pairs = 40,
	};
	bsVec3 c[2 * pairs];
	for (int i = 0; i < pairs; ++i)
	{
		double gap = 0.24 + 0.0285 * (double)i / pairs;
		c[2 * i] = bsV3(0.5 * (double)(i % 8), 0.013 * (double)i, 0.5 * (double)(i / 8));
		c[2 * i + 1] = bsAdd(c[2 * i], bsV3(gap, 0.0, 0.0));
	}
	bsSurfaceDef d = bsDefaultSurfaceDef();
	d.centers = c;
	d.radius = 0.2;
	d.count = 2 * pairs;
	for (int k = 0; k < 3; ++k)
	{
		d.spacing = 0.06 + 0.01 * k;
		RUN_SUBTEST(EnsureDecimated(&d, 0.9, 2));
	}
	return 0;
}

// The same mesh and bound give the same bytes at 1 and 3 threads; bad bounds are refused, an empty mesh passes through.
static int Determinism(void)
{
	bsVec3 c[3] = {{0.0, 0.0, 0.0}, {0.25, 0.0, 0.0}, {0.1, 0.2, 0.05}};
	bsSurfaceDef d = bsDefaultSurfaceDef();
	d.centers = c;
	d.radius = 0.2;
	d.count = 3;
	d.spacing = 0.03;
	bsSurfaceMesh a, b;
	ENSURE(bsSurface_Build(&d, &a) == bs_ok);
	RUN_SUBTEST(CopyMesh(&a, &b));
	bsSurfaceSimplifyStats sa, sb;
	bsSurfaceSimplifyDef one = bsDefaultSurfaceSimplifyDef(), three = bsDefaultSurfaceSimplifyDef();
	one.maxError = three.maxError = 0.01;
	one.threads = 1;
	three.threads = 3;
	ENSURE(bsSurfaceMesh_Simplify(&a, &one, &sa) == bs_ok && bsSurfaceMesh_Simplify(&b, &three, &sb) == bs_ok);
	ENSURE(sa.trianglesAfter < sa.trianglesBefore);
	ENSURE(a.triangleCount == b.triangleCount && a.vertexCount == b.vertexCount);
	ENSURE(memcmp(a.indices, b.indices, 3 * a.triangleCount * sizeof(uint32_t)) == 0);
	ENSURE(memcmp(a.positions, b.positions, a.vertexCount * sizeof(bsVec3)) == 0);
	const double bad[3] = {0.0, NAN, INFINITY};
	for (int k = 0; k < 3; ++k)
	{
		one.maxError = bad[k];
		ENSURE(bsSurfaceMesh_Simplify(&a, &one, &sa) == bs_errInvalidArgument);
	}
	one.maxError = 0.01;
	one.maxNormalAngle = 0.0;
	ENSURE(bsSurfaceMesh_Simplify(&a, &one, &sa) == bs_errInvalidArgument);
	one.maxNormalAngle = 4.0;
	ENSURE(bsSurfaceMesh_Simplify(&a, &one, &sa) == bs_errInvalidArgument);
	one.maxNormalAngle = 0.5;
	bsSurfaceMesh_Free(&a);
	bsSurfaceMesh_Free(&b);
	bsSurfaceMesh empty;
	memset(&empty, 0, sizeof(empty));
	ENSURE(bsSurfaceMesh_Simplify(&empty, &one, &sa) == bs_ok && sa.trianglesAfter == 0);
	return 0;
}

// The check itself: a hole, a flipped triangle and a pinched edge (four triangles) are caught.
static int CheckCatches(void)
{
	// A tetrahedron, counter-clockwise seen from outside.
	bsVec3 p[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
	uint32_t tet[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
	bsSurfaceMesh m;
	memset(&m, 0, sizeof(m));
	m.positions = p;
	m.vertexCount = 4;
	m.indices = tet;
	m.triangleCount = 4;
	size_t bad = 0;
	ENSURE(bsSurfaceMesh_CheckClosed(&m, &bad) == bs_ok && bad == 0);
	m.triangleCount = 3;  // a hole
	ENSURE(bsSurfaceMesh_CheckClosed(&m, &bad) == bs_ok && bad > 0);
	m.triangleCount = 4;
	uint32_t flipped[12] = {0, 1, 2, 0, 1, 3, 0, 3, 2, 1, 2, 3};
	m.indices = flipped;
	ENSURE(bsSurfaceMesh_CheckClosed(&m, &bad) == bs_ok && bad > 0);
	uint32_t twice[24];  // two tetrahedra sharing every edge: each edge in four triangles
	memcpy(twice, tet, sizeof(tet));
	memcpy(twice + 12, tet, sizeof(tet));
	m.indices = twice;
	m.triangleCount = 8;
	ENSURE(bsSurfaceMesh_CheckClosed(&m, &bad) == bs_ok && bad > 0);
	return 0;
}

int SurfaceSimplifyTest(void)
{
	RUN_SUBTEST(CheckCatches());
	RUN_SUBTEST(Determinism());
	RUN_SUBTEST(Clusters());
	RUN_SUBTEST(Necks());
	return 0;
}
