// grid_slice_command.c — `blobsim grid slice`: the paper's Figure 1, a slice of a distance/normal grid
// as a PNG (grid_slice.h).
#include "grid_command.h"
#include "grid_slice.h"

#include "cli.h"
#include "files.h"
#include "image.h"

#include "blobsim/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BS_SLICE_ERR_MAX 4096

static void bsGridSliceUsage(FILE* f)
{
	fprintf(f,
		"usage: blobsim grid slice FILE.dng|CONFIG.json|MESH.obj -o FILE.png [options]\n"
		"\n"
		"A plane slice of a distance/normal grid as a PNG, as in Figure 1 of Ilmonen, Takala & Laitinen:\n"
		"the distance shaded (darker is closer; grey outside, warm inside), the surface's contour in\n"
		"yellow and the normals' part in the plane as blue arrows, one a grid cell (or one every few\n"
		"cells, so they stay apart). A config's grid is its field block's (file, cache or build, as a run\n"
		"uses); a config without one, or a mesh, gets a grid built with the default settings.\n"
		"\n"
		"options:\n"
		"  -o, --output FILE    the PNG to write (required; written whole or not at all)\n"
		"  --axis A             the plane's normal: x, y or z (default z); the picture's right and up\n"
		"                       are (y, z), (x, z) or (x, y)\n"
		"  --at T               where along the axis, 0..1 from the first cell centre to the last\n"
		"                       (default 0.5)\n"
		"  --size N             pixels along the picture's longer side (16-8192, default 800)\n"
		"  --range D            the distance shaded from dark to light, scene units (default: the\n"
		"                       slice's largest)\n"
		"  --nearest            the paper's nearest-cell lookup (default: trilinear)\n"
		"  --resolution N       cells along the longest axis of a grid built here (default 64)\n"
		"  --quiet              print nothing on success\n"
		"  -h, --help           show this help and exit\n"
		"\n"
		"Exit status: 0 success, 1 failure, 2 usage error.\n");
}

typedef struct bsSliceArgs
{
	const char* input;
	const char* output;
	bsGridSliceDef def;
	bsDistanceGridDef build;
	bool quiet;
} bsSliceArgs;

// One option at argv[*i]: 1 matched, 0 not an option of slice, -1 usage error.
static int bsSliceOption(int argc, char** argv, int* i, void* context)
{
	bsSliceArgs* a = context;
	const char* cmd = "grid slice";
	const char* v = NULL;
	long long n = 0;
	int m;
	if ((m = bsMatchOption(cmd, "--output", argc, argv, i, &v)) != 0 ||
		(m = bsMatchOption(cmd, "-o", argc, argv, i, &v)) != 0)
	{
		a->output = v;
		return m;
	}
	if ((m = bsMatchOption(cmd, "--axis", argc, argv, i, &v)) != 0)
	{
		if (m > 0 && (strcmp(v, "x") == 0 || strcmp(v, "y") == 0 || strcmp(v, "z") == 0))
		{
			a->def.axis = v[0] - 'x';
			return 1;
		}
		if (m > 0)
		{
			bsUsageError(cmd, "--axis: expected x, y or z, got", v);
		}
		return -1;
	}
	if ((m = bsMatchOption(cmd, "--at", argc, argv, i, &v)) != 0)
	{
		return m < 0 ? -1 : (bsParseDoubleOption(cmd, "--at", v, 0.0, 1.0, &a->def.at) ? 1 : -1);
	}
	if ((m = bsMatchOption(cmd, "--range", argc, argv, i, &v)) != 0)
	{
		return m < 0 ? -1 : (bsParseDoubleOption(cmd, "--range", v, 1e-300, 1e300, &a->def.range) ? 1 : -1);
	}
	if ((m = bsMatchOption(cmd, "--size", argc, argv, i, &v)) != 0)
	{
		bool ok = m > 0 && bsParseIntOption(cmd, "--size", v, 16, 8192, &n);
		a->def.size = (int)n;
		return ok ? 1 : -1;
	}
	if ((m = bsMatchOption(cmd, "--resolution", argc, argv, i, &v)) != 0)
	{
		bool ok = m > 0 && bsParseIntOption(cmd, "--resolution", v, 9, 65536, &n);
		a->build.resolution = (int)n;
		return ok ? 1 : -1;
	}
	const char* flags[] = {"--nearest", "--quiet"};
	bool* targets[] = {&a->def.nearest, &a->quiet};
	for (int k = 0; k < 2; ++k)
	{
		if (strcmp(argv[*i], flags[k]) == 0)
		{
			*targets[k] = true;
			*i += 1;
			return 1;
		}
	}
	return 0;
}

// Parses slice's arguments (argv[0] is "slice"). Returns -1 to go on, else the exit status.
static int bsSliceParse(int argc, char** argv, bsSliceArgs* a)
{
	memset(a, 0, sizeof *a);
	a->def = bsDefaultGridSliceDef();
	a->build = bsDefaultDistanceGridDef();
	int status = bsGridParseArgs("grid slice", argc, argv, bsSliceOption, a, bsGridSliceUsage, &a->input);
	if (status >= 0)
	{
		return status;
	}
	if (a->input == NULL || a->output == NULL)
	{
		bsUsageError("grid slice", a->input == NULL ? "missing the grid, config or mesh" : "missing -o FILE.png",
			NULL);
		return bs_exitUsage;
	}
	return -1;
}

static int bsSliceFail(const char* message)
{
	fprintf(stderr, "blobsim grid slice: %s\n", message);
	return bs_exitFailure;
}

int bsGridSliceMain(int argc, char** argv)
{
	bsSliceArgs a;
	int status = bsSliceParse(argc, argv, &a);
	if (status >= 0)
	{
		return status;
	}
	char err[BS_SLICE_ERR_MAX];
	// A file at -o that is not a PNG nor listed as an output is the user's: refused, never replaced.
	static const char magic[] = "\x89" "PNG\r\n\x1a\n";
	if (!bsCheckReplaceable(a.output, magic, sizeof(magic) - 1, err, sizeof err))
	{
		return bsSliceFail(err);
	}
	bsDistanceGrid grid;
	if (!bsGridLoadInput(a.input, &a.build, &grid, err, sizeof err))
	{
		return bsSliceFail(err);
	}
	bsGridSlice slice;
	bsImage image = {0};
	char detail[256];
	bool ok = bsGridSlice_Sample(&grid, &a.def, &slice, detail, sizeof detail);
	if (!ok)
	{
		snprintf(err, sizeof err, "%s: %s", a.input, detail);
	}
	ok = ok && bsGridSlice_Render(&slice, &image, err, sizeof err) && bsImage_SavePng(a.output, &image, err, sizeof err);
	if (ok && !a.quiet)
	{
		printf("%s: grid %d x %d x %d cells of %g; slice %c = %g, %d x %d pixels, %d arrows, range %g\n", a.input,
			grid.nx, grid.ny, grid.nz, grid.cellSize, "xyz"[slice.axis], slice.coordinate, slice.width,
			slice.height, slice.arrowCount, slice.range);
		printf("wrote %s\n", a.output);
	}
	bsImage_Free(&image);
	bsGridSlice_Free(&slice);
	bsDistanceGrid_Free(&grid);
	return ok ? bs_exitOk : bsSliceFail(err);
}
