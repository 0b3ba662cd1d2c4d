// config_value.h — private to the config reader (config*.c): the schema and the typed readers.
//
// The schema says which keys each object of a config allows (checked as each object is read, and
// walked by --set paths); a key row can also say how its value is read and where it goes, so that a
// flat section is read by bsReadFields from its table alone. The typed readers each read parent[key]
// into *out, the default when the key is absent (a NULL parent counts as absent); the JSON path is
// pushed while they look at the value, so that a failure names it.
#pragma once

#include "config_path.h"

#include <stddef.h>

// A finite number with lo <= v (lo < v when loOpen) and v <= hi.
typedef struct bsRange
{
	double lo, hi;
	bool loOpen;
	const char* what;  // "a number > 0"
} bsRange;

extern const bsRange bsAnyNumber;    // "a number"
extern const bsRange bsPositive;     // "a number > 0"
extern const bsRange bsNonNegative;  // "a number >= 0"
extern const bsRange bsUnit;         // "a number from 0 to 1"

// --- The schema ---

typedef enum bsKind
{
	bs_kindValue = 0,  // a number, string or array of numbers
	bs_kindObject,     // fixed keys
	bs_kindArray,      // elements of one schema
	bs_kindMap,        // any key, values of one schema
	bs_kindMaterial    // a preset name or an object with fixed keys
} bsKind;

// How bsReadFields reads a key, and the C type at its offset.
typedef enum bsRead
{
	bs_readNone = 0,  // the section's own reader reads it
	bs_readNumber,    // double in range
	bs_readInt,       // int, an integer in [lo, hi]
	bs_readVec3,      // bsVec3, 3 numbers each in range, named `what` in messages
	bs_readFile,      // char*, a file path resolved against the config's directory
} bsRead;

typedef struct bsSchema bsSchema;

typedef struct bsSchemaKey
{
	const char* name;
	const bsSchema* schema;
	bsRead read;
	size_t offset;          // of the value in the section's struct
	bool required;
	const bsRange* range;   // number, vec3
	const char* what;       // vec3
	double lo, hi;          // int
	double def[3];          // number, int: def[0]; vec3
	bool keep;              // number, int, vec3: the default is the value the destination already
	                        // holds (a def struct filled with its defaults before reading)
	const char* defText;    // file
} bsSchemaKey;

struct bsSchema
{
	bsKind kind;
	const bsSchemaKey* keys;  // object, material
	int keyCount;
	const bsSchema* element;  // array, map
	const char* what;         // an object that is an array's element: "an object (a mesh)"
};

extern const bsSchema bsValueSchema;
#define BS_VALUE (&bsValueSchema)
#define BS_OBJECT(K) {bs_kindObject, K, BS_COUNT(K), NULL, NULL}
#define BS_ELEMENT(K, W) {bs_kindObject, K, BS_COUNT(K), NULL, W}
#define BS_ARRAY(E) {bs_kindArray, NULL, 0, E, NULL}

// Rows of a key table. BS_KEY: a key its section reads itself (S: what the value may be). The others
// are read by bsReadFields into member M of struct T, which must have the C type the reader writes
// (checked at compile time by BS_AT).
#define BS_AT(T, M, C) _Generic(((T*)0)->M, C: offsetof(T, M))
#define BS_KEY(K, S) {.name = K, .schema = S}
#define BS_NUMBER(K, T, M, R, D) \
	{.name = K, .schema = BS_VALUE, .read = bs_readNumber, .offset = BS_AT(T, M, double), .range = R, \
		.def = {D}}
#define BS_REQUIRED_NUMBER(K, T, M, R) \
	{.name = K, .schema = BS_VALUE, .read = bs_readNumber, .offset = BS_AT(T, M, double), \
		.required = true, .range = R}
#define BS_INT(K, T, M, LO, HI, D) \
	{.name = K, .schema = BS_VALUE, .read = bs_readInt, .offset = BS_AT(T, M, int), .lo = LO, \
		.hi = HI, .def = {D}}
#define BS_VEC3(K, T, M, R, W, X, Y, Z) \
	{.name = K, .schema = BS_VALUE, .read = bs_readVec3, .offset = BS_AT(T, M, bsVec3), .range = R, \
		.what = W, .def = {X, Y, Z}}
// The same whose default is what the destination holds: sections read into a def struct filled by its
// bsDefault...Def(), so that a setting's default lives in one place.
#define BS_NUMBER_IN(K, T, M, R) \
	{.name = K, .schema = BS_VALUE, .read = bs_readNumber, .offset = BS_AT(T, M, double), .range = R, \
		.keep = true}
#define BS_INT_IN(K, T, M, LO, HI) \
	{.name = K, .schema = BS_VALUE, .read = bs_readInt, .offset = BS_AT(T, M, int), .lo = LO, \
		.hi = HI, .keep = true}
#define BS_VEC3_IN(K, T, M, R, W) \
	{.name = K, .schema = BS_VALUE, .read = bs_readVec3, .offset = BS_AT(T, M, bsVec3), .range = R, \
		.what = W, .keep = true}
#define BS_REQUIRED_VEC3(K, T, M, R, W) \
	{.name = K, .schema = BS_VALUE, .read = bs_readVec3, .offset = BS_AT(T, M, bsVec3), \
		.required = true, .range = R, .what = W}
#define BS_FILE(K, T, M, D) \
	{.name = K, .schema = BS_VALUE, .read = bs_readFile, .offset = BS_AT(T, M, char*), .defText = D}
#define BS_REQUIRED_FILE(K, T, M) \
	{.name = K, .schema = BS_VALUE, .read = bs_readFile, .offset = BS_AT(T, M, char*), .required = true}

const bsSchemaKey* bsFindKey(const bsSchemaKey* keys, int count, const char* name);

// " (did you mean 'x'?)" or " (allowed: a, b, c)".
void bsUnknownKeyHint(const char* key, const bsSchemaKey* keys, int count, char* out, size_t size);

// Unknown keys (in document order, against keys; none when keys is NULL), then duplicate keys.
bool bsCheckKeys(bsCtx* c, const cJSON* object, const bsSchemaKey* keys, int keyCount);
// A key of object v that keys (a type's subset) does not have: an error that lists the ones it does.
bool bsCheckKeysOf(bsCtx* c, const cJSON* v, const bsSchemaKey* keys, int keyCount, const char* kind,
	const char* type);

// --- Typed readers ---

const cJSON* bsMember(const cJSON* parent, const char* key);
bool bsInRange(double v, const bsRange* r);

bool bsReadNumber(bsCtx* c, const cJSON* parent, const char* key, bool required,
	const bsRange* range, double def, double* out);
// An integral number in [lo, hi] (both at most 2^53, where doubles are still exact integers).
bool bsReadInteger(bsCtx* c, const cJSON* parent, const char* key, double lo, double hi,
	double def, double* out);
bool bsReadInt(bsCtx* c, const cJSON* parent, const char* key, int lo, int hi, int def, int* out);
// An array of exactly 3 numbers, each in range. The current path is the value's.
bool bsVec3FromValue(bsCtx* c, const cJSON* v, const bsRange* each, const char* what, bsVec3* out);
bool bsReadVec3(bsCtx* c, const cJSON* parent, const char* key, bool required,
	const bsRange* each, const char* what, bsVec3 def, bsVec3* out);
// max > min in every component, else an error at parent.max.
bool bsCheckMinMax(bsCtx* c, const cJSON* parent, bsVec3 lo, bsVec3 hi);
// A file path, resolved against the config's directory (*out malloc'd).
// A file path resolved against the config's directory, into *out (the caller frees it).
bool bsFilePath(bsCtx* c, const char* file, char** out);
bool bsReadFile(bsCtx* c, const cJSON* parent, const char* key, bool required, const char* def,
	char** out);
// true or false.
bool bsReadBool(bsCtx* c, const cJSON* parent, const char* key, bool def, bool* out);
// One of names; *out is its index.
bool bsReadChoice(bsCtx* c, const cJSON* parent, const char* key, bool required,
	const char* const* names, int count, int def, int* out);
// An object with the schema's keys (*out NULL when absent).
bool bsReadObject(bsCtx* c, const cJSON* parent, const char* key, const bsSchema* schema,
	const cJSON** out);
// An array (*out NULL and *count 0 when absent); `what` names it in messages.
bool bsReadArray(bsCtx* c, const cJSON* parent, const char* key, const char* what,
	const cJSON** out, int* count);

// --- Table-driven reading ---

// Reads the keys of the schema that have a bs_read kind from object (NULL: all defaults) into
// dest, in the table's order.
bool bsReadFields(bsCtx* c, const cJSON* object, const bsSchema* schema, void* dest);

// parent[key] as an object of the schema's keys (absent: all defaults), its fields read into dest.
bool bsReadSection(bsCtx* c, const cJSON* parent, const char* key, const bsSchema* schema,
	void* dest);

// v as an array element of the schema (an object, else "expected <schema->what>"), its fields read
// into dest.
bool bsReadElementFields(bsCtx* c, const cJSON* v, const bsSchema* schema, void* dest);

// Reads each element of array (NULL: none) into elements[i], size bytes apart, with read, the path
// at key[i]. *count follows the elements begun, so that bsConfig_Free frees what a failure leaves.
typedef bool bsElementReader(bsCtx* c, const cJSON* v, void* element, void* user);
bool bsReadElements(bsCtx* c, const char* key, const cJSON* array, bsElementReader* read,
	void* elements, size_t size, int* count, void* user);
