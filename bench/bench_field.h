// bench_field.h — the distance/normal field part of `blobsim bench` (bench_field.c).
#pragma once

#include <stdint.h>

// Part 1 times the field's impact rule over count particles around a sphere (a gridResolution^3 grid,
// 64 by default: 4.2 MB dense, in the cache; 256: 268 MB, far beyond it), dense and
// compressed (field.h), nearest and trilinear lookup, in random and in cell order: the rule alone
// (bsField_ApplyRange, as the forces phase runs it, one thread) and through bsWorld_Step on one thread
// (no colliders, gravity and the field: the whole forces and move phases), in M particle-steps/s per
// core. Part 2 is the paper's Table 1: per-step CPU time of 800 and of count particles falling onto a
// scene of about 12,000 triangles with no collisions, the compressed grid, the dense grid and the
// exact swept-sphere BVH, with the memory of each. Folds the final states into *checksum. 0, or 1 on
// a failure.
int bsBenchField(long long count, uint64_t seed, int gridResolution, uint64_t* checksum);
