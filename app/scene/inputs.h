// inputs.h — the files a run reads besides its config (each OBJ mesh, each particle PLY), with their
// size and content hash. `blobsim run` records them in summary.json; `blobsim batch` compares them
// with the files as they are now to decide whether a run's outputs are up to date.
//
// The hash is FNV-1a 64 over the file's bytes: content only, so touching a file (a new mtime, the
// same bytes) does not make a run stale, and any changed byte does.
#pragma once

#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bsInputFile
{
	char* path;     // as resolved by the config (owned)
	bool hashed;    // size and hash are known (false: the file could not be read)
	uint64_t size;  // bytes
	uint64_t hash;  // FNV-1a 64 of the bytes
} bsInputFile;

typedef struct bsInputList
{
	bsInputFile* files;
	int count;
	size_t capacity;
} bsInputList;

// The files config names, in config order (meshes, then `file` emitters), each path once. With hash,
// each file is read and hashed; a file that cannot be read is listed with hashed false (its loader
// reports the error). False only when memory runs out; *list is then empty.
bool bsInputList_Make(const bsConfig* config, bool hash, bsInputList* list);

// Frees the list and zeroes it.
void bsInputList_Free(bsInputList* list);

// Size and FNV-1a 64 hash of a file's bytes. False when it cannot be opened or read.
bool bsHashFile(const char* path, uint64_t* size, uint64_t* hash);

// For a missing input that a tool of the repository writes (the letter models of
// tools/letters/make), writes " (... run `tools/letters/make DIR` first)" into hint and returns true;
// false, with hint "", for any other path or when the file exists. A loader appends it to its error.
bool bsInputFile_MadeBy(const char* path, char* hint, size_t hintlen);
