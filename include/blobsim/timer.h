// timer.h — wall-clock timing for the benchmark and the reports.
#pragma once

// Seconds on a monotonic clock (CLOCK_MONOTONIC): only differences are meaningful. Never goes back,
// unaffected by changes to the system time.
double bsNow(void);

// Seconds of CPU time used by the whole process so far (all threads: CLOCK_PROCESS_CPUTIME_ID), for
// benchmarks on a shared machine, where the wall clock says more about the load than the code.
double bsCpuNow(void);
