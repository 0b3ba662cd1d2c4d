// Keyframe tracks (track.h) against their definition: the value at each key exactly, the straight
// line between keys (at quarter points), the first value before the first key and the last after the
// last, one key everywhere, and the validation of counts, times and values.
#include "test.h"
#include "blobsim/track.h"

#include <math.h>
#include <string.h>

static bsTrack ThreeKeys(void)
{
	bsTrack t;
	memset(&t, 0, sizeof(t));
	t.count = 3;
	t.time[0] = -1.0;
	t.value[0] = bsV3(1.0, 2.0, 3.0);
	t.time[1] = 0.5;
	t.value[1] = bsV3(4.0, -2.0, 3.0);
	t.time[2] = 2.5;
	t.value[2] = bsV3(0.0, 0.0, -5.0);
	return t;
}

static int SameVec(bsVec3 a, bsVec3 b, double tol)
{
	ENSURE_SMALL(a.x - b.x, tol);
	ENSURE_SMALL(a.y - b.y, tol);
	ENSURE_SMALL(a.z - b.z, tol);
	return 0;
}

static int AtAndBetween(void)
{
	bsTrack t = ThreeKeys();
	ENSURE(bsTrack_IsValid(&t));
	for (int k = 0; k < t.count; ++k)
	{
		bsVec3 v = bsTrack_At(&t, t.time[k]);
		ENSURE(memcmp(&v, &t.value[k], sizeof(v)) == 0);  // exactly the key's value
	}
	for (int k = 0; k + 1 < t.count; ++k)
	{
		for (int q = 1; q < 4; ++q)
		{
			double u = 0.25 * q;
			double time = t.time[k] + u * (t.time[k + 1] - t.time[k]);
			bsVec3 want = bsAdd(bsScale(1.0 - u, t.value[k]), bsScale(u, t.value[k + 1]));
			RUN_SUBTEST(SameVec(bsTrack_At(&t, time), want, 1e-14));
		}
	}
	// Before the first key, the first value; after the last, the last.
	RUN_SUBTEST(SameVec(bsTrack_At(&t, -100.0), t.value[0], 0.0));
	RUN_SUBTEST(SameVec(bsTrack_At(&t, -1.0 - 1e-9), t.value[0], 0.0));
	RUN_SUBTEST(SameVec(bsTrack_At(&t, 2.5 + 1e-9), t.value[2], 0.0));
	RUN_SUBTEST(SameVec(bsTrack_At(&t, INFINITY), t.value[2], 0.0));
	// One key: its value at every time.
	bsTrack one = bsConstantTrack(bsV3(7.0, 8.0, 9.0));
	ENSURE(bsTrack_IsValid(&one));
	RUN_SUBTEST(SameVec(bsTrack_At(&one, -3.0), bsV3(7.0, 8.0, 9.0), 0.0));
	RUN_SUBTEST(SameVec(bsTrack_At(&one, 3.0), bsV3(7.0, 8.0, 9.0), 0.0));
	return 0;
}

// Many keys: the binary search finds the right segment (a ramp v = t^2 at the keys, linear between).
static int ManyKeys(void)
{
	bsTrack t;
	memset(&t, 0, sizeof(t));
	t.count = BS_MAX_KEYS;
	for (int k = 0; k < t.count; ++k)
	{
		t.time[k] = 0.1 * k;
		t.value[k] = bsV3(t.time[k] * t.time[k], (double)k, 0.0);
	}
	ENSURE(bsTrack_IsValid(&t));
	for (int k = 0; k + 1 < t.count; ++k)
	{
		double mid = 0.5 * (t.time[k] + t.time[k + 1]);
		bsVec3 v = bsTrack_At(&t, mid);
		ENSURE_SMALL(v.y - (k + 0.5), 1e-12);
		ENSURE_SMALL(v.x - 0.5 * (t.value[k].x + t.value[k + 1].x), 1e-12);
	}
	return 0;
}

static int Validation(void)
{
	bsTrack t = ThreeKeys();
	t.time[2] = t.time[1];  // not strictly increasing
	ENSURE(bsTrack_FirstBadKey(&t) == 2);
	t = ThreeKeys();
	t.time[1] = -2.0;  // decreasing
	ENSURE(bsTrack_FirstBadKey(&t) == 1);
	t = ThreeKeys();
	t.time[1] = NAN;
	ENSURE(bsTrack_FirstBadKey(&t) == 1);
	t = ThreeKeys();
	t.value[2].y = NAN;
	ENSURE(bsTrack_FirstBadKey(&t) == 2);
	t = ThreeKeys();
	t.value[0].z = INFINITY;
	ENSURE(bsTrack_FirstBadKey(&t) == 0);
	t = ThreeKeys();
	t.count = 0;
	ENSURE(!bsTrack_IsValid(&t));
	t.count = BS_MAX_KEYS + 1;
	ENSURE(!bsTrack_IsValid(&t));
	return 0;
}

int TrackTest(void)
{
	RUN_SUBTEST(AtAndBetween());
	RUN_SUBTEST(ManyKeys());
	RUN_SUBTEST(Validation());
	return 0;
}
