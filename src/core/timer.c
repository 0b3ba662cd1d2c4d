#include "blobsim/base.h"

#include <time.h>

double bsNow(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
	{
		// CLOCK_MONOTONIC is mandatory on every platform we build for; keep a defined answer anyway.
		return (double)clock() / (double)CLOCKS_PER_SEC;
	}
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bsCpuNow(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
	{
		return (double)clock() / (double)CLOCKS_PER_SEC;
	}
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
