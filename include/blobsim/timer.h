// timer.h — wall-clock timing for the benchmark and the reports.
#pragma once

// Seconds on a monotonic clock (CLOCK_MONOTONIC): only differences are meaningful. Never goes back,
// unaffected by changes to the system time.
double bsNow(void);
