// bench_sensors.c — sensor particles against the exact mesh distance (bench_sensors.h).
#include "bench_sensors.h"

#include "letters.h"
#include "mesh_distance.h"
#include "mesh_topology.h"
#include "sensor.h"

#include "blobsim/base.h"
#include "blobsim/bvh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// A contact is "there" when the exact distance is at most this (letters are 1 unit tall); a sensor
// query misses it when its separation is above.
#define BS_BENCH_CONTACT 0.005
// How far past first touching the approach goes at its middle frame.
#define BS_BENCH_DEPTH 0.01
// The guarded query's contact distance: about the letters configs' contact margin (what a body can
// move in a substep, 1.6 m/s x 0.025 s, plus twice the 1 mm slop).
#define BS_BENCH_GUARD 0.05

typedef struct bsLetterBody
{
	bsTriangle* tris;
	uint32_t count;
	bsMeshTopology topo;
	bsBvh bvh;
} bsLetterBody;

static double bsThreadCpuNow(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void bsLetterBody_Free(bsLetterBody* b)
{
	free(b->tris);
	bsMeshTopology_Destroy(&b->topo);
	bsBvh_Destroy(&b->bvh);
}

static bool bsLetterBody_Make(char letter, bsLetterBody* b)
{
	memset(b, 0, sizeof(*b));
	return bsMakeLetter(letter, 0, &b->tris, &b->count) == bs_ok &&
		bsMeshTopology_Build(&b->topo, b->tris, b->count) == bs_ok &&
		bsBvh_Build(&b->bvh, b->tris, b->count, NULL) == bs_ok;
}

static int bsCompareDoubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return x < y ? -1 : x > y;
}

typedef struct bsTimes
{
	double sum, max, first;
} bsTimes;

static void bsTimes_Add(bsTimes* t, double seconds, int frame)
{
	t->sum += seconds;
	t->max = seconds > t->max ? seconds : t->max;
	t->first = frame == 0 ? seconds : t->first;
}

static int bsBenchPair(char letter, int particles, int frames, uint64_t seed, const char* paper,
	uint64_t* checksum)
{
	bsLetterBody a, b;
	bool ok = bsLetterBody_Make(letter, &a) && bsLetterBody_Make(letter, &b);
	double closestX = 0.0;
	ok = ok && bsLetterApproach_Fit(&a.bvh, &b.bvh, BS_BENCH_DEPTH, &closestX) == bs_ok;
	bsSensorDef def = bsDefaultSensorDef();
	def.particlesA = def.particlesB = particles;
	def.seed = seed;
	bsSensorPair* pair = NULL;
	bsSensorPair* uncached = NULL;  // the same without section 3.5's cache
	bsSensorPair* guarded = NULL;   // the same with the guard (sensor.h)
	ok = ok && bsSensorPair_Create(&pair, &a.topo, &b.topo, &def) == bs_ok;
	ok = ok && bsSensorPair_Create(&guarded, &a.topo, &b.topo, &def) == bs_ok;
	def.cacheDistance = -1.0;
	ok = ok && bsSensorPair_Create(&uncached, &a.topo, &b.topo, &def) == bs_ok;
	double* error = malloc(sizeof(double) * (size_t)frames);
	if (!ok || error == NULL)
	{
		fprintf(stderr, "blobsim bench: cannot set up the %c pair\n", letter);
		bsSensorPair_Destroy(pair);
		bsSensorPair_Destroy(uncached);
		bsSensorPair_Destroy(guarded);
		bsLetterBody_Free(&a);
		bsLetterBody_Free(&b);
		free(error);
		return 1;
	}
	bsTimes sensorTime = {0}, exactTime = {0}, warmTime = {0}, uncachedTime = {0}, guardTime = {0};
	int guardExact = 0, guardWrong = 0;  // confirmations; answers within the contact distance not exact
	double uncachedErrorSum = 0.0, uncachedErrorMax = 0.0;
	int uncachedMissed = 0;
	uint32_t hintA = BS_NO_TRIANGLE, hintB = BS_NO_TRIANGLE;
	int contacts = 0, missed = 0, exactChecks = 0, slower = 0, near = 0;
	double nearErrorMax = 0.0, nearErrorSum = 0.0;  // frames with the exact distance under the tolerance
	long long steps = 0;
	for (int f = 0; f < frames; ++f)
	{
		bsSensorQueryInput in = {bsTransform_Identity(), bsLetterApproachPose(f, frames, closestX), NULL, NULL,
			NULL, NULL, 0.0};
		bsSensorQueryOutput s;
		double t0 = bsThreadCpuNow();
		bsSensorPair_Query(pair, &in, &s);
		double t1 = bsThreadCpuNow();
		bsMeshDistanceInput ein = {&a.bvh, in.poseA, &b.bvh, in.poseB, HUGE_VAL, BS_NO_TRIANGLE,
			BS_NO_TRIANGLE};
		bsMeshDistanceOutput e, warm;
		bsMeshDistance(&ein, &e);
		double t2 = bsThreadCpuNow();
		ein.hintA = hintA, ein.hintB = hintB;
		bsMeshDistance(&ein, &warm);
		double t3 = bsThreadCpuNow();
		hintA = warm.leafA, hintB = warm.leafB;
		bsSensorQueryOutput u;
		bsSensorPair_Query(uncached, &in, &u);
		double t4 = bsThreadCpuNow();
		bsTimes_Add(&uncachedTime, t4 - t3, f);
		bsSensorQueryInput gin = in;
		gin.bvhA = &a.bvh, gin.bvhB = &b.bvh, gin.contactDistance = BS_BENCH_GUARD;
		bsSensorQueryOutput g;
		bsSensorPair_Query(guarded, &gin, &g);
		bsTimes_Add(&guardTime, bsThreadCpuNow() - t4, f);
		guardExact += g.guarded;
		guardWrong += fmin(g.separation, e.distance) <= BS_BENCH_GUARD && g.separation != e.distance;
		uncachedErrorSum += u.separation - e.distance;
		uncachedErrorMax = fmax(uncachedErrorMax, u.separation - e.distance);
		uncachedMissed += e.distance <= BS_BENCH_CONTACT && u.separation > BS_BENCH_CONTACT;
		if (warm.distance != e.distance)
		{
			fprintf(stderr, "blobsim bench: the warm-started exact distance differs at frame %d\n", f);
			ok = false;
		}
		slower += t1 - t0 > t2 - t1;
		if (e.distance < bsSensorPair_Settings(pair).tolerance)
		{
			++near;
			nearErrorSum += s.separation - e.distance;
			nearErrorMax = fmax(nearErrorMax, s.separation - e.distance);
		}
		bsTimes_Add(&sensorTime, t1 - t0, f);
		bsTimes_Add(&exactTime, t2 - t1, f);
		bsTimes_Add(&warmTime, t3 - t2, f);
		error[f] = s.separation - e.distance;
		contacts += e.distance <= BS_BENCH_CONTACT;
		missed += e.distance <= BS_BENCH_CONTACT && s.separation > BS_BENCH_CONTACT;
		exactChecks += s.exactChecked;
		steps += s.steps;
		*checksum = bsFnv1a(*checksum, &s.separation, sizeof(s.separation));
	}
	double errorSum = 0.0;
	for (int f = 0; f < frames; ++f)
	{
		errorSum += error[f];
	}
	qsort(error, (size_t)frames, sizeof(double), bsCompareDoubles);
	bsSensorDef used = bsSensorPair_Settings(pair);
	printf("\n%c vs %c: %u triangles each, %d sensor particles each (auto estimate %u), N_max %d, N_min %d, "
		"R_eff %.3f, tolerance %.4f\n", letter, letter, a.count, particles,
		2 * bsSensor_ConvexParts(&a.topo, NULL), used.maxSteps, used.minMoved, used.effectiveRadius,
		used.tolerance);
	printf("  %d queries (CPU time per query)   mean ms   max ms   first ms\n", frames);
	printf("  sensor particles                 %8.4f %8.3f %9.3f   (%.1f steps/query, exact check on %d)\n",
		1e3 * sensorTime.sum / frames, 1e3 * sensorTime.max, 1e3 * sensorTime.first,
		(double)steps / frames, exactChecks);
	printf("  sensor particles with the guard  %8.4f %8.3f %9.3f   (exact distance on %d; within %.3g and "
		"not exact: %d)\n", 1e3 * guardTime.sum / frames, 1e3 * guardTime.max, 1e3 * guardTime.first,
		guardExact, BS_BENCH_GUARD, guardWrong);
	printf("  sensor particles, no cache       %8.4f %8.3f %9.3f   (error mean %.4g, max %.4g, missed %d)\n",
		1e3 * uncachedTime.sum / frames, 1e3 * uncachedTime.max, 1e3 * uncachedTime.first,
		uncachedErrorSum / frames, uncachedErrorMax, uncachedMissed);
	printf("  exact BVH-BVH distance           %8.4f %8.3f %9.3f\n", 1e3 * exactTime.sum / frames,
		1e3 * exactTime.max, 1e3 * exactTime.first);
	printf("  exact, warm-started (last pair)  %8.4f %8.3f %9.3f\n", 1e3 * warmTime.sum / frames,
		1e3 * warmTime.max, 1e3 * warmTime.first);
	printf("  paper (Pentium 4 2.53 GHz)       %s\n", paper);
	printf("  sensor error (separation - exact): mean %.4g, median %.4g, p95 %.4g, max %.4g, min %.3g\n",
		errorSum / frames, error[frames / 2], error[(int)(0.95 * (frames - 1))], error[frames - 1], error[0]);
	printf("  near frames (exact distance < tolerance): %d, error mean %.4g, max %.4g\n", near,
		near > 0 ? nearErrorSum / near : 0.0, nearErrorMax);
	printf("  frames where the sensor query took longer than the exact one: %d\n", slower);
	printf("  contacts (exact distance <= %.3g): %d frames, missed by the sensors: %d (%.1f%%)\n",
		BS_BENCH_CONTACT, contacts, missed, contacts > 0 ? 100.0 * missed / contacts : 0.0);
	bsSensorPair_Destroy(pair);
	bsSensorPair_Destroy(uncached);
	bsSensorPair_Destroy(guarded);
	bsLetterBody_Free(&a);
	bsLetterBody_Free(&b);
	free(error);
	return ok && guardWrong == 0 ? 0 : 1;
}

int bsBenchSensors(int frames, uint64_t seed, uint64_t* checksum)
{
	printf("\nSensor particles (Senin et al. 2003, section 5): scripted approach of two letters, "
		"1 unit tall,\n%.2g past touching at the middle frame; the exact distance is the reference\n",
		BS_BENCH_DEPTH);
	fflush(stdout);
	int status = bsBenchPair('T', 3, frames, seed, "mean < 1 ms, max 11 ms", checksum);
	if (status == 0)
	{
		status = bsBenchPair('W', 5, frames, seed, "mean 12.67 ms, max 47 ms", checksum);
	}
	fflush(stdout);
	return status;
}
