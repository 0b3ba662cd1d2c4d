// test_orientation.c — a mesh's edges and which side of each face is out (field.h: bsOrientation),
// and the surface emitter that uses it: an icosphere with 30% of its faces wound the other way emits
// no particle inside, each face's verdict checked against the sphere's own outward normals, and the
// edges counted by a brute-force pairing of faces written here.
#include "test.h"

#include "blobsim/emitter.h"
#include "blobsim/field.h"
#include "blobsim/particles.h"
#include "procedural.h"

#include <stdlib.h>
#include <string.h>

// Face k of the test meshes is wound the other way when this says so: 3 faces in 10, spread by a
// multiplicative hash.
static bool Turned(uint32_t k)
{
	return ((k * 2654435761u) >> 16) % 10 < 3;
}

static bsTriangle TurnRound(bsTriangle t)
{
	bsTriangle o;
	bsMakeTriangle(t.p1, t.p3, t.p2, &o);
	return o;
}

static bool SamePoint(bsVec3 a, bsVec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

// The edges of the soup by brute force: every pair of faces with two corners at the same positions
// shares an edge; the pair is inconsistent when both run it from the same corner to the same corner.
// Edges held by one face are counted from the corners' pair counts.
static void CountEdges(const bsTriangle* t, uint32_t n, uint32_t* inconsistent, uint32_t* boundary)
{
	*inconsistent = 0;
	uint32_t paired = 0;
	for (uint32_t i = 0; i < n; ++i)
	{
		const bsVec3 a[3] = {t[i].p1, t[i].p2, t[i].p3};
		for (uint32_t j = i + 1; j < n; ++j)
		{
			const bsVec3 b[3] = {t[j].p1, t[j].p2, t[j].p3};
			for (int e = 0; e < 3; ++e)
			{
				for (int f = 0; f < 3; ++f)
				{
					bool same = SamePoint(a[e], b[f]) && SamePoint(a[(e + 1) % 3], b[(f + 1) % 3]);
					bool back = SamePoint(a[e], b[(f + 1) % 3]) && SamePoint(a[(e + 1) % 3], b[f]);
					paired += same || back;
					*inconsistent += same;
				}
			}
		}
	}
	*boundary = 3 * n - 2 * paired;
}

// The icosphere (outward) with the Turned faces wound the other way, in *turned.
static int FlippedSphere(bsTriangle** turned, bsTriangle** outward, uint32_t* n)
{
	ENSURE(bsMakeIcosphere(3, 1.0, 0.0, false, outward, n) == bs_ok);
	*turned = malloc(*n * sizeof(bsTriangle));
	ENSURE(*turned != NULL);
	for (uint32_t k = 0; k < *n; ++k)
	{
		(*turned)[k] = Turned(k) ? TurnRound((*outward)[k]) : (*outward)[k];
	}
	return 0;
}

// The closed sphere: the edges as counted by brute force, and every turned face, and only those,
// found facing inward.
static int ClosedSphere(void)
{
	bsTriangle *turned, *outward;
	uint32_t n, expectedTurned = 0;
	RUN_SUBTEST(FlippedSphere(&turned, &outward, &n));
	uint32_t inconsistent, boundary;
	CountEdges(turned, n, &inconsistent, &boundary);
	ENSURE(inconsistent > n / 4 && boundary == 0);
	bsOrientation o;
	ENSURE(bsOrientation_Edges(turned, n, &o) == bs_ok);
	ENSURE(o.inconsistentEdges == inconsistent && o.boundaryEdges == 0 && o.nonManifoldEdges == 0);
	ENSURE(o.boundaryFace == UINT32_MAX && o.boundaryEdge == -1);
	ENSURE(o.inconsistentFace < n && o.inconsistentEdge >= 0 && o.inconsistentEdge < 3);
	uint8_t* inward = malloc(n);
	ENSURE(inward != NULL);
	ENSURE(bsOrientation_Outside(turned, n, inward, &o) == bs_ok);
	for (uint32_t k = 0; k < n; ++k)
	{
		ENSURE(inward[k] == (Turned(k) ? 1 : 0));
		expectedTurned += Turned(k);
	}
	ENSURE(o.inward == expectedTurned && o.open == 0 && o.inconsistentEdges == inconsistent);
	// The same faces wound outward: nothing inconsistent, nothing inward.
	ENSURE(bsOrientation_Outside(outward, n, inward, &o) == bs_ok);
	ENSURE(o.inward == 0 && o.inconsistentEdges == 0 && o.open == 0);
	// All wound inward (a consistent mesh, inside out): every face.
	for (uint32_t k = 0; k < n; ++k)
	{
		turned[k] = TurnRound(outward[k]);
	}
	ENSURE(bsOrientation_Outside(turned, n, inward, &o) == bs_ok);
	ENSURE(o.inward == n && o.inconsistentEdges == 0);
	free(inward);
	free(turned);
	free(outward);
	return 0;
}

// A cap of the sphere (z > zMin), 30% turned. A flat cap (zMin 0.7) is open: no inside, so each face
// takes the winding of most of the cap's area (the untouched 70%). A deep bowl (zMin 0.3) has its
// concave side as inside. Either way the turned faces, and only they, are turned back.
static int Cap(double zMin, bool open)
{
	bsTriangle *turned, *outward;
	uint32_t n, m = 0;
	RUN_SUBTEST(FlippedSphere(&turned, &outward, &n));
	bool* wasTurned = calloc(n, sizeof(bool));
	ENSURE(wasTurned != NULL);
	for (uint32_t k = 0; k < n; ++k)
	{
		bsVec3 g = bsScale(1.0 / 3.0, bsAdd(outward[k].p1, bsAdd(outward[k].p2, outward[k].p3)));
		if (g.z > zMin)
		{
			wasTurned[m] = Turned(k);
			turned[m++] = turned[k];
		}
	}
	uint32_t inconsistent, boundary;
	CountEdges(turned, m, &inconsistent, &boundary);
	ENSURE(boundary > 0);
	uint8_t* inward = malloc(m);
	ENSURE(inward != NULL);
	bsOrientation o;
	ENSURE(bsOrientation_Outside(turned, m, inward, &o) == bs_ok);
	ENSURE(o.boundaryEdges == boundary && o.inconsistentEdges == inconsistent && o.open == (open ? m : 0));
	ENSURE(o.boundaryFace < m && o.boundaryEdge >= 0);
	for (uint32_t k = 0; k < m; ++k)
	{
		ENSURE(inward[k] == (wasTurned[k] ? 1 : 0));
	}
	free(inward);
	free(wasTurned);
	free(turned);
	free(outward);
	return 0;
}

// Is p inside the convex icosphere? In front of no face plane (the outward faces' own normals): a
// test that knows nothing of windings or winding numbers.
static bool InsideConvex(const bsTriangle* outward, uint32_t n, bsVec3 p)
{
	for (uint32_t k = 0; k < n; ++k)
	{
		if (bsTriangle_PlaneDistance(outward + k, p) > 0.0)
		{
			return false;
		}
	}
	return true;
}

// Emits from the turned sphere with and without the turn flags: without, about 3 in 10 particles are
// born inside; with, none.
static int EmitFlipped(uint32_t* inside, bool useTurn, const bsTriangle* turned, const bsTriangle* outward,
	uint32_t n, const uint8_t* flags)
{
	double* cumulative = malloc(n * sizeof(double));
	ENSURE(cumulative != NULL);
	bsSurface_Accumulate(turned, n, NULL, cumulative);
	bsEmitterDef def = bsDefaultEmitterDef();
	def.shape.type = bs_emitterSurface;
	def.shape.surface = (bsSurface){turned, cumulative, n, 1e-6, 0.0, 0.0, 0.0, false, useTurn ? flags : NULL};
	def.radius = 0.01;
	enum { count = 4000 };
	bsParticles p;
	memset(&p, 0, sizeof(p));
	bsRng rng = bsMakeRng(5);
	size_t failed;
	ENSURE(bsEmitterDef_EmitRange(&def, 0, count, &rng, &p, &failed) == bs_ok && p.count == count);
	*inside = 0;
	for (size_t i = 0; i < p.count; ++i)
	{
		*inside += InsideConvex(outward, n, p.position[i]);
	}
	bsParticles_Free(&p);
	free(cumulative);
	return 0;
}

static int SurfaceEmitter(void)
{
	bsTriangle *turned, *outward;
	uint32_t n;
	RUN_SUBTEST(FlippedSphere(&turned, &outward, &n));
	uint8_t* inward = malloc(n);
	ENSURE(inward != NULL);
	bsOrientation o;
	ENSURE(bsOrientation_Outside(turned, n, inward, &o) == bs_ok);
	uint32_t inside;
	RUN_SUBTEST(EmitFlipped(&inside, false, turned, outward, n, inward));
	ENSURE(inside > 4000 / 5 && inside < 4000 * 2 / 5);
	RUN_SUBTEST(EmitFlipped(&inside, true, turned, outward, n, inward));
	ENSURE(inside == 0);
	free(inward);
	free(turned);
	free(outward);
	return 0;
}

// Open pieces near each other: a small roof 0.3 above a wide floor, both facing up as filed, and a
// closed icosphere wound inward beside them. The floor's winding number at the roof is about -0.37,
// which would turn the roof if the pieces were judged together; judged alone, each open piece keeps its
// winding and only the sphere turns.
// A square of half-side h at height y, facing +y: two triangles.
static int Square(double h, double y, bsTriangle* t)
{
	ENSURE(bsMakeTriangle(bsV3(-h, y, -h), bsV3(-h, y, h), bsV3(h, y, h), t) == bs_ok);
	ENSURE(bsMakeTriangle(bsV3(-h, y, -h), bsV3(h, y, h), bsV3(h, y, -h), t + 1) == bs_ok);
	ENSURE(t[0].n.y > 0.0 && t[1].n.y > 0.0);
	return 0;
}

static int Pieces(void)
{
	bsTriangle* sphere;
	uint32_t n;
	ENSURE(bsMakeIcosphere(2, 1.0, 0.0, true, &sphere, &n) == bs_ok);
	bsTriangle* t = malloc((n + 4) * sizeof(bsTriangle));
	uint8_t* inward = malloc(n + 4);
	ENSURE(t != NULL && inward != NULL);
	RUN_SUBTEST(Square(1.0, 0.0, t));      // the floor
	RUN_SUBTEST(Square(0.1, 0.3, t + 2));  // the roof
	bsVec3 beside = bsV3(3, 0, 0);
	for (uint32_t k = 0; k < n; ++k)
	{
		const bsTriangle* s = sphere + k;
		ENSURE(bsMakeTriangle(bsAdd(s->p1, beside), bsAdd(s->p2, beside), bsAdd(s->p3, beside), t + 4 + k) == bs_ok);
	}
	bsOrientation o;
	ENSURE(bsOrientation_Outside(t, n + 4, inward, &o) == bs_ok);
	for (uint32_t k = 0; k < n + 4; ++k)
	{
		ENSURE(inward[k] == (k >= 4 ? 1 : 0));
	}
	ENSURE(o.inward == n && o.open == 4);
	free(inward);
	free(t);
	free(sphere);
	return 0;
}

static int Errors(void)
{
	bsOrientation o;
	uint8_t flag;
	bsTriangle t;
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0, 1, 0), &t) == bs_ok);
	ENSURE(bsOrientation_Edges(NULL, 1, &o) == bs_errInvalidArgument);
	ENSURE(bsOrientation_Edges(&t, 0, &o) == bs_errInvalidArgument);
	ENSURE(bsOrientation_Outside(&t, 1, NULL, &o) == bs_errInvalidArgument);
	// One triangle: three boundary edges, open, kept as it is.
	ENSURE(bsOrientation_Outside(&t, 1, &flag, &o) == bs_ok);
	ENSURE(o.boundaryEdges == 3 && o.open == 1 && o.inward == 0 && flag == 0);
	return 0;
}

int OrientationTest(void)
{
	RUN_SUBTEST(ClosedSphere());
	RUN_SUBTEST(Cap(0.7, true));
	RUN_SUBTEST(Cap(0.3, false));
	RUN_SUBTEST(SurfaceEmitter());
	RUN_SUBTEST(Pieces());
	RUN_SUBTEST(Errors());
	return 0;
}
