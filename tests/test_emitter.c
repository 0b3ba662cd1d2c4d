// test_emitter.c — lattice, random, nozzle and surface emitters: counts, placement, directions,
// determinism, overflow.
#include "blobsim/emitter.h"
#include "test.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

// Pearson's chi-square of counts against equal expected counts.
static double ChiSquareUniform(const int* counts, int bins, int total)
{
	double expected = (double)total / bins, chi = 0.0;
	for (int b = 0; b < bins; ++b)
	{
		chi += (counts[b] - expected) * (counts[b] - expected) / expected;
	}
	return chi;
}

// Appends n particles of def, born first (0 .. n - 1), drawn from a stream of the given seed.
static bool EmitSeeded(const bsEmitterDef* def, uint64_t seed, uint64_t n, bsParticles* p)
{
	bsRng rng = bsMakeRng(seed);
	size_t failed, before = p->count;
	return bsEmitterDef_EmitRange(def, 0, n, &rng, p, &failed) == bs_ok && p->count == before + n;
}

enum
{
	bs_bins = 20
};
static const double bs_chiCritical = 43.82;  // chi-square, 19 degrees of freedom, p = 0.001

// A nozzle's particles: on its disk, inside its cone, at speeds in its range; directions uniform over
// the cone's solid angle (the cap area above theta is linear in cos theta, so cos theta is uniform in
// [cos angle, 1]), azimuths uniform, and positions uniform by area (r^2 uniform).
static int Nozzle(void)
{
	bsEmitterDef def = bsDefaultEmitterDef();
	def.shape.type = bs_emitterNozzle;
	bsNozzle* nz = &def.shape.nozzle;
	nz->center = bsV3(1, 2, 3);
	nz->direction = bsNormalize(bsV3(1, 2, -0.5));
	nz->diskRadius = 0.5;
	nz->coneAngle = 30.0 * BS_PI / 180.0;
	nz->speedMin = 1.0;
	nz->speedMax = 3.0;
	def.radius = 0.01;
	enum { n = 200000 };
	bsParticles p;
	memset(&p, 0, sizeof(p));
	ENSURE(EmitSeeded(&def, 5, n, &p));
	bsRng rng = bsMakeRng(6);  // the test's own draws
	double cosMax = cos(nz->coneAngle);
	// A reference frame of the test's own: any unit vector normal to the direction.
	bsVec3 u = bsNormalize(bsCross(nz->direction, bsV3(0, 0, 1)));
	bsVec3 w = bsCross(nz->direction, u);
	int cosBins[bs_bins] = {0}, azimuthBins[bs_bins] = {0}, areaBins[bs_bins] = {0}, thetaUniform[bs_bins] = {0};
	for (int i = 0; i < n; ++i)
	{
		bsVec3 offset = bsSub(p.position[i], nz->center);
		ENSURE_SMALL(bsDot(offset, nz->direction), 1e-12);
		double r2 = bsLengthSquared(offset) / (nz->diskRadius * nz->diskRadius);
		ENSURE(r2 <= 1.0 + 1e-12);
		double speed = bsLength(p.velocity[i]);
		ENSURE(speed >= 1.0 - 1e-12 && speed <= 3.0 + 1e-12);
		bsVec3 d = bsScale(1.0 / speed, p.velocity[i]);
		double c = bsDot(d, nz->direction);
		ENSURE(c >= cosMax - 1e-12);  // inside the cone
		cosBins[(int)fmin(bs_bins - 1, (1.0 - c) / (1.0 - cosMax) * bs_bins)] += 1;
		double azimuth = atan2(bsDot(d, w), bsDot(d, u)) + BS_PI;
		azimuthBins[(int)fmin(bs_bins - 1, azimuth / (2.0 * BS_PI) * bs_bins)] += 1;
		areaBins[(int)fmin(bs_bins - 1, r2 * bs_bins)] += 1;
		// The test's power: directions with theta uniform in [0, angle] (not uniform over the solid
		// angle) binned the same way.
		double theta = nz->coneAngle * bsRng_Uniform(&rng);
		thetaUniform[(int)fmin(bs_bins - 1, (1.0 - cos(theta)) / (1.0 - cosMax) * bs_bins)] += 1;
	}
	ENSURE(ChiSquareUniform(cosBins, bs_bins, n) < bs_chiCritical);
	ENSURE(ChiSquareUniform(azimuthBins, bs_bins, n) < bs_chiCritical);
	ENSURE(ChiSquareUniform(areaBins, bs_bins, n) < bs_chiCritical);
	ENSURE(ChiSquareUniform(thetaUniform, bs_bins, n) > 100.0 * bs_chiCritical);

	// A point nozzle straight down with no cone: every particle at the centre, along the direction.
	nz->diskRadius = 0.0;
	nz->coneAngle = 0.0;
	nz->direction = bsV3(0, -1, 0);
	p.count = 0;
	ENSURE(EmitSeeded(&def, 7, 100, &p));
	for (int i = 0; i < 100; ++i)
	{
		ENSURE(p.position[i].x == 1 && p.position[i].y == 2 && p.position[i].z == 3);
		ENSURE(p.velocity[i].x == 0 && p.velocity[i].z == 0 && p.velocity[i].y <= -1 && p.velocity[i].y >= -3);
	}
	bsParticles_Free(&p);
	return 0;
}

// The area of a triangle as half its base times its height (the distance of p3 from the line p1 p2,
// by projection): a reference written apart from the emitter's cross product, and accurate on slivers,
// where Heron's formula is not.
static double TriangleArea(bsVec3 p1, bsVec3 p2, bsVec3 p3)
{
	bsVec3 base = bsSub(p2, p1), d = bsSub(p3, p1);
	double length = bsLength(base);
	bsVec3 along = bsScale(bsDot(d, base) / (length * length), base);
	return 0.5 * length * bsLength(bsSub(d, along));
}

enum
{
	bs_surfaceTriangles = 8,
	bs_surfaceSpacing = 300,  // triangle k lies within x in [300 k - 50, 300 k + 110]
};

// Eight triangles far apart, each facing its own way, with areas from 0.005 to 50 (a ratio of 10^4;
// number 5 a sliver 100 long and 0.0002 wide).
static int SurfaceTriangles(bsTriangle* t)
{
	const double size[bs_surfaceTriangles] = {0.1, 0.3, 1.0, 3.0, 10.0, 100.0, 2.0, 0.2};
	for (int k = 0; k < bs_surfaceTriangles; ++k)
	{
		bsVec3 origin = bsV3((double)bs_surfaceSpacing * k, 7.0 * k, -3.0 * k);
		bsVec3 e1 = bsNormalize(bsV3(1.0, 0.3 * k, -0.2 * k));
		bsVec3 e2 = bsNormalize(bsCross(bsV3(0.1 * k - 0.4, 1.0, 0.5), e1));
		double a = size[k], b = k == 5 ? 0.0002 : size[k];
		bsVec3 p3 = bsMulAdd(bsMulAdd(origin, 0.3 * a, e1), b, e2);
		ENSURE(bsMakeTriangle(origin, bsMulAdd(origin, a, e1), p3, t + k) == bs_ok);
	}
	return 0;
}

// The triangle of a surface particle: the one in whose slab of x it is, when its plane lies
// radius + gap behind it (within 1e-9); else -1.
static int SurfaceTriangleOf(const bsTriangle* t, bsVec3 position, double offset)
{
	int k = (int)floor((position.x + 50.0) / bs_surfaceSpacing);
	if (k < 0 || k >= bs_surfaceTriangles || fabs(bsTriangle_PlaneDistance(t + k, position) - offset) > 1e-9)
	{
		return -1;
	}
	return k;
}

// Surface emission: triangles chosen in proportion to their area (chi-square against the areas by base and height,
// and the test's power against a choice uniform over triangles), points uniform inside a triangle
// (16 sub-triangles of equal area), every particle radius + gap off its face along the normal and
// inside the face, moving inside its cone about the normal at a speed in the range; the same seed,
// the same particles; a triangle of weight 0 never chosen.
static int Surface(void)
{
	bsTriangle t[bs_surfaceTriangles];
	RUN_SUBTEST(SurfaceTriangles(t));
	double cumulative[bs_surfaceTriangles], area[bs_surfaceTriangles], totalArea = 0.0;
	double total = bsSurface_Accumulate(t, bs_surfaceTriangles, NULL, cumulative);
	for (int k = 0; k < bs_surfaceTriangles; ++k)
	{
		area[k] = TriangleArea(t[k].p1, t[k].p2, t[k].p3);
		totalArea += area[k];
	}
	ENSURE(fabs(total - totalArea) <= 1e-9 * totalArea);
	bsEmitterDef def = bsDefaultEmitterDef();
	def.shape.type = bs_emitterSurface;
	def.shape.surface = (bsSurface){t, cumulative, bs_surfaceTriangles, 0.002, 40.0 * BS_PI / 180.0, 0.5, 2.0, false, NULL};
	ENSURE(bsSurface_IsValid(&def.shape.surface));
	def.radius = 0.01;
	def.radiusSpread = 0.5;
	enum { n = 400000 };
	bsParticles p;
	memset(&p, 0, sizeof(p));
	ENSURE(EmitSeeded(&def, 11, n, &p));
	double cosMax = cos(def.shape.surface.coneAngle);
	int perTriangle[bs_surfaceTriangles] = {0}, lower[4][4] = {{0}}, upper[4][4] = {{0}}, cosBins[bs_bins] = {0};
	for (int i = 0; i < n; ++i)
	{
		double offset = p.radius[i] + def.shape.surface.gap;
		int k = SurfaceTriangleOf(t, p.position[i], offset);
		ENSURE(k >= 0);
		perTriangle[k] += 1;
		// Barycentric coordinates from the areas of the sub-triangles: inside the face.
		bsVec3 q = bsMulAdd(p.position[i], -offset, t[k].n);
		double l2 = TriangleArea(t[k].p1, q, t[k].p3) / area[k], l3 = TriangleArea(t[k].p1, t[k].p2, q) / area[k];
		double l1 = TriangleArea(q, t[k].p2, t[k].p3) / area[k];
		ENSURE_SMALL(l1 + l2 + l3 - 1.0, 1e-6);
		if (k == 4)
		{
			// 16 sub-triangles of equal area: the cells of a 4 x 4 split of (l2, l3), lower and upper.
			double x = 4.0 * l2, y = 4.0 * l3;
			int a = (int)fmin(3.0, x), b = (int)fmin(3.0 - a, y);
			if ((x - a) + (y - b) > 1.0 && a + b < 3)
			{
				upper[a][b] += 1;
			}
			else
			{
				lower[a][b] += 1;
			}
		}
		double speed = bsLength(p.velocity[i]);
		ENSURE(speed >= 0.5 - 1e-12 && speed <= 2.0 + 1e-12);
		double c = bsDot(bsScale(1.0 / speed, p.velocity[i]), t[k].n);
		ENSURE(c >= cosMax - 1e-12);  // inside the cone about the face's normal
		cosBins[(int)fmin(bs_bins - 1, (1.0 - c) / (1.0 - cosMax) * bs_bins)] += 1;
	}
	// Pearson's chi-square against the areas, 7 degrees of freedom (p = 0.001: 24.32), and the test's
	// power: the same counts against a choice uniform over the triangles.
	double chi = 0.0, chiUniform = 0.0;
	for (int k = 0; k < bs_surfaceTriangles; ++k)
	{
		double expected = n * area[k] / totalArea, uniform = (double)n / bs_surfaceTriangles;
		ENSURE(expected >= 30.0);
		chi += (perTriangle[k] - expected) * (perTriangle[k] - expected) / expected;
		chiUniform += (perTriangle[k] - uniform) * (perTriangle[k] - uniform) / uniform;
	}
	ENSURE(chi < 24.32);
	ENSURE(chiUniform > 1000.0 * 24.32);
	ENSURE(ChiSquareUniform(cosBins, bs_bins, n) < bs_chiCritical);
	double expected = perTriangle[4] / 16.0, chiInside = 0.0;
	for (int a = 0; a < 4; ++a)
	{
		for (int b = 0; a + b < 4; ++b)
		{
			chiInside += (lower[a][b] - expected) * (lower[a][b] - expected) / expected;
			if (a + b < 3)
			{
				chiInside += (upper[a][b] - expected) * (upper[a][b] - expected) / expected;
			}
		}
	}
	ENSURE(chiInside < 37.70);  // 15 degrees of freedom, p = 0.001

	// Same seed, same particles.
	bsParticles again;
	memset(&again, 0, sizeof(again));
	ENSURE(EmitSeeded(&def, 11, 1000, &again));
	ENSURE(memcmp(again.position, p.position, 1000 * sizeof(bsVec3)) == 0 &&
		memcmp(again.velocity, p.velocity, 1000 * sizeof(bsVec3)) == 0);
	// Off the back: the same draws, the particle on the other side, moving into the cone about -n.
	def.shape.surface.back = true;
	again.count = 0;
	ENSURE(EmitSeeded(&def, 11, 1000, &again));
	for (int i = 0; i < 1000; ++i)
	{
		int k = SurfaceTriangleOf(t, p.position[i], p.radius[i] + def.shape.surface.gap);
		ENSURE(k >= 0 && again.radius[i] == p.radius[i]);
		ENSURE_SMALL(bsTriangle_PlaneDistance(t + k, again.position[i]) + p.radius[i] + def.shape.surface.gap, 1e-9);
		double speed = bsLength(again.velocity[i]);
		ENSURE(speed >= 0.5 - 1e-12 && bsDot(again.velocity[i], t[k].n) <= -cosMax * speed + 1e-12);  // the cone about -n
	}
	def.shape.surface.back = false;
	// Triangles 1 and 4 selected (areas 0.045 and 50): none on another, 1 in 1112 on triangle 1 (18
	// of 20000 expected; a standard deviation of 4.2).
	uint8_t selected[bs_surfaceTriangles] = {0, 1, 0, 0, 1, 0, 0, 0};
	bsSurface_Accumulate(t, bs_surfaceTriangles, selected, cumulative);
	again.count = 0;
	ENSURE(EmitSeeded(&def, 12, 20000, &again));
	int onOne = 0;
	for (size_t i = 0; i < again.count; ++i)
	{
		int k = SurfaceTriangleOf(t, again.position[i], again.radius[i] + def.shape.surface.gap);
		ENSURE(k == 1 || k == 4);
		onOne += k == 1 ? 1 : 0;
	}
	ENSURE(fabs(onOne - 20000.0 * area[1] / (area[1] + area[4])) < 4.0 * 4.3);
	bsParticles_Free(&again);
	bsParticles_Free(&p);

	// Settings and tables out of range.
	bsSurface bad = def.shape.surface;
	bad.coneAngle = 1.6;  // past 90 degrees: into the face
	ENSURE(!bsSurface_IsValid(&bad));
	bad = def.shape.surface;
	bad.speedMin = 3.0;
	ENSURE(!bsSurface_IsValid(&bad));
	bad = def.shape.surface;
	bad.gap = -1e-3;
	ENSURE(!bsSurface_IsValid(&bad));
	bad = def.shape.surface;
	bad.count = 0;
	ENSURE(!bsSurface_IsValid(&bad));
	uint8_t none[bs_surfaceTriangles] = {0};
	ENSURE(bsSurface_Accumulate(t, bs_surfaceTriangles, none, cumulative) == 0.0);
	ENSURE(!bsSurface_IsValid(&def.shape.surface));  // no weight: nothing to choose from
	return 0;
}

// Births of a rate emitter: floor(rate (t - start)) by t, none before start, all by stop; at once,
// all in the window that holds start.
static int Births(void)
{
	bsEmitterDef def = bsDefaultEmitterDef();
	def.start = 2.0;
	uint64_t n;
	ENSURE(bsEmitterDef_Born(&def, 2.0) == 0 && bsEmitterDef_Born(&def, 2.0000001) == 1);
	def.rate = 10.0;
	ENSURE(bsEmitterDef_Count(&def, 1000, &n) == bs_errTooLarge);  // no stop: no end
	def.stop = 5.05;
	ENSURE(bsEmitterDef_Count(&def, 1000, &n) == bs_ok && n == 30);
	ENSURE(bsEmitterDef_Count(&def, 29, &n) == bs_errTooLarge);
	ENSURE(bsEmitterDef_Born(&def, 1.0) == 0 && bsEmitterDef_Born(&def, 2.05) == 0);
	ENSURE(bsEmitterDef_Born(&def, 2.1) == 1 && bsEmitterDef_Born(&def, 3.0) == 10);
	ENSURE(bsEmitterDef_Born(&def, 1e300) == 30);

	// A grid with a rate lays its lattice cell by cell and starts again: two rounds of the lattice.
	def.shape = (bsEmitter){bs_emitterGrid, {0, 0, 0}, {4, 2, 3}, {4, 2, 3}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}, {NULL, NULL, 0, 0, 0, 0, 0, false, NULL}, {0, 0.5, 0, false, 0, 0, 0, 0, 0}};
	bsVec3 lattice[24];
	bsRng rng = bsMakeRng(1);
	bsEmitter_Emit(&def.shape, &rng, lattice);
	bsParticles p;
	memset(&p, 0, sizeof(p));
	size_t failed;
	ENSURE(bsEmitterDef_EmitRange(&def, 0, 30, &rng, &p, &failed) == bs_ok);
	ENSURE(bsEmitterDef_EmitRange(&def, 30, 18, &rng, &p, &failed) == bs_ok && p.count == 48);
	for (int i = 0; i < 48; ++i)
	{
		ENSURE(memcmp(p.position + i, lattice + i % 24, sizeof(bsVec3)) == 0);
	}
	bsParticles_Free(&p);
	return 0;
}

int EmitterTest(void)
{
	RUN_SUBTEST(Nozzle());
	RUN_SUBTEST(Surface());
	RUN_SUBTEST(Births());

	// A 4 x 2 x 3 lattice in [0,4] x [0,2] x [0,3]: cell centres at .5, x fastest.
	bsEmitter grid = {bs_emitterGrid, {0, 0, 0}, {4, 2, 3}, {4, 2, 3}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}, {NULL, NULL, 0, 0, 0, 0, 0, false, NULL}, {0, 0.5, 0, false, 0, 0, 0, 0, 0}};
	uint64_t n;
	ENSURE(bsEmitter_Count(&grid, 1000, &n) == bs_ok && n == 24);
	bsVec3 p[24];
	bsRng rng = bsMakeRng(1);
	bsEmitter_Emit(&grid, &rng, p);
	ENSURE(p[0].x == 0.5 && p[0].y == 0.5 && p[0].z == 0.5);
	ENSURE(p[1].x == 1.5 && p[1].y == 0.5);
	ENSURE(p[4].x == 0.5 && p[4].y == 1.5);
	ENSURE(p[23].x == 3.5 && p[23].y == 1.5 && p[23].z == 2.5);
	// Jitter stays within +-jitter/2 cells and is deterministic for a seed.
	grid.jitter = 0.5;
	bsVec3 a[24], b[24];
	rng = bsMakeRng(9);
	bsEmitter_Emit(&grid, &rng, a);
	rng = bsMakeRng(9);
	bsEmitter_Emit(&grid, &rng, b);
	ENSURE(memcmp(a, b, sizeof(a)) == 0);
	for (int i = 0; i < 24; ++i)
	{
		ENSURE(fabs(a[i].x - p[i].x) <= 0.25 && fabs(a[i].y - p[i].y) <= 0.25 && fabs(a[i].z - p[i].z) <= 0.25);
	}
	ENSURE(memcmp(a, p, sizeof(a)) != 0);

	// Random points fill the box.
	bsEmitter random = {bs_emitterRandom, {-1, 2, 3}, {1, 3, 5}, {20000, 0, 0}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}, {NULL, NULL, 0, 0, 0, 0, 0, false, NULL}, {0, 0.5, 0, false, 0, 0, 0, 0, 0}};
	ENSURE(bsEmitter_Count(&random, 100000, &n) == bs_ok && n == 20000);
	bsVec3* r = malloc(20000 * sizeof(bsVec3));
	ENSURE(r != NULL);
	rng = bsMakeRng(3);
	bsEmitter_Emit(&random, &rng, r);
	double mean = 0.0;
	for (int i = 0; i < 20000; ++i)
	{
		ENSURE(r[i].x >= -1 && r[i].x < 1 && r[i].y >= 2 && r[i].y < 3 && r[i].z >= 3 && r[i].z < 5);
		mean += r[i].x / 20000.0;
	}
	ENSURE_SMALL(mean, 0.02);
	free(r);

	// Counts beyond the limit or overflowing 64 bits are errors, not wraparound.
	bsEmitter huge = {bs_emitterGrid, {0, 0, 0}, {1, 1, 1}, {1ull << 32, 1ull << 32, 2}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}, {NULL, NULL, 0, 0, 0, 0, 0, false, NULL}, {0, 0.5, 0, false, 0, 0, 0, 0, 0}};
	ENSURE(bsEmitter_Count(&huge, UINT64_MAX, &n) == bs_errTooLarge);
	huge.count[2] = 1;
	ENSURE(bsEmitter_Count(&huge, 1ull << 40, &n) == bs_errTooLarge);
	return 0;
}
