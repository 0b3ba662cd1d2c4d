// field_grid.c — the field's grid from its file or built and cached (field_grid.h).
#include "field_grid.h"

#include "dng.h"
#include "files.h"
#include "blobsim/base.h"

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

// The cache's folder and the file of this mesh and these settings; false without a cache.
static bool bsFieldGrid_CachePath(uint64_t meshHash, const bsDistanceGridDef* def, char* dir, size_t dirSize,
	char* path, size_t pathSize)
{
	if (!bsFieldGrid_CacheDir(dir, dirSize))
	{
		path[0] = '\0';
		return false;
	}
	int n = snprintf(path, pathSize, "%s/field-%016llx.dng", dir, (unsigned long long)bsFieldGrid_Key(meshHash, def));
	if (n <= 0 || (size_t)n >= pathSize)
	{
		path[0] = '\0';
		return false;
	}
	return true;
}

// The cached grid, when the file loads and is the grid asked for.
static bool bsFieldGrid_LoadCached(const char* path, uint64_t meshHash, const bsDistanceGridDef* def,
	bsDistanceGrid* grid)
{
	char ignored[256];
	if (!bsDng_Load(path, grid, NULL, ignored, sizeof ignored))
	{
		return false;
	}
	if (!bsFieldGrid_Matches(grid, meshHash, def))
	{
		bsDistanceGrid_Free(grid);
		return false;
	}
	return true;
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
	bool cache = bsFieldGrid_CachePath(meshHash, &def, dir, sizeof dir, report->cachePath,
		sizeof report->cachePath);
	if (cache && bsFieldGrid_LoadCached(report->cachePath, meshHash, &def, grid))
	{
		report->cached = true;
		return true;
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

uint64_t bsFieldGrid_Hash(const bsDistanceGrid* grid)
{
	uint64_t h = BS_FNV1A_BASIS;
	uint64_t n = bsDistanceGrid_CellCount(grid);
	for (uint64_t c = 0; c < n; ++c)
	{
		const bsGridCell* cell = grid->cells + c;
		const float v[4] = {cell->distance, cell->normal[0], cell->normal[1], cell->normal[2]};
		for (int k = 0; k < 4; ++k)
		{
			uint32_t bits;
			memcpy(&bits, &v[k], sizeof bits);
			const unsigned char bytes[4] = {(unsigned char)bits, (unsigned char)(bits >> 8),
				(unsigned char)(bits >> 16), (unsigned char)(bits >> 24)};
			h = bsFnv1a(h, bytes, sizeof bytes);
		}
	}
	return h;
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
	if (ok)
	{
		report->gridHash = bsFieldGrid_Hash(grid);
	}
	return ok;
}

bool bsFieldGrid_Use(bsConfig* config, const bsEnvironment* env, bsDistanceGrid* grid, bsGridTree* tree,
	bsFieldGridReport* report, char* err, size_t errlen)
{
	memset(tree, 0, sizeof *tree);
	if (!bsFieldGrid_Load(config, env, grid, report, err, errlen))
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

static void bsAddHash(cJSON* o, const char* key, uint64_t h)
{
	char text[32];
	snprintf(text, sizeof text, "%016llx", (unsigned long long)h);
	cJSON_AddStringToObject(o, key, text);
}

void bsFieldGrid_AddSummary(cJSON* root, const bsConfig* config, const bsDistanceGrid* grid,
	const bsFieldGridReport* report)
{
	cJSON* f = cJSON_AddObjectToObject(root, "field");
	const char* source = report->built ? "built" : (report->cached ? "cache" : "file");
	cJSON_AddStringToObject(f, "source", source);
	const char* path = report->built || report->cached ? report->cachePath : config->field.grid;
	if (path != NULL && path[0] != '\0')
	{
		cJSON_AddStringToObject(f, "path", path);
	}
	else
	{
		cJSON_AddNullToObject(f, "path");
	}
	bsAddHash(f, "grid_hash", report->gridHash);
	bsAddHash(f, "mesh_hash", grid->meshHash);
	cJSON* cells = cJSON_AddArrayToObject(f, "cells");
	cJSON_AddItemToArray(cells, cJSON_CreateNumber(grid->nx));
	cJSON_AddItemToArray(cells, cJSON_CreateNumber(grid->ny));
	cJSON_AddItemToArray(cells, cJSON_CreateNumber(grid->nz));
	cJSON_AddNumberToObject(f, "cell_size", grid->cellSize);
	cJSON_AddNumberToObject(f, "seconds", report->seconds);
}

bool bsFieldGrid_Check(const bsConfig* config, const bsEnvironment* env, char* line, size_t lineSize, char* err,
	size_t errlen)
{
	bsDistanceGrid grid;
	memset(&grid, 0, sizeof grid);
	if (config->field.grid != NULL)
	{
		if (!bsDng_Load(config->field.grid, &grid, NULL, err, errlen))
		{
			return false;
		}
		bool same = grid.meshHash == bsMeshHash(env->triangles, env->triangleCount);
		snprintf(line, lineSize, "field: grid %s: %d x %d x %d cells of %g, %s (mesh hash %016llx, %s)",
			config->field.grid, grid.nx, grid.ny, grid.nz, grid.cellSize, bsGridMethodName(grid.method),
			(unsigned long long)grid.meshHash,
			same ? "the config's meshes" : "built from other meshes than the config's");
		bsDistanceGrid_Free(&grid);
		return true;
	}
	if (env->triangleCount == 0)
	{
		snprintf(err, errlen, "%s: field.build: no mesh triangles to build a grid around (planes are not part "
			"of it)", config->path);
		return false;
	}
	uint64_t meshHash = bsMeshHash(env->triangles, env->triangleCount);
	char dir[4096], path[4096];
	bool cache = bsFieldGrid_CachePath(meshHash, &config->field.build, dir, sizeof dir, path, sizeof path);
	if (cache && bsFieldGrid_LoadCached(path, meshHash, &config->field.build, &grid))
	{
		snprintf(line, lineSize, "field: grid from the cache %s: %d x %d x %d cells of %g", path, grid.nx, grid.ny,
			grid.nz, grid.cellSize);
		bsDistanceGrid_Free(&grid);
		return true;
	}
	snprintf(line, lineSize, "field: the grid would be built from %u triangles (%s, band %d)%s%s", env->triangleCount,
		bsGridMethodName(config->field.build.method), config->field.build.band,
		cache ? " and cached as " : ", no cache", cache ? path : "");
	return true;
}
