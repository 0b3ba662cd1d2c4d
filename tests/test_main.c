// test_main.c — runs the named suites (all of them when none is named).
#include "test.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct Suite
{
	const char* name;
	int (*fn)(void);
} Suite;

static const Suite suites[] = {
	{"triangle", TriangleTest},
	{"karabassi", KarabassiTest},
	{"exact", ExactTest},
	{"reference", ReferenceTest},
	{"bvh", BvhTest},
	{"batch", BatchTest},
	{"config", ConfigTest},
	{"obj", ObjTest},
	{"step", StepTest},
	{"world", WorldTest},
	{"dynamics", DynamicsTest},
	{"emitter", EmitterTest},
	{"output", OutputTest},
	{"process", ProcessTest},
	{"render-progress", RenderProgressTest},
	{"image", ImageTest},
	{"ray", RayTest},
	{"closest", ClosestTest},
	{"contact", ContactTest},
	{"accumulate", AccumulateTest},
	{"surface", SurfaceTest},
	{"grid", GridTest},
	{"field", FieldTest},
	{"radial", RadialTest},
	{"gridtree", GridTreeTest},
	{"interaction", InteractionTest},
	{"rigid", RigidTest},
	{"body", BodyTest},
	{"bodydyn", BodyDynTest},
	{"sensor", SensorTest},
	{"weld", WeldTest},
	{"core", CoreTest},
	{"dispatch", DispatchTest},
	{"raybvh", RayBvhTest},
};

enum
{
	suiteCount = sizeof(suites) / sizeof(suites[0])
};

static int RunSuite(const Suite* s)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int rc = s->fn();
	clock_gettime(CLOCK_MONOTONIC, &b);
	double secs = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
	printf("%-10s %s (%.2f s)\n", s->name, rc == 0 ? "ok" : "FAILED", secs);
	fflush(stdout);
	return rc;
}

int main(int argc, char** argv)
{
	int failed = 0;
	if (argc < 2)
	{
		for (int i = 0; i < suiteCount; ++i)
		{
			failed += RunSuite(suites + i) != 0;
		}
		return failed != 0;
	}
	for (int a = 1; a < argc; ++a)
	{
		int found = 0;
		for (int i = 0; i < suiteCount; ++i)
		{
			if (strcmp(argv[a], suites[i].name) == 0)
			{
				failed += RunSuite(suites + i) != 0;
				found = 1;
			}
		}
		if (!found)
		{
			fprintf(stderr, "unknown suite '%s'\n", argv[a]);
			return 2;
		}
	}
	return failed != 0;
}
