// config_path.h — private to the config reader (config*.c): where in a config a message points and
// what it says. A bsCtx carries the JSON path of the value being read (pushed and popped around each
// key and index) and the error; bsFail writes "file: json.path: message", marked " (set by --set)"
// when an override wrote that value. Values are quoted in messages as compact JSON, cut at 60
// characters; names close to a typo are suggested.
#pragma once

#include "config.h"

#include "atomic_file.h"  // BS_PRINTF_FORMAT
#include "core.h"         // BS_COUNT

#include <cjson/cJSON.h>

#include <stdbool.h>
#include <stddef.h>

// --- Text for messages ---

// An appending buffer that truncates instead of overflowing (full says it did).
typedef struct bsBuf
{
	char* data;
	size_t size;
	size_t length;
	bool full;
} bsBuf;

void bsBuf_Put(bsBuf* b, const char* text, size_t n);
void bsBuf_Str(bsBuf* b, const char* text);

// A malloc'd copy of s; NULL when out of memory.
char* bsStrDup(const char* s);

// The shortest of %.15g and %.17g that reads back as the same double.
void bsFormatNumber(double v, char out[32]);

// Compact JSON of a value for messages: [4, -1, 2], {"a": 1}; "..." after 60 characters.
void bsDescribeValue(const cJSON* v, char out[80]);

// The name nearest to word, when near enough to be a likely typo; else NULL.
const char* bsClosest(const char* word, const char* const* names, int count);

// "a, b, c", or "\"a\", \"b\", \"c\"" when quoted.
void bsJoinNames(char* out, size_t size, const char* const* names, int count, bool quoted);

// --- The JSON path and errors ---

typedef struct bsCtx
{
	const char* label;      // the config's name in messages
	const char* dir;        // prefix for relative file paths ("" or ending in '/')
	size_t dirLength;
	bsConfigError* error;   // may be NULL
	bsResult result;
	char path[320];         // JSON path of the value being read, e.g. particles.emitters[1].count
	size_t pathLength;
	char** setPaths;        // JSON paths written by --set overrides
	int setPathCount;
	size_t setPathCapacity;
} bsCtx;

// A context at the top level for the config at path (NULL: "<config>" in the current directory).
void bsCtx_Init(bsCtx* c, const char* path, bsConfigError* error);
void bsCtx_Free(bsCtx* c);

// Append a path segment to path (of size bytes, *pathLength used): .key (key alone at the start),
// ["odd key"] for a key that is not an identifier, or [index].
void bsAppendKey(char* path, size_t size, size_t* pathLength, const char* key);
void bsAppendIndex(char* path, size_t size, size_t* pathLength, int index);

// Push a segment on the context's path; bsPop(c, mark) with the returned mark takes it off again.
size_t bsPushKey(bsCtx* c, const char* key);
size_t bsPushIndex(bsCtx* c, int index);
void bsPop(bsCtx* c, size_t mark);

// "label: path: message" (or "label: message" at the top level), result bs_errInvalidArgument
// unless already set (bs_errTooLarge). All of these return false.
bool bsFail(bsCtx* c, const char* fmt, ...) BS_PRINTF_FORMAT(2, 3);
bool bsOutOfMemory(bsCtx* c);                                     // "label: out of memory"
bool bsFailExpected(bsCtx* c, const char* what, const cJSON* v);  // "expected WHAT, got VALUE"
bool bsMissing(bsCtx* c, const char* key);                        // "missing required key 'KEY'"
