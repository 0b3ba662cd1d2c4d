// test_sensor.c — mesh topology, the exact mesh-mesh distance and Senin et al.'s sensor particles.
//
// The exact distance (BVH against BVH, mesh_distance.h) is checked against a brute-force loop over all
// triangle pairs whose triangle-triangle distance is written here apart from src/: vertex-to-triangle
// by reference.h (which never calls bsTriangle_ClosestPoint), segment-to-segment as the smallest of the
// interior critical point and the four end-point-to-segment distances (not Ericson's clamping order),
// and crossing by signed volumes. The sensor particles are checked against the exact distance over
// scripted approaches of two letters from several directions: their separation is never below the
// exact one (it is a distance between surface points), no contact is missed, and near contact the
// error stays under the bound docs/sensors.md states.
#include "test.h"

#include "letters.h"
#include "mesh_distance.h"
#include "mesh_topology.h"
#include "procedural.h"
#include "reference.h"
#include "sensor.h"

#include "blobsim/bvh.h"
#include "blobsim/rng.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

// --- Topology ---

static int TopologyOfClosedMesh(const bsTriangle* tris, uint32_t count, uint32_t expectedVertices)
{
	bsMeshTopology m;
	ENSURE(bsMeshTopology_Build(&m, tris, count) == bs_ok);
	ENSURE(m.vertexCount == expectedVertices);
	ENSURE(m.borderEdges == 0 && m.nonManifoldEdges == 0);
	// Euler: V - E + F = 2 for a sphere, E = 3F/2 when every edge has two faces.
	ENSURE((int64_t)m.vertexCount - 3 * (int64_t)count / 2 + (int64_t)count == 2);
	uint32_t ringTotal = 0;
	for (uint32_t f = 0; f < count; ++f)
	{
		for (uint32_t k = 0; k < 3; ++k)
		{
			uint32_t g = m.neighbours[3 * f + k];
			ENSURE(g != BS_NO_FACE && g != f);
			// symmetric, and g holds both ends of the shared edge
			ENSURE(m.neighbours[3 * g] == f || m.neighbours[3 * g + 1] == f || m.neighbours[3 * g + 2] == f);
			uint32_t a = m.triangles[3 * f + k], b = m.triangles[3 * f + (k + 1) % 3];
			int shared = 0;
			for (int j = 0; j < 3; ++j)
			{
				shared += m.triangles[3 * g + j] == a || m.triangles[3 * g + j] == b;
			}
			ENSURE(shared == 2);
		}
		// welded positions are the soup's corners
		ENSURE(m.positions[m.triangles[3 * f]].x == tris[f].p1.x && m.positions[m.triangles[3 * f + 2]].z == tris[f].p3.z);
	}
	for (uint32_t v = 0; v < m.vertexCount; ++v)
	{
		// on a closed manifold a vertex has as many ring vertices as faces
		ENSURE(m.ringStart[v + 1] - m.ringStart[v] == m.faceStart[v + 1] - m.faceStart[v]);
		ringTotal += m.ringStart[v + 1] - m.ringStart[v];
	}
	ENSURE(ringTotal == 3 * count);  // every edge seen from both ends
	bsMeshTopology_Destroy(&m);
	return 0;
}

static int TopologyTest(void)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeIcosphere(3, 1.0, 0.0, false, &tris, &count) == bs_ok);
	RUN_SUBTEST(TopologyOfClosedMesh(tris, count, 10 * 64 + 2));
	// the graph diameter of the icosphere from a vertex to its antipode: at least half the equator
	bsMeshTopology m;
	ENSURE(bsMeshTopology_Build(&m, tris, count) == bs_ok);
	uint32_t far = 0;
	uint32_t hops = bsMeshTopology_Eccentricity(&m, 0, &far);
	ENSURE(bsDistance(m.positions[0], m.positions[far]) > 1.9 && hops >= 8 && hops <= 24);
	bsMeshTopology_Destroy(&m);
	free(tris);
	ENSURE(bsMakeBoxMesh(bsV3(0, 0, 0), bsV3(1, 1, 1), 4, false, &tris, &count) == bs_ok);
	RUN_SUBTEST(TopologyOfClosedMesh(tris, count, 6 * 16 + 2));
	free(tris);
	// an open heightfield: 4 * resolution border edges
	ENSURE(bsMakeHeightfieldScene(3, 8, 0, &tris, &count) == bs_ok);
	ENSURE(bsMeshTopology_Build(&m, tris, count) == bs_ok);
	ENSURE(m.vertexCount == 81 && m.borderEdges == 32 && m.nonManifoldEdges == 0);
	bsMeshTopology_Destroy(&m);
	free(tris);
	ENSURE(bsMeshTopology_Build(&m, NULL, 3) == bs_errInvalidArgument);
	bsTriangle bad = {{NAN, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, 0};
	ENSURE(bsMeshTopology_Build(&m, &bad, 1) == bs_errNonFinite);
	bsMeshTopology_Destroy(&m);
	return 0;
}

// --- An independent triangle-triangle distance ---

static double RefPointSegment2(bsVec3 p, bsVec3 a, bsVec3 b)
{
	bsVec3 ab = bsSub(b, a);
	double len2 = bsDot(ab, ab);
	double t = len2 > 0.0 ? bsDot(bsSub(p, a), ab) / len2 : 0.0;
	t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
	return bsDistanceSquared(p, bsMulAdd(a, t, ab));
}

// min over the unit square of |p + s u - q - t v|^2: the interior critical point when it lies inside,
// else the boundary, which is four point-to-segment distances.
static double RefSegmentSegment2(bsVec3 p, bsVec3 p2, bsVec3 q, bsVec3 q2)
{
	bsVec3 u = bsSub(p2, p), v = bsSub(q2, q), w = bsSub(p, q);
	double a = bsDot(u, u), b = bsDot(u, v), c = bsDot(v, v), d = bsDot(u, w), e = bsDot(v, w);
	double det = a * c - b * b;
	double best = fmin(fmin(RefPointSegment2(p, q, q2), RefPointSegment2(p2, q, q2)),
		fmin(RefPointSegment2(q, p, p2), RefPointSegment2(q2, p, p2)));
	if (det > 1e-12 * a * c)
	{
		double s = (b * e - c * d) / det, t = (a * e - b * d) / det;
		if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0)
		{
			best = fmin(best, bsDistanceSquared(bsMulAdd(p, s, u), bsMulAdd(q, t, v)));
		}
	}
	return best;
}

static double Orient(bsVec3 a, bsVec3 b, bsVec3 c, bsVec3 d)
{
	return bsDot(bsSub(b, a), bsCross(bsSub(c, a), bsSub(d, a)));
}

// Segment pq through triangle abc, strictly: every signed volume clear of rounding (the test's shapes
// are 0.01-1 units, so 1e-13 is far above the noise and far below a real crossing's volume); touching
// and coplanar cases are caught by the distances.
static bool RefCrosses(bsVec3 p, bsVec3 q, bsVec3 a, bsVec3 b, bsVec3 c)
{
	const double eps = 1e-13;
	double op = Orient(a, b, c, p), oq = Orient(a, b, c, q);
	if (!((op > eps && oq < -eps) || (op < -eps && oq > eps)))
	{
		return false;
	}
	double s1 = Orient(p, q, a, b), s2 = Orient(p, q, b, c), s3 = Orient(p, q, c, a);
	return (s1 > eps && s2 > eps && s3 > eps) || (s1 < -eps && s2 < -eps && s3 < -eps);
}

static double RefTriangleTriangle(const bsVec3 a[3], const bsVec3 b[3])
{
	for (int k = 0; k < 3; ++k)
	{
		if (RefCrosses(a[k], a[(k + 1) % 3], b[0], b[1], b[2]) || RefCrosses(b[k], b[(k + 1) % 3], a[0], a[1], a[2]))
		{
			return 0.0;
		}
	}
	double best = HUGE_VAL;
	for (int k = 0; k < 3; ++k)
	{
		best = fmin(best, refPointTriangleDistance(b[0], b[1], b[2], a[k]));
		best = fmin(best, refPointTriangleDistance(a[0], a[1], a[2], b[k]));
		for (int j = 0; j < 3; ++j)
		{
			best = fmin(best, sqrt(RefSegmentSegment2(a[k], a[(k + 1) % 3], b[j], b[(j + 1) % 3])));
		}
	}
	return best;
}

static void WorldCorners(const bsTriangle* t, bsTransform pose, bsVec3 out[3])
{
	out[0] = bsTransform_Apply(pose, t->p1);
	out[1] = bsTransform_Apply(pose, t->p2);
	out[2] = bsTransform_Apply(pose, t->p3);
}

static double BruteForceDistance(const bsTriangle* a, uint32_t na, bsTransform pa, const bsTriangle* b,
	uint32_t nb, bsTransform pb)
{
	bsVec3* wb = malloc(sizeof(bsVec3) * 3 * nb);
	for (uint32_t j = 0; j < nb; ++j)
	{
		WorldCorners(b + j, pb, wb + 3 * j);
	}
	double best = HUGE_VAL;
	for (uint32_t i = 0; i < na; ++i)
	{
		bsVec3 wa[3];
		WorldCorners(a + i, pa, wa);
		for (uint32_t j = 0; j < nb; ++j)
		{
			best = fmin(best, RefTriangleTriangle(wa, wb + 3 * j));
		}
	}
	free(wb);
	return best;
}

static bsTransform RandomPose(bsRng* rng, double spread)
{
	bsQuat q = {bsRng_Range(rng, -1, 1), bsRng_Range(rng, -1, 1), bsRng_Range(rng, -1, 1), bsRng_Range(rng, -1, 1)};
	bsTransform t = {bsQuat_Normalize(q),
		bsV3(bsRng_Range(rng, -spread, spread), bsRng_Range(rng, -spread, spread), bsRng_Range(rng, -spread, spread))};
	return t;
}

// The closest points lie on the two meshes (world distance to the other mesh's triangles ~ 0) and are
// the reported distance apart.
static double DistanceToMesh(bsVec3 p, const bsTriangle* tris, uint32_t n, bsTransform pose)
{
	bsVec3 local = bsTransform_ApplyInverse(pose, p);
	double best = HUGE_VAL;
	for (uint32_t i = 0; i < n; ++i)
	{
		best = fmin(best, refPointTriangleDistance(tris[i].p1, tris[i].p2, tris[i].p3, local));
	}
	return best;
}

static int MeshPairAgainstBruteForce(const bsTriangle* a, uint32_t na, const bsTriangle* b, uint32_t nb,
	int poses, double spread, uint64_t seed, int* touching)
{
	bsBvh ba, bb;
	ENSURE(bsBvh_Build(&ba, a, na, NULL) == bs_ok);
	ENSURE(bsBvh_Build(&bb, b, nb, NULL) == bs_ok);
	bsRng rng = bsMakeRng(seed);
	for (int k = 0; k < poses; ++k)
	{
		bsMeshDistanceInput in = {&ba, RandomPose(&rng, spread), &bb, RandomPose(&rng, spread), HUGE_VAL,
			BS_NO_TRIANGLE, BS_NO_TRIANGLE};
		bsMeshDistanceOutput out, warm;
		ENSURE(bsMeshDistance(&in, &out) == bs_ok);
		double brute = BruteForceDistance(a, na, in.poseA, b, nb, in.poseB);
		ENSURE(out.hit == 1);
		ENSURE_SMALL(out.distance - brute, 1e-9);
		ENSURE_SMALL(bsDistance(out.pointA, out.pointB) - out.distance, 1e-9);
		ENSURE_SMALL(DistanceToMesh(out.pointA, a, na, in.poseA), 1e-9);
		ENSURE_SMALL(DistanceToMesh(out.pointB, b, nb, in.poseB), 1e-9);
		*touching += brute == 0.0;
		// a warm start from any pair gives the same distance; maxDistance below it gives a miss
		in.hintA = bsRng_Below(&rng, na), in.hintB = bsRng_Below(&rng, nb);
		ENSURE(bsMeshDistance(&in, &warm) == bs_ok && warm.distance == out.distance);
		if (out.distance > 1e-6)
		{
			in.maxDistance = 0.999 * out.distance;
			ENSURE(bsMeshDistance(&in, &warm) == bs_ok && warm.hit == 0 && warm.distance == HUGE_VAL);
		}
	}
	bsBvh_Destroy(&ba);
	bsBvh_Destroy(&bb);
	return 0;
}

static int MeshDistanceTest(void)
{
	// triangle pairs first: random triangles, crossing, parallel and coplanar ones
	bsRng rng = bsMakeRng(14);
	bsTriangle* soup;
	uint32_t n;
	ENSURE(bsMakeTriangleSoup(5, 2000, &soup, &n) == bs_ok);
	int zero = 0;
	for (uint32_t i = 0; i + 1 < n; i += 2)
	{
		bsTriangle b = soup[i + 1];
		if (i % 8 == 0)  // coplanar with the first: same plane, shifted within it
		{
			bsVec3 shift = bsScale(0.2, bsNormalize(bsSub(soup[i].p2, soup[i].p1)));
			ENSURE(bsMakeTriangle(bsAdd(soup[i].p1, shift), bsAdd(soup[i].p3, shift),
				bsAdd(bsLerp(soup[i].p2, soup[i].p3, 0.5), bsScale(2.0, shift)), &b) == bs_ok);
		}
		bsVec3 wa[3] = {soup[i].p1, soup[i].p2, soup[i].p3}, wb[3] = {b.p1, b.p2, b.p3};
		bsVec3 pa, pb;
		double d = sqrt(bsTriangle_TriangleDistance2(soup + i, &b, &pa, &pb));
		double ref = RefTriangleTriangle(wa, wb);
		ENSURE_SMALL(d - ref, 1e-12);
		ENSURE_SMALL(refPointTriangleDistance(wa[0], wa[1], wa[2], pa), 1e-12);
		ENSURE_SMALL(refPointTriangleDistance(wb[0], wb[1], wb[2], pb), 1e-12);
		zero += ref == 0.0;
	}
	ENSURE(zero > 50);  // crossing pairs were exercised
	free(soup);
	(void)rng;

	// meshes: an icosphere against a box, and two letters, on random poses that overlap or not
	int touching = 0;
	bsTriangle *sphere, *box, *t, *v;
	uint32_t ns, nbx, nt, nv;
	ENSURE(bsMakeIcosphere(2, 0.5, 0.0, false, &sphere, &ns) == bs_ok);
	ENSURE(bsMakeBoxMesh(bsV3(-0.3, -0.2, -0.4), bsV3(0.3, 0.2, 0.4), 3, false, &box, &nbx) == bs_ok);
	RUN_SUBTEST(MeshPairAgainstBruteForce(sphere, ns, box, nbx, 24, 0.8, 1, &touching));
	ENSURE(bsMakeLetter('T', 200, &t, &nt) == bs_ok);
	ENSURE(bsMakeLetter('V', 200, &v, &nv) == bs_ok);
	RUN_SUBTEST(MeshPairAgainstBruteForce(t, nt, v, nv, 8, 0.5, 2, &touching));
	ENSURE(touching >= 4 && touching <= 28);  // both intersecting and separated poses
	printf("  mesh distance: 32 poses against brute force, %d intersecting\n", touching);

	// invalid inputs
	bsBvh bs;
	ENSURE(bsBvh_Build(&bs, sphere, ns, NULL) == bs_ok);
	bsMeshDistanceOutput out;
	bsMeshDistanceInput in = {&bs, bsTransform_Identity(), &bs, bsTransform_Identity(), -1.0, 0, 0};
	ENSURE(bsMeshDistance(&in, &out) == bs_errInvalidArgument && out.hit == 0);
	in.maxDistance = HUGE_VAL;
	in.poseB.translation.x = NAN;
	ENSURE(bsMeshDistance(&in, &out) == bs_errNonFinite && out.distance == HUGE_VAL);
	ENSURE(bsMeshDistance(NULL, &out) == bs_errInvalidArgument);
	bsBvh_Destroy(&bs);
	free(sphere);
	free(box);
	free(t);
	free(v);
	return 0;
}

// --- Sensor particles against the exact distance ---

// A scripted approach: B comes in along dir, turning about axis, to `closest` (just past touching) at
// the middle frame, and back out.
typedef struct Approach
{
	bsVec3 dir;
	bsQuat rotation;
	bsVec3 axis;
	double closest;
} Approach;

static bsTransform ApproachPose(const Approach* a, int frame, int frames)
{
	double s = fabs(1.0 - 2.0 * frame / (double)(frames - 1));
	bsTransform t = {bsQuat_Mul(bsQuat_FromAxisAngle(a->axis, 0.8 * s), a->rotation),
		bsScale(a->closest + 1.2 * s, a->dir)};
	return t;
}

static double ExactAt(const bsBvh* ba, const bsBvh* bb, bsTransform pb)
{
	bsMeshDistanceInput in = {ba, bsTransform_Identity(), bb, pb, HUGE_VAL, BS_NO_TRIANGLE, BS_NO_TRIANGLE};
	bsMeshDistanceOutput out;
	bsMeshDistance(&in, &out);
	return out.distance;
}

// The offset along dir where the letters first touch at the middle frame, minus `depth`.
static double FitApproach(const bsBvh* ba, const bsBvh* bb, Approach* a, double depth)
{
	double lo = 0.0, hi = 4.0;
	while (hi - lo > 1e-9)
	{
		double mid = 0.5 * (lo + hi);
		a->closest = mid;
		if (ExactAt(ba, bb, ApproachPose(a, 1, 3)) > 0.0)
		{
			hi = mid;
		}
		else
		{
			lo = mid;
		}
	}
	a->closest = hi - depth;
	return a->closest;
}

static int CompareDoubles(const void* x, const void* y)
{
	double a = *(const double*)x, b = *(const double*)y;
	return a < b ? -1 : a > b;
}

typedef struct SensorStats
{
	int frames, contacts, missed, near, confirmed;
	double nearMax, errorMax;
} SensorStats;

enum
{
	approachFrames = 300,
	approachCount = 5,
};

#define CONTACT_DISTANCE 0.005  // letters are 1 unit tall
#define NEAR_ERROR_BOUND 0.05   // docs/sensors.md: the error when the exact distance is under the tolerance
#define GUARD_DISTANCE 0.05     // the guard's contact distance (about the letters configs' contact margin)

// The guard (sensor.h): its lower bound never exceeds the exact distance, and every separation within
// the contact distance (or an exact distance within it) is the exact one, bit for bit.
static int CheckGuard(const bsSensorQueryOutput* g, double exact, int* confirmed)
{
	ENSURE(g->lowerBound <= exact + 1e-9);
	ENSURE(g->separation >= exact - 1e-9);
	if (fmin(g->separation, exact) <= GUARD_DISTANCE)
	{
		ENSURE(g->guarded && g->separation == exact);
	}
	*confirmed += g->guarded;
	return 0;
}

// One approach, the sensors alone (their statistics) and guarded by the BVHs (CheckGuard).
static int RunApproach(const bsMeshTopology* ta, const bsMeshTopology* tb, const bsBvh* bvh,
	const double* exactDistance, const Approach* ap, int particles, uint64_t seed, double* errors,
	SensorStats* st, bsSensorQueryOutput* record)
{
	bsSensorDef def = bsDefaultSensorDef();
	def.particlesA = def.particlesB = particles;
	def.seed = seed;
	bsSensorPair* pair;
	bsSensorPair* guarded;
	ENSURE(bsSensorPair_Create(&pair, ta, tb, &def) == bs_ok);
	ENSURE(bsSensorPair_Create(&guarded, ta, tb, &def) == bs_ok);
	int confirmed = 0;
	double tolerance = bsSensorPair_Settings(pair).tolerance;
	for (int f = 0; f < approachFrames; ++f)
	{
		bsSensorQueryInput in = {bsTransform_Identity(), ApproachPose(ap, f, approachFrames), NULL, NULL,
			NULL, NULL, 0.0};
		bsSensorQueryOutput out, g;
		ENSURE(bsSensorPair_Query(pair, &in, &out) == bs_ok);
		double exact = exactDistance[f];
		bsSensorQueryInput gin = in;
		gin.bvhA = gin.bvhB = bvh, gin.contactDistance = GUARD_DISTANCE;
		ENSURE(bsSensorPair_Query(guarded, &gin, &g) == bs_ok);
		RUN_SUBTEST(CheckGuard(&g, exact, &confirmed));
		double error = out.separation - exact;
		ENSURE(error >= -1e-9);  // a distance between two surface points is never below the minimum
		ENSURE(out.separation <= out.particleDistance);
		ENSURE_SMALL(bsDistance(out.pointA, out.pointB) - out.separation, 1e-9);
		if (out.exactChecked && !out.touching)
		{
			ENSURE_SMALL(bsDot(out.normal, bsSub(out.pointB, out.pointA)) - out.separation, 1e-9);
		}
		errors[st->frames++] = error;
		st->errorMax = fmax(st->errorMax, error);
		st->contacts += exact <= CONTACT_DISTANCE;
		st->missed += exact <= CONTACT_DISTANCE && out.separation > CONTACT_DISTANCE;
		if (exact < tolerance)
		{
			++st->near;
			st->nearMax = fmax(st->nearMax, error);
		}
		if (record != NULL)
		{
			record[f] = out;
		}
	}
	ENSURE(confirmed > 0 && confirmed < approachFrames);  // the certificate spares most frames
	st->confirmed += confirmed;
	bsSensorPair_Destroy(pair);
	bsSensorPair_Destroy(guarded);
	return 0;
}

static int SensorAgainstExact(char letter, int particles, SensorStats* st, double* errors)
{
	bsTriangle* tris;
	uint32_t n;
	ENSURE(bsMakeLetter(letter, 0, &tris, &n) == bs_ok);
	bsMeshTopology topo;
	bsBvh bvh;
	ENSURE(bsMeshTopology_Build(&topo, tris, n) == bs_ok);
	ENSURE(bsBvh_Build(&bvh, tris, n, NULL) == bs_ok);
	bsRng rng = bsMakeRng(7);
	memset(st, 0, sizeof(*st));
	bsSensorQueryOutput* first = malloc(sizeof(bsSensorQueryOutput) * approachFrames);
	bsSensorQueryOutput* again = malloc(sizeof(bsSensorQueryOutput) * approachFrames);
	double exact[approachFrames];
	for (int k = 0; k < approachCount; ++k)
	{
		Approach ap = {bsRng_UnitVector(&rng), RandomPose(&rng, 0.0).rotation, bsRng_UnitVector(&rng), 0.0};
		FitApproach(&bvh, &bvh, &ap, 0.01);
		for (int f = 0; f < approachFrames; ++f)
		{
			exact[f] = ExactAt(&bvh, &bvh, ApproachPose(&ap, f, approachFrames));
		}
		RUN_SUBTEST(RunApproach(&topo, &topo, &bvh, exact, &ap, particles, (uint64_t)k + 1, errors, st,
			k == 0 ? first : NULL));
		if (k == 0)
		{
			// determinism: the same pair set-up and queries give the same bytes
			SensorStats scratch = {0};
			double* e2 = malloc(sizeof(double) * approachFrames);
			RUN_SUBTEST(RunApproach(&topo, &topo, &bvh, exact, &ap, particles, 1, e2, &scratch, again));
			ENSURE(memcmp(first, again, sizeof(bsSensorQueryOutput) * approachFrames) == 0);
			free(e2);
		}
	}
	free(first);
	free(again);
	bsBvh_Destroy(&bvh);
	bsMeshTopology_Destroy(&topo);
	free(tris);
	qsort(errors, (size_t)st->frames, sizeof(double), CompareDoubles);
	printf("  %c/%c, %d particles, %d approaches x %d frames: error median %.4f, p95 %.4f, max %.4f;\n"
		"    near (exact < tolerance) %d frames, error max %.4f; contacts %d, missed %d; guarded: exact "
		"distance on %d frames\n",
		letter, letter, particles, approachCount, approachFrames, errors[st->frames / 2],
		errors[(int)(0.95 * (st->frames - 1))], st->errorMax, st->near, st->nearMax, st->contacts, st->missed,
		st->confirmed);
	return 0;
}

// A deforming body: A's welded vertices bend per query (same adjacency); the exact distance comes from
// a BVH rebuilt over the bent triangles.
static int DeformingTest(void)
{
	bsTriangle* tris;
	uint32_t n;
	ENSURE(bsMakeLetter('T', 0, &tris, &n) == bs_ok);
	bsMeshTopology topo;
	bsBvh rest;
	ENSURE(bsMeshTopology_Build(&topo, tris, n) == bs_ok);
	ENSURE(bsBvh_Build(&rest, tris, n, NULL) == bs_ok);
	bsVec3* bent = malloc(sizeof(bsVec3) * topo.vertexCount);
	bsTriangle* bentTris = malloc(sizeof(bsTriangle) * n);
	Approach ap = {bsV3(1, 0, 0), bsQuat_FromAxisAngle(bsV3(0, 1, 0), 0.5 * BS_PI), bsV3(0, 1, 0), 0.0};
	FitApproach(&rest, &rest, &ap, 0.0);
	bsSensorPair* pair;
	bsSensorPair* guarded;
	ENSURE(bsSensorPair_Create(&pair, &topo, &topo, NULL) == bs_ok);
	ENSURE(bsSensorPair_Create(&guarded, &topo, &topo, NULL) == bs_ok);
	int frames = 120, contacts = 0, missed = 0, confirmed = 0;
	for (int f = 0; f < frames; ++f)
	{
		double amp = 0.15 * sin(3.0 * f / frames);
		for (uint32_t v = 0; v < topo.vertexCount; ++v)
		{
			bsVec3 p = topo.positions[v];
			bent[v] = bsV3(p.x + amp * sin(BS_PI * p.y), p.y, p.z);
		}
		uint32_t kept = 0;
		for (uint32_t i = 0; i < n; ++i)
		{
			const uint32_t* t = topo.triangles + 3 * i;
			kept += bsMakeTriangle(bent[t[0]], bent[t[1]], bent[t[2]], bentTris + kept) == bs_ok;
		}
		bsBvh bvh;
		ENSURE(bsBvh_Build(&bvh, bentTris, kept, NULL) == bs_ok);
		bsSensorQueryInput in = {bsTransform_Identity(), ApproachPose(&ap, f % 60 + 30, 120), bent, NULL,
			NULL, NULL, 0.0};
		bsSensorQueryOutput out;
		ENSURE(bsSensorPair_Query(pair, &in, &out) == bs_ok);
		double exact = ExactAt(&bvh, &rest, in.poseB);
		ENSURE(out.separation >= exact - 1e-9);
		// Guarded: the bent vertices move A's surface in its own frame (the certificate's shape part).
		bsSensorQueryInput gin = in;
		gin.bvhA = &bvh, gin.bvhB = &rest, gin.contactDistance = GUARD_DISTANCE;
		bsSensorQueryOutput g;
		ENSURE(bsSensorPair_Query(guarded, &gin, &g) == bs_ok);
		RUN_SUBTEST(CheckGuard(&g, exact, &confirmed));
		contacts += exact <= CONTACT_DISTANCE;
		missed += exact <= CONTACT_DISTANCE && out.separation > CONTACT_DISTANCE;
		bsBvh_Destroy(&bvh);
	}
	printf("  deforming T: %d frames, %d contacts, %d missed; guarded: exact distance on %d\n", frames, contacts,
		missed, confirmed);
	ENSURE(missed == 0);
	bsSensorPair_Destroy(pair);
	bsSensorPair_Destroy(guarded);
	free(bent);
	free(bentTris);
	bsBvh_Destroy(&rest);
	bsMeshTopology_Destroy(&topo);
	free(tris);
	return 0;
}

static int SensorInputTest(void)
{
	bsTriangle* tris;
	uint32_t n;
	ENSURE(bsMakeIcosphere(1, 1.0, 0.0, false, &tris, &n) == bs_ok);
	bsMeshTopology topo;
	ENSURE(bsMeshTopology_Build(&topo, tris, n) == bs_ok);
	bsSensorPair* pair = (bsSensorPair*)&topo;
	bsSensorDef def = bsDefaultSensorDef();
	def.particlesA = 100;  // more than the 42 vertices
	ENSURE(bsSensorPair_Create(&pair, &topo, &topo, &def) == bs_errInvalidArgument && pair == NULL);
	def = bsDefaultSensorDef();
	def.exactRings = 9;
	ENSURE(bsSensorPair_Create(&pair, &topo, &topo, &def) == bs_errInvalidArgument);
	ENSURE(bsSensorPair_Create(&pair, &topo, &topo, NULL) == bs_ok);
	bsSensorDef used = bsSensorPair_Settings(pair);
	ENSURE(used.particlesA == 2 * (int)bsSensor_ConvexParts(&topo, NULL) && used.particlesA >= 2);
	ENSURE(used.minMoved == 1 && used.maxSteps > 0 && used.effectiveRadius > 3.4 && used.tolerance > 0.0);
	bsSensorQueryInput in = {bsTransform_Identity(), bsTransform_Identity(), NULL, NULL, NULL, NULL, 0.0};
	in.poseB.translation = bsV3(3.0, 0.0, 0.0);
	bsSensorQueryOutput out;
	// two unit icospheres 3 apart (exact distance 1, between facing vertices): from random sites the
	// particles settle within a few queries (each stops after N_max steps) into a state that no longer
	// moves. It is a minimum of the particles' energy, not of the distance: two particles a body, each
	// pair pushed apart, need not put one particle on each facing vertex.
	int queries = 0;
	do
	{
		ENSURE(bsSensorPair_Query(pair, &in, &out) == bs_ok);
	} while (++queries < 20 && out.moves > 0);
	printf("  icospheres: separation %.6f (exact 1) after %d queries of at most %d steps\n", out.separation,
		queries, used.maxSteps);
	ENSURE(out.moves == 0 && out.separation >= 1.0 - 1e-12 && out.separation < 1.5);
	in.poseA.rotation.w = NAN;
	ENSURE(bsSensorPair_Query(pair, &in, &out) == bs_errNonFinite && out.separation == HUGE_VAL);
	ENSURE(bsSensorPair_Query(pair, NULL, &out) == bs_errInvalidArgument);
	in.poseA.rotation.w = 1.0;
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, n, NULL) == bs_ok);
	in.bvhA = in.bvhB = &bvh, in.contactDistance = -1.0;
	ENSURE(bsSensorPair_Query(pair, &in, &out) == bs_errInvalidArgument);
	in.contactDistance = 0.1;  // 3 apart: the first guarded query is exact, 1 (between facing vertices)
	ENSURE(bsSensorPair_Query(pair, &in, &out) == bs_ok && out.guarded && fabs(out.separation - 1.0) < 1e-12);
	ENSURE(out.lowerBound == -HUGE_VAL);
	ENSURE(bsSensorPair_Query(pair, &in, &out) == bs_ok && !out.guarded && out.lowerBound > 0.99);
	bsBvh_Destroy(&bvh);
	bsSensorPair_Destroy(pair);
	bsMeshTopology_Destroy(&topo);
	free(tris);
	return 0;
}

int SensorTest(void)
{
	RUN_SUBTEST(TopologyTest());
	RUN_SUBTEST(MeshDistanceTest());
	RUN_SUBTEST(SensorInputTest());
	double* errors = malloc(sizeof(double) * approachCount * approachFrames);
	SensorStats st;
	RUN_SUBTEST(SensorAgainstExact('T', 3, &st, errors));
	ENSURE(st.contacts > 0 && st.missed == 0 && st.nearMax <= NEAR_ERROR_BOUND);
	free(errors);
	RUN_SUBTEST(DeformingTest());
	return 0;
}
