// bench_sensors.h — the sensor-particle part of `blobsim bench` (bench_sensors.c).
#pragma once

#include <stdint.h>

// Senin et al.'s section 5 benchmark: two "T" (3 sensor particles each) and two "W" (5 each) over the
// scripted approach of letters.h, `frames` queries each: the sensor query's time (mean, max, first
// query) and the exact BVH-BVH distance's on the same frames (CPU time of this thread per query), and
// the sensor separation's error against the exact distance (mean, median, 95th percentile, max) and
// its missed contacts. Folds the separations into *checksum. 0, or 1 on a failure.
int bsBenchSensors(int frames, uint64_t seed, uint64_t* checksum);
