// test_emitter.c — lattice and random emitters: counts, placement, determinism, overflow.
#include "blobsim/emitter.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

int EmitterTest(void)
{
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
