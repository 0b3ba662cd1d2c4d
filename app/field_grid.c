// field_grid.c — the field's grid from its file or built and cached (field_grid.h).
#include "field_grid.h"

#include "dng.h"
#include "files.h"
#include "blobsim/hash.h"
#include "blobsim/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The cache key: the mesh's hash and every setting the grid depends on.
static uint64_t bsFieldGrid_Key(uint64_t meshHash, const bsDistanceGridDef* d)
{
	static const char tag[] = "blobsim field grid, dng 1";
	uint64_t h = bsFnv1a(BS_FNV1A_BASIS, tag, sizeof tag);
	uint64_t cell;
	memcpy(&cell, &d->cellSize, sizeof cell);
	h = bsFnv1a_U64(h, meshHash);
	h = bsFnv1a_U64(h, cell);
	h = bsFnv1a_U64(h, (uint64_t)(d->cellSize > 0.0 ? 0 : d->resolution));
	h = bsFnv1a_U64(h, (uint64_t)d->margin);
	h = bsFnv1a_U64(h, (uint64_t)d->band);
	h = bsFnv1a_U64(h, (uint64_t)d->method);
	h = bsFnv1a_U64(h, (uint64_t)d->blurRadius);
	h = bsFnv1a_U64(h, (uint64_t)d->blurRounds);
	return bsFnv1a_U64(h, d->exactFar ? 1u : 0u);
}

// The cache folder (field_grid.h), or false when no variable names one.
static bool bsFieldGrid_CacheDir(char* out, size_t size)
{
	const char* v = getenv("BLOBSIM_CACHE");
	if (v != NULL && v[0] != '\0')
	{
		return (size_t)snprintf(out, size, "%s", v) < size;
	}
	v = getenv("XDG_CACHE_HOME");
	if (v != NULL && v[0] != '\0')
	{
		return (size_t)snprintf(out, size, "%s/blobsim", v) < size;
	}
	v = getenv("HOME");
	return v != NULL && v[0] != '\0' && (size_t)snprintf(out, size, "%s/.cache/blobsim", v) < size;
}

// A cached file is used only when its header says it is the grid asked for.
static bool bsFieldGrid_Matches(const bsDistanceGrid* g, uint64_t meshHash, const bsDistanceGridDef* d)
{
	return g->meshHash == meshHash && g->method == d->method && g->band == d->band &&
		g->blurRadius == d->blurRadius && g->blurRounds == d->blurRounds && g->exactFar == d->exactFar &&
		(d->cellSize <= 0.0 || g->cellSize == d->cellSize);
}

static bool bsFieldGrid_Build(const bsConfig* config, const bsEnvironment* env, bsDistanceGrid* grid,
	bsFieldGridReport* report, char* err, size_t errlen)
{
	if (env->triangleCount == 0)
	{
		snprintf(err, errlen, "%s: field.build: no mesh triangles to build a grid around (planes are not part "
			"of it)", config->path);
		return false;
	}
	bsDistanceGridDef def = config->field.build;
	def.threads = 0;  // all cores: the grid is the same for any count
	uint64_t meshHash = bsMeshHash(env->triangles, env->triangleCount);
	char dir[4096];
	bool cache = bsFieldGrid_CacheDir(dir, sizeof dir);
	if (cache)
	{
		int n = snprintf(report->cachePath, sizeof report->cachePath, "%s/field-%016llx.dng", dir,
			(unsigned long long)bsFieldGrid_Key(meshHash, &def));
		cache = n > 0 && (size_t)n < sizeof report->cachePath;
	}
	if (cache)
	{
		char ignored[256];
		if (bsDng_Load(report->cachePath, grid, NULL, ignored, sizeof ignored))
		{
			if (bsFieldGrid_Matches(grid, meshHash, &def))
			{
				report->cached = true;
				return true;
			}
			bsDistanceGrid_Free(grid);
		}
	}
	bsResult r = bsDistanceGrid_Build(grid, env->triangles, env->triangleCount, &def, NULL);
	if (r != bs_ok)
	{
		snprintf(err, errlen, "%s: field.build: %s", config->path, bsResultString(r));
		return false;
	}
	report->built = true;
	char ignored[4352];
	if (!cache || !bsMakeFolders(dir, "the grid cache", NULL, ignored, sizeof ignored) ||
		!bsDng_Write(report->cachePath, grid, true, ignored, sizeof ignored))
	{
		report->cachePath[0] = '\0';  // no cache: the run goes on with the grid it built
	}
	return true;
}

bool bsFieldGrid_Load(const bsConfig* config, const bsEnvironment* env, bsDistanceGrid* grid,
	bsFieldGridReport* report, char* err, size_t errlen)
{
	memset(report, 0, sizeof *report);
	memset(grid, 0, sizeof *grid);
	double start = bsNow();
	bool ok = config->field.grid != NULL ? bsDng_Load(config->field.grid, grid, NULL, err, errlen)
		: bsFieldGrid_Build(config, env, grid, report, err, errlen);
	report->seconds = bsNow() - start;
	return ok;
}

bool bsFieldGrid_Use(bsConfig* config, const bsEnvironment* env, bsDistanceGrid* grid, bsGridTree* tree, char* err,
	size_t errlen)
{
	memset(tree, 0, sizeof *tree);
	bsFieldGridReport report;
	if (!bsFieldGrid_Load(config, env, grid, &report, err, errlen))
	{
		return false;
	}
	if (config->field.compress)
	{
		bsResult r = bsGridTree_Build(tree, grid, &config->field.compressDef, NULL);
		if (r != bs_ok)
		{
			snprintf(err, errlen, "%s: field.compress: %s", config->path, bsResultString(r));
			return false;
		}
	}
	config->step.fieldGrid = grid;
	config->step.fieldTree = config->field.compress ? tree : NULL;
	config->step.field = config->field.def;
	return true;
}

bsResult bsFieldGrid_AddColliders(const bsConfig* config, const bsEnvironment* env, bsWorld* world)
{
	if (config->field.enabled && !config->field.sweep)
	{
		return bsWorld_AddPlanes(world, env->planes, env->planeCount);
	}
	return bsEnvironment_AddToWorld(env, world);
}
