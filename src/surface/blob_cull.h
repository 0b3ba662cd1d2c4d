// blob_cull.h — the culling rule with its bound chosen (private: for the tests). bsBlobCull uses
// bs_cullFarthest; bs_cullNearestWrong takes each component's value at the box's NEAREST point, an
// upper bound passed off as a lower one: a deliberately wrong rule the tests must catch.
#pragma once

#include "blobsim/surface.h"

typedef enum bsBlobCullBound
{
	bs_cullFarthest,
	bs_cullNearestWrong,
} bsBlobCullBound;

bsResult bsBlobCull_WithBound(const bsBlobCullDef* def, bsBlobCullBound bound, uint8_t* keep, size_t* dropped);
