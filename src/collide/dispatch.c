// dispatch.c — which copy of the dispatched functions runs (dispatch.h).
#include "dispatch.h"

#include "collide_internal.h"  // BS_EXACT4

#include <stdlib.h>
#include <string.h>

bool bs_dispatchLanes = false;

void bsDispatch_SetLanes(bool on)
{
	bs_dispatchLanes = BS_EXACT4 && on;
}

#if BS_EXACT4
// Once, before main: the lanes unless BLOBSIM_SCALAR_SWEEP=1.
__attribute__((constructor)) static void bsDispatch_InitLanes(void)
{
	const char* scalar = getenv("BLOBSIM_SCALAR_SWEEP");
	bsDispatch_SetLanes(scalar == NULL || strcmp(scalar, "1") != 0);
}
#endif

#if BS_DISPATCH_AVX2

// False until the constructor below has asked the CPU: the default copy is always safe.
bool bs_dispatchAvx2 = false;

// Once, before main: __builtin_cpu_supports also checks that the OS saves the AVX registers.
__attribute__((constructor)) static void bsDispatch_Init(void)
{
	bs_dispatchAvx2 = bsDispatch_HasAvx2();
}

bool bsDispatch_HasAvx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") != 0;
}

void bsDispatch_SetMode(bsDispatchMode mode)
{
	bs_dispatchAvx2 = mode == bs_dispatchBest && bsDispatch_HasAvx2();
}

#else

bool bsDispatch_HasAvx2(void)
{
	return false;
}

void bsDispatch_SetMode(bsDispatchMode mode)
{
	(void)mode;
}

#endif
