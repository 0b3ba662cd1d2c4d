// field_grid.h — the grid of a config's field block (field_config.h): read from the .dng file it
// names, or built from the environment's meshes and cached.
//
// The cache: the folder $BLOBSIM_CACHE, else $XDG_CACHE_HOME/blobsim, else $HOME/.cache/blobsim
// (none of them set: no cache, the grid is built every run), one file field-KEY.dng per grid. KEY is
// FNV-1a 64 over a version tag, bsMeshHash of the transformed triangles (every vertex's bytes) and
// every build setting (cell or resolution, margin, band, method, blur radius and rounds), so a changed
// mesh, transform or setting names another file: nothing is invalidated, nothing can be stale. A file
// is used only when it loads (checksums), and its header's mesh hash, settings, size, cell and origin
// are the ones the build would write (bsDistanceGrid_Layout); else the grid is built again and the file replaced (atomically). The grid is the same for
// any thread count, so a cached grid equals a fresh one bit for bit.
#pragma once

#include "config.h"
#include "environment.h"

#include "blobsim/field.h"

#include <cjson/cJSON.h>

#include <stdbool.h>
#include <stddef.h>

typedef struct bsFieldGridReport
{
	bool built;       // built in this run (else read from field.grid or the cache)
	bool cached;      // read from the cache
	char cachePath[4096];  // the cache file used or written ("" without a cache)
	double seconds;   // to load or build
	uint64_t gridHash;     // FNV-1a 64 of the header and cells (bsFieldGrid_Hash), whatever the source
} bsFieldGridReport;

// FNV-1a 64 over the header (size, settings, flags, as little-endian 32-bit integers; cell size and
// origin as doubles; the mesh hash), then the cells' floats as little-endian bytes, x fastest (the .dng
// payload uncompressed): the same grid built, cached or read from a file has the same hash, and a grid
// with the same cells somewhere else another.
uint64_t bsFieldGrid_Hash(const bsDistanceGrid* grid);

// Fills *grid (owned: bsDistanceGrid_Free) for config->field (enabled). Errors: the .dng file's
// message ("path: byte N: ..."), "CONFIG: field.build: no mesh triangles ...", or the build's
// result. A cache that cannot be written is not an error (the run goes on with the grid built).
// maxBytes (0: no cap) bounds what the grid may take, checked before a byte of it is allocated: a
// build from its layout (bs_gridBuildBytesPerCell a cell), a file or cached grid from its header's
// cells (bsDng_LoadWithin); over it, an error naming the grid's size and the bytes.
bool bsFieldGrid_Load(const bsConfig* config, const bsEnvironment* env, uint64_t maxBytes, bsDistanceGrid* grid,
	bsFieldGridReport* report, char* err, size_t errlen);

// The world's colliders: the environment's (bsEnvironment_AddToWorld), but without the meshes when
// the field stands alone for them (field.sweep false; the planes and the moving bodies stay).
bsResult bsFieldGrid_AddColliders(const bsConfig* config, const bsEnvironment* env, bsWorld* world);

// Loads the grid into *grid, builds its compressed tree into *tree when the config asks for one
// (field.compress; else *tree is zeroed), and points the config's step at the one the rules look up
// and at the rules (a run's one call); *report says where the grid came from. Free both
// (bsDistanceGrid_Free, bsGridTree_Free).
bool bsFieldGrid_Use(bsConfig* config, const bsEnvironment* env, uint64_t maxBytes, bsDistanceGrid* grid,
	bsGridTree* tree, bsFieldGridReport* report, char* err, size_t errlen);

// What `blobsim check` says of the field's grid, in *line: the file named by field.grid loaded and
// checked (an error in it fails, as it would fail the run), the cached grid, or that the grid would
// be built (not building it). Errors as bsFieldGrid_Load's.
bool bsFieldGrid_Check(const bsConfig* config, const bsEnvironment* env, char* line, size_t lineSize, char* err,
	size_t errlen);

// summary.json's "field" object: where the run's grid came from ("source": "built", "cache" or
// "file", and "path": the file read or the cache file written, null when none), its hashes, size and
// the seconds it took.
void bsFieldGrid_AddSummary(cJSON* root, const bsConfig* config, const bsDistanceGrid* grid,
	const bsFieldGridReport* report);
