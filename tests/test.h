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

// The suites, one file each: tests/meson.build's unit_suites generates test_suites.h, whose
// BS_TEST_SUITES lists BS_TEST_SUITE(name, function) for each.
#include "test_suites.h"

#define BS_TEST_SUITE(NAME, FN) int FN(void);
BS_TEST_SUITES
#undef BS_TEST_SUITE

// Shared fixtures.
struct bsDistanceGrid;
int FieldMakeFloor(struct bsDistanceGrid* g);  // test_field.c
