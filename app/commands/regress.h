// regress.h — `blobsim regress SUITE`: a regression suite of rendered images. Each case of the suite
// is a config (with optional overrides) that is run and rendered with POV-Ray at a small fixed size,
// and whose image is compared with the blessed reference in the suite's ref/ folder under the case's
// limits (image_compare.h). Writes report.html (reference, new image and heatmap side by side) and
// report.json; `--update` blesses the new images as references. docs/regress.md describes the suite
// format.
#pragma once

// Exit statuses of `blobsim regress`: 0 every case passed (or was blessed), 1 a case failed (its image
// breaks a limit, its run failed, or it has no reference), 2 usage error, 3 the suite itself cannot
// be read or the report cannot be written.
enum
{
	bs_exitRegressFail = 1,
	bs_exitRegressError = 3,
};

// argv[0] is "regress".
int bsRegressMain(int argc, char** argv);
