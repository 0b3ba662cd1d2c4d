// test.h — tiny assertion macros for the test suites (Box2D style). Each suite is one function
// returning 0 on success; a failed ENSURE prints where and returns 1 from that function.
#pragma once

#include <math.h>
#include <stdio.h>

#define ENSURE(C)                                                                        \
	do                                                                                   \
	{                                                                                    \
		if (!(C))                                                                        \
		{                                                                                \
			fprintf(stderr, "%s:%d: ENSURE(%s) failed\n", __FILE__, __LINE__, #C);       \
			return 1;                                                                    \
		}                                                                                \
	} while (0)

#define ENSURE_SMALL(A, TOL)                                                             \
	do                                                                                   \
	{                                                                                    \
		double ensure_a_ = (double)(A);                                                  \
		if (!(fabs(ensure_a_) <= (TOL)))                                                 \
		{                                                                                \
			fprintf(stderr, "%s:%d: ENSURE_SMALL(%s, %s) failed: %.17g\n", __FILE__,     \
				__LINE__, #A, #TOL, ensure_a_);                                          \
			return 1;                                                                    \
		}                                                                                \
	} while (0)

// Runs a sub-test returning int; propagates failure.
#define RUN_SUBTEST(F)                                                                   \
	do                                                                                   \
	{                                                                                    \
		if ((F) != 0)                                                                    \
		{                                                                                \
			fprintf(stderr, "  in %s\n", #F);                                            \
			return 1;                                                                    \
		}                                                                                \
	} while (0)

// The suites (one file each).
int TriangleTest(void);
int KarabassiTest(void);
int ExactTest(void);
int ReferenceTest(void);
int BvhTest(void);
int BatchTest(void);
int ConfigTest(void);
int ObjTest(void);
int StepTest(void);
int WorldTest(void);
int DynamicsTest(void);
int EmitterTest(void);
int OutputTest(void);
int ProcessTest(void);
int RenderProgressTest(void);
int ImageTest(void);
int RayTest(void);
int ClosestTest(void);
int ContactTest(void);
int WeldTest(void);
int CoreTest(void);
int AccumulateTest(void);
int SurfaceTest(void);
int GridTest(void);
int FieldTest(void);
int RadialTest(void);
int GridTreeTest(void);

// Shared fixtures.
struct bsDistanceGrid;
int FieldMakeFloor(struct bsDistanceGrid* g);  // test_field.c
int InteractionTest(void);
int RigidTest(void);
int BodyTest(void);
int BodyDynTest(void);
int SensorTest(void);
int DispatchTest(void);
int RayBvhTest(void);
