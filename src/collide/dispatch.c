// dispatch.c — which copy of the dispatched functions runs (dispatch.h).
#include "dispatch.h"

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
