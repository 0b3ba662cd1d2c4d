// test_exact.c — the exact time of first contact and the ray baseline on cases with a closed-form
// answer. A sphere sent straight at a point X of the triangle along a direction u in X's normal cone
// (the directions whose closest triangle point stays X) first touches at distance R from X: with
// C(t) = X + (1 - t) L u, the contact is at t = 1 - R / L, exactly, on X's feature.
#include "blobsim/collide.h"
#include "blobsim/rng.h"
#include "collide_internal.h"
#include "test.h"

static bsTriangle UnitTriangle(void)
{
	bsTriangle tri;
	bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0, 1, 0), &tri);
	return tri;
}

// A rigid motion: rotation (unit quaternion) then translation.
typedef struct Rigid
{
	double qw, qx, qy, qz;
	bsVec3 move;
} Rigid;

static bsVec3 Apply(const Rigid* m, bsVec3 v)
{
	bsVec3 q = bsV3(m->qx, m->qy, m->qz);
	bsVec3 t = bsScale(2.0, bsCross(q, v));
	bsVec3 r = bsAdd(bsAdd(v, bsScale(m->qw, t)), bsCross(q, t));
	return bsAdd(r, m->move);
}

static Rigid RandomRigid(bsRng* rng)
{
	Rigid m;
	double n;
	do
	{
		m.qw = bsRng_Range(rng, -1, 1);
		m.qx = bsRng_Range(rng, -1, 1);
		m.qy = bsRng_Range(rng, -1, 1);
		m.qz = bsRng_Range(rng, -1, 1);
		n = m.qw * m.qw + m.qx * m.qx + m.qy * m.qy + m.qz * m.qz;
	} while (n < 0.01 || n > 1.0);
	n = 1.0 / sqrt(n);
	m.qw *= n;
	m.qx *= n;
	m.qy *= n;
	m.qz *= n;
	m.move = bsV3(bsRng_Range(rng, -10, 10), bsRng_Range(rng, -10, 10), bsRng_Range(rng, -10, 10));
	return m;
}

// Sends a sphere of radius r at point x along unit u (pointing away from the triangle) from distance
// len; expects first contact at t = 1 - r / len on the given branch/feature, in the frame `m`.
static int Aim(const Rigid* m, bsVec3 x, bsVec3 u, double len, double r, bsBranch branch, int feature)
{
	bsTriangle tri;
	ENSURE(bsMakeTriangle(Apply(m, bsV3(0, 0, 0)), Apply(m, bsV3(1, 0, 0)), Apply(m, bsV3(0, 1, 0)),
		&tri) == bs_ok);
	bsVec3 c1 = Apply(m, bsMulAdd(x, len, u));
	bsVec3 c2 = Apply(m, x);
	bsSweepInput in = {c1, c2, r};
	bsSweepOutput out;
	ENSURE(bsSweepList(bs_methodExact, &tri, 1, &in, &out) == bs_ok);
	ENSURE(out.hit == 1);
	ENSURE(out.branch == branch);
	ENSURE(out.feature == feature);
	ENSURE_SMALL(out.t - (1.0 - r / len), 1e-12);
	// Just touching: the contact point is X, R from the centre, the normal along u.
	ENSURE_SMALL(bsDistance(out.point, c2), 1e-11);
	ENSURE_SMALL(bsDistance(out.center, out.point) - r, 1e-11);
	bsVec3 un = bsSub(Apply(m, u), Apply(m, bsV3(0, 0, 0)));
	ENSURE_SMALL(bsDot(out.normal, un) - 1.0, 1e-11);

	// karabassi agrees on the hit and stops no earlier; ray (the centre aimed at X) hits at t = 1 on
	// a face or edge point, where X is on the closed triangle.
	ENSURE(bsSweepList(bs_methodKarabassi, &tri, 1, &in, &out) == bs_ok);
	ENSURE(out.hit == 1 && out.t >= 1.0 - r / len - 1e-12);
	return 0;
}

static int AnalyticContacts(void)
{
	Rigid identity = {1, 0, 0, 0, {0, 0, 0}};
	bsRng rng = bsMakeRng(7);
	for (int k = 0; k < 200; ++k)
	{
		const Rigid* m = &identity;
		Rigid random = RandomRigid(&rng);
		if (k > 0)
		{
			m = &random;
		}
		double r = bsRng_Range(&rng, 0.01, 0.3);
		double len = r + bsRng_Range(&rng, 0.01, 2.0);

		// Face: straight down onto an interior point, or obliquely (any u with u . n > 0 keeps the
		// closest point at X only along the normal; so the face case uses u = n).
		bsVec3 x = bsV3(bsRng_Range(&rng, 0.05, 0.45), bsRng_Range(&rng, 0.05, 0.45), 0.0);
		RUN_SUBTEST(Aim(m, x, bsV3(0, 0, 1), len, r, bs_branchFace, 0));
		RUN_SUBTEST(Aim(m, x, bsV3(0, 0, -1), len, r, bs_branchFace, 0));

		// Edge P1P2 (y = 0): u perpendicular to x, with y < 0, any z.
		double phi = bsRng_Range(&rng, -1.5, 1.5);
		bsVec3 u0 = bsV3(0, -cos(phi), sin(phi));
		RUN_SUBTEST(Aim(m, bsV3(bsRng_Range(&rng, 0.05, 0.95), 0, 0), u0, len, r, bs_branchEdge, 0));
		// Edge P2P3 (x + y = 1): u = (cos phi (1, 1)/sqrt2, sin phi).
		bsVec3 u1 = bsV3(cos(phi) / sqrt(2.0), cos(phi) / sqrt(2.0), sin(phi));
		double s = bsRng_Range(&rng, 0.05, 0.95);
		RUN_SUBTEST(Aim(m, bsV3(1 - s, s, 0), u1, len, r, bs_branchEdge, 1));
		// Edge P3P1 (x = 0).
		bsVec3 u2 = bsV3(-cos(phi), 0, sin(phi));
		RUN_SUBTEST(Aim(m, bsV3(0, bsRng_Range(&rng, 0.05, 0.95), 0), u2, len, r, bs_branchEdge, 2));

		// Vertex P1: u . (P2 - P1) < 0 and u . (P3 - P1) < 0.
		bsVec3 v0 = bsNormalize(bsV3(-bsRng_Range(&rng, 0.1, 1), -bsRng_Range(&rng, 0.1, 1), bsRng_Range(&rng, -1, 1)));
		RUN_SUBTEST(Aim(m, bsV3(0, 0, 0), v0, len, r, bs_branchVertex, 0));
		// Vertex P2 = (1, 0, 0): u . (-1, 0, 0) < 0 and u . (-1, 1, 0) < 0.
		double ux = bsRng_Range(&rng, 0.1, 1);
		bsVec3 v1 = bsNormalize(bsV3(ux, bsRng_Range(&rng, -1, ux * 0.9), bsRng_Range(&rng, -1, 1)));
		RUN_SUBTEST(Aim(m, bsV3(1, 0, 0), v1, len, r, bs_branchVertex, 1));
		// Vertex P3 = (0, 1, 0): u . (0, -1, 0) < 0 and u . (1, -1, 0) < 0.
		double uy = bsRng_Range(&rng, 0.1, 1);
		bsVec3 v2 = bsNormalize(bsV3(bsRng_Range(&rng, -1, uy * 0.9), uy, bsRng_Range(&rng, -1, 1)));
		RUN_SUBTEST(Aim(m, bsV3(0, 1, 0), v2, len, r, bs_branchVertex, 2));
	}
	return 0;
}

static int StartTangentAndBounds(void)
{
	bsTriangle tri = UnitTriangle();
	bsTriangleHit hit;
	bsSweep s;

	// Starting in contact reports t = 0 and the normal from the closest point, even moving away.
	bsSweepInput in = {bsV3(0.5, -0.05, 0.0), bsV3(0.5, -0.5, 0.0), 0.1};
	bsSweepOutput out;
	ENSURE(bsSweepList(bs_methodExact, &tri, 1, &in, &out) == bs_ok);
	ENSURE(out.hit && out.t == 0.0 && out.branch == bs_branchStart);
	ENSURE_SMALL(out.normal.y + 1.0, 1e-12);
	// The centre exactly on the face, moving down: normal is the face normal facing the motion's
	// origin (+z, since the motion goes to -z).
	bsSweepInput on = {bsV3(0.2, 0.2, 0.0), bsV3(0.2, 0.2, -1.0), 0.1};
	ENSURE(bsSweepList(bs_methodExact, &tri, 1, &on, &out) == bs_ok);
	ENSURE(out.hit && out.t == 0.0);
	ENSURE_SMALL(out.normal.z - 1.0, 1e-12);
	// Zero-length motion: in contact or not.
	bsSweepInput still = {bsV3(0.2, 0.2, 0.0999), bsV3(0.2, 0.2, 0.0999), 0.1};
	ENSURE(bsSweepList(bs_methodExact, &tri, 1, &still, &out) == bs_ok && out.hit && out.t == 0.0);
	still.c1.z = still.c2.z = 0.1001;
	ENSURE(bsSweepList(bs_methodExact, &tri, 1, &still, &out) == bs_ok && !out.hit);

	// Tangential: moving at height exactly R over the face. In contact all along the face, first at
	// the edge x = 0 (t = 0.5); at height R + 1e-12 nothing.
	bsSweepInput graze = {bsV3(-0.5, 0.25, 0.125), bsV3(0.5, 0.25, 0.125), 0.125};
	bsMakeSweep(&graze, &s);
	ENSURE(bsExactTriangle(&tri, &s, 2.0, &hit));
	ENSURE(hit.t == 0.5 && hit.branch == bs_branchEdge && hit.feature == 2);
	graze.c1.z = graze.c2.z = 0.125 + 1e-12;
	bsMakeSweep(&graze, &s);
	ENSURE(!bsExactTriangle(&tri, &s, 2.0, &hit));

	// tmax: only contacts strictly before it are reported.
	bsSweepInput down = {bsV3(0.2, 0.2, 1.0), bsV3(0.2, 0.2, -1.0), 0.1};
	bsMakeSweep(&down, &s);
	ENSURE(bsExactTriangle(&tri, &s, 2.0, &hit) && hit.t == 0.45);
	ENSURE(!bsExactTriangle(&tri, &s, 0.45, &hit));
	ENSURE(bsExactTriangle(&tri, &s, 0.4500001, &hit));
	ENSURE(bsRayTriangle(&tri, &s, 2.0, &hit) && hit.t == 0.5);
	ENSURE(!bsRayTriangle(&tri, &s, 0.5, &hit));

	// Nearly parallel to the plane at about R from it: the face-plane time is ill-conditioned (0.5
	// here; the first contact is on an edge at 0.1177). The answer must not depend on tmax, or a list
	// loop and the BVH, visiting triangles in different orders, disagree.
	bsTriangle graze2;
	bsMakeTriangle(bsV3(0.22857142857142856, -0.01773605058243222, 0),
		bsV3(0.22857142857142856, -0.013303752496570447, 0.014285714285714285),
		bsV3(0.24285714285714285, -0.016317768234369676, 0), &graze2);
	bsSweepInput near = {bsV3(0.22789206990168859, -0.0083388456712961846, -0.001108655022482092),
		bsV3(0.25798873474082784, 0.018095859094584055, 0.074462316186360705), 0.0093262551201404413};
	bsMakeSweep(&near, &s);
	ENSURE(bsExactTriangle(&graze2, &s, 2.0, &hit));
	ENSURE_SMALL(hit.t - 0.11774732739, 1e-9);
	double first = hit.t;
	ENSURE(bsExactTriangle(&graze2, &s, 0.11774732821568715, &hit) && hit.t == first);

	// Reaching the contact exactly at the end of the motion counts (t = 1); a hair short does not.
	bsSweepInput reach = {bsV3(0.2, 0.2, 1.0), bsV3(0.2, 0.2, 0.125), 0.125};
	bsMakeSweep(&reach, &s);
	ENSURE(bsExactTriangle(&tri, &s, 2.0, &hit) && hit.t == 1.0 && hit.branch == bs_branchFace);
	reach.c2.z = 0.125 + 1e-12;
	bsMakeSweep(&reach, &s);
	ENSURE(!bsExactTriangle(&tri, &s, 2.0, &hit));
	return 0;
}

static int Slivers(void)
{
	// A needle: the third vertex 1e-7 from the opposite edge. A sphere falling onto its middle
	// touches it at t = 1 - R / L like any face; one passing beside it at 1.5 R misses.
	bsTriangle needle;
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0.5, 1e-7, 0), &needle) == bs_ok);
	bsSweepInput in = {bsV3(0.5, 0.0, 1.0), bsV3(0.5, 0.0, -1.0), 0.05};
	bsSweepOutput out;
	ENSURE(bsSweepList(bs_methodExact, &needle, 1, &in, &out) == bs_ok && out.hit);
	ENSURE_SMALL(out.t - 0.475, 1e-12);
	ENSURE(bsSweepList(bs_methodKarabassi, &needle, 1, &in, &out) == bs_ok && out.hit);
	ENSURE(out.t >= 0.475 - 1e-12 && out.t <= 0.5 + 1e-12);
	in.c1.y = in.c2.y = 0.075;
	ENSURE(bsSweepList(bs_methodExact, &needle, 1, &in, &out) == bs_ok && !out.hit);
	ENSURE(bsSweepList(bs_methodKarabassi, &needle, 1, &in, &out) == bs_ok && !out.hit);

	// Zero area is rejected up front, with an error code, not asserted.
	bsTriangle flat;
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 1, 1), bsV3(2, 2, 2), &flat) == bs_errDegenerateTriangle);
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(0, 0, 0), bsV3(0, 1, 0), &flat) == bs_errDegenerateTriangle);
	ENSURE(bsMakeTriangle(bsV3(0, 0, (double)NAN), bsV3(1, 0, 0), bsV3(0, 1, 0), &flat) == bs_errNonFinite);
	return 0;
}

static int Ray(void)
{
	bsTriangle tri = UnitTriangle();
	bsTriangleHit hit;
	bsSweep s;
	bsSweepInput in;

	// Crossing inside, outside, not reaching the plane.
	in = (bsSweepInput){bsV3(0.2, 0.3, 1.0), bsV3(0.2, 0.3, -3.0), 1.0};
	bsMakeSweep(&in, &s);
	ENSURE(bsRayTriangle(&tri, &s, 2.0, &hit) && hit.t == 0.25 && hit.branch == bs_branchFace);
	in.c1.x = in.c2.x = 0.8;
	bsMakeSweep(&in, &s);
	ENSURE(!bsRayTriangle(&tri, &s, 2.0, &hit));
	in = (bsSweepInput){bsV3(0.2, 0.2, 1.0), bsV3(0.2, 0.2, 0.01), 1.0};
	bsMakeSweep(&in, &s);
	ENSURE(!bsRayTriangle(&tri, &s, 2.0, &hit));
	// Ending exactly on the face: t = 1. Starting on it: t = 0.
	in.c2.z = 0.0;
	bsMakeSweep(&in, &s);
	ENSURE(bsRayTriangle(&tri, &s, 2.0, &hit) && hit.t == 1.0);
	in = (bsSweepInput){bsV3(0.2, 0.2, 0.0), bsV3(0.2, 0.2, 1.0), 0.0};
	bsMakeSweep(&in, &s);
	ENSURE(bsRayTriangle(&tri, &s, 2.0, &hit) && hit.t == 0.0 && hit.branch == bs_branchStart);
	// Through an edge or a vertex: the tie rule (the crossing moved by (e, e^2) in the frame across
	// the segment, here x and y) gives the triangle the edge y = 0 and the vertex at the origin but
	// not the vertex (1, 0, 0), whose moved point is beyond x = 1 (it belongs to a triangle there,
	// if any); of the two halves of the unit square exactly one has the shared diagonal.
	bsTriangle other;
	ENSURE(bsMakeTriangle(bsV3(1, 0, 0), bsV3(1, 1, 0), bsV3(0, 1, 0), &other) == bs_ok);
	bsVec3 through[4] = {bsV3(0.5, 0.0, 0.0), bsV3(0.0, 0.0, 0.0), bsV3(1.0, 0.0, 0.0),
		bsV3(0.5, 0.5, 0.0)};
	bool mine[4] = {true, true, false, false};
	for (int i = 0; i < 4; ++i)
	{
		in = (bsSweepInput){bsAdd(through[i], bsV3(0, 0, 1)), bsSub(through[i], bsV3(0, 0, 1)), 0.0};
		bsMakeSweep(&in, &s);
		bool a = bsRayTriangle(&tri, &s, 2.0, &hit);
		ENSURE(a == mine[i] && (!a || hit.t == 0.5));
		bool b = bsRayTriangle(&other, &s, 2.0, &hit);
		ENSURE(i < 3 ? !b : b && hit.t == 0.5);
	}
	// Parallel above the plane: never.
	in = (bsSweepInput){bsV3(-1, 0.2, 0.01), bsV3(1, 0.2, 0.01), 0.0};
	bsMakeSweep(&in, &s);
	ENSURE(!bsRayTriangle(&tri, &s, 2.0, &hit));
	// In the plane: entering through the edge x = 0 at t = 0.25; starting inside at t = 0; passing
	// beside; zero length inside.
	in = (bsSweepInput){bsV3(-0.5, 0.2, 0.0), bsV3(1.5, 0.2, 0.0), 0.0};
	bsMakeSweep(&in, &s);
	ENSURE(bsRayTriangle(&tri, &s, 2.0, &hit) && hit.t == 0.25 && hit.branch == bs_branchFace);
	in.c1.x = 0.1;
	bsMakeSweep(&in, &s);
	ENSURE(bsRayTriangle(&tri, &s, 2.0, &hit) && hit.t == 0.0 && hit.branch == bs_branchStart);
	in = (bsSweepInput){bsV3(-0.5, -0.2, 0.0), bsV3(1.5, -0.2, 0.0), 0.0};
	bsMakeSweep(&in, &s);
	ENSURE(!bsRayTriangle(&tri, &s, 2.0, &hit));
	in = (bsSweepInput){bsV3(0.2, 0.2, 0.0), bsV3(0.2, 0.2, 0.0), 0.0};
	bsMakeSweep(&in, &s);
	ENSURE(bsRayTriangle(&tri, &s, 2.0, &hit) && hit.t == 0.0);

	// The output: the centre on the face, the normal facing where the point came from.
	bsSweepInput up = {bsV3(0.2, 0.3, -1.0), bsV3(0.2, 0.3, 1.0), 0.5};
	bsSweepOutput out;
	ENSURE(bsSweepList(bs_methodRay, &tri, 1, &up, &out) == bs_ok && out.hit);
	ENSURE(out.t == 0.5 && out.normal.z == -1.0);
	ENSURE_SMALL(bsDistance(out.center, out.point), 1e-15);
	return 0;
}

int ExactTest(void)
{
	RUN_SUBTEST(AnalyticContacts());
	RUN_SUBTEST(StartTangentAndBounds());
	RUN_SUBTEST(Slivers());
	RUN_SUBTEST(Ray());
	return 0;
}
