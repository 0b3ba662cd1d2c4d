// result.h — error codes shared by every module. Functions that can fail on bad input return one.
#pragma once

typedef enum bsResult
{
	bs_ok = 0,
	bs_errNonFinite,           // a NaN or infinite coordinate or radius
	bs_errNegativeRadius,      // a sphere radius below zero
	bs_errDegenerateTriangle,  // a triangle with zero area (collinear or coincident vertices)
	bs_errInvalidArgument,     // a count, pointer or option out of range
	bs_errOutOfMemory,         // an allocation failed or its size would overflow
	bs_errTooLarge,            // more triangles or particles than the index type can hold
	bs_errUnstable,            // a step would need more substeps than allowed
	bs_resultCount
} bsResult;

// A short human-readable description, never NULL.
const char* bsResultString(bsResult result);
