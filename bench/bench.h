// bench.h — `blobsim bench`: the paper's Table 1 (10 million random triangle tests per row) and the
// BVH on a procedural scene (swept-sphere queries per second, one thread and all threads).
#pragma once

#include "cli.h"

// Runs `blobsim bench`. argv[0] is the command name ("bench"), options follow. Returns an exit
// status (bs_exitOk, bs_exitFailure or bs_exitUsage).
int bsBenchMain(int argc, char** argv);
