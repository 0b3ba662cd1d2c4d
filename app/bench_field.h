// bench_field.h — the distance/normal field part of `blobsim bench` (bench_field.c).
#pragma once

#include <stdint.h>

// Times the field's impact rule over count particles around a sphere (a 64^3 grid), nearest and
// trilinear lookup: the rule alone (bsField_Apply in a loop, one thread) and through bsWorld_Step on
// one thread (no colliders, gravity and the field: the whole forces and move phases), in M
// particle-steps/s per core. Folds the final states into *checksum. 0, or 1 on a failure.
int bsBenchField(long long count, uint64_t seed, uint64_t* checksum);
