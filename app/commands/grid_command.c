// grid_command.c — `blobsim grid build` and `blobsim grid info`: the distance/normal grid of a mesh or of a
// config's meshes, written to and described from a .dng file (io/dng.h).
#include "grid_command.h"

#include "cli.h"
#include "config.h"
#include "dng.h"
#include "environment.h"
#include "field_grid.h"
#include "files.h"
#include "obj.h"

#include "blobsim/base.h"
#include "blobsim/field.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BS_GRID_ERR_MAX 4096

static void bsGridUsage(FILE* f)
{
	fprintf(f,
		"usage: blobsim grid build MESH.obj|CONFIG.json -o FILE.dng [options]\n"
		"       blobsim grid info FILE.dng\n"
		"       blobsim grid slice FILE.dng|CONFIG.json|MESH.obj -o FILE.png [options] (see grid slice --help)\n"
		"\n"
		"build: the distance/normal grid of Ilmonen, Takala & Laitinen (docs/dngrid.md) around an OBJ\n"
		"mesh, or around every mesh of a config (transformed as the config says; planes are not part of\n"
		"the grid). Each cell holds the signed distance from its centre to the nearest surface (negative\n"
		"inside, by generalized winding number; unsigned near open sheets) and a smoothed unit normal.\n"
		"info: what a grid file holds.\n"
		"slice: a plane of the grid as a PNG (distance shading, normal arrows, the surface's contour).\n"
		"\n"
		"build options:\n"
		"  -o, --output FILE    the grid file to write (required)\n"
		"  --cell H             the cell's edge, in scene units\n"
		"  --resolution N       or: N cells along the longest axis, margins included (default 64)\n"
		"  --margin M           cells beyond the mesh's bounds on every side (0-1024, default 4)\n"
		"  --band B             exact distances within B cells of the surface (1-64, default 3)\n"
		"  --exact-far          exact distances beyond the band too (default: propagated, never below\n"
		"                       the true distance and above it by at most half a cell or 3%% of it;\n"
		"                       exact costs much more inside large solids)\n"
		"  --method M           normals by 'blur' (blurred surface normals, the default) or 'potential'\n"
		"                       (the gradient of a blurred occupancy: for thin objects)\n"
		"  --blur-radius R      the kernel's radius in cells (1-8, default 3)\n"
		"  --blur-rounds K      blur rounds (0-64, default 4)\n"
		"  --compress           zlib the cells\n"
		"  --threads N          worker threads (0: all cores, the default); the file is the same for any N\n"
		"  --quiet              print nothing on success\n"
		"  -h, --help           show this help and exit\n"
		"\n"
		"Exit status: 0 success, 1 failure (a file cannot be read or written, a bad mesh or grid file),\n"
		"2 usage error.\n");
}

typedef struct bsGridArgs
{
	const char* input;
	const char* output;
	bsDistanceGridDef def;
	bool compress;
	bool quiet;
} bsGridArgs;

static bool bsGridInt(const char* option, const char* value, long long lo, long long hi, int* out)
{
	long long v = 0;
	if (!bsParseIntOption("grid build", option, value, lo, hi, &v))
	{
		return false;
	}
	*out = (int)v;
	return true;
}

// One option at argv[*i]: 1 matched, 0 not an option of build, -1 usage error.
static int bsGridOption(int argc, char** argv, int* i, bsGridArgs* a, bool* cellGiven, bool* resolutionGiven)
{
	const char* cmd = "grid build";
	const char* v = NULL;
	int m;
	if ((m = bsMatchOption(cmd, "--output", argc, argv, i, &v)) != 0 ||
		(m = bsMatchOption(cmd, "-o", argc, argv, i, &v)) != 0)
	{
		a->output = v;
		return m;
	}
	if ((m = bsMatchOption(cmd, "--cell", argc, argv, i, &v)) != 0)
	{
		*cellGiven = true;
		return m < 0 ? -1 : (bsParseDoubleOption(cmd, "--cell", v, 1e-300, 1e300, &a->def.cellSize) ? 1 : -1);
	}
	if ((m = bsMatchOption(cmd, "--resolution", argc, argv, i, &v)) != 0)
	{
		*resolutionGiven = true;
		return m < 0 ? -1 : (bsGridInt("--resolution", v, 3, 65536, &a->def.resolution) ? 1 : -1);
	}
	if ((m = bsMatchOption(cmd, "--margin", argc, argv, i, &v)) != 0)
	{
		return m < 0 ? -1 : (bsGridInt("--margin", v, 0, 1024, &a->def.margin) ? 1 : -1);
	}
	if ((m = bsMatchOption(cmd, "--band", argc, argv, i, &v)) != 0)
	{
		return m < 0 ? -1 : (bsGridInt("--band", v, 1, 64, &a->def.band) ? 1 : -1);
	}
	if ((m = bsMatchOption(cmd, "--blur-radius", argc, argv, i, &v)) != 0)
	{
		return m < 0 ? -1 : (bsGridInt("--blur-radius", v, 1, 8, &a->def.blurRadius) ? 1 : -1);
	}
	if ((m = bsMatchOption(cmd, "--blur-rounds", argc, argv, i, &v)) != 0)
	{
		return m < 0 ? -1 : (bsGridInt("--blur-rounds", v, 0, 64, &a->def.blurRounds) ? 1 : -1);
	}
	if ((m = bsMatchOption(cmd, "--threads", argc, argv, i, &v)) != 0)
	{
		return m < 0 ? -1 : (bsGridInt("--threads", v, 0, 256, &a->def.threads) ? 1 : -1);
	}
	if ((m = bsMatchOption(cmd, "--method", argc, argv, i, &v)) != 0)
	{
		if (m < 0)
		{
			return -1;
		}
		for (int k = 0; k < bs_gridMethodCount; ++k)
		{
			if (strcmp(v, bsGridMethodName((bsGridMethod)k)) == 0)
			{
				a->def.method = (bsGridMethod)k;
				return 1;
			}
		}
		bsUsageError(cmd, "--method: expected 'blur' or 'potential', got", v);
		return -1;
	}
	const char* flags[] = {"--exact-far", "--compress", "--quiet"};
	bool* targets[] = {&a->def.exactFar, &a->compress, &a->quiet};
	for (int k = 0; k < 3; ++k)
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

int bsGridParseArgs(const char* command, int argc, char** argv, bsGridOptionFn option, void* context,
	void (*usage)(FILE*), const char** input)
{
	for (int i = 1; i < argc;)
	{
		const char* arg = argv[i];
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
		{
			usage(stdout);
			return bs_exitOk;
		}
		int m = option(argc, argv, &i, context);
		if (m < 0)
		{
			return bs_exitUsage;
		}
		if (m > 0)
		{
			continue;
		}
		if (arg[0] == '-' && arg[1] != '\0')
		{
			bsUsageError(command, "unknown option", arg);
			return bs_exitUsage;
		}
		if (*input != NULL)
		{
			bsUsageError(command, "unexpected argument", arg);
			return bs_exitUsage;
		}
		*input = arg;
		i += 1;
	}
	return -1;
}

typedef struct bsGridBuildParse
{
	bsGridArgs* args;
	bool cellGiven, resolutionGiven;
} bsGridBuildParse;

static int bsGridBuildOption(int argc, char** argv, int* i, void* context)
{
	bsGridBuildParse* p = context;
	return bsGridOption(argc, argv, i, p->args, &p->cellGiven, &p->resolutionGiven);
}

// Parses build's arguments (argv[0] is "build"). Returns -1 to go on, else the exit status.
static int bsGridParseBuild(int argc, char** argv, bsGridArgs* a)
{
	memset(a, 0, sizeof *a);
	a->def = bsDefaultDistanceGridDef();
	bsGridBuildParse parse = {.args = a};
	int status = bsGridParseArgs("grid build", argc, argv, bsGridBuildOption, &parse, bsGridUsage, &a->input);
	if (status >= 0)
	{
		return status;
	}
	bool cellGiven = parse.cellGiven, resolutionGiven = parse.resolutionGiven;
	if (a->input == NULL || a->output == NULL)
	{
		bsUsageError("grid build", a->input == NULL ? "missing the mesh or config" : "missing -o FILE.dng", NULL);
		return bs_exitUsage;
	}
	if (cellGiven && resolutionGiven)
	{
		bsUsageError("grid build", "give --cell or --resolution, not both", NULL);
		return bs_exitUsage;
	}
	if (!cellGiven && a->def.resolution <= 2 * a->def.margin)
	{
		bsUsageError("grid build", "--resolution must be above twice --margin", NULL);
		return bs_exitUsage;
	}
	return -1;
}

static bool bsEndsWith(const char* s, const char* suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

// The triangles of an OBJ file (the loader has dropped the degenerate ones already).
static bool bsGridLoadObj(const char* path, bsTriangle** tris, uint32_t* count, char* err, size_t errlen)
{
	bsObjMesh mesh;
	bsObjError oerr;
	if (bsObj_Load(path, &mesh, &oerr) != bs_ok)
	{
		snprintf(err, errlen, "%s", oerr.message);
		return false;
	}
	*tris = malloc((size_t)mesh.triangleCount * sizeof **tris);
	*count = 0;
	if (*tris == NULL)
	{
		bsObj_Free(&mesh);
		snprintf(err, errlen, "%s: out of memory", path);
		return false;
	}
	for (uint32_t t = 0; t < mesh.triangleCount; ++t)
	{
		const uint32_t* v = mesh.triangles[t];
		if (bsMakeTriangle(mesh.vertices[v[0]], mesh.vertices[v[1]], mesh.vertices[v[2]], *tris + *count) == bs_ok)
		{
			*count += 1;
		}
	}
	bsObj_Free(&mesh);
	return true;
}

// The triangles of every mesh of a config, transformed.
static bool bsGridLoadConfig(const char* path, bsTriangle** tris, uint32_t* count, char* err, size_t errlen)
{
	bsConfig c;
	bsConfigError cerr;
	if (bsConfig_Load(path, &c, &cerr) != bs_ok)
	{
		snprintf(err, errlen, "%s", cerr.message);
		return false;
	}
	bsEnvironment env;
	bool ok = bsEnvironment_Load(&env, &c, 1, err, errlen) == bs_ok;
	if (ok && env.triangleCount == 0)
	{
		snprintf(err, errlen, "%s: no mesh triangles to build a grid around (planes are not part of it)", path);
		ok = false;
	}
	if (ok)
	{
		*tris = malloc((size_t)env.triangleCount * sizeof **tris);
		ok = *tris != NULL;
		if (ok)
		{
			memcpy(*tris, env.triangles, (size_t)env.triangleCount * sizeof **tris);
			*count = env.triangleCount;
		}
		else
		{
			snprintf(err, errlen, "%s: out of memory", path);
		}
	}
	bsEnvironment_Free(&env);
	bsConfig_Free(&c);
	return ok;
}

bool bsGridLoadInput(const char* path, const bsDistanceGridDef* def, bsDistanceGrid* grid, char* err, size_t errlen)
{
	memset(grid, 0, sizeof *grid);
	if (bsEndsWith(path, ".dng") || bsEndsWith(path, ".DNG"))
	{
		bsDngInfo info;
		return bsDng_Load(path, grid, &info, err, errlen);
	}
	bool isConfig = bsEndsWith(path, ".json") || bsEndsWith(path, ".JSON");
	if (isConfig)
	{
		// A config with a field block: its own grid (its file, cache or settings), as a run would use.
		bsConfig c;
		bsConfigError cerr;
		if (bsConfig_Load(path, &c, &cerr) != bs_ok)
		{
			snprintf(err, errlen, "%s", cerr.message);
			return false;
		}
		bool field = c.field.enabled, ok = true;
		if (field)
		{
			bsEnvironment env;
			bsFieldGridReport report;
			ok = bsEnvironment_Load(&env, &c, def->threads, err, errlen) == bs_ok &&
				bsFieldGrid_Load(&c, &env, 0, grid, &report, err, errlen);
			bsEnvironment_Free(&env);
		}
		bsConfig_Free(&c);
		if (field)
		{
			return ok;
		}
	}
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	if (!(isConfig ? bsGridLoadConfig(path, &tris, &count, err, errlen) : bsGridLoadObj(path, &tris, &count, err, errlen)))
	{
		return false;
	}
	bsResult r = bsDistanceGrid_Build(grid, tris, count, def, NULL);
	free(tris);
	if (r != bs_ok)
	{
		snprintf(err, errlen, "%s: cannot build the grid: %s", path, bsResultString(r));
	}
	return r == bs_ok;
}

static int bsGridFail(const char* message)
{
	fprintf(stderr, "blobsim grid: %s\n", message);
	return bs_exitFailure;
}

static int bsGridBuildMain(int argc, char** argv)
{
	bsGridArgs a;
	int status = bsGridParseBuild(argc, argv, &a);
	if (status >= 0)
	{
		return status;
	}
	char err[BS_GRID_ERR_MAX];
	// A file there that is not a grid (dng.h's magic) nor listed as an output is the user's: refused
	// before the build, not replaced after it.
	static const char magic[] = "\x89" "DNG\r\n\x1a\n";
	if (!bsCheckReplaceable(a.output, magic, sizeof(magic) - 1, err, sizeof err))
	{
		return bsGridFail(err);
	}
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	bool isConfig = bsEndsWith(a.input, ".json") || bsEndsWith(a.input, ".JSON");
	if (!(isConfig ? bsGridLoadConfig(a.input, &tris, &count, err, sizeof err)
			: bsGridLoadObj(a.input, &tris, &count, err, sizeof err)))
	{
		return bsGridFail(err);
	}
	bsDistanceGrid grid;
	bsDistanceGridStats st;
	bsResult r = bsDistanceGrid_Build(&grid, tris, count, &a.def, &st);
	free(tris);
	if (r != bs_ok)
	{
		snprintf(err, sizeof err, "%s: cannot build the grid: %s%s", a.input, bsResultString(r),
			r == bs_errTooLarge ? " (more than 134217728 cells: use a larger --cell or a smaller --resolution)" : "");
		return bsGridFail(err);
	}
	double t0 = bsNow();
	// The file's folder is made when missing (mkdir -p, as for `run -o`), and removed again when the
	// write fails.
	char folder[4096];
	bsCreatedFolders made = {0};
	const char* slash = strrchr(a.output, '/');
	int folderLength = slash == NULL ? 0 : (int)(slash - a.output);
	bool inFolder = folderLength > 0 && folderLength < (int)sizeof folder;
	snprintf(folder, sizeof folder, "%.*s", inFolder ? folderLength : 0, a.output);
	bool ok = (!inFolder || bsMakeFolders(folder, "the grid file's folder", &made, err, sizeof err)) &&
		bsDng_Write(a.output, &grid, a.compress, err, sizeof err);
	if (!ok && inFolder)
	{
		bsRemoveCreatedFolders(folder, &made);
	}
	double writeSeconds = bsNow() - t0;
	if (ok && !a.quiet)
	{
		printf("%s: %u triangles, %u components (%u open, %u inside out)\n", a.input, count, st.components,
			st.openComponents, st.invertedComponents);
		printf("grid: %d x %d x %d cells of %g, origin (%g, %g, %g), %s, band %d, R %d, K %d%s\n", grid.nx,
			grid.ny, grid.nz, grid.cellSize, grid.origin.x, grid.origin.y, grid.origin.z,
			bsGridMethodName(grid.method), grid.band, grid.blurRadius, grid.blurRounds,
			grid.exactFar ? ", exact far field" : "");
		printf("cells: %" PRIu64 " in the band, %" PRIu64 " surface voxels, %" PRIu64 " inside\n", st.bandCells,
			st.surfaceVoxels, st.insideCells);
		printf("build: %.3f s, cpu %.3f s (setup and winding %.3f, voxels %.3f, band %.3f, propagation %.3f, "
			"far %.3f, normals %.3f); write %.3f s\n", st.totalSeconds, st.cpuSeconds, st.signSeconds,
			st.rasterSeconds, st.bandSeconds, st.propagateSeconds, st.farSeconds, st.normalSeconds, writeSeconds);
		printf("wrote %s\n", a.output);
	}
	bsDistanceGrid_Free(&grid);
	return ok ? bs_exitOk : bsGridFail(err);
}

static int bsGridInfoMain(int argc, char** argv)
{
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
	{
		bsGridUsage(stdout);
		return bs_exitOk;
	}
	if (argc != 2 || argv[1][0] == '-')
	{
		bsUsageError("grid info", argc < 2 ? "missing the grid file" : (argv[1][0] == '-' ? "unknown option"
			: "unexpected argument"), argc < 2 ? NULL : argv[argc == 2 ? 1 : 2]);
		return bs_exitUsage;
	}
	bsDistanceGrid g;
	bsDngInfo info;
	char err[BS_GRID_ERR_MAX];
	if (!bsDng_Load(argv[1], &g, &info, err, sizeof err))
	{
		return bsGridFail(err);
	}
	uint64_t cells = bsDistanceGrid_CellCount(&g), inside = 0;
	float lo = g.cells[0].distance, hi = lo;
	for (uint64_t c = 0; c < cells; ++c)
	{
		float d = g.cells[c].distance;
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		inside += d < 0.0f;
	}
	printf("%s: distance/normal grid, version %" PRIu32 ", %" PRIu64 " bytes (%s)\n", argv[1], info.version,
		info.fileBytes, info.compressed ? "zlib" : "not compressed");
	printf("cells: %d x %d x %d = %" PRIu64 " of %.17g\n", g.nx, g.ny, g.nz, cells, g.cellSize);
	printf("origin: %.17g %.17g %.17g\n", g.origin.x, g.origin.y, g.origin.z);
	printf("method: %s, band %d, blur radius %d, rounds %d, far field %s\n", bsGridMethodName(g.method), g.band,
		g.blurRadius, g.blurRounds, g.exactFar ? "exact" : "propagated");
	printf("mesh hash: %016" PRIx64 ", payload CRC-32: %08" PRIx32 "\n", g.meshHash, info.payloadCrc);
	printf("distance: %.9g .. %.9g, %" PRIu64 " cells inside%s\n", (double)lo, (double)hi, inside,
		(g.flags & bs_gridHasOpen) ? ", open surfaces (unsigned, two-sided there)" : "");
	bsDistanceGrid_Free(&g);
	return bs_exitOk;
}

int bsGridMain(int argc, char** argv)
{
	if (argc < 2)
	{
		bsGridUsage(stderr);
		return bs_exitUsage;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
	{
		bsGridUsage(stdout);
		return bs_exitOk;
	}
	if (strcmp(argv[1], "build") == 0)
	{
		return bsGridBuildMain(argc - 1, argv + 1);
	}
	if (strcmp(argv[1], "info") == 0)
	{
		return bsGridInfoMain(argc - 1, argv + 1);
	}
	if (strcmp(argv[1], "slice") == 0)
	{
		return bsGridSliceMain(argc - 1, argv + 1);
	}
	bsUsageError("grid", "unknown subcommand (expected build, info or slice)", argv[1]);
	return bs_exitUsage;
}
