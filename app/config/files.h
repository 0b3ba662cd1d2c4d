// files.h — files and folders as the commands (run, batch, regress) use them: mkdir -p that can be
// undone after a failure, a program found on PATH, a byte-for-byte copy written atomically, and the
// malloc'd printf that paths are built with. Errors go to the caller's buffer as one line naming the
// path; no global state.
#pragma once

#include "atomic_file.h"
#include "open_file.h"

#include <stdbool.h>
#include <stddef.h>

// The folders bsMakeFolders made (as lengths of prefixes of its path), to remove after a failure.
typedef struct bsCreatedFolders
{
	size_t length[64];  // more than 64 new levels are not recorded (and not removed)
	int count;
} bsCreatedFolders;

// mkdir -p path. role names the folder in the error when path exists but is not a folder, e.g.
// "tiny.obj: cannot use as the output directory: it is a regular file, not a directory"; a folder that
// cannot be made gives "PREFIX: cannot create directory: <strerror>". created may be NULL; when not,
// it records every folder made, also when failing part of the way. An empty path is an error.
bool bsMakeFolders(const char* path, const char* role, bsCreatedFolders* created, char* err, size_t errlen);

// Removes the folders bsMakeFolders made for path, deepest first: only those (never one that existed
// before, whatever '..' the path holds), and rmdir() never removes one that is not empty.
void bsRemoveCreatedFolders(const char* path, const bsCreatedFolders* created);

// The first executable NAME in the folders of $PATH, written to out. False when there is none (or
// its path does not fit in size bytes).
bool bsFindProgram(const char* name, char* out, size_t size);

// Rewrites path in place without "." parts, repeated slashes and "NAME/.." pairs, so
// "configs/../out/a" prints (and is used) as "out/a". A NAME that is a symbolic link is kept with its
// "..", which is not the folder holding the link; so are leading ".." parts. "/.." is "/"; an empty
// result is ".". Never longer than path.
void bsTidyPath(char* path);

// Whether a command may replace the file at path (batch.json, report.html, a grid file): true when
// nothing is there, or a regular file that blobsim wrote: listed in its folder's outputs.txt
// (output_set.h), or beginning with `signature` (n bytes), the start of every file the command writes
// under that name. Anything else (the user's own file, a link, a FIFO) is never replaced: false with
// "PATH: not a file blobsim wrote (...); move the file away, blobsim does not replace it", the words
// of run's refusal of a user's outputs.txt. Called before the command does its work.
bool bsCheckReplaceable(const char* path, const char* signature, size_t n, char* err, size_t errlen);

// Copies a file's bytes to another path through atomic_file.h (the target is replaced whole, or not at
// all). False with a message naming the file at fault.
bool bsCopyFile(const char* from, const char* to, char* err, size_t errlen);

// Writes text to path atomically (atomic_file.h), ending it with a newline when it has none (JSON from
// cJSON_Print has none). False with a message naming the path.
bool bsWriteTextFile(const char* path, const char* text, char* err, size_t errlen);

// True when path names a folder (after symbolic links), or a regular file.
bool bsIsFolder(const char* path);
bool bsIsRegularFile(const char* path);

// A malloc'd string from a printf format; NULL when memory runs out.
char* bsFormat(const char* fmt, ...) BS_PRINTF_FORMAT(1, 2);

// "dir/name" (malloc'd; no doubled '/'), or a copy of name when it is absolute or dir is empty.
char* bsPathJoin(const char* dir, const char* name);
