// compare.h — `blobsim compare A.png B.png`: the metrics of image_compare.h on two PNG files, an
// optional heatmap, and pass/fail limits. The library part (image.h, image_compare.h) is what other
// commands reuse; this is only the command line around it.
#pragma once

// Exit statuses of `blobsim compare`. 0 and 2 are those of every command (cli.h); a comparison that
// breaks a limit is 1 (like cmp and diff: "the images differ"), so an error that prevents comparing
// (an unreadable or corrupt file, different sizes, an unwritable heatmap) gets its own status, 3.
enum
{
	bs_exitCompareFail = 1,
	bs_exitCompareError = 3,
};

// argv[0] is "compare". Returns 0 pass, 1 fail, 2 usage error, 3 error.
int bsCompareMain(int argc, char** argv);
