// array.h — growable arrays: the one place that grows an array, checks that its bytes fit in a
// size_t, and fails softly when memory is short (the caller answers bs_errOutOfMemory, or its own
// message, exactly as before). Private like core.h beside it, and seen by every layer.
//
// Two designs were weighed:
// - Box2D v3's (src/array.h): B2_ARRAY_DECLARE(T, prefix) declares a struct {T* data; int count,
//   capacity;} and inline functions for it (Push, Reserve, ...). Typed through and through, and the
//   pointer, count and capacity cannot come apart. But every array field becomes such a struct
//   (world->births.data[i], world->births.count), which rewrites every use of every array in the
//   code, and it does not fit the parallel arrays that share one count and one capacity (a particle
//   set's position, velocity, radius, state and id; the grids' slot arrays).
// - The one here: two macros over the pointer and capacity fields the structs already have, and the
//   functions under them. The element size comes from the pointer (sizeof *data), so it cannot be
//   wrong; the capacity must be a size_t lvalue (its address is taken, so another type does not
//   compile); parallel arrays share one capacity through bsArray_NextCapacity and BS_ARRAY_RESIZE.
//   The price: the macros' arguments are evaluated more than once (pass plain lvalues), and nothing
//   ties a count to its pointer.
// Chosen: the second, for what it leaves alone: a call site changes where it grows and nowhere else.
//
//   if (!BS_ARRAY_RESERVE(world->births, world->birthCapacity, world->birthCount + 1))
//   {
//       return bs_errOutOfMemory;
//   }
//   world->births[world->birthCount++] = birth;
#pragma once

#include "core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The smallest capacity a growing array takes: room for a few elements before the first copy.
#define BS_ARRAY_MIN_CAPACITY 16

// The capacity an array of `capacity` elements grows to, to hold `need`: twice as many (so n
// appends copy fewer than 2n elements in all), at least BS_ARRAY_MIN_CAPACITY, at least need.
static inline size_t bsArray_NextCapacity(size_t capacity, size_t need)
{
	size_t next = capacity <= SIZE_MAX / 2 ? 2 * capacity : SIZE_MAX;
	next = next > BS_ARRAY_MIN_CAPACITY ? next : BS_ARRAY_MIN_CAPACITY;
	return next > need ? next : need;
}

// Reallocates the array whose pointer is at `slot` (a T**) to exactly count elements of size bytes,
// keeping the first ones. False, with the array untouched, when count * size does not fit in a
// size_t or memory is short. Zero elements keep a block of one byte (realloc of zero bytes may free
// the block and answer NULL). The pointer is read and written through memcpy, so one function
// serves every T* without breaking the aliasing rules (it assumes, as every platform blobsim builds
// on does, that a T* and a void* are stored alike).
static inline bool bsArray_Resize(void* slot, size_t count, size_t size)
{
	BS_ASSERT(slot != NULL && size > 0);
	if (count > SIZE_MAX / size)
	{
		return false;
	}
	void* data;
	memcpy(&data, slot, sizeof data);
	void* grown = realloc(data, count > 0 ? count * size : 1);
	if (grown == NULL)
	{
		return false;
	}
	memcpy(slot, &grown, sizeof grown);
	return true;
}

// Grows the array at `slot` (a T**) with *capacity elements of size bytes to hold at least need,
// to bsArray_NextCapacity (or to need exactly when that one's bytes overflow). True when it holds
// them; false, with the array and *capacity untouched, on overflow or when memory is short.
static inline bool bsArray_Reserve(void* slot, size_t* capacity, size_t need, size_t size)
{
	if (need <= *capacity)
	{
		return true;
	}
	size_t next = bsArray_NextCapacity(*capacity, need);
	next = next <= SIZE_MAX / size ? next : need;
	if (!bsArray_Resize(slot, next, size))
	{
		return false;
	}
	*capacity = next;
	return true;
}

// BS_ARRAY_RESERVE(data, capacity, need): room for at least need elements in data (a T* lvalue)
// whose capacity (a size_t lvalue) counts its elements, by doubling. True when there is; false,
// with both untouched, when the bytes overflow or memory is short.
#define BS_ARRAY_RESERVE(data, capacity, need) bsArray_Reserve(&(data), &(capacity), (need), sizeof *(data))

// BS_ARRAY_RESIZE(data, count): data (a T* lvalue) reallocated to exactly count elements: the
// parallel arrays of one shared capacity, a block shrunk to its final count. True, or false with
// data untouched.
#define BS_ARRAY_RESIZE(data, count) bsArray_Resize(&(data), (count), sizeof *(data))
