// test_emitter.c — lattice and random emitters: counts, placement, determinism, overflow.
#include "blobsim/emitter.h"
#include "test.h"

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
	nz->coneAngle = 30.0 * 3.141592653589793 / 180.0;
	nz->speedMin = 1.0;
	nz->speedMax = 3.0;
	def.radius = 0.01;
	enum { n = 200000 };
	bsParticles p;
	memset(&p, 0, sizeof(p));
	bsRng rng = bsMakeRng(5);
	size_t failed;
	ENSURE(bsEmitterDef_EmitRange(&def, 0, n, &rng, &p, &failed) == bs_ok && p.count == n);
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
		double azimuth = atan2(bsDot(d, w), bsDot(d, u)) + 3.141592653589793;
		azimuthBins[(int)fmin(bs_bins - 1, azimuth / 6.283185307179586 * bs_bins)] += 1;
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
	ENSURE(bsEmitterDef_EmitRange(&def, 0, 100, &rng, &p, &failed) == bs_ok && p.count == 100);
	for (int i = 0; i < 100; ++i)
	{
		ENSURE(p.position[i].x == 1 && p.position[i].y == 2 && p.position[i].z == 3);
		ENSURE(p.velocity[i].x == 0 && p.velocity[i].z == 0 && p.velocity[i].y <= -1 && p.velocity[i].y >= -3);
	}
	bsParticles_Free(&p);
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
	def.shape = (bsEmitter){bs_emitterGrid, {0, 0, 0}, {4, 2, 3}, {4, 2, 3}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}};
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
	RUN_SUBTEST(Births());

	// A 4 x 2 x 3 lattice in [0,4] x [0,2] x [0,3]: cell centres at .5, x fastest.
	bsEmitter grid = {bs_emitterGrid, {0, 0, 0}, {4, 2, 3}, {4, 2, 3}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}};
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
	bsEmitter random = {bs_emitterRandom, {-1, 2, 3}, {1, 3, 5}, {20000, 0, 0}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}};
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
	bsEmitter huge = {bs_emitterGrid, {0, 0, 0}, {1, 1, 1}, {1ull << 32, 1ull << 32, 2}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}};
	ENSURE(bsEmitter_Count(&huge, UINT64_MAX, &n) == bs_errTooLarge);
	huge.count[2] = 1;
	ENSURE(bsEmitter_Count(&huge, 1ull << 40, &n) == bs_errTooLarge);
	return 0;
}
