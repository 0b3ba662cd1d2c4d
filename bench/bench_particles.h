// bench_particles.h — the particle-system part of `blobsim bench` (bench_particles.c).
#pragma once

#include "blobsim/particles.h"

#include <stdint.h>

#define BS_BENCH_DEFAULT_PARTICLES 1000000LL

// Times count particles packed in a box with granular interaction at 1 and 2 threads and prints the
// table; folds the final states into *checksum. 0, or 1 on a failure (out of memory, or different
// bytes at 1 and 2 threads).
int bsBenchParticles(long long count, uint64_t seed, uint64_t* checksum);

// A copy of from's particles into to (allocated here): the same start for each thread count.
bsResult bsBenchCopyParticles(const bsParticles* from, bsParticles* to);
