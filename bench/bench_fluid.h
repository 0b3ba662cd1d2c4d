// bench_fluid.h — the fluid part of `blobsim bench` (bench_fluid.c).
#pragma once

#include <stdint.h>

// Which materials the fluid part runs (--fluid-material).
enum
{
	bs_benchFluidWater = 1,
	bs_benchFluidSlime = 2,
};

// A dam-break column of about count particles per material of `materials` (bs_benchFluid* bits),
// stepped `frames` frames of 1/24 s from rest at 1 and 2 threads: seconds a frame, substeps a frame,
// the solves' iterations a substep, bytes a particle. Folds the final states into *checksum. 0, or 1
// on a failure (out of memory, a bad preset, or different bytes at 1 and 2 threads).
int bsBenchFluid(long long count, int frames, unsigned materials, uint64_t* checksum);
