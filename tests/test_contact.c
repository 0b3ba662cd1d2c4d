// test_contact.c — the contact normal comes from the contact geometry, not from which triangle wins
// a tie: a sphere dropped onto a flat floor of two triangles, beside or on their shared edge, gets
// the floor's normal whichever triangle is listed first (the karabassi-skate repro); coplanar pairs
// at random tilts agree with their plane; and over a mesh every normal is unit length, points from
// the surface to the stop centre, from a point no farther than the hit triangle.
#include "test.h"

#include "procedural.h"
#include "reference.h"

#include "blobsim/bvh.h"
#include "blobsim/rng.h"

#include <stdlib.h>
#include <string.h>

static bool SameVec(bsVec3 a, bsVec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

// The repro's floor y = 0 split along x = 0 (../shared/repros/karabassi-skate/floor.obj), in both
// orders: vertical drops near and on the shared edge stop with the normal (0, 1, 0) exactly, for
// every method and every stop (start, cylinder, end sphere; karabassi's ties between Int4 on one
// triangle and Int6 on the other).
static int SkateTest(void)
{
	bsVec3 v[4] = {{0, 0, -1}, {0, 0, 1}, {1, 0, 0}, {-1, 0, 0}};
	bsTriangle floor[2];
	ENSURE(bsMakeTriangle(v[0], v[1], v[2], floor) == bs_ok);
	ENSURE(bsMakeTriangle(v[0], v[3], v[1], floor + 1) == bs_ok);
	bsTriangle swapped[2] = {floor[1], floor[0]};
	const double xs[] = {-0.009, -0.0025, -0.001, 0.0, 0.001, 0.0025, 0.009};
	const double ys[][2] = {{0.1, -0.1}, {0.012, 0.005}, {0.02, 0.0}, {0.011, 0.0099}, {0.05, -0.3},
		{0.005, 0.004}, {0.0139172, 0.00945999}};
	int hits = 0;
	for (int m = 0; m < bs_methodCount; ++m)
	{
		for (size_t i = 0; i < sizeof xs / sizeof xs[0]; ++i)
		{
			for (size_t j = 0; j < sizeof ys / sizeof ys[0]; ++j)
			{
				bsSweepInput in = {bsV3(xs[i], ys[j][0], 0.3), bsV3(xs[i], ys[j][1], 0.3), 0.01};
				bsSweepOutput a, b;
				ENSURE(bsSweepList((bsMethod)m, floor, 2, &in, &a) == bs_ok);
				ENSURE(bsSweepList((bsMethod)m, swapped, 2, &in, &b) == bs_ok);
				ENSURE(a.hit == b.hit);
				if (!a.hit)
				{
					continue;
				}
				++hits;
				if (!SameVec(a.normal, bsV3(0.0, 1.0, 0.0)) || !SameVec(b.normal, a.normal))
				{
					fprintf(stderr, "%s x %g y %g -> %g: normal (%.17g, %.17g, %.17g) / (%.17g, %.17g, "
						"%.17g)\n", bsMethodName((bsMethod)m), xs[i], ys[j][0], ys[j][1], a.normal.x,
						a.normal.y, a.normal.z, b.normal.x, b.normal.y, b.normal.z);
					return 1;
				}
			}
		}
	}
	ENSURE(hits > 100);
	return 0;
}

// Coplanar pairs sharing an edge at random tilts and places; spheres come down on the plane (with a
// little sideways motion) so that the stop centre is over the pair, within R of the shared edge.
// Both orders of the pair give the plane's normal within 1e-12, and the same normal as each other.
static int CoplanarTest(void)
{
	bsRng rng = bsMakeRng(31);
	long pairs = 0, edgeWins = 0;
	for (int it = 0; it < 40000; ++it)
	{
		bsVec3 n = bsRng_UnitVector(&rng);
		bsVec3 e = bsNormalize(bsCross(n, bsRng_UnitVector(&rng)));
		bsVec3 f = bsCross(n, e);
		bsVec3 o = bsV3(bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 1));
		bsTriangle pair[2], swapped[2];
		if (bsMakeTriangle(bsMulSub(o, 1.0, e), bsMulAdd(o, 1.0, e), bsMulAdd(o, 1.0, f), pair) != bs_ok ||
			bsMakeTriangle(bsMulSub(o, 1.0, e), bsMulSub(o, 1.0, f), bsMulAdd(o, 1.0, e), pair + 1) != bs_ok)
		{
			continue;
		}
		swapped[0] = pair[1];
		swapped[1] = pair[0];
		double R = bsRng_Range(&rng, 0.005, 0.05);
		bsVec3 at = bsMulAdd(bsMulAdd(o, bsRng_Range(&rng, -R, R), f), bsRng_Range(&rng, -0.5, 0.5), e);
		double side = bsRng_Below(&rng, 2) == 0 ? 1.0 : -1.0;
		bsVec3 c1 = bsMulAdd(at, side * bsRng_Range(&rng, 1.5, 5.0) * R, n);
		bsVec3 c2 = bsMulSub(at, side * bsRng_Range(&rng, -0.5, 3.0) * R, n);
		c2 = bsMulAdd(c2, bsRng_Range(&rng, -0.2, 0.2) * R, f);
		bsSweepInput in = {c1, c2, R};
		for (int m = 0; m < 2; ++m)
		{
			bsSweepOutput a, b;
			ENSURE(bsSweepList((bsMethod)m, pair, 2, &in, &a) == bs_ok);
			ENSURE(bsSweepList((bsMethod)m, swapped, 2, &in, &b) == bs_ok);
			ENSURE(a.hit == b.hit);
			if (!a.hit)
			{
				continue;
			}
			++pairs;
			bsVec3 want = bsScale(side, pair[0].n);
			double offA = bsDistance(a.normal, want), offB = bsDistance(b.normal, want);
			double offAB = bsDistance(a.normal, b.normal);
			if (!(offA <= 1e-12 && offB <= 1e-12 && offAB <= 1e-12))
			{
				fprintf(stderr, "coplanar %s: normal off the plane's by %.3g / %.3g\n",
					bsMethodName((bsMethod)m), offA, offB);
				return 1;
			}
			// How often the winning triangle's own point is on the shared edge (a tilted normal
			// before the contact geometry was taken from the mesh).
			bsFeature feature;
			const bsTriangle* won = pair + a.triangle;
			(void)bsTriangle_ClosestPoint(won, a.center, &feature, NULL);
			edgeWins += feature != bs_featureFace;
		}
	}
	printf("  contact coplanar pairs: %ld hits, %ld won by a triangle touching only at the edge, all "
		"with the plane's normal\n", pairs, edgeWins);
	ENSURE(pairs > 10000 && edgeWins > 1000);
	return 0;
}

// Sweeps of every method over a heightfield with boxes, through the BVH: the normal is unit length
// and points from the contact point to the stop centre, the contact point is on the mesh, no
// farther from the centre than the hit triangle, and nearest the centre when it is not the hit
// triangle's own.
static int MeshNormalTest(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeHeightfieldScene(41, 24, 12, &tris, &count) == bs_ok);
	bsBvh bvh;
	int failed = bsBvh_Build(&bvh, tris, count, NULL) != bs_ok;
	bsRng rng = bsMakeRng(43);
	long hits = 0, moved = 0;
	for (long n = 0; n < 60000 && failed == 0; ++n)
	{
		const bsTriangle* t = tris + bsRng_Below(&rng, count);
		bsVec3 p = bsRandomPointOn(t, &rng);
		double R = 0.002 * pow(25.0, bsRng_Uniform(&rng));
		bsVec3 c1 = bsMulAdd(p, R * bsRng_Range(&rng, 0.5, 3.0), bsNormalize(bsMulAdd(t->n, 0.7,
			bsRng_UnitVector(&rng))));
		bsVec3 c2 = bsMulAdd(c1, R * bsRng_Range(&rng, 0.5, 6.0), bsRng_UnitVector(&rng));
		bsSweepInput in = {c1, c2, R};
		bsMethod m = (bsMethod)bsRng_Below(&rng, bs_methodCount);
		bsSweepOutput out;
		if (bsBvh_Sweep(&bvh, m, &in, &out, NULL) != bs_ok)
		{
			failed = 1;
			break;
		}
		if (!out.hit)
		{
			continue;
		}
		++hits;
		const bsTriangle* won = tris + out.triangle;
		double gap = bsDistance(out.center, out.point);
		double own = refPointTriangleDistance(won->p1, won->p2, won->p3, out.center);
		double tol = 1e-12 * (1.0 + bsMaxAbs(out.center));
		double onMesh = HUGE_VAL, nearest = HUGE_VAL;
		for (uint32_t i = 0; i < count; ++i)
		{
			const bsTriangle* q = tris + i;
			onMesh = fmin(onMesh, refPointTriangleDistance(q->p1, q->p2, q->p3, out.point));
			nearest = fmin(nearest, refPointTriangleDistance(q->p1, q->p2, q->p3, out.center));
		}
		bool ok = fabs(bsLength(out.normal) - 1.0) <= 1e-12 && onMesh <= tol && gap <= own + tol;
		if (gap > tol)
		{
			ok = ok && bsDot(out.normal, bsSub(out.center, out.point)) >= gap * (1.0 - 1e-9) - tol;
		}
		if (refPointTriangleDistance(won->p1, won->p2, won->p3, out.point) > tol)
		{
			++moved;  // the contact point is on a nearer neighbour: it must be the nearest
			ok = ok && m != bs_methodRay && gap <= nearest + tol;
		}
		if (!ok)
		{
			fprintf(stderr, "%s: normal (%.17g, %.17g, %.17g), gap %.17g, own %.17g, nearest %.17g, "
				"on mesh %.3g\n", bsMethodName(m), out.normal.x, out.normal.y, out.normal.z, gap, own,
				nearest, onMesh);
			failed = 1;
		}
	}
	printf("  contact mesh: %ld hits, %ld with the contact point on a nearer neighbour\n", hits, moved);
	bsBvh_Destroy(&bvh);
	free(tris);
	ENSURE(failed == 0);
	ENSURE(hits > 20000 && moved > 0);
	return 0;
}

int ContactTest(void)
{
	RUN_SUBTEST(SkateTest());
	RUN_SUBTEST(CoplanarTest());
	RUN_SUBTEST(MeshNormalTest());
	return 0;
}
