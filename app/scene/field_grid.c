// field_grid.c — the field's grid from its file or built and cached (field_grid.h).
#include "field_grid.h"
#include "bodies.h"

#include "dng.h"
#include "files.h"
#include "blobsim/base.h"

#include <inttypes.h>
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

// A cached file is used only when its header is the one the build would write: the mesh hash, every
// setting, and the layout (size, cell and origin, bit for bit: bsDistanceGrid_Layout), so that a file
// with a shifted origin or other dimensions is never taken for the grid asked for.
static bool bsFieldGrid_Matches(const bsDistanceGrid* g, const bsDistanceGrid* layout)
{
	return g->meshHash == layout->meshHash && g->method == layout->method && g->band == layout->band &&
		g->blurRadius == layout->blurRadius && g->blurRounds == layout->blurRounds &&
		g->exactFar == layout->exactFar && g->nx == layout->nx && g->ny == layout->ny && g->nz == layout->nz &&
		g->cellSize == layout->cellSize && g->origin.x == layout->origin.x && g->origin.y == layout->origin.y &&
		g->origin.z == layout->origin.z;
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

// The cached grid, when the file loads (within maxBytes, 0: no cap) and is the grid asked for.
static bool bsFieldGrid_LoadCached(const char* path, const bsDistanceGrid* layout, uint64_t maxBytes,
	bsDistanceGrid* grid)
{
	char ignored[256];
	if (!bsDng_LoadWithin(path, maxBytes, grid, NULL, ignored, sizeof ignored))
	{
		return false;
	}
	if (!bsFieldGrid_Matches(grid, layout))
	{
		bsDistanceGrid_Free(grid);
		return false;
	}
	return true;
}

// The grid's layout for the config's meshes and build settings (no cells), or an error as the
// build's.
static bool bsFieldGrid_Layout(const bsConfig* config, const bsEnvironment* env, bsDistanceGrid* layout, char* err,
	size_t errlen)
{
	if (env->triangleCount == 0)
	{
		snprintf(err, errlen, "%s: field.build: no mesh triangles to build a grid around (planes are not part "
			"of it; a body's own grid, environment.bodies[i].field, needs none)", config->path);
		return false;
	}
	bsResult r = bsDistanceGrid_Layout(layout, env->triangles, env->triangleCount, &config->field.build);
	if (r != bs_ok)
	{
		snprintf(err, errlen, "%s: field.build: %s", config->path, bsResultString(r));
		return false;
	}
	return true;
}

static bool bsFieldGrid_Build(const bsConfig* config, const bsEnvironment* env, uint64_t maxBytes,
	bsDistanceGrid* grid, bsFieldGridReport* report, char* err, size_t errlen)
{
	bsDistanceGrid layout;
	if (!bsFieldGrid_Layout(config, env, &layout, err, errlen))
	{
		return false;
	}
	bsDistanceGridDef def = config->field.build;
	def.threads = 0;  // all cores: the grid is the same for any count
	char dir[4096];
	bool cache = bsFieldGrid_CachePath(layout.meshHash, &def, dir, sizeof dir, report->cachePath,
		sizeof report->cachePath);
	if (cache && bsFieldGrid_LoadCached(report->cachePath, &layout, maxBytes, grid))
	{
		report->cached = true;
		return true;
	}
	// The cap is checked from the layout, before a byte of the build is allocated.
	uint64_t cells = bsDistanceGrid_CellCount(&layout);
	if (maxBytes > 0 && cells * bs_gridBuildBytesPerCell > maxBytes)
	{
		snprintf(err, errlen, "%s: field.build: building the grid of %d x %d x %d cells needs about %" PRIu64
			" bytes (%d a cell), more than the %" PRIu64 " bytes the memory cap leaves it; raise field.build.cell "
			"or lower field.build.resolution", config->path, layout.nx, layout.ny, layout.nz,
			cells * bs_gridBuildBytesPerCell, (int)bs_gridBuildBytesPerCell, maxBytes);
		return false;
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

// Appends n little-endian bytes of v.
static uint64_t bsFieldGrid_HashBits(uint64_t h, uint64_t v, int n)
{
	unsigned char bytes[8];
	for (int k = 0; k < n; ++k)
	{
		bytes[k] = (unsigned char)(v >> (8 * k));
	}
	return bsFnv1a(h, bytes, (size_t)n);
}

static uint64_t bsFieldGrid_HashDouble(uint64_t h, double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	return bsFieldGrid_HashBits(h, bits, 8);
}

uint64_t bsFieldGrid_Hash(const bsDistanceGrid* grid)
{
	// The header first: two grids with the same cells but another origin, cell or setting differ.
	uint64_t h = BS_FNV1A_BASIS;
	const int ints[] = {grid->nx, grid->ny, grid->nz, (int)grid->method, grid->band, grid->blurRadius,
		grid->blurRounds, grid->exactFar ? 1 : 0, (int)grid->flags};
	for (int k = 0; k < (int)(sizeof ints / sizeof ints[0]); ++k)
	{
		h = bsFieldGrid_HashBits(h, (uint32_t)ints[k], 4);
	}
	h = bsFieldGrid_HashDouble(h, grid->cellSize);
	h = bsFieldGrid_HashDouble(h, grid->origin.x);
	h = bsFieldGrid_HashDouble(h, grid->origin.y);
	h = bsFieldGrid_HashDouble(h, grid->origin.z);
	h = bsFieldGrid_HashBits(h, grid->meshHash, 8);
	uint64_t n = bsDistanceGrid_CellCount(grid);
	for (uint64_t c = 0; c < n; ++c)
	{
		const bsGridCell* cell = grid->cells + c;
		const float v[4] = {cell->distance, cell->normal[0], cell->normal[1], cell->normal[2]};
		for (int k = 0; k < 4; ++k)
		{
			uint32_t bits;
			memcpy(&bits, &v[k], sizeof bits);
			h = bsFieldGrid_HashBits(h, bits, 4);
		}
	}
	return h;
}

bool bsFieldGrid_Load(const bsConfig* config, const bsEnvironment* env, uint64_t maxBytes, bsDistanceGrid* grid,
	bsFieldGridReport* report, char* err, size_t errlen)
{
	memset(report, 0, sizeof *report);
	memset(grid, 0, sizeof *grid);
	double start = bsNow();
	bool ok = config->field.grid != NULL ? bsDng_LoadWithin(config->field.grid, maxBytes, grid, NULL, err, errlen)
		: bsFieldGrid_Build(config, env, maxBytes, grid, report, err, errlen);
	report->seconds = bsNow() - start;
	if (ok)
	{
		report->gridHash = bsFieldGrid_Hash(grid);
	}
	return ok;
}

// No grid of the world's own: no field.grid file and no mesh triangles, but bodies that carry grids
// (environment.bodies[i].field), which the field's rules then act round alone.
static bool bsFieldGrid_BodiesOnly(const bsConfig* config, const bsEnvironment* env)
{
	int count = 0;
	return config->field.grid == NULL && env->triangleCount == 0 &&
		bsEnvBodies_Fields(env->bodies, &count) != NULL && count > 0;
}

bool bsFieldGrid_Use(bsConfig* config, const bsEnvironment* env, uint64_t maxBytes, bsDistanceGrid* grid,
	bsGridTree* tree, bsFieldGridReport* report, char* err, size_t errlen)
{
	memset(tree, 0, sizeof *tree);
	if (bsFieldGrid_BodiesOnly(config, env))
	{
		memset(grid, 0, sizeof *grid);
		memset(report, 0, sizeof *report);
		config->step.fieldGrid = NULL;
		config->step.fieldTree = NULL;
		config->step.field = config->field.def;
		config->step.bodyFields = bsEnvBodies_Fields(env->bodies, &config->step.bodyFieldCount);
		return true;
	}
	if (!bsFieldGrid_Load(config, env, maxBytes, grid, report, err, errlen))
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
	// The grids the bodies carry take the same rules.
	config->step.bodyFields = bsEnvBodies_Fields(env->bodies, &config->step.bodyFieldCount);
	return true;
}

bsResult bsFieldGrid_AddColliders(const bsConfig* config, const bsEnvironment* env, bsWorld* world)
{
	if (config->field.enabled && !config->field.sweep)
	{
		// The moving bodies stay: the grids they carry are posed with them.
		bsResult r = bsWorld_AddPlanes(world, env->planes, env->planeCount);
		return r == bs_ok ? bsEnvBodies_AddToWorld(env->bodies, world) : r;
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
	if (grid == NULL)
	{
		cJSON_AddStringToObject(f, "source", "none");  // the bodies' grids alone (bsFieldGrid_BodiesOnly)
		return;
	}
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
	if (bsFieldGrid_BodiesOnly(config, env))
	{
		snprintf(line, lineSize, "field: no grid of the world's own (no mesh triangles): the rules act round the "
			"bodies' grids only");
		return true;
	}
	bsDistanceGrid layout;
	if (!bsFieldGrid_Layout(config, env, &layout, err, errlen))
	{
		return false;
	}
	char dir[4096], path[4096];
	bool cache = bsFieldGrid_CachePath(layout.meshHash, &config->field.build, dir, sizeof dir, path, sizeof path);
	if (cache && bsFieldGrid_LoadCached(path, &layout, 0, &grid))
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
