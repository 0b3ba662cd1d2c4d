// json.h — strict JSON for the program's JSON inputs (configs, batch files, regression suites).
//
// cJSON alone accepts what JSON does not (01, 1., \u0000 silently truncating a string) and gives only
// a byte offset, sometimes past the culprit. So the text goes through two checks first, each naming
// the problem and its line:column:
//   1. encoding: UTF-8 without NUL bytes (a UTF-8 byte order mark is skipped)
//   2. syntax: RFC 8259 JSON at most BS_JSON_MAX_DEPTH levels deep (iterative, no allocation)
// and only then cJSON builds the tree (cJSON_ParseWithLengthOpts; its global error pointer is never
// read). Safe for untrusted input; thread-safe.
#pragma once

#include "blobsim/base.h"

#include <stdbool.h>
#include <stddef.h>

#define BS_JSON_MAX_DEPTH 64              // deepest nesting of arrays and objects accepted
#define BS_JSON_MAX_FILE_SIZE (16 << 20)  // bsJson_ReadFile refuses larger files (bytes)

typedef struct bsJsonError
{
	char message[1024];
} bsJsonError;

struct cJSON;

// On success *root is the tree (the caller frees it with cJSON_Delete); on failure NULL, with
// "label:line:column: message" in error (error may be NULL). Returns bs_ok, bs_errInvalidArgument or
// bs_errOutOfMemory.
bsResult bsJson_Parse(const char* text, size_t length, const char* label, struct cJSON** root,
	bsJsonError* error);

// bsJson_ReadFile, then bsJson_Parse with the path as the label.
bsResult bsJson_Load(const char* path, struct cJSON** root, bsJsonError* error);

// Reads the whole file, at most BS_JSON_MAX_FILE_SIZE bytes, into *text (malloc'd, no terminating
// NUL; the caller frees it). On failure *text is NULL and error says "path: cannot open: ...",
// "path: cannot read: ...", "path: larger than N bytes: not a config" or "path: out of memory".
// Returns bs_ok, bs_errInvalidArgument, bs_errTooLarge or bs_errOutOfMemory.
bsResult bsJson_ReadFile(const char* path, char** text, size_t* length, bsJsonError* error);

// Where and why a strict parse failed, for callers that word the message themselves (--set values).
typedef struct bsJsonProblem
{
	bool encoding;         // not UTF-8, or a NUL byte: the syntax was not looked at
	size_t line, column;   // both from 1; columns count characters, a tab is one
	char message[256];
} bsJsonProblem;

// The two checks and cJSON on exactly text[0, length) (no byte order mark skipped). Returns bs_ok
// with *root set, or bs_errInvalidArgument / bs_errOutOfMemory with *root NULL and *problem filled.
bsResult bsJson_ParseStrict(const char* text, size_t length, struct cJSON** root,
	bsJsonProblem* problem);
