// test_core.c — the chores of src/core (core.h, array.h): π to the bit, BS_COUNT, and the growable
// array's growth rule, its appends, its exact resizes, and its refusals (an element count whose
// bytes overflow a size_t fails before any allocation and leaves the array as it was).
#include "test.h"

#include "array.h"
#include "core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int Constants(void)
{
	// The double nearest π (M_PI's), and the spellings the code replaced give the same bits.
	ENSURE(BS_PI == 3.141592653589793);
	ENSURE(2.0 * BS_PI == 6.283185307179586 && 4.0 * BS_PI == 12.566370614359172953850573533118);
	ENSURE(0.5 * BS_PI == 1.5707963267948966 && 0.1 * 180.0 / BS_PI == 5.729577951308232);
	int table[7];
	ENSURE(BS_COUNT(table) == 7);
	BS_ASSERT(BS_COUNT(table) == 7);
	return 0;
}

static int NextCapacity(void)
{
	ENSURE(bsArray_NextCapacity(0, 1) == BS_ARRAY_MIN_CAPACITY);
	ENSURE(bsArray_NextCapacity(16, 17) == 32);
	ENSURE(bsArray_NextCapacity(16, 100) == 100);  // a jump past twice: exactly what is needed
	ENSURE(bsArray_NextCapacity(SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 2) == SIZE_MAX);  // no wrap
	return 0;
}

// Appends by BS_ARRAY_RESERVE keep every element, and the copies stay few: the capacity at least
// doubles each time it moves.
static int Appends(void)
{
	uint32_t* data = NULL;
	size_t count = 0, capacity = 0;
	int moves = 0;
	for (uint32_t i = 0; i < 100000; ++i)
	{
		size_t before = capacity;
		ENSURE(BS_ARRAY_RESERVE(data, capacity, count + 1));
		ENSURE(capacity >= count + 1);
		if (capacity != before)
		{
			ENSURE(capacity >= 2 * before);
			moves += 1;
		}
		data[count++] = i * 7u;
	}
	ENSURE(moves <= 14);  // 16 * 2^13 > 100000
	for (uint32_t i = 0; i < 100000; ++i)
	{
		ENSURE(data[i] == i * 7u);
	}
	ENSURE(BS_ARRAY_RESERVE(data, capacity, 10));  // already room: nothing moves
	free(data);
	return 0;
}

// Exact resizes (parallel arrays, shrinks), zero elements included.
static int Resizes(void)
{
	double* data = NULL;
	ENSURE(BS_ARRAY_RESIZE(data, 5) && data != NULL);
	for (int i = 0; i < 5; ++i)
	{
		data[i] = 0.5 * i;
	}
	ENSURE(BS_ARRAY_RESIZE(data, 3) && data[2] == 1.0);
	ENSURE(BS_ARRAY_RESIZE(data, 0) && data != NULL);  // a block of its own, never a freed pointer
	free(data);
	return 0;
}

// Counts whose bytes overflow a size_t: false, and the array, its elements and its capacity as they
// were.
static int Overflows(void)
{
	double* data = NULL;
	size_t capacity = 0;
	ENSURE(BS_ARRAY_RESERVE(data, capacity, 4));
	data[3] = 42.0;
	double* before = data;
	size_t kept = capacity;
	ENSURE(!BS_ARRAY_RESERVE(data, capacity, SIZE_MAX / sizeof(double) + 1));
	ENSURE(!BS_ARRAY_RESERVE(data, capacity, SIZE_MAX));
	ENSURE(!BS_ARRAY_RESIZE(data, SIZE_MAX / 2));
	ENSURE(data == before && capacity == kept && data[3] == 42.0);
	// Rows of several elements (bsArray_Reserve with the row's size), as the contact springs are.
	ENSURE(!bsArray_Reserve(&data, &capacity, SIZE_MAX / 24 + 1, 3 * sizeof(double)));
	ENSURE(data == before && capacity == kept);
	free(data);
	return 0;
}

int CoreTest(void)
{
	RUN_SUBTEST(Constants());
	RUN_SUBTEST(NextCapacity());
	RUN_SUBTEST(Appends());
	RUN_SUBTEST(Resizes());
	RUN_SUBTEST(Overflows());
	return 0;
}
