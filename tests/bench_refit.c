// bench_refit.c — refit against rebuild for a deforming mesh's BVH (docs/bodies.md): CPU time per
// update, and the cost of the queries after each (a refit keeps the first shape's tree, so its boxes
// loosen as the mesh deforms away from it). Not a test: run build/release/tests/blobsim-bench-refit.
#include "procedural.h"
#include "blobsim/bvh.h"
#include "blobsim/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double bsCpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// The rest mesh wobbled by amplitude a (a smooth field of the position, as a CSRBF deformation is).
static void bsWobble(const bsTriangle* rest, bsTriangle* out, uint32_t count, double a)
{
	for (uint32_t i = 0; i < count; ++i)
	{
		const bsVec3 p[3] = {rest[i].p1, rest[i].p2, rest[i].p3};
		bsVec3 q[3];
		for (int v = 0; v < 3; ++v)
		{
			q[v] = bsV3(p[v].x + a * sin(3.0 * p[v].y), p[v].y * (1.0 + a * p[v].x), p[v].z + a * cos(2.0 * p[v].x));
		}
		if (bsMakeTriangle(q[0], q[1], q[2], out + i) != bs_ok)
		{
			out[i] = rest[i];
		}
	}
}

// Nodes visited per query, for a fixed set of sweeps through the mesh.
static double bsQueryNodes(const bsBvh* bvh)
{
	bsRng rng = bsMakeRng(1);
	bsQueryStats stats = {0, 0, 0, 0};
	for (int k = 0; k < 20000; ++k)
	{
		bsVec3 a = bsV3(bsRng_Range(&rng, -1.5, 1.5), bsRng_Range(&rng, -1.5, 1.5), bsRng_Range(&rng, -1.5, 1.5));
		bsVec3 d = bsV3(bsRng_Range(&rng, -0.1, 0.1), bsRng_Range(&rng, -0.1, 0.1), bsRng_Range(&rng, -0.1, 0.1));
		bsSweepInput in = {a, bsAdd(a, d), 0.02};
		bsSweepOutput out;
		bsBvh_Sweep(bvh, bs_methodExact, &in, &out, &stats);
	}
	return (double)stats.nodesVisited / (double)stats.queries;
}

int main(void)
{
	printf("| triangles | amplitude | refit ms | rebuild ms | nodes/query after refit | after rebuild |\n");
	printf("|---|---|---|---|---|---|\n");
	for (int level = 4; level <= 6; ++level)
	{
		bsTriangle* rest;
		uint32_t count;
		if (bsMakeIcosphere(level, 1.0, 0.0, false, &rest, &count) != bs_ok)
		{
			return 1;
		}
		bsTriangle* shape = malloc(count * sizeof(bsTriangle));
		bsBvh refit, rebuilt;
		if (shape == NULL || bsBvh_Build(&refit, rest, count, NULL) != bs_ok)
		{
			return 1;
		}
		for (int step = 1; step <= 4; ++step)
		{
			double a = 0.1 * step;
			bsWobble(rest, shape, count, a);
			const int rounds = 20;
			double t0 = bsCpu();
			for (int r = 0; r < rounds; ++r)
			{
				bsBvh_Refit(&refit, shape);
			}
			double t1 = bsCpu();
			for (int r = 0; r < rounds; ++r)
			{
				bsBvh_Build(&rebuilt, shape, count, NULL);
				if (r + 1 < rounds)
				{
					bsBvh_Destroy(&rebuilt);
				}
			}
			double t2 = bsCpu();
			printf("| %u | %.1f | %.3f | %.3f | %.1f | %.1f |\n", count, a, 1e3 * (t1 - t0) / rounds,
				1e3 * (t2 - t1) / rounds, bsQueryNodes(&refit), bsQueryNodes(&rebuilt));
			bsBvh_Destroy(&rebuilt);
		}
		bsBvh_Destroy(&refit);
		free(shape);
		free(rest);
	}
	return 0;
}
