// bench_embree.c — `blobsim bench --vs embree`: the same scenes and the IDENTICAL queries through
// Embree 3 and through blobsim, rounds alternated, medians reported.
//
// What is compared, query by query (each a swept sphere C1 -> C2 of radius R):
//   rays    Embree's rtcIntersect1 on its triangle geometry, the segment C1 -> C2 as the ray (origin
//           C1, unnormalised direction C2 - C1, tnear 0, tfar 1), against bsRayBvh_Ray on the 8-wide
//           ray copy of the BVH (t, triangle and normal, what rtcIntersect1 returns; bsBvh_Ray's
//           answers, and so bsBvh_Sweep's bs_methodRay t and triangle).
//   sweeps  Embree's traversal of user geometry (one primitive per triangle, its box grown by R and
//           the rounding pad blobsim's own walk uses) with the same segment as the ray; the intersect
//           callback runs blobsim's exact triangle test (bsExactTriangle on a bsSweep made once per
//           query) and shrinks tfar to a nearer contact, and the winner is finished with
//           bsSweep_Finish as blobsim finishes its own. Only the traversal differs, so the answers
//           must agree with bsBvh_Sweep's bs_methodExact; bs_methodKarabassi is timed beside it.
//   builds  rtcCommitScene of each geometry against bsBvh_Build over the same triangles, on 1 thread
//           and on all threads each; the rays' 8-wide copy (bsRayBvh_Build) timed beside it.
// Both libraries answer the queries in the same order from the same parallel loop (bsParallelFor),
// one call per query, so the harness is the same for both.
#include "bench_embree.h"

#include "cli.h"
#include "collide_internal.h"

#include <stdio.h>
#include <string.h>

const char* const bs_vsSetNames[BS_VS_SET_COUNT] = {"mixed", "near", "radius3x", "snow", "slime"};
const char* const bs_vsMethodNames[BS_VS_METHOD_COUNT] = {
	"embree-sweep", "exact", "karabassi", "embree-ray", "ray",
};

bsVsEmbreeDef bsDefaultVsEmbreeDef(void)
{
	bsVsEmbreeDef def;
	def.seed = 1;
	// 2 * 356^2 + 200 * 12 = 255,872 triangles: the scene of issue 15's measurements (~255,600).
	def.resolution = 356;
	def.boxes = 200;
	def.queries = 100000;
	def.figureQueries = 0;
	def.rounds = 5;
	def.threads = 0;
	def.configDir = "configs";
	def.buildOnly = false;
	def.sets = (1u << BS_VS_SET_COUNT) - 1u;
	def.methods = (1u << BS_VS_METHOD_COUNT) - 1u;
	def.selected = false;
	def.counts = false;
	return def;
}

bool bsVsParseNames(const char* list, const char* const* names, int count, unsigned* mask, char* bad,
	size_t badSize)
{
	*mask = 0;
	snprintf(bad, badSize, "%s", list);
	if (list[0] == '\0')
	{
		return false;
	}
	const char* item = list;
	for (;;)
	{
		size_t length = strcspn(item, ",");
		int found = -1;
		for (int i = 0; i < count && found < 0; ++i)
		{
			found = strlen(names[i]) == length && strncmp(item, names[i], length) == 0 ? i : -1;
		}
		if (found < 0)
		{
			snprintf(bad, badSize, "%.*s", (int)length, item);
			return false;
		}
		*mask |= 1u << found;
		if (item[length] == '\0')
		{
			return true;
		}
		item += length + 1;
	}
}

#ifndef BS_HAVE_EMBREE

bool bsVsEmbree_Available(void)
{
	return false;
}

int bsBenchVsEmbree(const bsVsEmbreeDef* def)
{
	(void)def;
	printf("\nvs Embree: skipped: this blobsim was built without Embree (libembree-dev was not found "
		"when meson configured the build, or -Dembree=disabled; install it and reconfigure, or run "
		"tools/bench, which does both)\n");
	return bs_exitOk;
}

#else

#include "config.h"
#include "environment.h"
#include "procedural.h"
#include "ray_bvh.h"

#include "blobsim/base.h"
#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "emission.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "blobsim/vec3.h"
#include "core.h"

#include <embree3/rtcore.h>

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// Queries per chunk of the parallel loop: small enough to balance 2 threads, large enough that the
// hand-out costs nothing.
#define BS_VS_GRAIN 256
#define BS_VS_MAX_BUILD_ROUNDS 1000  // --vs-rounds' own limit

bool bsVsEmbree_Available(void)
{
	return true;
}

// --- Float bounds that never shrink ---

static float bsVsFloatDown(double x)
{
	float f = (float)x;
	return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

static float bsVsFloatUp(double x)
{
	float f = (float)x;
	return (double)f < x ? nextafterf(f, INFINITY) : f;
}

// --- The scenes as Embree holds them ---

static void bsVsOnEmbreeError(void* user, enum RTCError code, const char* message)
{
	(void)user;
	fprintf(stderr, "blobsim bench: Embree error %d: %s\n", (int)code, message != NULL ? message : "");
}

// A device whose builds use `threads` threads. Embree (with TBB) keeps its thread limit in global
// state set when a device is made, so only one device is alive at a time.
static RTCDevice bsVsNewDevice(int threads)
{
	char config[64];
	snprintf(config, sizeof config, "threads=%d", threads);
	RTCDevice device = rtcNewDevice(config);
	if (device == NULL)
	{
		fprintf(stderr, "blobsim bench: cannot start Embree (error %d)\n", (int)rtcGetDeviceError(NULL));
		return NULL;
	}
	rtcSetDeviceErrorFunction(device, bsVsOnEmbreeError, NULL);
	return device;
}

// The user geometry's data: the triangles in the caller's order and how much each box grows.
typedef struct bsVsUserData
{
	const bsTriangle* tris;
	double grow;
} bsVsUserData;

// Embree triangle geometry: three float vertices per triangle (a soup, as blobsim holds it).
static RTCScene bsVsNewTriangleScene(RTCDevice device, const bsTriangle* tris, uint32_t count)
{
	RTCScene scene = rtcNewScene(device);
	RTCGeometry geom = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_TRIANGLE);
	float* v = rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
		3 * sizeof(float), 3 * (size_t)count);
	uint32_t* index = rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
		3 * sizeof(uint32_t), count);
	if (v != NULL && index != NULL)
	{
		for (uint32_t i = 0; i < count; ++i)
		{
			const bsVec3 p[3] = {tris[i].p1, tris[i].p2, tris[i].p3};
			for (int k = 0; k < 3; ++k)
			{
				float* out = v + 9 * (size_t)i + 3 * (size_t)k;
				out[0] = (float)p[k].x;
				out[1] = (float)p[k].y;
				out[2] = (float)p[k].z;
				index[3 * (size_t)i + (size_t)k] = 3 * i + (uint32_t)k;
			}
		}
	}
	rtcCommitGeometry(geom);
	rtcAttachGeometry(scene, geom);
	rtcReleaseGeometry(geom);
	return scene;
}

static void bsVsUserBounds(const struct RTCBoundsFunctionArguments* args)
{
	const bsVsUserData* data = args->geometryUserPtr;
	const bsTriangle* t = data->tris + args->primID;
	bsVec3 lo = bsTriangle_Min(t);
	bsVec3 hi = bsTriangle_Max(t);
	struct RTCBounds* b = args->bounds_o;
	b->lower_x = bsVsFloatDown(lo.x - data->grow);
	b->lower_y = bsVsFloatDown(lo.y - data->grow);
	b->lower_z = bsVsFloatDown(lo.z - data->grow);
	b->upper_x = bsVsFloatUp(hi.x + data->grow);
	b->upper_y = bsVsFloatUp(hi.y + data->grow);
	b->upper_z = bsVsFloatUp(hi.z + data->grow);
}

// One sweep through Embree: the context Embree hands to the intersect callback, extended with the
// query (Embree's documented way to pass per-ray data).
typedef struct bsVsSweepQuery
{
	struct RTCIntersectContext context;  // first, so the callback's context pointer is the query's
	bsSweep sweep;
	bsTriangleHit hit;
	uint32_t index;
	uint32_t tests;  // callbacks run (--vs-counts): one add to this stack-held query, also when timed
	bool found;
} bsVsSweepQuery;

// The exact test on one primitive. Keeps the nearest contact, of equal ones the lowest triangle
// index (bsBvh_Sweep's rule, so the answers can be compared bit for bit), and shrinks tfar to a float
// at or above it so Embree culls what lies beyond.
static void bsVsUserIntersect(const struct RTCIntersectFunctionNArguments* args)
{
	if (args->valid[0] == 0)
	{
		return;
	}
	const bsVsUserData* data = args->geometryUserPtr;
	bsVsSweepQuery* q = (bsVsSweepQuery*)args->context;
	q->tests += 1;
	uint32_t index = args->primID;
	double tmax = 2.0;
	if (q->found)
	{
		tmax = index < q->index ? nextafter(q->hit.t, INFINITY) : q->hit.t;
	}
	bsTriangleHit h;
	if (!bsExactTriangle(data->tris + index, &q->sweep, tmax, &h))
	{
		return;
	}
	q->hit = h;
	q->index = index;
	q->found = true;
	// The ray-hit packet is structure-of-arrays of N 4-byte lanes (rtcore_ray.h; its accessors are
	// C++ only): tfar is row 8 of the ray, the hit starts at row 12 with primID and geomID its rows 5
	// and 6. Lane 0 is this ray.
	size_t n = args->N;
	char* packet = (char*)args->rayhit;
	float tfar = bsVsFloatUp(h.t);
	unsigned int ids[2] = {index, args->geomID};
	memcpy(packet + 4 * (8 * n), &tfar, sizeof tfar);
	memcpy(packet + 4 * (17 * n), ids, sizeof ids[0]);
	memcpy(packet + 4 * (18 * n), ids + 1, sizeof ids[1]);
}

static RTCScene bsVsNewUserScene(RTCDevice device, bsVsUserData* data, uint32_t count)
{
	RTCScene scene = rtcNewScene(device);
	RTCGeometry geom = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_USER);
	rtcSetGeometryUserPrimitiveCount(geom, count);
	rtcSetGeometryUserData(geom, data);
	rtcSetGeometryBoundsFunction(geom, bsVsUserBounds, NULL);
	rtcSetGeometryIntersectFunction(geom, bsVsUserIntersect);
	rtcCommitGeometry(geom);
	rtcAttachGeometry(scene, geom);
	rtcReleaseGeometry(geom);
	return scene;
}

// Wall seconds of the commit; *cpu its process CPU seconds (all threads).
static double bsVsCommit(RTCScene scene, double* cpu)
{
	double t0 = bsNow(), c0 = bsCpuNow();
	rtcCommitScene(scene);
	*cpu = bsCpuNow() - c0;
	return bsNow() - t0;
}

// How much a primitive's box grows for sweeps of radius up to maxRadius: the radius plus the pad
// bsBvh_Sweep adds to its own boxes (the BVH's pad for the scene's extent, and 1e-6 of the query's
// reach for its conversion to float).
static double bsVsGrow(const bsBvh* bvh, double maxRadius, double maxReach)
{
	return maxRadius + (double)bvh->pad + 1e-6 * (maxRadius + maxReach) + 1e-29;
}

// --- The queries ---

typedef enum bsVsVariant
{
	bs_vsEmbreeSweep = 0,
	bs_vsExact,
	bs_vsKarabassi,
	bs_vsEmbreeRay,
	bs_vsRay,
	bs_vsCount
} bsVsVariant;

static const char* const bs_vsNames[bs_vsCount] = {
	"Embree sweep", "blobsim exact", "blobsim karabassi", "Embree ray", "blobsim ray",
};

// One scene as both libraries hold it.
typedef struct bsVsScene
{
	const bsTriangle* tris;  // the caller's order: Embree's primID is blobsim's triangle index
	uint32_t count;
	const bsBvh* bvh;
	const bsRayBvh* rayBvh;  // the rays' 8-wide copy of bvh
	RTCScene rays;           // triangle geometry
	RTCScene sweeps;         // user geometry
	bsVsUserData user;
} bsVsScene;

// Embree's own answer to a ray: the hit distance along C1 -> C2 (1 when it misses) and the triangle.
typedef struct bsVsRayAnswer
{
	float t;
	uint32_t triangle;  // BS_NO_TRIANGLE on a miss
} bsVsRayAnswer;

static void bsVsSetRay(struct RTCRayHit* rh, bsVec3 c1, bsVec3 d)
{
	rh->ray.org_x = (float)c1.x;
	rh->ray.org_y = (float)c1.y;
	rh->ray.org_z = (float)c1.z;
	rh->ray.tnear = 0.0f;
	rh->ray.dir_x = (float)d.x;
	rh->ray.dir_y = (float)d.y;
	rh->ray.dir_z = (float)d.z;
	rh->ray.time = 0.0f;
	rh->ray.tfar = 1.0f;
	rh->ray.mask = UINT32_MAX;
	rh->ray.id = 0;
	rh->ray.flags = 0;
	rh->hit.geomID = RTC_INVALID_GEOMETRY_ID;
	rh->hit.primID = RTC_INVALID_GEOMETRY_ID;
	rh->hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
}

// Returns how many times Embree called the intersect callback (blobsim's exact test) for the query.
static uint32_t bsVsEmbreeSweep(const bsVsScene* s, const bsSweepInput* in, bsSweepOutput* out)
{
	bsVsSweepQuery q;
	if (bsMakeSweep(in, &q.sweep) != bs_ok)
	{
		// The query sets hold valid inputs only; answered as bsBvh_Sweep answers an invalid one.
		bsBvh_Sweep(s->bvh, bs_methodExact, in, out, NULL);
		return 0;
	}
	rtcInitIntersectContext(&q.context);
	q.tests = 0;
	q.found = false;
	q.index = BS_NO_TRIANGLE;
	struct RTCRayHit rh;
	bsVsSetRay(&rh, q.sweep.c1, q.sweep.d);
	rtcIntersect1(s->sweeps, &q.context, &rh);
	if (q.found)
	{
		bsSweep_Finish(&q.sweep, s->tris + q.index, q.index, &q.hit, out);
	}
	else
	{
		bsSweep_Miss(&q.sweep, out);
	}
	return q.tests;
}

static void bsVsEmbreeRay(const bsVsScene* s, const bsSweepInput* in, bsVsRayAnswer* out)
{
	struct RTCIntersectContext context;
	rtcInitIntersectContext(&context);
	struct RTCRayHit rh;
	bsVsSetRay(&rh, in->c1, bsSub(in->c2, in->c1));
	rtcIntersect1(s->rays, &context, &rh);
	bool hit = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
	out->t = hit ? rh.ray.tfar : 1.0f;
	out->triangle = hit ? rh.hit.primID : BS_NO_TRIANGLE;
}

typedef struct bsVsJob
{
	const bsVsScene* scene;
	const bsSweepInput* inputs;
	bsVsVariant variant;
	bsSweepOutput* outputs;  // the sweeps
	bsVsRayAnswer* rays;     // the Embree ray
	bsRayOutput* blobsimRays;  // blobsim's ray
	bsQueryStats* counts;    // NULL, or one per worker (the counting pass of --vs-counts); Embree's
	                         // callbacks go to trianglesTested
} bsVsJob;

static void bsVsRange(void* context, size_t begin, size_t end, int worker)
{
	const bsVsJob* job = context;
	const bsVsScene* s = job->scene;
	const bsSweepInput* in = job->inputs;
	bsQueryStats* counts = job->counts != NULL ? job->counts + worker : NULL;
	switch (job->variant)
	{
		case bs_vsEmbreeSweep:
			for (size_t i = begin; i < end; ++i)
			{
				uint32_t tests = bsVsEmbreeSweep(s, in + i, job->outputs + i);
				if (counts != NULL)
				{
					counts->queries += 1;
					counts->trianglesTested += tests;
				}
			}
			break;
		case bs_vsExact:
			for (size_t i = begin; i < end; ++i)
			{
				bsBvh_Sweep(s->bvh, bs_methodExact, in + i, job->outputs + i, counts);
			}
			break;
		case bs_vsKarabassi:
			for (size_t i = begin; i < end; ++i)
			{
				bsBvh_Sweep(s->bvh, bs_methodKarabassi, in + i, job->outputs + i, counts);
			}
			break;
		case bs_vsEmbreeRay:
			for (size_t i = begin; i < end; ++i)
			{
				bsVsEmbreeRay(s, in + i, job->rays + i);
			}
			break;
		case bs_vsRay:
			for (size_t i = begin; i < end; ++i)
			{
				bsRayInput ray = {in[i].c1, in[i].c2};
				bsRayBvh_Ray(s->rayBvh, &ray, job->blobsimRays + i, counts);
			}
			break;
		case bs_vsCount:
			break;
	}
}

static uint64_t bsVsHashBytes(uint64_t h, const void* data, size_t size)
{
	const unsigned char* p = data;
	for (size_t i = 0; i < size; ++i)
	{
		h = (h ^ p[i]) * 0x100000001b3ull;
	}
	return h;
}

static double bsVsMedian(double* values, int n)
{
	// Insertion sort: n is the round count.
	for (int i = 1; i < n; ++i)
	{
		double v = values[i];
		int j = i - 1;
		for (; j >= 0 && values[j] > v; --j)
		{
			values[j + 1] = values[j];
		}
		values[j + 1] = v;
	}
	return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// How far Embree and blobsim agree on one query set.
typedef struct bsVsAgreement
{
	size_t exactHitDiffer;    // Embree sweep and blobsim exact disagree on hit/miss
	size_t embreeMissed;      //   of them: blobsim found a contact Embree did not
	double exactMaxDt;        // largest |dt| where both hit
	size_t exactTriDiffer;    // both hit, another triangle
	size_t exactBytesDiffer;  // whole outputs not byte-identical
	size_t karabassiDiffer;   // karabassi and exact disagree on hit/miss (they must not)
	size_t rayHitDiffer;      // float rtcIntersect1 and blobsim's double ray on hit/miss
	double rayMaxDt;
	size_t hits[bs_vsCount];
} bsVsAgreement;

static void bsVsCompare(bsSweepOutput* const* out, const bsVsRayAnswer* rays,
	const bsRayOutput* blobsimRays, size_t count, unsigned ran, bsVsAgreement* a)
{
	memset(a, 0, sizeof *a);
	bool has[bs_vsCount];
	for (int v = 0; v < bs_vsCount; ++v)
	{
		has[v] = (ran >> v & 1u) != 0;
	}
	for (size_t q = 0; q < count; ++q)
	{
		for (int v = bs_vsEmbreeSweep; v <= bs_vsKarabassi; ++v)
		{
			a->hits[v] += has[v] ? out[v][q].hit : 0;
		}
		a->hits[bs_vsRay] += has[bs_vsRay] ? blobsimRays[q].hit : 0;
		a->hits[bs_vsEmbreeRay] += has[bs_vsEmbreeRay] && rays[q].triangle != BS_NO_TRIANGLE;
		if (has[bs_vsEmbreeSweep] && has[bs_vsExact])
		{
			const bsSweepOutput* e = out[bs_vsEmbreeSweep] + q;
			const bsSweepOutput* b = out[bs_vsExact] + q;
			if (e->hit != b->hit)
			{
				a->exactHitDiffer += 1;
				a->embreeMissed += b->hit;
			}
			else if (e->hit)
			{
				a->exactMaxDt = fmax(a->exactMaxDt, fabs(e->t - b->t));
				a->exactTriDiffer += e->triangle != b->triangle;
			}
			a->exactBytesDiffer += memcmp(e, b, sizeof *e) != 0;
		}
		if (has[bs_vsKarabassi] && has[bs_vsExact])
		{
			a->karabassiDiffer += out[bs_vsKarabassi][q].hit != out[bs_vsExact][q].hit;
		}
		if (has[bs_vsEmbreeRay] && has[bs_vsRay])
		{
			bool rayHit = rays[q].triangle != BS_NO_TRIANGLE;
			if (rayHit != (blobsimRays[q].hit != 0))
			{
				a->rayHitDiffer += 1;
			}
			else if (rayHit)
			{
				a->rayMaxDt = fmax(a->rayMaxDt, fabs((double)rays[q].t - blobsimRays[q].t));
			}
		}
	}
}

// One query set's measurements: median rates (M queries/s) by thread run and variant.
typedef struct bsVsRow
{
	char name[16];
	size_t count;
	int threads[2];
	int threadRuns;
	unsigned ran;  // bit v: variant v ran (all but with --vs-methods)
	double rate[2][bs_vsCount];
	double ratio[2][bs_vsCount];  // blobsim / Embree: the median of the rounds' own ratios (0: Embree's
	                              // side did not run)
	double cpu[2][bs_vsCount];       // median process CPU seconds of a round, all threads
	double cpuRatio[2][bs_vsCount];  // Embree's CPU time / blobsim's, the median of the rounds'
	bsVsAgreement agree;
	bool counted;                    // --vs-counts: counts[] holds the counting pass's sums
	int countThreads;
	bsQueryStats counts[bs_vsCount];  // Embree sweep: its callbacks in trianglesTested
} bsVsRow;

typedef struct bsVsSummary
{
	bsVsRow rows[8];
	int rowCount;
	double buildRatio[2];  // blobsim build time / Embree triangle build time, by thread run
	double buildRayRatio[2];  // the same with the rays' 8-wide copy's build added
	uint32_t rayNodes;        // the rays' copy of the heightfield's BVH
	double rayBytesPerTriangle;
	bool built;
} bsVsSummary;

// GCC must neither inline nor clone the timed pass (a clone is named bsVsTimedPass.constprop.0).
#if defined(__GNUC__) && !defined(__clang__)
#define BS_VS_OWN_FUNCTION __attribute__((noinline, noipa))
#else
#define BS_VS_OWN_FUNCTION __attribute__((noinline))
#endif

// One variant's timed pass over a query set, in a function of its own so that `valgrind
// --tool=callgrind --toggle-collect=bsVsTimedPass` counts the timed rounds' queries and nothing else
// (the warm-up and the counting pass call bsParallelFor around it). With more than one thread the
// other threads' share runs outside it: count with --threads 1.
static BS_VS_OWN_FUNCTION void bsVsTimedPass(int threads, size_t count, bsVsJob* job)
{
	bsParallelFor(threads, count, BS_VS_GRAIN, bsVsRange, job);
}

// --vs-counts: one more pass of every variant that ran, on `threads` threads, apart from the timed
// rounds, each worker summing its own counts; the workers' sums are added in worker order.
static bool bsVsCount(const bsVsScene* scene, const bsSweepInput* inputs, size_t count, int threads,
	bsSweepOutput* const* out, bsVsRayAnswer* rays, bsRayOutput* blobsimRays, bsVsRow* row)
{
	bsQueryStats* perWorker = malloc((size_t)threads * sizeof *perWorker);
	if (perWorker == NULL)
	{
		return false;
	}
	for (int v = 0; v < bs_vsCount; ++v)
	{
		if ((row->ran >> v & 1u) == 0 || v == bs_vsEmbreeRay)
		{
			continue;  // Embree's rays have no callback to count in
		}
		memset(perWorker, 0, (size_t)threads * sizeof *perWorker);
		bsVsJob job = {scene, inputs, (bsVsVariant)v, out[v], rays, blobsimRays, perWorker};
		bsParallelFor(threads, count, BS_VS_GRAIN, bsVsRange, &job);
		bsQueryStats* sum = row->counts + v;
		for (int w = 0; w < threads; ++w)
		{
			sum->queries += perWorker[w].queries;
			sum->nodesVisited += perWorker[w].nodesVisited;
			sum->trianglesTested += perWorker[w].trianglesTested;
		}
	}
	free(perWorker);
	row->counted = true;
	row->countThreads = threads;
	return true;
}

// The median over the rounds of num[round] / den[round].
static double bsVsMedianRatio(const double* num, const double* den, int rounds, double* scratch)
{
	for (int round = 0; round < rounds; ++round)
	{
		scratch[round] = num[round] / den[round];
	}
	return bsVsMedian(scratch, rounds);
}

// Times every variant on one query set: per thread count, one untimed warm-up, then `rounds` rounds
// of all five variants in turn (A B C D E, A B C D E, ...; only those of --vs-methods); each
// variant's median counts. The first round's answers are compared, and every round's with the first
// thread count's.
static int bsVsRunSet(const bsVsEmbreeDef* def, const bsVsScene* scene, const char* name,
	const bsSweepInput* inputs, size_t count, bsVsRow* row)
{
	int status = bs_exitOk;
	memset(row, 0, sizeof *row);
	snprintf(row->name, sizeof row->name, "%s", name);
	row->count = count;
	row->ran = def->methods & ((1u << bs_vsCount) - 1u);
	int allThreads = def->threads > 0 ? def->threads : bsCoreCount();
	row->threads[0] = 1;
	row->threads[1] = allThreads;
	row->threadRuns = allThreads > 1 ? 2 : 1;

	bsSweepOutput* out[bs_vsCount] = {NULL};
	bsVsRayAnswer* rays = malloc(count * sizeof *rays);
	bsRayOutput* blobsimRays = malloc(count * sizeof *blobsimRays);
	size_t slots = (size_t)def->rounds * bs_vsCount;
	double* seconds = malloc(2 * slots * sizeof *seconds);
	double* cpu = seconds != NULL ? seconds + slots : NULL;  // process CPU time, all threads
	double* ratios = malloc((size_t)def->rounds * sizeof *ratios);
	bool ok = rays != NULL && blobsimRays != NULL && seconds != NULL && ratios != NULL;
	for (int v = 0; v < bs_vsCount; ++v)
	{
		bool sweep = v != bs_vsEmbreeRay && v != bs_vsRay;
		out[v] = sweep ? calloc(count, sizeof(bsSweepOutput)) : NULL;
		ok = ok && (!sweep || out[v] != NULL);
	}
	if (!ok)
	{
		fprintf(stderr, "blobsim bench: out of memory for %zu queries\n", count);
		status = bs_exitFailure;
		goto done;
	}
	memset(rays, 0, count * sizeof *rays);
	memset(blobsimRays, 0, count * sizeof *blobsimRays);

	uint64_t firstHash[bs_vsCount] = {0};
	for (int tc = 0; tc < row->threadRuns; ++tc)
	{
		int threads = row->threads[tc];
		for (int round = -1; round < def->rounds; ++round)
		{
			for (int v = 0; v < bs_vsCount; ++v)
			{
				if ((row->ran >> v & 1u) == 0)
				{
					continue;
				}
				bsVsJob job = {scene, inputs, (bsVsVariant)v, out[v], rays, blobsimRays, NULL};
				if (round < 0)
				{
					// The warm-up: threads, code and both trees into cache.
					bsParallelFor(threads, count < 4096 ? count : 4096, BS_VS_GRAIN, bsVsRange, &job);
					continue;
				}
				double t0 = bsNow(), c0 = bsCpuNow();
				bsVsTimedPass(threads, count, &job);
				cpu[v * def->rounds + round] = bsCpuNow() - c0;
				seconds[v * def->rounds + round] = bsNow() - t0;
				uint64_t h = v == bs_vsEmbreeRay ?
					bsVsHashBytes(0xcbf29ce484222325ull, rays, count * sizeof *rays) :
					v == bs_vsRay ?
					bsVsHashBytes(0xcbf29ce484222325ull, blobsimRays, count * sizeof *blobsimRays) :
					bsVsHashBytes(0xcbf29ce484222325ull, out[v], count * sizeof(bsSweepOutput));
				if (tc == 0 && round == 0)
				{
					firstHash[v] = h;
				}
				else if (h != firstHash[v])
				{
					// blobsim promises the same bytes for any thread count; Embree's answers here
					// are chosen by the same rule, so they should not move either.
					fprintf(stderr, "blobsim bench: %s on %s: %d thread%s, round %d: answers differ "
						"from the first round's\n", bs_vsNames[v], name, threads,
						threads == 1 ? "" : "s", round + 1);
					if (v != bs_vsEmbreeSweep && v != bs_vsEmbreeRay)
					{
						status = bs_exitFailure;
					}
				}
			}
			if (tc == 0 && round == 0)
			{
				bsVsCompare(out, rays, blobsimRays, count, row->ran, &row->agree);
			}
		}
		// Each round's ratio pairs runs made moments apart, so load that drifts over the rounds
		// moves both sides of it: its median is steadier than the ratio of the medians.
		for (int v = 0; v < bs_vsCount; ++v)
		{
			int base = v == bs_vsRay ? bs_vsEmbreeRay : bs_vsEmbreeSweep;
			if ((row->ran >> v & 1u) == 0 || (row->ran >> base & 1u) == 0)
			{
				continue;
			}
			row->ratio[tc][v] = bsVsMedianRatio(seconds + base * def->rounds,
				seconds + v * def->rounds, def->rounds, ratios);
			row->cpuRatio[tc][v] = bsVsMedianRatio(cpu + base * def->rounds, cpu + v * def->rounds,
				def->rounds, ratios);
		}
		for (int v = 0; v < bs_vsCount; ++v)
		{
			if ((row->ran >> v & 1u) == 0)
			{
				continue;
			}
			double median = bsVsMedian(seconds + v * def->rounds, def->rounds);
			row->rate[tc][v] = median > 0.0 ? 1e-6 * (double)count / median : 0.0;
			row->cpu[tc][v] = bsVsMedian(cpu + v * def->rounds, def->rounds);
		}
	}
	if (def->counts && !bsVsCount(scene, inputs, count, allThreads, out, rays, blobsimRays, row))
	{
		fprintf(stderr, "blobsim bench: out of memory for the counts of %s\n", name);
		status = bs_exitFailure;
	}

done:
	for (int v = 0; v < bs_vsCount; ++v)
	{
		free(out[v]);
	}
	free(rays);
	free(blobsimRays);
	free(seconds);
	free(ratios);
	return status;
}

static void bsVsPrintRowHeader(const bsVsEmbreeDef* def)
{
	if (def->selected)
	{
		printf("%-9s %7s %8s %-13s %6s | %9s %9s %9s | %7s %7s\n", "set", "threads", "queries",
			"method", "hits", "wall M/s", "cpu s", "cpu us/q", "x wall", "x cpu");
		return;
	}
	printf("%-9s %7s %8s %6s | %8s %8s %6s %9s %6s | %8s %8s %6s\n", "set", "threads", "queries",
		"hits", "E sweep", "exact", "x", "karabassi", "x", "E ray", "ray", "x");
}

// --vs-sets / --vs-methods: a line per thread count and method that ran.
static void bsVsPrintSelected(const bsVsRow* row)
{
	double queries = (double)(row->count > 0 ? row->count : 1);
	for (int tc = 0; tc < row->threadRuns; ++tc)
	{
		for (int v = 0; v < bs_vsCount; ++v)
		{
			if ((row->ran >> v & 1u) == 0)
			{
				continue;
			}
			char wall[16] = "-", cpu[16] = "-";
			if (row->ratio[tc][v] > 0.0)
			{
				snprintf(wall, sizeof wall, "%.2fx", row->ratio[tc][v]);
				snprintf(cpu, sizeof cpu, "%.2fx", row->cpuRatio[tc][v]);
			}
			printf("%-9s %7d %8zu %-13s %5.1f%% | %9.3f %9.4f %9.3f | %7s %7s\n", row->name,
				row->threads[tc], row->count, bs_vsMethodNames[v],
				100.0 * (double)row->agree.hits[v] / queries, row->rate[tc][v], row->cpu[tc][v],
				1e6 * row->cpu[tc][v] / queries, wall, cpu);
		}
	}
}

// --vs-counts: the work a query, per method that ran.
static void bsVsPrintCounts(const bsVsRow* row)
{
	printf("  per query (a counting pass on %d thread%s, apart from the timed rounds):", row->countThreads,
		row->countThreads == 1 ? "" : "s");
	const char* sep = "";
	for (int v = 0; v < bs_vsCount; ++v)
	{
		const bsQueryStats* c = row->counts + v;
		double n = (double)(c->queries > 0 ? c->queries : 1);
		if ((row->ran >> v & 1u) == 0 || v == bs_vsEmbreeRay)
		{
			continue;
		}
		if (v == bs_vsEmbreeSweep)
		{
			printf("%s Embree sweep %.2f callbacks (bsExactTriangle calls; its nodes are not exposed)", sep,
				(double)c->trianglesTested / n);
		}
		else
		{
			printf("%s %s %.2f triangles tested, %.2f %s nodes visited", sep, bs_vsMethodNames[v],
				(double)c->trianglesTested / n, (double)c->nodesVisited / n,
				v == bs_vsRay ? "8-wide" : "4-wide");
		}
		sep = ";";
	}
	printf("\n");
}

static void bsVsPrintRow(const bsVsEmbreeDef* def, const bsVsRow* row)
{
	if (def->selected)
	{
		bsVsPrintSelected(row);
	}
	else
	{
		for (int tc = 0; tc < row->threadRuns; ++tc)
		{
			const double* r = row->rate[tc];
			const double* x = row->ratio[tc];
			printf("%-9s %7d %8zu %5.1f%% | %8.3f %8.3f %5.2fx %9.3f %5.2fx | %8.3f %8.3f %5.2fx\n",
				row->name, row->threads[tc], row->count,
				100.0 * (double)row->agree.hits[bs_vsExact] / (double)(row->count > 0 ? row->count : 1),
				r[bs_vsEmbreeSweep], r[bs_vsExact], x[bs_vsExact], r[bs_vsKarabassi], x[bs_vsKarabassi],
				r[bs_vsEmbreeRay], r[bs_vsRay], x[bs_vsRay]);
		}
	}
	const bsVsAgreement* a = &row->agree;
	unsigned sweeps = 1u << bs_vsEmbreeSweep | 1u << bs_vsExact;
	unsigned karabassi = 1u << bs_vsKarabassi | 1u << bs_vsExact;
	unsigned rays = 1u << bs_vsEmbreeRay | 1u << bs_vsRay;
	if ((row->ran & sweeps) == sweeps && (row->ran & karabassi) == karabassi)
	{
		printf("  agreement, Embree sweep vs blobsim exact: %zu of %zu disagree on hit/miss (%zu contacts "
			"Embree's traversal missed), largest |dt| %.3g where both hit, %zu other triangle, %zu "
			"outputs not byte-identical; karabassi vs exact hit/miss: %zu differ\n",
			a->exactHitDiffer, row->count, a->embreeMissed, a->exactMaxDt, a->exactTriDiffer,
			a->exactBytesDiffer, a->karabassiDiffer);
	}
	else if ((row->ran & sweeps) == sweeps)
	{
		printf("  agreement, Embree sweep vs blobsim exact: %zu of %zu disagree on hit/miss (%zu contacts "
			"Embree's traversal missed), largest |dt| %.3g where both hit, %zu other triangle, %zu "
			"outputs not byte-identical\n", a->exactHitDiffer, row->count, a->embreeMissed,
			a->exactMaxDt, a->exactTriDiffer, a->exactBytesDiffer);
	}
	else if ((row->ran & karabassi) == karabassi)
	{
		printf("  agreement, karabassi vs exact hit/miss: %zu of %zu differ\n", a->karabassiDiffer,
			row->count);
	}
	if ((row->ran & rays) == rays)
	{
		printf("  rays (float rtcIntersect1 vs blobsim's double segment test, not the same test): %zu "
			"disagree on hit/miss, largest |dt| %.3g where both hit\n",
			a->rayHitDiffer, a->rayMaxDt);
	}
	if (row->counted)
	{
		bsVsPrintCounts(row);
	}
	if (a->exactHitDiffer != 0 || a->exactMaxDt != 0.0)
	{
		fprintf(stderr, "blobsim bench: warning: %s: Embree's sweep and blobsim's exact disagree on "
			"%zu queries (largest |dt| %.3g)\n", row->name, a->exactHitDiffer, a->exactMaxDt);
	}
	fflush(stdout);
}

// Builds the Embree scenes of one blobsim scene (on the device of the queries) and times one query
// set on them; maxRadius sizes the user geometry's boxes.
static int bsVsQueryScene(const bsVsEmbreeDef* def, RTCDevice device, const bsTriangle* tris,
	uint32_t count, const bsBvh* bvh, const char* name, const bsSweepInput* inputs, size_t queries,
	bsVsRow* row)
{
	double maxRadius = 0.0, maxReach = 0.0;
	for (size_t q = 0; q < queries; ++q)
	{
		maxRadius = fmax(maxRadius, inputs[q].radius);
		maxReach = fmax(maxReach, fmax(bsMaxAbs(inputs[q].c1), bsMaxAbs(inputs[q].c2)));
	}
	bsVsScene scene;
	scene.tris = tris;
	scene.count = count;
	scene.bvh = bvh;
	bsRayBvh rayBvh;
	if (bsRayBvh_Build(&rayBvh, bvh) != bs_ok)
	{
		fprintf(stderr, "blobsim bench: out of memory for the rays' copy of the BVH of %s\n", name);
		return bs_exitFailure;
	}
	scene.rayBvh = &rayBvh;
	scene.user.tris = tris;
	scene.user.grow = bsVsGrow(bvh, maxRadius, maxReach);
	scene.rays = bsVsNewTriangleScene(device, tris, count);
	scene.sweeps = bsVsNewUserScene(device, &scene.user, count);
	rtcCommitScene(scene.rays);
	rtcCommitScene(scene.sweeps);
	int status = bs_exitOk;
	if (rtcGetDeviceError(device) != RTC_ERROR_NONE)
	{
		fprintf(stderr, "blobsim bench: Embree could not build the scenes of %s\n", name);
		status = bs_exitFailure;
	}
	else
	{
		status = bsVsRunSet(def, &scene, name, inputs, queries, row);
		bsVsPrintRow(def, row);
	}
	rtcReleaseScene(scene.rays);
	rtcReleaseScene(scene.sweeps);
	bsRayBvh_Destroy(&rayBvh);
	return status;
}

// --- The heightfield's query sets ---

typedef struct bsVsSetDef
{
	const char* name;
	double liftMin, liftMax;  // the start centre's height above the surface point
	double radius;
} bsVsSetDef;

static const bsVsSetDef bs_vsSets[] = {
	{"mixed", 0.03, 0.13, 0.01},
	{"near", 0.015, 0.045, 0.01},
	{"radius3x", 0.03, 0.13, 0.03},
};

#define BS_VS_LENGTH_MIN 0.01
#define BS_VS_LENGTH_MAX 0.05

// A start above a uniform point of a random upward-facing triangle (terrain or box top), lifted
// straight up by U(liftMin, liftMax); the motion, U(0.01, 0.05) long, is straight down, oblique (10 to
// 60 degrees from down) or nearly level (0 to 9 degrees below the horizontal), a third each.
static void bsVsMakeQuery(bsRng* rng, const bsTriangle* tris, uint32_t count, const bsVsSetDef* set,
	bsSweepInput* in)
{
	const bsTriangle* tri = tris + bsRng_Below(rng, count);
	for (int attempt = 0; attempt < 64 && tri->n.y < 0.5; ++attempt)
	{
		tri = tris + bsRng_Below(rng, count);
	}
	double r1 = sqrt(bsRng_Uniform(rng));
	double r2 = bsRng_Uniform(rng);
	bsVec3 e1 = bsSub(tri->p2, tri->p1);
	bsVec3 e2 = bsSub(tri->p3, tri->p1);
	bsVec3 point = bsAdd(tri->p1, bsAdd(bsScale(r1 * (1.0 - r2), e1), bsScale(r1 * r2, e2)));
	double lift = bsRng_Range(rng, set->liftMin, set->liftMax);
	double length = bsRng_Range(rng, BS_VS_LENGTH_MIN, BS_VS_LENGTH_MAX);
	double phi = bsRng_Range(rng, 0.0, 2.0 * BS_PI);
	double down;  // angle from straight down, radians
	switch (bsRng_Below(rng, 3))
	{
		case 0:
			down = 0.0;
			break;
		case 1:
			down = bsRng_Range(rng, 10.0, 60.0) * (BS_PI / 180.0);
			break;
		default:
			down = bsRng_Range(rng, 81.0, 90.0) * (BS_PI / 180.0);
			break;
	}
	bsVec3 dir = bsV3(sin(down) * cos(phi), -cos(down), sin(down) * sin(phi));
	in->c1 = bsV3(point.x, point.y + lift, point.z);
	in->c2 = bsMulAdd(in->c1, length, dir);
	in->radius = set->radius;
}

// The set's queries; a start that touches the scene (a zero-length exact sweep hits) is redrawn,
// in index order, so the set is the same on every run. Returns the starts still touching after 100
// draws (kept).
static size_t bsVsMakeQueries(uint64_t seed, const bsBvh* bvh, const bsTriangle* tris, uint32_t count,
	const bsVsSetDef* set, bsSweepInput* inputs, size_t queries, size_t* redrawn)
{
	bsRng rng = bsMakeRng(seed);
	size_t touching = 0;
	*redrawn = 0;
	for (size_t q = 0; q < queries; ++q)
	{
		for (int draw = 0;; ++draw)
		{
			bsVsMakeQuery(&rng, tris, count, set, inputs + q);
			bsSweepInput probe = {inputs[q].c1, inputs[q].c1, inputs[q].radius};
			bsSweepOutput out;
			bsBvh_Sweep(bvh, bs_methodExact, &probe, &out, NULL);
			if (!out.hit)
			{
				break;
			}
			*redrawn += 1;
			if (draw == 99)
			{
				touching += 1;
				break;
			}
		}
	}
	return touching;
}

// --- The figures' own queries ---

// The first step's sweeps of a figure config: its particles as `blobsim run` emits them (app/
// emission.c into a world), each from its position to where its step would take it with nothing in
// the way (the same step, in a world without colliders: gravity and drag as the forces phase applies
// them). With the figures' `stick` response a particle's first sweep is its only query of the step.
static bool bsVsFigureQueries(const bsConfig* c, const bsEnvironment* env, long long cap,
	bsSweepInput** outInputs, size_t* outCount, char* why, size_t whyLength)
{
	bsEmission emission;
	if (!bsEmission_Load(&emission, c, env, why, whyLength))
	{
		return false;
	}
	bsWorldDef wdef = bsDefaultWorldDef();
	wdef.seed = c->seed;
	bsWorld* world = bsWorld_Create(&wdef);
	bsParticles start, moved;
	memset(&start, 0, sizeof start);
	memset(&moved, 0, sizeof moved);
	bool ok = world != NULL && bsEmission_AddToWorld(&emission, c, world) == bs_ok &&
		bsWorld_Emit(world, &start, NULL) == bs_ok && bsParticles_Alloc(&moved, start.count) == bs_ok;
	size_t total = start.count;
	size_t keep = cap > 0 && (size_t)cap < total ? (size_t)cap : total;
	bsSweepInput* inputs = ok ? malloc((keep > 0 ? keep : 1) * sizeof *inputs) : NULL;
	if (inputs != NULL)
	{
		memcpy(moved.position, start.position, total * sizeof(bsVec3));
		memcpy(moved.velocity, start.velocity, total * sizeof(bsVec3));
		memcpy(moved.radius, start.radius, total * sizeof(double));
		memcpy(moved.state, start.state, total);
		ok = bsWorld_Step(world, &c->step, &moved, NULL) == bs_ok;
		for (size_t q = 0; ok && q < keep; ++q)
		{
			size_t i = keep == total ? q : (size_t)((double)q * (double)total / (double)keep);
			inputs[q] = (bsSweepInput){start.position[i], moved.position[i], start.radius[i]};
		}
	}
	if (!ok || inputs == NULL)
	{
		snprintf(why, whyLength, "%s: cannot emit and move its %zu particles", c->path, total);
		free(inputs);
		inputs = NULL;
	}
	bsParticles_Free(&start);
	bsParticles_Free(&moved);
	bsWorld_Destroy(world);
	bsEmission_Free(&emission);
	*outInputs = inputs;
	*outCount = keep;
	return inputs != NULL;
}

static int bsVsFigure(const bsVsEmbreeDef* def, RTCDevice device, const char* name, bsVsRow* row,
	bool* ran)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.json", def->configDir, name);
	bsConfig config;
	bsConfigError error;
	bsEnvironment env;
	memset(&env, 0, sizeof env);
	bsSweepInput* inputs = NULL;
	size_t count = 0;
	char why[1024] = "";
	*ran = false;
	int status = bs_exitOk;
	if (bsConfig_Load(path, &config, &error) != bs_ok)
	{
		snprintf(why, sizeof why, "%s", error.message);
	}
	else if (bsEnvironment_Load(&env, &config, 1, why, sizeof why) == bs_ok &&
		bsVsFigureQueries(&config, &env, def->figureQueries, &inputs, &count, why, sizeof why))
	{
		printf("%s: %s, %u triangles (%u planes left out: Embree holds the triangles only), %zu "
			"particles' first sweeps, radius %g, C2 = C1 + dt v\n", name, path, env.triangleCount,
			env.planeCount, count, config.particles.radius);
		bsVsPrintRowHeader(def);
		*ran = true;
		status = bsVsQueryScene(def, device, env.triangles, env.triangleCount, &env.bvh, name, inputs,
			count, row);
	}
	if (!*ran)
	{
		printf("%s: skipped: %s (--vs-configs DIR says where snow.json and slime.json are)\n", name,
			why);
	}
	free(inputs);
	bsEnvironment_Free(&env);
	bsConfig_Free(&config);
	return status;
}

// --- Builds ---

// Alternated rounds of: bsBvh_Build on 1 thread and the rays' 8-wide copy of its tree
// (bsRayBvh_Build, always one thread), Embree's triangle and user geometry on 1 thread, then the same
// on all threads. Each Embree device lives only for its own builds (see bsVsNewDevice). Each build is
// compared with Embree's on as many threads; blobsim's ray side needs both of its builds, so its
// ratio to Embree's triangle build (the rays' tree) is reported as well.
static int bsVsBuilds(const bsVsEmbreeDef* def, const bsTriangle* tris, uint32_t count,
	const bsBvh* bvh, bsVsSummary* summary)
{
	int allThreads = def->threads > 0 ? def->threads : bsCoreCount();
	int threadRuns = allThreads > 1 ? 2 : 1;
	int threadCounts[2] = {1, allThreads};
	// Per thread run: blobsim, its rays' copy, Embree triangles, Embree user geometry.
	enum { bs_buildBlobsim, bs_buildRayCopy, bs_buildTriangles, bs_buildUser, bs_buildKinds };
	int slots = 2 * bs_buildKinds;
	double* seconds = calloc(2 * (size_t)def->rounds * (size_t)slots, sizeof *seconds);
	if (seconds == NULL)
	{
		return bs_exitFailure;
	}
	double* cpu = seconds + (size_t)def->rounds * (size_t)slots;  // process CPU time, all threads
	bsVsUserData user = {tris, bsVsGrow(bvh, bs_vsSets[0].radius, 1.0)};
	int status = bs_exitOk;
	for (int round = 0; round < def->rounds && status == bs_exitOk; ++round)
	{
		for (int tc = 0; tc < threadRuns && status == bs_exitOk; ++tc)
		{
			int base = tc * bs_buildKinds;
			bsBvh b;
			bsBvhOptions options = bsDefaultBvhOptions();
			options.threads = threadCounts[tc];
			double t0 = bsNow(), c0 = bsCpuNow();
			bsResult r = bsBvh_Build(&b, tris, count, &options);
			cpu[(base + bs_buildBlobsim) * def->rounds + round] = bsCpuNow() - c0;
			seconds[(base + bs_buildBlobsim) * def->rounds + round] = bsNow() - t0;
			bsRayBvh rayBvh;
			t0 = bsNow();
			c0 = bsCpuNow();
			r = r == bs_ok ? bsRayBvh_Build(&rayBvh, &b) : r;
			cpu[(base + bs_buildRayCopy) * def->rounds + round] = bsCpuNow() - c0;
			seconds[(base + bs_buildRayCopy) * def->rounds + round] = bsNow() - t0;
			if (r == bs_ok)
			{
				bsRayBvh_Destroy(&rayBvh);
			}
			bsBvh_Destroy(&b);
			if (r != bs_ok)
			{
				fprintf(stderr, "blobsim bench: cannot build the BVH: %s\n", bsResultString(r));
				status = bs_exitFailure;
				break;
			}
			RTCDevice device = bsVsNewDevice(threadCounts[tc]);
			if (device == NULL)
			{
				status = bs_exitFailure;
				break;
			}
			RTCScene triangles = bsVsNewTriangleScene(device, tris, count);
			RTCScene users = bsVsNewUserScene(device, &user, count);
			int tri = (base + bs_buildTriangles) * def->rounds + round;
			int use = (base + bs_buildUser) * def->rounds + round;
			seconds[tri] = bsVsCommit(triangles, &cpu[tri]);
			seconds[use] = bsVsCommit(users, &cpu[use]);
			if (rtcGetDeviceError(device) != RTC_ERROR_NONE)
			{
				status = bs_exitFailure;
			}
			rtcReleaseScene(triangles);
			rtcReleaseScene(users);
			rtcReleaseDevice(device);
		}
	}
	if (status == bs_exitOk)
	{
		// Ratios per round first (the medians below sort the columns in place).
		double ratio[2 * bs_buildKinds];
		double rayRatio[2];  // (bsBvh_Build + bsRayBvh_Build) / Embree triangles
		double ratios[BS_VS_MAX_BUILD_ROUNDS];
		int n = def->rounds < BS_VS_MAX_BUILD_ROUNDS ? def->rounds : BS_VS_MAX_BUILD_ROUNDS;
		for (int tc = 0; tc < threadRuns; ++tc)
		{
			int base = tc * bs_buildKinds;
			for (int slot = base + bs_buildTriangles; slot <= base + bs_buildUser; ++slot)
			{
				for (int round = 0; round < n; ++round)
				{
					ratios[round] = seconds[(base + bs_buildBlobsim) * def->rounds + round] /
						seconds[slot * def->rounds + round];
				}
				ratio[slot] = bsVsMedian(ratios, n);
			}
			for (int round = 0; round < n; ++round)
			{
				ratios[round] = (seconds[(base + bs_buildBlobsim) * def->rounds + round] +
					seconds[(base + bs_buildRayCopy) * def->rounds + round]) /
					seconds[(base + bs_buildTriangles) * def->rounds + round];
			}
			rayRatio[tc] = bsVsMedian(ratios, n);
		}
		printf("build, %u triangles, %d alternated rounds; blobsim's tree: SAH cost %.2f, %u nodes "
			"(the same tree on any thread count):\n", count, def->rounds, bvh->stats.sahCost,
			bvh->stats.nodes);
		printf("  %-36s %8s %8s %8s %s\n", "", "seconds", "ratio", "cpu s", "(median wall time; "
			"median of the rounds' blobsim time / Embree time, same threads; median process CPU time, "
			"Embree's waiting TBB workers included)");
		for (int tc = 0; tc < threadRuns; ++tc)
		{
			int base = tc * bs_buildKinds;
			static const char* const kinds[bs_buildKinds] = {"blobsim bsBvh_Build", "  + bsRayBvh_Build",
				"Embree triangles", "Embree user geometry"};
			for (int k = 0; k < bs_buildKinds; ++k)
			{
				double s = bsVsMedian(seconds + (base + k) * def->rounds, def->rounds);
				double c = bsVsMedian(cpu + (base + k) * def->rounds, def->rounds);
				char label[64];
				// The rays' copy is always built on one thread.
				int threads = k == bs_buildRayCopy ? 1 : threadCounts[tc];
				snprintf(label, sizeof label, "%s, %d thread%s", kinds[k], threads, threads == 1 ? "" : "s");
				if (k == bs_buildBlobsim)
				{
					printf("  %-36s %8.4f %8s %8.4f\n", label, s, "", c);
				}
				else if (k == bs_buildRayCopy)
				{
					printf("  %-36s %8.4f %8s %8.4f  (the rays' 8-wide copy: %u nodes, %.1f bytes a "
						"triangle; both builds / Embree triangles: %.2fx)\n", label, s, "", c,
						summary->rayNodes, summary->rayBytesPerTriangle,
						rayRatio[tc]);
				}
				else
				{
					printf("  %-36s %8.4f %7.2fx %8.4f\n", label, s, ratio[base + k], c);
				}
			}
			summary->buildRatio[tc] = ratio[base + bs_buildTriangles];
			summary->buildRayRatio[tc] = rayRatio[tc];
		}
		summary->built = true;
		fflush(stdout);
	}
	free(seconds);
	return status;
}

// --- The whole comparison ---

static void bsVsPrintTargets(const bsVsSummary* s)
{
	double sweep = INFINITY, ray = INFINITY;
	for (int i = 0; i < s->rowCount; ++i)
	{
		const bsVsRow* row = s->rows + i;
		for (int tc = 0; tc < row->threadRuns; ++tc)
		{
			const double* x = row->ratio[tc];
			sweep = fmin(sweep, fmin(x[bs_vsExact], x[bs_vsKarabassi]));
			ray = fmin(ray, x[bs_vsRay]);
		}
	}
	printf("targets (issue 15), the worst case of this run:\n");
	if (s->rowCount > 0)
	{
		printf("  sweeps >= 2x Embree's:         %.2fx  %s\n", sweep, sweep >= 2.0 ? "met" : "unmet");
		printf("  rays >= 1x rtcIntersect1:       %.2fx  %s\n", ray, ray >= 1.0 ? "met" : "unmet");
	}
	if (s->built)
	{
		double build = fmax(s->buildRatio[0], s->buildRatio[1]);
		double withRays = fmax(s->buildRayRatio[0], s->buildRayRatio[1]);
		printf("  build <= 1.5x Embree's time:   %.2fx  %s (with the rays' 8-wide copy: %.2fx, %s)\n",
			build, build <= 1.5 ? "met" : "unmet", withRays, withRays <= 1.5 ? "met" : "unmet");
	}
}

int bsBenchVsEmbree(const bsVsEmbreeDef* def)
{
	int status = bs_exitOk;
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	bsBvh bvh;
	memset(&bvh, 0, sizeof bvh);
	bsSweepInput* inputs = NULL;
	RTCDevice device = NULL;
	bsVsSummary* summary = calloc(1, sizeof *summary);
	if (summary == NULL)
	{
		return bs_exitFailure;
	}
	int allThreads = def->threads > 0 ? def->threads : bsCoreCount();

	printf("\nvs Embree %s: heightfield resolution %d, %d boxes, seed %" PRIu64 "; %d alternated "
		"rounds, medians; 1 and %d threads\n", RTC_VERSION_STRING, def->resolution, def->boxes,
		def->seed, def->rounds, allThreads);
	bsResult r = bsMakeHeightfieldScene(def->seed, def->resolution, def->boxes, &tris, &count);
	bsBvhOptions options = bsDefaultBvhOptions();
	if (r == bs_ok)
	{
		r = bsBvh_Build(&bvh, tris, count, &options);
	}
	if (r != bs_ok || count == 0)
	{
		fprintf(stderr, "blobsim bench: cannot make the heightfield scene: %s\n",
			r != bs_ok ? bsResultString(r) : "no triangles");
		status = bs_exitFailure;
		goto done;
	}
	// --vs-sets and --vs-methods time queries alone: the builds are --vs-only build's.
	if (!def->selected)
	{
		bsRayBvh rayBvh;
		if (bsRayBvh_Build(&rayBvh, &bvh) != bs_ok)
		{
			status = bs_exitFailure;
			goto done;
		}
		summary->rayNodes = rayBvh.nodeCount;
		summary->rayBytesPerTriangle = (double)bsRayBvh_Bytes(&rayBvh) / (double)count;
		bsRayBvh_Destroy(&rayBvh);
		status = bsVsBuilds(def, tris, count, &bvh, summary);
		if (status != bs_exitOk)
		{
			goto done;
		}
	}
	if (def->buildOnly)
	{
		bsVsPrintTargets(summary);
		goto done;
	}

	// The queries' device: all threads (its thread count only matters for builds).
	device = bsVsNewDevice(allThreads);
	size_t queries = (size_t)def->queries;
	inputs = malloc(queries * sizeof *inputs);
	if (device == NULL || inputs == NULL)
	{
		status = bs_exitFailure;
		goto done;
	}
	printf("queries: rates in M queries/s (medians of the rounds); x = blobsim's rate / Embree's, the "
		"median of the rounds' own ratios (above 1: blobsim faster); hits of blobsim exact\n");
	printf("rays: rtcIntersect1 against bsRayBvh_Ray (the 8-wide ray copy of the BVH, built per set), "
		"each returning t, triangle and normal (bsBvh_Ray's answers, whose t and triangle are "
		"bsBvh_Sweep's bs_methodRay answers)\n");
	if (def->selected)
	{
		printf("a line per method: wall rate; cpu s = median process CPU seconds of a round (all "
			"threads); x wall, x cpu = blobsim / Embree on the same kind of query (sweeps: Embree "
			"sweep, rays: Embree ray), medians of the rounds' ratios, '-' when Embree's side did not "
			"run; each round's queries go through bsVsTimedPass (valgrind --tool=callgrind "
			"--toggle-collect=bsVsTimedPass, with --threads 1)\n");
	}
	printf("heightfield sets: start above a random point of an upward-facing triangle, motion "
		"U(%g, %g) long, down, oblique (10-60 deg) or nearly level (0-9 deg below), a third each; "
		"starts touching the scene redrawn\n", BS_VS_LENGTH_MIN, BS_VS_LENGTH_MAX);
	for (int k = 0; k < BS_COUNT(bs_vsSets); ++k)
	{
		const bsVsSetDef* set = bs_vsSets + k;
		if ((def->sets >> k & 1u) == 0)
		{
			continue;
		}
		size_t redrawn = 0;
		size_t touching = bsVsMakeQueries(def->seed ^ (0x9e3779b97f4a7c15ull * (k + 1)), &bvh, tris,
			count, set, inputs, queries, &redrawn);
		printf("%s: start %g-%g above the surface, radius %g; %zu redrawn", set->name, set->liftMin,
			set->liftMax, set->radius, redrawn);
		if (touching > 0)
		{
			printf(", %zu still touch it", touching);
		}
		printf("\n");
		bsVsPrintRowHeader(def);
		bsVsRow* row = summary->rows + summary->rowCount++;
		int s = bsVsQueryScene(def, device, tris, count, &bvh, set->name, inputs, queries, row);
		if (s != bs_exitOk)
		{
			status = s;
			goto done;
		}
	}
	free(inputs);
	inputs = NULL;

	const char* const figures[] = {"snow", "slime"};
	for (int f = 0; f < 2; ++f)
	{
		if ((def->sets >> (3 + f) & 1u) == 0)
		{
			continue;
		}
		bool ran = false;
		bsVsRow* row = summary->rows + summary->rowCount;
		int s = bsVsFigure(def, device, figures[f], row, &ran);
		summary->rowCount += ran ? 1 : 0;
		if (s != bs_exitOk)
		{
			status = s;
			goto done;
		}
	}
	if (!def->selected)
	{
		bsVsPrintTargets(summary);
	}

done:
	if (device != NULL)
	{
		rtcReleaseDevice(device);
	}
	free(inputs);
	bsBvh_Destroy(&bvh);
	free(tris);
	free(summary);
	return status;
}

#endif
