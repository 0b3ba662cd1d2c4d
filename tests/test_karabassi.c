// test_karabassi.c — hand-made cases for every step and branch of the paper's tests, each with the
// answer worked out by hand (the comments say how), plus the guarantee of docs/algorithm.md checked
// on each: the stop point is never before the exact first contact, and the sphere touches or
// overlaps the triangle where it stops.
#include "boxf.h"
#include "collide_internal.h"

#include "blobsim/collide.h"
#include "blobsim/rng.h"
#include "test.h"

#include <float.h>
#include <math.h>

// The triangle of most cases: the unit right triangle in the plane z = 0, normal +z.
static bsTriangle UnitTriangle(void)
{
	bsTriangle tri;
	bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0, 1, 0), &tri);
	return tri;
}

static bsSweep MakeSweep(bsVec3 c1, bsVec3 c2, double radius)
{
	bsSweepInput in = {c1, c2, radius};
	bsSweep s;
	bsMakeSweep(&in, &s);
	return s;
}

// The combined test on one case: hit or not, which sub-test and branch, where (t), which feature.
static int CheckCombined(const bsTriangle* tri, bsVec3 c1, bsVec3 c2, double radius, bool expectHit,
	bsTest test, bsBranch branch, double t, int feature)
{
	bsSweep s = MakeSweep(c1, c2, radius);
	bsTriangleHit hit = {0};
	bool got = bsKarabassiTriangle(tri, &s, 2.0, &hit);
	ENSURE(got == expectHit);
	bsTriangleHit exact = {0};
	bool gotExact = bsExactTriangle(tri, &s, 2.0, &exact);
	ENSURE(gotExact == expectHit);  // karabassi and exact agree on hit or miss
	if (!expectHit)
	{
		return 0;
	}
	ENSURE(hit.test == test);
	ENSURE(hit.branch == branch);
	ENSURE_SMALL(hit.t - t, 1e-12);
	ENSURE(hit.feature == feature);
	// tmax filters and never changes the estimate.
	bsTriangleHit bounded;
	ENSURE(!bsKarabassiTriangle(tri, &s, hit.t, &bounded));
	ENSURE(bsKarabassiTriangle(tri, &s, nextafter(hit.t, 2.0), &bounded) && bounded.t == hit.t);
	// The guarantee: never before the exact first contact; touching or overlapping where it stops.
	ENSURE(hit.t >= exact.t - 1e-12);
	bsVec3 stop = bsMulAdd(c1, hit.t, s.d);
	bsVec3 q = bsTriangle_ClosestPoint(tri, stop, NULL, NULL);
	ENSURE(bsDistance(stop, q) <= radius * (1.0 + 1e-12) + 1e-15);
	return 0;
}

static int SphereSteps(void)
{
	bsTriangle tri = UnitTriangle();
	double r = 0.1;
	bsTriangleHit hit;

	// Step 1: the plane is 0.5 away.
	ENSURE(!bsSphereTriangle(&tri, bsV3(0.2, 0.2, 0.5), r, r * r, &hit));
	// Step 2: P2 is sqrt(0.05^2 + 0.05^2) = 0.0707 from the centre.
	ENSURE(bsSphereTriangle(&tri, bsV3(1.05, 0.0, 0.05), r, r * r, &hit));
	ENSURE(hit.branch == bs_branchStep2 && hit.feature == 1);
	// Step 3: the centre projects inside at height 0.05.
	ENSURE(bsSphereTriangle(&tri, bsV3(0.2, 0.2, 0.05), r, r * r, &hit));
	ENSURE(hit.branch == bs_branchStep3);
	// Step 4: the edge P1P2 (y = z = 0) is sqrt(0.05^2 + 0.02^2) = 0.054 away, inside its span.
	ENSURE(bsSphereTriangle(&tri, bsV3(0.5, -0.05, 0.02), r, r * r, &hit));
	ENSURE(hit.branch == bs_branchStep4 && hit.feature == 0);
	// Step 4, no intersection: the edge is 0.2 away. Beside the edge's end (t < 0 in section 3.1):
	// the nearest point would be P1, which Step 2 already rejected.
	ENSURE(!bsSphereTriangle(&tri, bsV3(0.5, -0.2, 0.0), r, r * r, &hit));
	ENSURE(!bsSphereTriangle(&tri, bsV3(-0.08, -0.08, 0.0), r, r * r, &hit));
	// Tangential: exactly R from the plane over the face is a contact (closed sets).
	ENSURE(bsSphereTriangle(&tri, bsV3(0.25, 0.25, 0.125), 0.125, 0.125 * 0.125, &hit));
	ENSURE(hit.branch == bs_branchStep3);
	return 0;
}

static int CylinderParallel(void)
{
	bsTriangle tri = UnitTriangle();
	double r = 0.1;
	bsSweep s;
	bsTriangleHit hit;

	// Par4: the axis is 0.15 above the plane.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(-0.5, 0.2, 0.15), bsV3(0.5, 0.2, 0.15), r, false, 0, 0, 0, 0));

	// Par5: the axis runs along y = -0.05 in the plane; P1 is 0.05 from it at h = 0.5. The
	// projected axis crosses no edge. (Exact contact: x = -sqrt(0.01 - 0.0025), t = 0.4134.)
	RUN_SUBTEST(CheckCombined(&tri, bsV3(-0.5, -0.05, 0.0), bsV3(0.5, -0.05, 0.0), r, true,
		bs_testCylinder, bs_branchPar5, 0.5, 0));

	// Par6: C1 projects inside T. In the combined test the start sphere finds it first (Step 3).
	s = MakeSweep(bsV3(0.2, 0.2, 0.05), bsV3(0.7, 0.2, 0.05), r);
	ENSURE(bsCylinderTriangle(&tri, &s, &hit));
	ENSURE(hit.branch == bs_branchPar6 && hit.t == 0.0);
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.2, 0.2, 0.05), bsV3(0.7, 0.2, 0.05), r, true,
		bs_testStartSphere, bs_branchStep3, 0.0, 0));

	// Par7: the projected axis y = 0.3 crosses the edge P3P1 (x = 0) at u = 0.5; no vertex is
	// within 0.1 of the axis. (Exact: the section disk of radius 0.0866 touches x = 0 at t = 0.4134.)
	RUN_SUBTEST(CheckCombined(&tri, bsV3(-0.5, 0.3, 0.05), bsV3(0.5, 0.3, 0.05), r, true,
		bs_testCylinder, bs_branchPar7, 0.5, 2));

	// Par5 and Par7 both find a point: the nearer one wins. The axis y = 0.02 passes P1 (h = 0.5)
	// and crosses P3P1 at u = 0.5 too; P2 (h = 1.5) is beyond. Equal: Par5 was set first.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(-0.5, 0.02, 0.0), bsV3(0.5, 0.02, 0.0), r, true,
		bs_testCylinder, bs_branchPar5, 0.5, 0));
	// The triangle moved so that its edge is crossed at u = 0.25 while P1 is at h = 0.3: Par7 wins.
	bsTriangle slanted;
	bsMakeTriangle(bsV3(-0.2, -0.04, 0), bsV3(1, -0.04, 0), bsV3(-0.25, 1, 0), &slanted);
	s = MakeSweep(bsV3(-0.5, 0.0, 0.0), bsV3(0.5, 0.0, 0.0), r);
	ENSURE(bsCylinderTriangle(&slanted, &s, &hit));
	ENSURE(hit.branch == bs_branchPar7 && hit.feature == 2);
	// Edge P3P1 from (-0.25, 1) to (-0.2, -0.04) crosses y = 0 at x = -0.2 - 0.05 * 0.04 / 1.04.
	ENSURE_SMALL(hit.t - (0.5 - 0.2 - 0.05 * 0.04 / 1.04), 1e-12);

	// Par8 -> the cap: the strip swept by the cylinder misses the triangle, whose vertices straddle
	// the slab (so Step 2 does not reject), but the end sphere at (-0.08, -0.05) holds P1.
	bsTriangle wide;
	bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(-1, 1, 0), &wide);
	s = MakeSweep(bsV3(-0.5, -0.05, 0.0), bsV3(-0.08, -0.05, 0.0), r);
	ENSURE(!bsCylinderTriangle(&wide, &s, &hit));
	RUN_SUBTEST(CheckCombined(&wide, bsV3(-0.5, -0.05, 0.0), bsV3(-0.08, -0.05, 0.0), r, true,
		bs_testEndSphere, bs_branchStep2, 1.0, 0));
	// Par8 with nothing for the cap either: the axis runs 0.3 from the triangle.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(-0.5, -0.3, 0.0), bsV3(0.5, -0.3, 0.0), r, false, 0, 0, 0, 0));
	return 0;
}

static int CylinderIntersecting(void)
{
	bsTriangle tri = UnitTriangle();
	double r = 0.1;

	// Int4: the axis meets the plane at t = 0.5 inside T (exact face contact: t = 0.4).
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.2, 0.2, 0.5), bsV3(0.2, 0.2, -0.5), r, true,
		bs_testCylinder, bs_branchInt4, 0.5, 0));

	// Int6: the axis meets the plane at (0.5, -0.05), outside; the edge P1P2's closest point to the
	// axis is S = (0.5, 0, 0), 0.05 away, at h = 0.5 (exact edge contact: t = 0.5 - 0.0866).
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.5, -0.05, 0.5), bsV3(0.5, -0.05, -0.5), r, true,
		bs_testCylinder, bs_branchInt6, 0.5, 0));

	// Int6 picks the S_i nearest C1: an oblique axis passing near P2 (S on edge 0 and edge 1 both
	// clamp to P2 = (1, 0, 0)); Step 2 of the cap is not reached.
	bsSweep s = MakeSweep(bsV3(1.05, -0.05, 0.3), bsV3(1.05, -0.05, -0.3), r);
	bsTriangleHit hit;
	ENSURE(bsCylinderTriangle(&tri, &s, &hit));
	ENSURE(hit.branch == bs_branchInt6);
	ENSURE_SMALL(hit.t - 0.5, 1e-12);

	// Int5 (every d_i > R) -> the cap (Fig. 6b): the axis stops 0.05 above the face, all edges at
	// least 0.2 from the axis; the end sphere finds the face (Step 3).
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.2, 0.2, 0.5), bsV3(0.2, 0.2, 0.05), r, true,
		bs_testEndSphere, bs_branchStep3, 1.0, 0));

	// Int6's else (Fig. 6d): S = (0.5, 0, 0) is within R of the axis but beyond the cap at C2; the end
	// sphere at z = 0.08 touches the edge (distance sqrt(0.05^2 + 0.08^2) = 0.094).
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.5, -0.05, 0.5), bsV3(0.5, -0.05, 0.08), r, true,
		bs_testEndSphere, bs_branchStep4, 1.0, 0));
	// ... and 0.103 away at z = 0.09: no contact anywhere.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.5, -0.05, 0.5), bsV3(0.5, -0.05, 0.09), r, false, 0, 0, 0, 0));

	// Step 2 of the cylinder: every vertex beyond the cap through C2 (and the cap sphere clear too).
	s = MakeSweep(bsV3(0.2, 0.2, -1.0), bsV3(0.2, 0.2, -0.5), r);
	ENSURE(!bsCylinderTriangle(&tri, &s, &hit));

	// An edge parallel to the axis lies in the plane, so the axis is parallel to the plane too: Par.
	// A vertical wall x = 0 whose edge P1P2 runs along z; the axis falls along -z 0.0707 from P2
	// (Par5 at h = 0.5; Par7 skips the parallel edge). Exact: the vertex at t = 0.5 - 0.0707.
	bsTriangle wall;
	bsMakeTriangle(bsV3(0, 0, -0.5), bsV3(0, 0, 0.5), bsV3(0, 1, 0), &wall);
	RUN_SUBTEST(CheckCombined(&wall, bsV3(0.05, -0.05, 1.0), bsV3(0.05, -0.05, 0.0), r, true,
		bs_testCylinder, bs_branchPar5, 0.5, 1));
	return 0;
}

static int StartAndZeroMotion(void)
{
	bsTriangle tri = UnitTriangle();
	double r = 0.1;

	// Starting in contact and moving away: the paper's loop would miss it; blobsim stops at t = 0.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.2, 0.2, 0.05), bsV3(0.2, 0.2, 0.5), r, true,
		bs_testStartSphere, bs_branchStep3, 0.0, 0));
	// Starting in contact with an edge.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.5, -0.05, 0.0), bsV3(0.5, -0.5, 0.0), r, true,
		bs_testStartSphere, bs_branchStep4, 0.0, 0));
	// Zero-length motion: only the sphere test applies.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.2, 0.2, 0.05), bsV3(0.2, 0.2, 0.05), r, true,
		bs_testStartSphere, bs_branchStep3, 0.0, 0));
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.2, 0.2, 0.5), bsV3(0.2, 0.2, 0.5), r, false, 0, 0, 0, 0));
	bsSweep s = MakeSweep(bsV3(0.2, 0.2, 0.05), bsV3(0.2, 0.2, 0.05), r);
	bsTriangleHit hit;
	ENSURE(!bsCylinderTriangle(&tri, &s, &hit));  // no cylinder without motion
	// Zero radius: the capsule is the segment.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(0.2, 0.2, 0.5), bsV3(0.2, 0.2, -0.5), 0.0, true,
		bs_testCylinder, bs_branchInt4, 0.5, 0));
	return 0;
}

static int Grazing(void)
{
	bsTriangle tri = UnitTriangle();
	double r = 0.125;  // exact in binary, so "at exactly R" is exact

	// Parallel to the plane at height exactly R over y = 0.25: tangent to the edge x = 0 at t = 0.5.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(-0.5, 0.25, 0.125), bsV3(0.5, 0.25, 0.125), r, true,
		bs_testCylinder, bs_branchPar7, 0.5, 2));
	// A hair higher: nothing.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(-0.5, 0.25, 0.125 + 1e-12), bsV3(0.5, 0.25, 0.125 + 1e-12), r,
		false, 0, 0, 0, 0));
	// Along the edge P1P2 at distance exactly R in the plane: tangent to P1 at t = 0.5, then to the
	// whole edge.
	RUN_SUBTEST(CheckCombined(&tri, bsV3(-0.5, -0.125, 0.0), bsV3(0.5, -0.125, 0.0), r, true,
		bs_testCylinder, bs_branchPar5, 0.5, 0));
	return 0;
}

static int MainLoop(void)
{
	// The paper's main loop keeps the contact nearest C1: two floors, the upper one hit first.
	bsTriangle tris[3];
	bsMakeTriangle(bsV3(-1, -1, -0.5), bsV3(1, -1, -0.5), bsV3(-1, 1, -0.5), tris + 0);
	bsMakeTriangle(bsV3(-1, -1, 0.0), bsV3(1, -1, 0.0), bsV3(-1, 1, 0.0), tris + 1);
	bsMakeTriangle(bsV3(5, 5, 5), bsV3(6, 5, 5), bsV3(5, 6, 5), tris + 2);
	bsSweepInput in = {bsV3(-0.2, -0.2, 1.0), bsV3(-0.2, -0.2, -1.0), 0.1};
	bsSweepOutput out;
	ENSURE(bsSweepList(bs_methodKarabassi, tris, 3, &in, &out) == bs_ok);
	ENSURE(out.hit == 1 && out.triangle == 1);
	ENSURE(out.test == bs_testCylinder && out.branch == bs_branchInt4);
	ENSURE_SMALL(out.t - 0.5, 1e-12);  // the centre reaches z = 0
	ENSURE_SMALL(out.center.z, 1e-12);
	ENSURE_SMALL(out.normal.z - 1.0, 1e-12);  // the centre is on the face: the normal faces C1
	ENSURE(bsSweepList(bs_methodExact, tris, 3, &in, &out) == bs_ok);
	ENSURE(out.hit == 1 && out.triangle == 1);
	ENSURE_SMALL(out.t - 0.45, 1e-12);
	ENSURE_SMALL(out.center.z - 0.1, 1e-12);
	ENSURE_SMALL(out.normal.z - 1.0, 1e-12);
	ENSURE(bsSweepList(bs_methodRay, tris, 3, &in, &out) == bs_ok);
	ENSURE(out.hit == 1 && out.triangle == 1);
	ENSURE_SMALL(out.t - 0.5, 1e-12);

	// A miss reports t = 1 at C2.
	bsSweepInput away = {bsV3(3, 3, 1.0), bsV3(3, 3, -1.0), 0.1};
	ENSURE(bsSweepList(bs_methodKarabassi, tris, 3, &away, &out) == bs_ok);
	ENSURE(out.hit == 0 && out.t == 1.0 && out.triangle == BS_NO_TRIANGLE);
	ENSURE(out.center.z == -1.0);

	// Bad input is an error code, not a crash.
	bsSweepInput bad = {bsV3((double)NAN, 0, 0), bsV3(0, 0, 0), 0.1};
	ENSURE(bsSweepList(bs_methodKarabassi, tris, 3, &bad, &out) == bs_errNonFinite);
	ENSURE(out.hit == 0);
	bsSweepInput inf = {bsV3(0, 0, 0), bsV3(0, (double)INFINITY, 0), 0.1};
	ENSURE(bsSweepList(bs_methodExact, tris, 3, &inf, &out) == bs_errNonFinite);
	bsSweepInput negative = {bsV3(0, 0, 0), bsV3(0, 0, 1), -0.1};
	ENSURE(bsSweepList(bs_methodRay, tris, 3, &negative, &out) == bs_errNegativeRadius);
	bsSweepInput huge = {bsV3(-1e300, 0, 0), bsV3(1e300, 0, 0), 0.1};
	ENSURE(bsSweepList(bs_methodExact, tris, 3, &huge, &out) == bs_errNonFinite);
	ENSURE(bsSweepList((bsMethod)7, tris, 3, &in, &out) == bs_errInvalidArgument);

	bsMethod m;
	ENSURE(bsParseMethod("exact", &m) && m == bs_methodExact);
	ENSURE(!bsParseMethod("Exact", &m));
	return 0;
}

// The 18 comparisons bsSweep_BoxOverlaps stood for before it took the triangle's bounds with SIMD
// min/max: written out again here as the reference.
static bool BoxOverlapsReference(const bsSweep* s, const bsTriangle* t)
{
	const bsVec3 v[3] = {t->p1, t->p2, t->p3};
	const double lo[3] = {s->boxMin.x, s->boxMin.y, s->boxMin.z};
	const double hi[3] = {s->boxMax.x, s->boxMax.y, s->boxMax.z};
	for (int a = 0; a < 3; ++a)
	{
		bool below = true, above = true;
		for (int i = 0; i < 3; ++i)
		{
			double c = a == 0 ? v[i].x : (a == 1 ? v[i].y : v[i].z);
			below = below && c < lo[a];
			above = above && c > hi[a];
		}
		if (below || above)
		{
			return false;
		}
	}
	return true;
}

// A coordinate on a coarse grid (so vertices and box bounds are often equal, signed zeros
// included), offset and scaled.
static double GridCoordinate(bsRng* rng, double offset, double scale)
{
	double g = (double)((int)bsRng_Below(rng, 9) - 4) * 0.25;
	return offset + scale * (g == 0.0 && bsRng_Below(rng, 2) == 0 ? -0.0 : g);
}

// A random triangle of edges 0.1..1 scale about base; thin > 0: its third vertex within thin scale of
// the first edge. False when bsMakeTriangle refuses it.
static bool RandomTriangle(bsRng* rng, bsVec3 base, double scale, double thin, bsTriangle* tri)
{
	bsVec3 p1 = bsMulAdd(base, scale, bsRng_UnitVector(rng));
	bsVec3 p2 = bsMulAdd(p1, scale * bsRng_Range(rng, 0.1, 1.0), bsRng_UnitVector(rng));
	bsVec3 p3 = thin > 0.0 ? bsMulAdd(bsLerp(p1, p2, bsRng_Uniform(rng)), scale * thin,
		bsRng_UnitVector(rng)) : bsMulAdd(p1, scale * bsRng_Range(rng, 0.1, 1.0), bsRng_UnitVector(rng));
	return bsMakeTriangle(p1, p2, p3, tri) == bs_ok;
}

// The prefilters in front of the per-triangle tests (collide.h) change no answer:
// bsSweep_BoxOverlaps is the plain comparisons exactly, ties and signed zeros included; and when
// bsTriangle_BoxNear says no, the start/end sphere test (bsSphereTriangle) and the exact start test
// (closest point within R) say no too, on near misses and touches within 1e-15..1e-3 relative of
// the contact distance, at scales 1e-3 and 1, 1e6 from the origin, with thin triangles.
static int Prefilters(void)
{
	bsRng rng = bsMakeRng(15);
	int rejected = 0, touching = 0;
	for (int i = 0; i < 40000; ++i)
	{
		double offset = bsRng_Below(&rng, 2) == 0 ? 0.0 : 1e6;
		double scale = i % 3 == 0 ? 1e-3 : 1.0;
		bsVec3 p[3];
		for (int k = 0; k < 3; ++k)
		{
			p[k] = bsV3(GridCoordinate(&rng, offset, scale), GridCoordinate(&rng, offset, scale),
				GridCoordinate(&rng, 0.0, scale));
		}
		bsTriangle tri;
		if (bsMakeTriangle(p[0], p[1], p[2], &tri) != bs_ok)
		{
			continue;
		}
		bsVec3 c1 = bsV3(GridCoordinate(&rng, offset, scale), GridCoordinate(&rng, offset, scale),
			GridCoordinate(&rng, 0.0, scale));
		bsVec3 c2 = bsV3(GridCoordinate(&rng, offset, scale), c1.y, GridCoordinate(&rng, 0.0, scale));
		double grid = (double)bsRng_Below(&rng, 4) * 0.25 * scale;
		bsSweep s = MakeSweep(c1, c2, grid);
		ENSURE(bsSweep_BoxOverlaps(&s, &tri) == BoxOverlapsReference(&s, &tri));
	}
	for (int i = 0; i < 60000; ++i)
	{
		double scale = i % 4 == 0 ? 1e-3 : 1.0;
		double offset = i % 5 == 0 ? 1e6 : 0.0;
		// Every third triangle is thin: its third vertex near the first edge.
		bsTriangle tri;
		if (!RandomTriangle(&rng, bsV3(offset, offset * 0.5, -offset), scale, i % 3 == 0 ? 1e-5 : 0.0,
			&tri))
		{
			continue;
		}
		bsVec3 p1 = tri.p1, p2 = tri.p2, p3 = tri.p3;
		// A centre straight out from the vertex with the largest (or smallest) coordinate on an axis:
		// its distance from the triangle is that gap exactly, as is the gap between the bounds, so R
		// just below it is a near miss the bounds reject by a hair, and R at or above it a touch.
		bsVec3 v[3] = {p1, p2, p3};
		int axis = (int)bsRng_Below(&rng, 3);
		double sign = bsRng_Below(&rng, 2) == 0 ? 1.0 : -1.0;
		int extreme = 0;
		for (int k = 1; k < 3; ++k)
		{
			double ck = axis == 0 ? v[k].x : (axis == 1 ? v[k].y : v[k].z);
			double ce = axis == 0 ? v[extreme].x : (axis == 1 ? v[extreme].y : v[extreme].z);
			extreme = sign * ck > sign * ce ? k : extreme;
		}
		double gap = scale * bsRng_Range(&rng, 0.01, 1.0);
		bsVec3 c = v[extreme];
		if (axis == 0)
		{
			c.x += sign * gap;
		}
		else if (axis == 1)
		{
			c.y += sign * gap;
		}
		else
		{
			c.z += sign * gap;
		}
		static const double rel[] = {-1e-3, -1e-6, -2e-8, -1e-12, -1e-15, 0.0, 1e-15, 1e-12, 1e-6};
		double r = gap * (1.0 + rel[bsRng_Below(&rng, 9)]);
		bsTriangleHit hit;
		bool sphere = bsSphereTriangle(&tri, c, r, r * r, &hit);
		bsVec3 q = bsTriangle_ClosestPoint(&tri, c, NULL, NULL);
		bool start = bsDistanceSquared(q, c) <= r * r;
		bool near = bsTriangle_BoxNear(&tri, c, r);
		rejected += !near;
		touching += sphere;
		// Conservative: a contact either test finds is never rejected.
		ENSURE(near || (!sphere && !start));
	}
	// The cases exercise both sides: near misses rejected, touches found (and kept).
	ENSURE(rejected > 5000);
	ENSURE(touching > 10000);
	return 0;
}

// bsBoxf (boxf.h) in front of the capsule tests. The boxes of one pair: the triangle's vertices and
// the sweep's double box, made by `make` (bsMakeBoxf, or the round-to-nearest box below).
typedef bsBoxf BoxfMaker(bsVec3 lo, bsVec3 hi);

// Each double rounded to the nearest float: the box may lie inside the double box, but rounding is
// monotone, so a strict gap between two such boxes is still one between the doubles.
static bsBoxf NearestBoxf(bsVec3 lo, bsVec3 hi)
{
	bsBoxf b = {{(float)lo.x, (float)lo.y, (float)lo.z, 0.0f}, {(float)hi.x, (float)hi.y, (float)hi.z, 0.0f}};
	return b;
}

// bsMakeBoxf's margin taken the wrong way (the lower corner rounded up, the upper one down): boxes
// that touch in doubles come apart.
static bsBoxf InwardBoxf(bsVec3 lo, bsVec3 hi)
{
	bsBoxf b = {{bsFloatUp(lo.x), bsFloatUp(lo.y), bsFloatUp(lo.z), 0.0f},
		{bsFloatDown(hi.x), bsFloatDown(hi.y), bsFloatDown(hi.z), 0.0f}};
	return b;
}

static double* AxisOf(bsVec3* v, int axis)
{
	return axis == 0 ? &v->x : (axis == 1 ? &v->y : &v->z);
}

// Counts the pairs whose float boxes `make` says are disjoint while the unfiltered answer is not a
// miss: the double box test (bsSweep_BoxOverlaps) passes, or bsKarabassiTriangle or bsExactTriangle
// finds a contact. The sweeps touch or nearly miss a triangle's extreme vertex on one axis: the
// sweep's box edge within a few ulps of the vertex's coordinate either way (the start sphere then
// touches the vertex, misses it by a few ulps, or overlaps it), at scales 1e-3 and 1, 1e6 from the
// origin; then random pairs of the Table 1 kind. *contacts counts the pairs with a contact and
// *rejected the pairs the float boxes reject.
static int BoxfWrongRejections(BoxfMaker* make, int* contacts, int* rejected)
{
	bsRng rng = bsMakeRng(51);
	int wrong = 0;
	*contacts = 0;
	*rejected = 0;
	for (int i = 0; i < 24000; ++i)
	{
		double scale = i % 3 == 0 ? 1e-3 : 1.0;
		double offset = i % 4 == 0 ? 1e6 : 0.0;
		bsTriangle tri;
		bsSweepInput in;
		if (i < 20000)
		{
			if (!RandomTriangle(&rng, bsV3(offset, -offset, 0.5 * offset), scale, 0.0, &tri))
			{
				continue;
			}
			int axis = (int)bsRng_Below(&rng, 3);
			double sign = bsRng_Below(&rng, 2) == 0 ? 1.0 : -1.0;
			bsVec3 v[3] = {tri.p1, tri.p2, tri.p3};
			int e = 0;
			for (int k = 1; k < 3; ++k)
			{
				e = sign * *AxisOf(v + k, axis) > sign * *AxisOf(v + e, axis) ? k : e;
			}
			// Straight out from the extreme vertex, R away, half the time moved by up to two floats'
			// spacing there (bsMakeBoxf's margin) either way, then by up to three doubles' spacing.
			in.radius = scale * bsRng_Range(&rng, 0.02, 0.1);
			in.c1 = v[e];
			double c = *AxisOf(&in.c1, axis) + sign * in.radius;
			double spacing = (double)nextafterf((float)fabs(c), INFINITY) - (double)(float)fabs(c);
			double shift = bsRng_Below(&rng, 2) == 0 ? 0.0 : spacing * bsRng_Range(&rng, -2.0, 2.0);
			*AxisOf(&in.c1, axis) = c + sign * shift;
			for (int k = (int)bsRng_Below(&rng, 7) - 3; k != 0; k += k > 0 ? -1 : 1)
			{
				*AxisOf(&in.c1, axis) = nextafter(*AxisOf(&in.c1, axis), k > 0 ? INFINITY : -INFINITY);
			}
			// Away along the axis or across it: C1 stays the box's side towards the triangle.
			in.c2 = bsMulAdd(in.c1, scale * bsRng_Range(&rng, 0.0, 0.5), bsRng_UnitVector(&rng));
			*AxisOf(&in.c2, axis) = *AxisOf(&in.c1, axis) + sign * fabs(*AxisOf(&in.c2, axis) - *AxisOf(&in.c1, axis));
		}
		else
		{
			bsVec3 base = bsV3(bsRng_Uniform(&rng), bsRng_Uniform(&rng), bsRng_Uniform(&rng));
			if (!RandomTriangle(&rng, base, 0.3, 0.0, &tri))
			{
				continue;
			}
			in.radius = bsRng_Range(&rng, 0.02, 0.1);
			in.c1 = bsV3(bsRng_Uniform(&rng), bsRng_Uniform(&rng), bsRng_Uniform(&rng));
			in.c2 = bsMulAdd(in.c1, bsRng_Range(&rng, 0.0, 0.5), bsRng_UnitVector(&rng));
		}
		bsSweep s;
		ENSURE(bsMakeSweep(&in, &s) == bs_ok);
		bsBoxf tb = make(bsTriangle_Min(&tri), bsTriangle_Max(&tri));
		bsBoxf sb = make(s.boxMin, s.boxMax);
		bsTriangleHit hit;
		bool contact = bsKarabassiTriangle(&tri, &s, 2.0, &hit);
		ENSURE(contact == bsExactTriangle(&tri, &s, 2.0, &hit));
		*contacts += contact;
		if (!bsBoxf_Overlaps(&tb, &sb))
		{
			*rejected += 1;
			wrong += contact || bsSweep_BoxOverlaps(&s, &tri);
		}
	}
	return wrong;
}

// The float boxes reject no pair the unfiltered tests would answer with a contact or even pass the
// double box test on. So would boxes rounded to nearest (both sides the same monotone rounding;
// bsMakeBoxf rounds outward so that each box contains its doubles on its own); boxes rounded inward
// do reject such pairs, and the check catches them.
static int FloatBounds(void)
{
	int contacts = 0, rejected = 0;
	ENSURE(BoxfWrongRejections(bsMakeBoxf, &contacts, &rejected) == 0);
	ENSURE(contacts > 5000);
	ENSURE(rejected > 4000);
	ENSURE(BoxfWrongRejections(NearestBoxf, &contacts, &rejected) == 0);
	ENSURE(BoxfWrongRejections(InwardBoxf, &contacts, &rejected) > 100);
	// Every axis and both sides, far from the origin too.
	bsTriangle tri;
	ENSURE(bsMakeTriangle(bsV3(0.1, 0.2, 0.3), bsV3(0.7, 0.2, 0.3), bsV3(0.1, 0.9, 0.3), &tri) == bs_ok);
	bsBoxf b = bsTriangle_Boxf(&tri);
	ENSURE((double)b.lo[0] <= 0.1 && (double)b.lo[1] <= 0.2 && (double)b.lo[2] <= 0.3);
	ENSURE((double)b.hi[0] >= 0.7 && (double)b.hi[1] >= 0.9 && (double)b.hi[2] >= 0.3);
	ENSURE(b.lo[3] == 0.0f && b.hi[3] == 0.0f);
	ENSURE(bsFloatDown(1e300) == FLT_MAX && bsFloatUp(1e300) == INFINITY);
	ENSURE(bsFloatUp(-1e300) == -FLT_MAX && bsFloatDown(-1e300) == -INFINITY);
	ENSURE(bsFloatUp(1e-60) > 0.0f && bsFloatDown(1e-60) == 0.0f && bsFloatUp(-0.0) == 0.0f);
	return 0;
}

// Int4-Int6 of src/collide/karabassi.c written out again, without the cull in front of Int5
// (bsCylinder_AxisClear), as the reference for AxisClearCull. Step 2's rejection is the caller's.
static bool IntersectingReference(const bsTriangle* tri, const bsSweep* s, const double h[3], double nd,
	bsTriangleHit* hit)
{
	bsVec3 v[3] = {tri->p1, tri->p2, tri->p3};
	double len = s->len;
	double t = -bsTriangle_PlaneDistance(tri, s->c1) / nd;
	if (t >= 0.0 && t <= 1.0 && bsTriangle_Contains(tri, bsMulAdd(s->c1, t, s->d)))
	{
		*hit = (bsTriangleHit){t, bs_testCylinder, bs_branchInt4, 0};
		return true;
	}
	double best = HUGE_VAL;
	int feature = 0;
	for (int i = 0; i < 3; ++i)
	{
		int j = i == 2 ? 0 : i + 1;
		if ((h[i] < 0.0 && h[j] < 0.0) || (h[i] > len && h[j] > len))
		{
			continue;
		}
		double ta = h[i] / len;
		double tb = h[j] / len;
		double da2 = bsDistanceSquared(v[i], bsMulAdd(s->c1, ta, s->d));
		double db2 = bsDistanceSquared(v[j], bsMulAdd(s->c1, tb, s->d));
		double s2 = bsDistanceSquared(v[j], bsMulAdd(v[i], tb - ta, s->d));
		bsVec3 sPoint = v[i];
		if (s2 > 0.0)
		{
			double u = (da2 - db2 + s2) / (2.0 * s2);
			sPoint = u <= 0.0 ? v[i] : (u >= 1.0 ? v[j] : bsLerp(v[i], v[j], u));
		}
		double hs = bsDot(s->axis, bsSub(sPoint, s->c1));
		if (hs < 0.0 || hs > len || hs >= best)
		{
			continue;
		}
		if (bsLengthSquared(bsMulSub(bsSub(sPoint, s->c1), hs, s->axis)) <= s->radius2)
		{
			best = hs;
			feature = i;
		}
	}
	if (best == HUGE_VAL)
	{
		return false;
	}
	*hit = (bsTriangleHit){best / len, bs_testCylinder, bs_branchInt6, (uint8_t)feature};
	return true;
}

// The cull in front of Int5 (the whole triangle farther than R from the axis across an edge: no
// branch can find anything) is the branches' own answer: bsCylinderTriangle equals the reference
// above bit for bit (hit, t, branch, feature) on axes passing an edge point or a vertex at R (1 +
// rel), rel from -1e-6 to 1e-6 through 0 and +-1e-15, Q outside across that edge, tilts from
// perpendicular to grazing the plane (|cos theta| down to 1e-6), scales 1e-3 and 1, 1e6 from the
// origin, thin triangles. Removing the cull's margin (bound = R) makes it fail here.
static int AxisClearCull(void)
{
	bsRng rng = bsMakeRng(2611);
	int hits = 0, misses = 0, compared = 0;
	static const double rel[] = {-1e-6, -1e-12, -1e-15, 0.0, 1e-15, 1e-12, 1e-6};
	static const double tilt[] = {1.0, 0.5, 1e-2, 1e-4, 1e-6};
	for (int i = 0; i < 30000; ++i)
	{
		double scale = i % 4 == 0 ? 1e-3 : 1.0;
		double offset = i % 3 == 0 ? 1e6 : 0.0;
		bsTriangle tri;
		if (!RandomTriangle(&rng, bsV3(offset, -offset * 0.5, offset * 0.25), scale,
			i % 5 == 0 ? 1e-4 : 0.0, &tri))
		{
			continue;
		}
		// X: a vertex (a third of the cases) or a point of edge k; out: the edge's outward direction
		// in the plane (the triangle is counter-clockwise about n).
		bsVec3 v[3] = {tri.p1, tri.p2, tri.p3};
		int k = (int)bsRng_Below(&rng, 3);
		bsVec3 a = v[k];
		bsVec3 e = bsSub(v[k == 2 ? 0 : k + 1], a);
		bsVec3 x = i % 3 == 1 ? a : bsMulAdd(a, bsRng_Uniform(&rng), e);
		bsVec3 out = bsNormalize(bsCross(e, tri.n));
		// The axis: cos theta = axis . n from tilt[], leaning towards a random in-plane direction.
		bsVec3 side = bsNormalize(bsCross(tri.n, bsRng_UnitVector(&rng)));
		double c = tilt[bsRng_Below(&rng, 5)] * (bsRng_Below(&rng, 2) == 0 ? 1.0 : -1.0);
		bsVec3 axis = bsNormalize(bsMulAdd(bsScale(c, tri.n), sqrt(1.0 - c * c), side));
		// The axis line passes X at distance rho, on the outward side (its perpendicular part).
		bsVec3 u = bsMulSub(out, bsDot(out, axis), axis);
		if (bsLengthSquared(u) < 1e-12)
		{
			continue;
		}
		u = bsNormalize(u);
		double rho = scale * bsRng_Range(&rng, 0.05, 0.5);
		bsVec3 through = bsMulAdd(x, rho, u);
		double len = scale * bsRng_Range(&rng, 0.1, 2.0);
		bsVec3 c1 = bsMulAdd(through, -len * bsRng_Range(&rng, -0.2, 1.2), axis);
		bsVec3 c2 = bsMulAdd(c1, len, axis);
		double radius = rho * (1.0 + rel[bsRng_Below(&rng, 7)]);
		bsSweep s = MakeSweep(c1, c2, radius);
		double nd = bsDot(tri.n, s.d);
		double h[3];
		for (int m = 0; m < 3; ++m)
		{
			h[m] = bsDot(s.axis, bsSub(v[m], s.c1));
		}
		if (nd == 0.0 || (h[0] < 0.0 && h[1] < 0.0 && h[2] < 0.0) ||
			(h[0] > s.len && h[1] > s.len && h[2] > s.len))
		{
			continue;  // not the Int branches
		}
		bsTriangleHit want = {0}, got = {0};
		bool expect = IntersectingReference(&tri, &s, h, nd, &want);
		ENSURE(bsCylinderTriangle(&tri, &s, &got) == expect);
		if (expect)
		{
			ENSURE(got.t == want.t && got.branch == want.branch && got.feature == want.feature);
			ENSURE(got.test == want.test);
		}
		hits += expect;
		misses += !expect;
		++compared;
	}
	// Both sides of the tangency are exercised.
	ENSURE(compared > 20000);
	ENSURE(hits > 3000);
	ENSURE(misses > 3000);
	return 0;
}

int KarabassiTest(void)
{
	RUN_SUBTEST(SphereSteps());
	RUN_SUBTEST(CylinderParallel());
	RUN_SUBTEST(CylinderIntersecting());
	RUN_SUBTEST(StartAndZeroMotion());
	RUN_SUBTEST(Grazing());
	RUN_SUBTEST(MainLoop());
	RUN_SUBTEST(Prefilters());
	RUN_SUBTEST(AxisClearCull());
	RUN_SUBTEST(FloatBounds());
	return 0;
}
