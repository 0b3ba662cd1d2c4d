// test_triangle.c — bsMakeTriangle, bsTriangle_ClosestPoint and bsTriangle_Contains against the
// independent reference (reference.h) and against points placed where the answer is known.
#include "reference.h"
#include "blobsim/rng.h"
#include "test.h"
#include "blobsim/triangle.h"

#include <math.h>
#include <stdio.h>

static bsVec3 RandInCube(bsRng* rng, double lo, double hi)
{
	return bsV3(bsRng_Range(rng, lo, hi), bsRng_Range(rng, lo, hi), bsRng_Range(rng, lo, hi));
}

// The paper's Table 1 triangles: P1 in the unit cube, P2 and P3 at 0.1..0.5 in random directions.
static void RandPaperTriangle(bsRng* rng, bsVec3 p[3])
{
	p[0] = RandInCube(rng, 0.0, 1.0);
	p[1] = bsMulAdd(p[0], bsRng_Range(rng, 0.1, 0.5), bsRng_UnitVector(rng));
	p[2] = bsMulAdd(p[0], bsRng_Range(rng, 0.1, 0.5), bsRng_UnitVector(rng));
}

// A sliver: one vertex at height aspect * |edge| over the opposite edge (aspect 1e-7 .. 1e-3),
// rotated to a random vertex slot.
static void RandSliver(bsRng* rng, bsVec3 p[3], double* aspectOut)
{
	bsVec3 a = RandInCube(rng, 0.0, 1.0);
	bsVec3 e = bsScale(bsRng_Range(rng, 0.1, 0.5), bsRng_UnitVector(rng));
	bsVec3 b = bsAdd(a, e);
	bsVec3 w = bsNormalize(bsCross(e, bsRng_UnitVector(rng)));
	double aspect = pow(10.0, bsRng_Range(rng, -7.0, -3.0));
	bsVec3 c = bsMulAdd(bsMulAdd(a, bsRng_Range(rng, 0.0, 1.0), e), aspect * bsLength(e), w);
	int k = (int)bsRng_Below(rng, 3);
	p[k] = a;
	p[(k + 1) % 3] = b;
	p[(k + 2) % 3] = c;
	*aspectOut = aspect;
}

static int KnownTriangles(void)
{
	bsTriangle t;
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0, 1, 0), &t) == bs_ok);
	ENSURE(t.n.x == 0.0 && t.n.y == 0.0 && t.n.z == 1.0);
	ENSURE(t.delta == 0.0);
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(0, 1, 0), bsV3(1, 0, 0), &t) == bs_ok);
	ENSURE(t.n.x == 0.0 && t.n.y == 0.0 && t.n.z == -1.0);
	ENSURE(bsMakeTriangle(bsV3(0, 0, 2), bsV3(1, 0, 2), bsV3(0, 1, 2), &t) == bs_ok);
	ENSURE(t.n.z == 1.0 && t.delta == -2.0);
	ENSURE(bsTriangle_PlaneDistance(&t, bsV3(5, -3, 2.5)) == 0.5);

	// Degenerate: coincident and collinear vertices, and an area far below 1e-14 of the longest edge^2.
	bsVec3 a = bsV3(0.25, 0.5, 0.75), b = bsV3(1.25, 2.5, 3.75);
	ENSURE(bsMakeTriangle(a, a, a, &t) == bs_errDegenerateTriangle);
	ENSURE(bsMakeTriangle(a, a, b, &t) == bs_errDegenerateTriangle);
	ENSURE(bsMakeTriangle(a, b, b, &t) == bs_errDegenerateTriangle);
	ENSURE(bsMakeTriangle(b, a, b, &t) == bs_errDegenerateTriangle);
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 2, 3), bsV3(0.5, 1, 1.5), &t) ==
		bs_errDegenerateTriangle);
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(2, 4, 6), bsV3(-1, -2, -3), &t) ==
		bs_errDegenerateTriangle);
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0.5, 1e-16, 0), &t) ==
		bs_errDegenerateTriangle);
	ENSURE(bsMakeTriangle(bsV3(1e3, 1e3, 1e3), bsV3(1e3 + 1, 1e3, 1e3), bsV3(1e3 + 2, 1e3, 1e3), &t) ==
		bs_errDegenerateTriangle);

	// Non-finite: every coordinate slot, NaN and both infinities; checked before degeneracy.
	const double bad[3] = {nan(""), HUGE_VAL, -HUGE_VAL};
	for (int k = 0; k < 3; ++k)
	{
		for (int slot = 0; slot < 9; ++slot)
		{
			double c[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
			c[slot] = bad[k];
			bsVec3 p1 = bsV3(c[0], c[1], c[2]), p2 = bsV3(c[3], c[4], c[5]), p3 = bsV3(c[6], c[7], c[8]);
			ENSURE(bsMakeTriangle(p1, p2, p3, &t) == bs_errNonFinite);
			ENSURE(bsMakeTriangle(p1, p1, p1, &t) == bs_errNonFinite || slot >= 3);
		}
	}
	return 0;
}

// Normal, orientation and plane constant on random triangles.
static int RandomTriangles(void)
{
	bsRng rng = bsMakeRng(0x7121a9u);
	double worstUnit = 0.0, worstOrtho = 0.0, worstPlane = 0.0;
	for (int i = 0; i < 20000; ++i)
	{
		bsVec3 p[3];
		RandPaperTriangle(&rng, p);
		// A quarter of them away from the origin (coordinates up to ~100): tolerances scale.
		double scale = 1.0;
		if (i % 4 == 3)
		{
			bsVec3 shift = RandInCube(&rng, -100.0, 100.0);
			for (int k = 0; k < 3; ++k)
			{
				p[k] = bsAdd(p[k], shift);
			}
			scale = 101.0;
		}
		bsTriangle t;
		bsResult r = bsMakeTriangle(p[0], p[1], p[2], &t);
		bsVec3 c = bsCross(bsSub(p[1], p[0]), bsSub(p[2], p[0]));
		if (bsLength(c) < 1e-6)
		{
			continue;  // too close to degenerate for the tolerances below; the sliver test covers these
		}
		ENSURE(r == bs_ok);
		worstUnit = fmax(worstUnit, fabs(bsLength(t.n) - 1.0));
		ENSURE_SMALL(bsLength(t.n) - 1.0, 1e-14);
		ENSURE(bsDot(t.n, c) > 0.0);
		for (int k = 0; k < 3; ++k)
		{
			bsVec3 e = bsSub(p[(k + 1) % 3], p[k]);
			double ortho = bsDot(t.n, e) / bsLength(e);
			worstOrtho = fmax(worstOrtho, fabs(ortho));
			ENSURE_SMALL(ortho, 1e-12);
			double plane = bsTriangle_PlaneDistance(&t, p[k]);
			worstPlane = fmax(worstPlane, fabs(plane) / scale);
			ENSURE_SMALL(plane, 1e-12 * scale);
		}
	}
	printf("  random triangles: |n|-1 %.1e, n.e/|e| %.1e, vertex plane residual %.1e\n", worstUnit,
		worstOrtho, worstPlane);
	return 0;
}

// Slivers (aspect 1e-7 .. 1e-3) are valid triangles: accepted, oriented, unit normal. Their normal is
// ill-conditioned (a naive cross product loses ~eps/aspect), so the plane residual is reported and
// held to that conditioning bound rather than to 1e-12.
static int Slivers(void)
{
	bsRng rng = bsMakeRng(0x511e7u);
	double worstRatio = 0.0, worstPlane = 0.0;
	for (int i = 0; i < 20000; ++i)
	{
		bsVec3 p[3];
		double aspect;
		RandSliver(&rng, p, &aspect);
		bsTriangle t;
		ENSURE(bsMakeTriangle(p[0], p[1], p[2], &t) == bs_ok);
		ENSURE_SMALL(bsLength(t.n) - 1.0, 1e-14);
		ENSURE(bsDot(t.n, bsCross(bsSub(p[1], p[0]), bsSub(p[2], p[0]))) > 0.0);
		for (int k = 0; k < 3; ++k)
		{
			double plane = fabs(bsTriangle_PlaneDistance(&t, p[k]));
			worstPlane = fmax(worstPlane, plane);
			worstRatio = fmax(worstRatio, plane * aspect);
			ENSURE(plane <= 1e-12 || plane * aspect <= 1e-15);
		}
	}
	printf("  slivers: worst vertex plane residual %.1e (worst residual x aspect %.1e)\n", worstPlane,
		worstRatio);
	return 0;
}

// Distances from bsTriangle_ClosestPoint against the reference on random points.
static int ClosestPointRandom(void)
{
	bsRng rng = bsMakeRng(0xc105e57u);
	double worst = 0.0, worstOn = 0.0, worstSliver = 0.0, worstOff = 0.0;
	int n = 0;
	bsVec3 p[3];
	bsTriangle t;
	bool sliver = false;
	while (n < 100000)
	{
		if (n % 20 == 0)
		{
			double aspect;
			sliver = (n / 20) % 10 == 9;
			if (sliver)
			{
				RandSliver(&rng, p, &aspect);
			}
			else
			{
				RandPaperTriangle(&rng, p);
			}
			if (bsMakeTriangle(p[0], p[1], p[2], &t) != bs_ok)
			{
				continue;
			}
		}
		bsVec3 q = RandInCube(&rng, -0.5, 1.5);
		if (n % 5 == 0)
		{
			// Near the triangle, where the face region matters.
			double l1 = bsRng_Uniform(&rng), l2 = bsRng_Uniform(&rng);
			bsVec3 x = bsAdd(p[0], bsAdd(bsScale(l1, bsSub(p[1], p[0])), bsScale(l2 * (1.0 - l1),
				bsSub(p[2], p[0]))));
			q = bsMulAdd(x, 0.05, bsRng_UnitVector(&rng));
		}
		bsFeature f;
		int idx;
		bsVec3 cp = bsTriangle_ClosestPoint(&t, q, &f, &idx);
		double ref = refPointTriangleDistance(p[0], p[1], p[2], q);
		double err = fabs(bsDistance(q, cp) - ref);
		double on = refPointTriangleDistance(p[0], p[1], p[2], cp);
		double off = bsDistance(cp, refClosestPoint(p[0], p[1], p[2], q));
		worstOff = fmax(worstOff, off);
		if (sliver)
		{
			worstSliver = fmax(worstSliver, err);
		}
		else
		{
			worst = fmax(worst, err);
		}
		worstOn = fmax(worstOn, on);
		if (!(err <= 1e-12 && on <= 1e-12 && off <= 1e-12))
		{
			fprintf(stderr,
				"ClosestPoint: tri (%.17g, %.17g, %.17g) (%.17g, %.17g, %.17g) (%.17g, %.17g, %.17g) "
				"q (%.17g, %.17g, %.17g): |q-cp| %.17g ref %.17g, ref dist of cp %.3g, cp off the "
				"reference's point by %.3g\n",
				p[0].x, p[0].y, p[0].z, p[1].x, p[1].y, p[1].z, p[2].x, p[2].y, p[2].z, q.x, q.y, q.z,
				bsDistance(q, cp), ref, on, off);
		}
		ENSURE(err <= 1e-12);
		ENSURE(on <= 1e-12);
		ENSURE(off <= 1e-12);
		ENSURE(f >= bs_featureFace && f <= bs_featureVertex && idx >= 0 && idx <= 2);
		++n;
	}
	printf("  closest point: %d points, max |dist - ref| %.1e (slivers %.1e), max ref dist of the point "
		"%.1e, max |point - ref point| %.1e\n", n, worst, worstSliver, worstOn, worstOff);
	return 0;
}

// Points over the face of a sliver (aspect 1e-7 .. 1e-3): the closest point is the projection onto
// the plane, at distance |h|. The sweep outputs report this point, so it must be right to 1e-9 in
// position and distance (an ill-conditioned normal costs ~1e-10 here; 1e-12 is held on ordinary
// triangles above). Reported per aspect decade.
static int ClosestPointSliverFace(void)
{
	bsRng rng = bsMakeRng(0x5f1ace5u);
	double worstDist[4] = {0.0, 0.0, 0.0, 0.0};
	double worstPos[4] = {0.0, 0.0, 0.0, 0.0};
	long wrongFeature = 0, bad = 0, total = 0;
	bsVec3 badP[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, badQ = {0, 0, 0};
	double badPos = 0.0, badDist = 0.0, badAspect = 0.0;
	for (int i = 0; i < 40000; ++i)
	{
		bsVec3 p[3];
		double aspect;
		RandSliver(&rng, p, &aspect);
		bsTriangle t;
		ENSURE(bsMakeTriangle(p[0], p[1], p[2], &t) == bs_ok);
		double l[3];
		do
		{
			l[0] = bsRng_Uniform(&rng);
			l[1] = bsRng_Uniform(&rng);
			l[2] = 1.0 - l[0] - l[1];
		} while (l[0] < 0.05 || l[1] < 0.05 || l[2] < 0.05);
		bsVec3 x = bsAdd(bsScale(l[0], p[0]), bsAdd(bsScale(l[1], p[1]), bsScale(l[2], p[2])));
		double h = bsRng_Range(&rng, -0.1, 0.1);
		bsVec3 q = bsMulAdd(x, h, bsNormalize(bsCross(bsSub(p[1], p[0]), bsSub(p[2], p[0]))));
		bsFeature f;
		int idx;
		bsVec3 cp = bsTriangle_ClosestPoint(&t, q, &f, &idx);
		double ref = refPointTriangleDistance(p[0], p[1], p[2], q);
		bsVec3 refPoint = refClosestPoint(p[0], p[1], p[2], q);
		// The reference agrees with the construction (x is exact up to the normal's rounding).
		ENSURE_SMALL(ref - fabs(h), 1e-12);
		ENSURE_SMALL(bsDistance(refPoint, x), 1e-9);
		double dist = fabs(bsDistance(q, cp) - ref);
		double pos = bsDistance(cp, refPoint);
		int decade = (int)fmin(3.0, floor(-log10(aspect)) - 3.0);
		worstDist[decade] = fmax(worstDist[decade], dist);
		worstPos[decade] = fmax(worstPos[decade], pos);
		wrongFeature += f != bs_featureFace;
		++total;
		if (!(dist <= 1e-9 && pos <= 1e-9))
		{
			if (bad++ == 0 || pos > badPos)
			{
				badP[0] = p[0];
				badP[1] = p[1];
				badP[2] = p[2];
				badQ = q;
				badPos = pos;
				badDist = dist;
				badAspect = aspect;
			}
		}
	}
	printf("  closest point over sliver faces (%ld points), by aspect decade 1e-3 / 1e-4 / 1e-5 / 1e-6:\n"
		"    max |dist - ref|  %.1e / %.1e / %.1e / %.1e\n"
		"    max |point - ref| %.1e / %.1e / %.1e / %.1e; %ld not reported as face\n", total,
		worstDist[0], worstDist[1], worstDist[2], worstDist[3], worstPos[0], worstPos[1], worstPos[2],
		worstPos[3], wrongFeature);
	if (bad != 0)
	{
		fprintf(stderr,
			"  %ld of %ld sliver-face points off by more than 1e-9; worst (aspect %.2g, point off by "
			"%.3g, distance by %.3g):\n"
			"    bsVec3 p1 = bsV3(%.17g, %.17g, %.17g), p2 = bsV3(%.17g, %.17g, %.17g), "
			"p3 = bsV3(%.17g, %.17g, %.17g);\n    bsVec3 q = bsV3(%.17g, %.17g, %.17g);\n",
			bad, total, badAspect, badPos, badDist, badP[0].x, badP[0].y, badP[0].z, badP[1].x, badP[1].y,
			badP[1].z, badP[2].x, badP[2].y, badP[2].z, badQ.x, badQ.y, badQ.z);
	}
	ENSURE(bad == 0);
	return 0;
}

// Points placed in each Voronoi region: the reported feature and index, and the distance, are known.
static int ClosestPointRegions(void)
{
	bsRng rng = bsMakeRng(0x60e0u);
	int counts[3] = {0, 0, 0};
	int skipped = 0;
	double worst = 0.0;
	for (int i = 0; i < 6000; ++i)
	{
		bsVec3 p[3];
		RandPaperTriangle(&rng, p);
		bsTriangle t;
		if (bsMakeTriangle(p[0], p[1], p[2], &t) != bs_ok)
		{
			++skipped;
			continue;
		}
		bsVec3 c = bsCross(bsSub(p[1], p[0]), bsSub(p[2], p[0]));
		if (bsLength(c) < 1e-4)
		{
			++skipped;
			continue;  // nearly degenerate: regions too thin to place points with a margin
		}
		bsVec3 n = bsNormalize(c);
		double size = fmax(bsDistance(p[0], p[1]), fmax(bsDistance(p[1], p[2]), bsDistance(p[2], p[0])));
		double h = bsRng_Range(&rng, -0.5, 0.5) * size;
		int region = i % 7;  // 0 face, 1..3 edges, 4..6 vertices
		bsVec3 q;
		bsVec3 expectedPoint;
		double expected;
		bsFeature wantFeature;
		int wantIndex;
		if (region == 0)
		{
			double l[3];
			do
			{
				l[0] = bsRng_Uniform(&rng);
				l[1] = bsRng_Uniform(&rng);
				l[2] = 1.0 - l[0] - l[1];
			} while (l[0] < 0.05 || l[1] < 0.05 || l[2] < 0.05);
			bsVec3 x = bsAdd(bsScale(l[0], p[0]), bsAdd(bsScale(l[1], p[1]), bsScale(l[2], p[2])));
			q = bsMulAdd(x, h, n);
			expectedPoint = x;
			expected = fabs(h);
			wantFeature = bs_featureFace;
			wantIndex = 0;
		}
		else if (region <= 3)
		{
			int k = region - 1;
			bsVec3 a = p[k], e = bsSub(p[(k + 1) % 3], p[k]);
			bsVec3 out = bsNormalize(bsCross(e, n));  // in the plane, away from the interior
			double o = bsRng_Range(&rng, 0.01, 0.5) * size;
			bsVec3 onEdge = bsMulAdd(a, bsRng_Range(&rng, 0.05, 0.95), e);
			q = bsMulAdd(bsMulAdd(onEdge, o, out), h, n);
			expectedPoint = onEdge;
			expected = sqrt(o * o + h * h);
			wantFeature = bs_featureEdge;
			wantIndex = k;
		}
		else
		{
			int k = region - 4;
			bsVec3 v = p[k];
			bsVec3 u1 = bsNormalize(bsSub(p[(k + 1) % 3], v));
			bsVec3 u2 = bsNormalize(bsSub(p[(k + 2) % 3], v));
			bsVec3 dir = bsV3(0, 0, 0);
			bool found = false;
			for (int tries = 0; tries < 1000 && !found; ++tries)
			{
				bsVec3 r = bsRng_UnitVector(&rng);
				dir = bsNormalize(bsMulSub(r, bsDot(r, n), n));
				found = bsDot(dir, u1) < -0.05 && bsDot(dir, u2) < -0.05;
			}
			if (!found)
			{
				++skipped;
				continue;
			}
			double o = bsRng_Range(&rng, 0.01, 0.5) * size;
			q = bsMulAdd(bsMulAdd(v, o, dir), h, n);
			expectedPoint = v;
			expected = sqrt(o * o + h * h);
			wantFeature = bs_featureVertex;
			wantIndex = k;
		}
		bsFeature f = bs_featureFace;
		int idx = -1;
		bsVec3 cp = bsTriangle_ClosestPoint(&t, q, &f, &idx);
		double ref = refPointTriangleDistance(p[0], p[1], p[2], q);
		// The reference itself must agree with the construction.
		ENSURE_SMALL(ref - expected, 1e-12);
		ENSURE_SMALL(bsDistance(q, cp) - expected, 1e-12);
		ENSURE_SMALL(bsDistance(refClosestPoint(p[0], p[1], p[2], q), expectedPoint), 1e-12);
		ENSURE_SMALL(bsDistance(cp, expectedPoint), 1e-12);
		worst = fmax(worst, fabs(bsDistance(q, cp) - expected));
		if (f != wantFeature || idx != wantIndex)
		{
			fprintf(stderr, "region %d: got feature %d index %d, want %d %d\n", region, (int)f, idx,
				(int)wantFeature, wantIndex);
		}
		ENSURE(f == wantFeature && idx == wantIndex);
		counts[region == 0 ? 0 : (region <= 3 ? 1 : 2)]++;
		// NULL feature/index pointers are allowed and give the same point.
		bsVec3 cp2 = bsTriangle_ClosestPoint(&t, q, NULL, NULL);
		ENSURE(cp2.x == cp.x && cp2.y == cp.y && cp2.z == cp.z);
	}
	printf("  voronoi regions: face %d, edge %d, vertex %d points (skipped %d), max |dist - expected| "
		"%.1e\n", counts[0], counts[1], counts[2], skipped, worst);
	ENSURE(counts[0] > 500 && counts[1] > 1500 && counts[2] > 1500);
	return 0;
}

static int ContainsTest(void)
{
	bsRng rng = bsMakeRng(0xc0147a1u);
	int inside = 0, outside = 0;
	for (int i = 0; i < 20000; ++i)
	{
		bsVec3 p[3];
		RandPaperTriangle(&rng, p);
		bsTriangle t;
		if (bsMakeTriangle(p[0], p[1], p[2], &t) != bs_ok ||
			bsLength(bsCross(bsSub(p[1], p[0]), bsSub(p[2], p[0]))) < 1e-4)
		{
			continue;
		}
		// The closed triangle contains its vertices.
		ENSURE(bsTriangle_Contains(&t, p[0]) && bsTriangle_Contains(&t, p[1]) &&
			bsTriangle_Contains(&t, p[2]));
		// Barycentric points: all weights >= 1e-6 inside, one <= -1e-6 outside.
		double l0 = bsRng_Range(&rng, -0.5, 1.5), l1 = bsRng_Range(&rng, -0.5, 1.5);
		double l2 = 1.0 - l0 - l1;
		double lmin = fmin(l0, fmin(l1, l2));
		if (fabs(lmin) < 1e-6)
		{
			continue;
		}
		bsVec3 x = bsAdd(bsScale(l0, p[0]), bsAdd(bsScale(l1, p[1]), bsScale(l2, p[2])));
		bool want = lmin > 0.0;
		ENSURE(bsTriangle_Contains(&t, x) == want);
		// Contains ignores the height over the plane.
		ENSURE(bsTriangle_Contains(&t, bsMulAdd(x, bsRng_Range(&rng, -1.0, 1.0), t.n)) == want);
		want ? ++inside : ++outside;
	}
	printf("  contains: %d inside, %d outside\n", inside, outside);
	ENSURE(inside > 1000 && outside > 1000);
	return 0;
}

int TriangleTest(void)
{
	RUN_SUBTEST(KnownTriangles());
	RUN_SUBTEST(RandomTriangles());
	RUN_SUBTEST(Slivers());
	RUN_SUBTEST(ClosestPointRandom());
	RUN_SUBTEST(ClosestPointRegions());
	RUN_SUBTEST(ClosestPointSliverFace());
	RUN_SUBTEST(ContainsTest());
	return 0;
}
