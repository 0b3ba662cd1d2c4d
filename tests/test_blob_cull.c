// test_blob_cull.c — the blob components left out because they cannot change the surface
// (bsBlobCull, blobsim/surface.h) against brute force: for random clusters dense enough that many
// components are buried, every component left out is put back and the field is sampled, with and
// without them, along random rays, at random points inside each left-out component's support and
// next to every crossing of the surface found on those rays: no sample lies on a different side of
// the threshold. A deliberately wrong bound (each component's value at a box's nearest point instead
// of its farthest) must fail the same check, so the check can fail. Also: the same answer for any
// thread count, centres and radii moved by up to the slack, and the errors.
#include "blob_cull.h"
#include "core.h"
#include "blobsim/rng.h"
#include "blobsim/surface.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum
{
	CullRays = 24,          // random rays through the clusters
	CullRaySamples = 400,   // samples a ray
	CullPoints = 300,       // random points in each left-out component's support
	CullLocalRays = 6,      // rays through each left-out component's centre
	CullLocalSamples = 60,  // samples across its support a ray
};

typedef struct CullSet
{
	bsVec3* centers;
	double* radii;
	size_t count;
	double lo[3], hi[3];  // the box of the supports
} CullSet;

// Clusters of components normally spread around random centres, radii 0.8 .. 1.2: deep inside a
// cluster the others' field is several times the threshold, near its rim it is not.
static int MakeClusters(CullSet* s, uint64_t seed, size_t clusters, size_t each, double spread)
{
	bsRng rng = bsMakeRng(seed);
	s->count = clusters * each;
	s->centers = malloc(s->count * sizeof(bsVec3));
	s->radii = malloc(s->count * sizeof(double));
	ENSURE(s->centers != NULL && s->radii != NULL);
	for (int a = 0; a < 3; ++a)
	{
		s->lo[a] = HUGE_VAL;
		s->hi[a] = -HUGE_VAL;
	}
	for (size_t c = 0; c < clusters; ++c)
	{
		bsVec3 mid = bsV3(bsRng_Range(&rng, -4, 4), bsRng_Range(&rng, -4, 4), bsRng_Range(&rng, -4, 4));
		for (size_t k = 0; k < each; ++k)
		{
			size_t i = c * each + k;
			// A normal deviate per axis (Box-Muller).
			double v[3];
			for (int a = 0; a < 3; ++a)
			{
				double u1 = bsRng_Uniform(&rng) + 1e-12, u2 = bsRng_Uniform(&rng);
				v[a] = spread * sqrt(-2.0 * log(u1)) * cos(2.0 * BS_PI * u2);
			}
			s->centers[i] = bsAdd(mid, bsV3(v[0], v[1], v[2]));
			s->radii[i] = bsRng_Range(&rng, 0.8, 1.2);
			double p[3] = {s->centers[i].x, s->centers[i].y, s->centers[i].z};
			for (int a = 0; a < 3; ++a)
			{
				s->lo[a] = fmin(s->lo[a], p[a] - s->radii[i]);
				s->hi[a] = fmax(s->hi[a], p[a] + s->radii[i]);
			}
		}
	}
	return 0;
}

static void FreeSet(CullSet* s)
{
	free(s->centers);
	free(s->radii);
}

// The field at p of the components with keep[i] == want (keep NULL: all), from its definition.
static double Field(const CullSet* s, const uint8_t* keep, int want, bsVec3 p, double strength)
{
	double f = 0.0;
	for (size_t i = 0; i < s->count; ++i)
	{
		if (keep != NULL && keep[i] != want)
		{
			continue;
		}
		bsVec3 v = bsSub(p, s->centers[i]);
		double u = 1.0 - bsDot(v, v) / (s->radii[i] * s->radii[i]);
		f += u > 0.0 ? strength * u * u : 0.0;
	}
	return f;
}

typedef struct CullCheck
{
	const CullSet* s;
	const uint8_t* keep;
	double strength, threshold;
	size_t samples, crossings, wrong;  // samples on a different side without the left-out components
} CullCheck;

// Is p on the same side of T with the left-out components as without them? Returns the full field.
static double Sample(CullCheck* c, bsVec3 p)
{
	double kept = Field(c->s, c->keep, 1, p, c->strength);
	double all = kept + Field(c->s, c->keep, 0, p, c->strength);
	c->samples += 1;
	c->wrong += (all >= c->threshold) != (kept >= c->threshold);
	return all;
}

// Samples a segment densely; around each crossing of the full surface between two samples, the
// crossing is found by bisection and the points just inside and outside it are sampled too.
static void SampleSegment(CullCheck* c, bsVec3 a, bsVec3 b, int n)
{
	double previous = 0.0;
	for (int k = 0; k <= n; ++k)
	{
		double t = (double)k / n;
		double f = Sample(c, bsAdd(a, bsScale(t, bsSub(b, a))));
		if (k > 0 && (f >= c->threshold) != (previous >= c->threshold))
		{
			double lo = (double)(k - 1) / n, hi = t;
			bool loInside = previous >= c->threshold;
			for (int it = 0; it < 40; ++it)
			{
				double mid = 0.5 * (lo + hi);
				bool inside = Field(c->s, NULL, 0, bsAdd(a, bsScale(mid, bsSub(b, a))), c->strength) >= c->threshold;
				if (inside == loInside)
				{
					lo = mid;
				}
				else
				{
					hi = mid;
				}
			}
			double len = bsLength(bsSub(b, a));
			for (double eps = 1e-2; eps >= 1e-7; eps *= 0.1)
			{
				Sample(c, bsAdd(a, bsScale(lo - eps / len, bsSub(b, a))));
				Sample(c, bsAdd(a, bsScale(hi + eps / len, bsSub(b, a))));
			}
			c->crossings += 1;
		}
		previous = f;
	}
}

static bsVec3 RandomDirection(bsRng* rng)
{
	for (;;)
	{
		bsVec3 v = bsV3(bsRng_Range(rng, -1, 1), bsRng_Range(rng, -1, 1), bsRng_Range(rng, -1, 1));
		double l2 = bsDot(v, v);
		if (l2 > 1e-4 && l2 <= 1.0)
		{
			return bsScale(1.0 / sqrt(l2), v);
		}
	}
}

// Counts the samples that fall on a different side without the left-out components.
static size_t CountWrong(const CullSet* s, const uint8_t* keep, double strength, double threshold, uint64_t seed)
{
	CullCheck c = {s, keep, strength, threshold, 0, 0, 0};
	bsRng rng = bsMakeRng(seed);
	bsVec3 lo = bsV3(s->lo[0], s->lo[1], s->lo[2]), hi = bsV3(s->hi[0], s->hi[1], s->hi[2]);
	bsVec3 mid = bsScale(0.5, bsAdd(lo, hi));
	double half = 0.5 * bsLength(bsSub(hi, lo));
	for (int r = 0; r < CullRays; ++r)
	{
		bsVec3 through = bsV3(bsRng_Range(&rng, lo.x, hi.x), bsRng_Range(&rng, lo.y, hi.y), bsRng_Range(&rng, lo.z, hi.z));
		bsVec3 d = RandomDirection(&rng);
		SampleSegment(&c, bsSub(through, bsScale(2.0 * half, d)), bsAdd(through, bsScale(2.0 * half, d)), CullRaySamples);
	}
	(void)mid;
	for (size_t i = 0; i < s->count; ++i)
	{
		if (keep[i])
		{
			continue;
		}
		double r = s->radii[i];
		for (int k = 0; k < CullPoints; ++k)
		{
			double rho = r * cbrt(bsRng_Uniform(&rng));
			Sample(&c, bsAdd(s->centers[i], bsScale(rho, RandomDirection(&rng))));
		}
		for (int k = 0; k < CullLocalRays; ++k)
		{
			bsVec3 d = RandomDirection(&rng);
			SampleSegment(&c, bsSub(s->centers[i], bsScale(r, d)), bsAdd(s->centers[i], bsScale(r, d)), CullLocalSamples);
		}
	}
	return c.wrong;
}

static bsBlobCullDef DefFor(const CullSet* s)
{
	bsBlobCullDef def = bsDefaultBlobCullDef();
	def.centers = s->centers;
	def.radii = s->radii;
	def.count = s->count;
	def.strength = 1.0;
	def.threshold = 0.6;
	return def;
}

// The rule against brute force on three random cluster sets, and the wrong rule caught on them.
static int BruteForceTest(void)
{
	size_t caught = 0;
	for (uint64_t seed = 1; seed <= 3; ++seed)
	{
		CullSet s;
		RUN_SUBTEST(MakeClusters(&s, seed, 2, 250, 1.1));
		bsBlobCullDef def = DefFor(&s);
		uint8_t* keep = malloc(s.count);
		uint8_t* wrong = malloc(s.count);
		ENSURE(keep != NULL && wrong != NULL);
		size_t dropped = 0, wrongDropped = 0;
		ENSURE(bsBlobCull(&def, keep, &dropped) == bs_ok);
		size_t zeros = 0;
		for (size_t i = 0; i < s.count; ++i)
		{
			zeros += keep[i] == 0;
		}
		ENSURE(zeros == dropped);
		// Dense enough that the rule has work to do, and still keeps the rim.
		ENSURE(dropped >= s.count / 10 && dropped < s.count / 2);
		size_t bad = CountWrong(&s, keep, def.strength, def.threshold, seed);
		if (bad != 0)
		{
			fprintf(stderr, "seed %llu: %zu of %zu left out change %zu samples\n", (unsigned long long)seed, dropped,
				s.count, bad);
		}
		ENSURE(bad == 0);
		// The negative control: the nearest point's value is an upper bound, not a lower one.
		ENSURE(bsBlobCull_WithBound(&def, bs_cullNearestWrong, wrong, &wrongDropped) == bs_ok);
		ENSURE(wrongDropped > dropped);
		size_t wbad = CountWrong(&s, wrong, def.strength, def.threshold, seed);
		caught += wbad > 0;
		free(keep);
		free(wrong);
		FreeSet(&s);
	}
	ENSURE(caught == 3);
	return 0;
}

// The same components are left out at 1, 2 and 3 threads and all cores.
static int ThreadsTest(void)
{
	CullSet s;
	RUN_SUBTEST(MakeClusters(&s, 7, 3, 400, 1.2));
	bsBlobCullDef def = DefFor(&s);
	uint8_t* first = malloc(s.count);
	uint8_t* other = malloc(s.count);
	ENSURE(first != NULL && other != NULL);
	size_t dropped = 0, again = 0;
	def.threads = 1;
	ENSURE(bsBlobCull(&def, first, &dropped) == bs_ok && dropped > 0);
	int threads[] = {2, 3, 0};
	for (int k = 0; k < 3; ++k)
	{
		def.threads = threads[k];
		ENSURE(bsBlobCull(&def, other, &again) == bs_ok);
		ENSURE(again == dropped && memcmp(first, other, s.count) == 0);
	}
	free(first);
	free(other);
	FreeSet(&s);
	return 0;
}

// Centres and radii written up to the slack away (as the writer rounds them): the surface of the
// moved components that stay is still that of all the moved components. A large slack (a tenth of
// a radius), so that the check bites: with the slack's sign flipped in the bounds it fails.
static int SlackTest(void)
{
	CullSet s;
	RUN_SUBTEST(MakeClusters(&s, 11, 2, 250, 1.1));
	bsBlobCullDef def = DefFor(&s);
	def.slack = 0.1;
	uint8_t* keep = malloc(s.count);
	ENSURE(keep != NULL);
	size_t dropped = 0;
	ENSURE(bsBlobCull(&def, keep, &dropped) == bs_ok && dropped > 0);
	bsRng rng = bsMakeRng(12);
	for (size_t i = 0; i < s.count; ++i)
	{
		s.centers[i] = bsAdd(s.centers[i], bsScale(def.slack * bsRng_Uniform(&rng), RandomDirection(&rng)));
		s.radii[i] += bsRng_Range(&rng, -def.slack, def.slack);
	}
	ENSURE(CountWrong(&s, keep, def.strength, def.threshold, 13) == 0);
	free(keep);
	FreeSet(&s);
	return 0;
}

// A lone component, two apart, one deep inside a shell of others, and the errors.
static int SmallCasesTest(void)
{
	bsVec3 c[15];
	double r[15];
	uint8_t keep[15];
	size_t dropped = 99;
	bsBlobCullDef def = bsDefaultBlobCullDef();
	def.centers = c;
	def.radii = r;
	c[0] = bsV3(0, 0, 0);
	r[0] = 1.0;
	def.count = 1;
	ENSURE(bsBlobCull(&def, keep, &dropped) == bs_ok && dropped == 0 && keep[0] == 1);
	// The centre of a cube of 8 corners and 6 face centres at 0.35 with radius 1: the others give
	// well over T everywhere within its radius 0.4.
	c[0] = bsV3(0, 0, 0);
	r[0] = 0.4;
	int n = 1;
	for (int k = 0; k < 8; ++k)
	{
		c[n] = bsV3(k & 1 ? 0.35 : -0.35, k & 2 ? 0.35 : -0.35, k & 4 ? 0.35 : -0.35);
		r[n++] = 1.0;
	}
	for (int a = 0; a < 3; ++a)
	{
		for (int sgn = -1; sgn <= 1; sgn += 2)
		{
			double v[3] = {0, 0, 0};
			v[a] = 0.35 * sgn;
			c[n] = bsV3(v[0], v[1], v[2]);
			r[n++] = 1.0;
		}
	}
	def.count = (size_t)n;
	ENSURE(bsBlobCull(&def, keep, &dropped) == bs_ok && keep[0] == 0 && dropped >= 1);
	// Far apart: nothing to leave out.
	c[1] = bsV3(10, 0, 0);
	def.count = 2;
	ENSURE(bsBlobCull(&def, keep, &dropped) == bs_ok && dropped == 0 && keep[0] == 1 && keep[1] == 1);
	// Errors.
	bsBlobCullDef bad = def;
	bad.threshold = 1.5;
	ENSURE(bsBlobCull(&bad, keep, &dropped) == bs_errInvalidArgument);
	bad = def;
	bad.depth = bs_blobCullMaxDepth + 1;
	ENSURE(bsBlobCull(&bad, keep, &dropped) == bs_errInvalidArgument);
	bad = def;
	bad.slack = -1.0;
	ENSURE(bsBlobCull(&bad, keep, &dropped) == bs_errInvalidArgument);
	bad = def;
	bad.centers = NULL;
	ENSURE(bsBlobCull(&bad, keep, &dropped) == bs_errInvalidArgument);
	r[1] = 0.0;
	ENSURE(bsBlobCull(&def, keep, &dropped) == bs_errInvalidArgument);
	r[1] = 1.0;
	c[1].y = NAN;
	ENSURE(bsBlobCull(&def, keep, &dropped) == bs_errNonFinite && keep[0] == 1 && keep[1] == 1);
	return 0;
}

int BlobCullTest(void)
{
	RUN_SUBTEST(SmallCasesTest());
	RUN_SUBTEST(BruteForceTest());
	RUN_SUBTEST(ThreadsTest());
	RUN_SUBTEST(SlackTest());
	return 0;
}
