#include "blobsim/base.h"

const char* bsResultString(bsResult result)
{
	switch (result)
	{
		case bs_ok:
			return "ok";
		case bs_errNonFinite:
			return "a coordinate or radius is NaN or infinite";
		case bs_errNegativeRadius:
			return "a radius is negative";
		case bs_errDegenerateTriangle:
			return "a triangle has zero area";
		case bs_errInvalidArgument:
			return "an argument is out of range";
		case bs_errOutOfMemory:
			return "out of memory";
		case bs_errTooLarge:
			return "too many elements";
		case bs_errUnstable:
			return "the step needs more substeps than allowed";
		case bs_resultCount:
			break;
	}
	return "unknown error";
}
