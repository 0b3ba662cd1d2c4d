// config_value.c — the schema's key checks, the typed readers and the table-driven reader.
#include "config_value.h"

#include "files.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const bsSchema bsValueSchema = {bs_kindValue, NULL, 0, NULL, NULL};

const bsRange bsAnyNumber = {-DBL_MAX, DBL_MAX, false, "a number"};
const bsRange bsPositive = {0.0, DBL_MAX, true, "a number > 0"};
const bsRange bsNonNegative = {0.0, DBL_MAX, false, "a number >= 0"};
const bsRange bsUnit = {0.0, 1.0, false, "a number from 0 to 1"};

// --- Keys ---

const bsSchemaKey* bsFindKey(const bsSchemaKey* keys, int count, const char* name)
{
	for (int i = 0; i < count; ++i)
	{
		if (strcmp(keys[i].name, name) == 0)
		{
			return keys + i;
		}
	}
	return NULL;
}

// " (did you mean 'x'?)" or " (allowed: a, b, c)".
void bsUnknownKeyHint(const char* key, const bsSchemaKey* keys, int count, char* out,
	size_t size)
{
	// The nearest of every key of the largest table (the interaction's union, about 40).
	const char* names[64];
	int n = count < 64 ? count : 64;
	for (int i = 0; i < n; ++i)
	{
		names[i] = keys[i].name;
	}
	const char* near = bsClosest(key, names, n);
	if (near != NULL)
	{
		snprintf(out, size, " (did you mean '%s'?)", near);
		return;
	}
	char list[256];
	bsJoinNames(list, sizeof list, names, n < 16 ? n : 16, false);
	snprintf(out, size, " (allowed: %s)", list);
}

// The first duplicate key of an object in document order (the later of the two), or NULL. Sorts a
// copy of the member list, so large maps cost n log n.
typedef struct bsMemberRef
{
	const char* key;
	int order;
	const cJSON* item;
} bsMemberRef;

static int bsCompareMembers(const void* pa, const void* pb)
{
	const bsMemberRef* a = pa;
	const bsMemberRef* b = pb;
	int k = strcmp(a->key, b->key);
	return k != 0 ? k : (a->order > b->order) - (a->order < b->order);
}

static bool bsFindDuplicate(bsCtx* c, const cJSON* object, const cJSON** duplicate)
{
	*duplicate = NULL;
	int n = 0;
	for (const cJSON* m = object->child; m != NULL; m = m->next)
	{
		++n;
	}
	if (n < 2)
	{
		return true;
	}
	bsMemberRef* refs = malloc((size_t)n * sizeof *refs);
	if (refs == NULL)
	{
		return bsOutOfMemory(c);
	}
	int i = 0;
	for (const cJSON* m = object->child; m != NULL; m = m->next, ++i)
	{
		refs[i].key = m->string;
		refs[i].order = i;
		refs[i].item = m;
	}
	qsort(refs, (size_t)n, sizeof *refs, bsCompareMembers);
	int first = INT_MAX;
	for (i = 1; i < n; ++i)
	{
		if (strcmp(refs[i].key, refs[i - 1].key) == 0 && refs[i].order < first)
		{
			first = refs[i].order;
			*duplicate = refs[i].item;
		}
	}
	free(refs);
	return true;
}

// Unknown keys (in document order, against keys; none when keys is NULL) and duplicate keys.
bool bsCheckKeys(bsCtx* c, const cJSON* object, const bsSchemaKey* keys, int keyCount)
{
	for (const cJSON* m = object->child; m != NULL; m = m->next)
	{
		if (keys != NULL && bsFindKey(keys, keyCount, m->string) == NULL)
		{
			char hint[300];
			bsUnknownKeyHint(m->string, keys, keyCount, hint, sizeof hint);
			bsPushKey(c, m->string);
			return bsFail(c, "unknown key%s", hint);
		}
	}
	const cJSON* duplicate = NULL;
	if (!bsFindDuplicate(c, object, &duplicate))
	{
		return false;
	}
	if (duplicate != NULL)
	{
		bsPushKey(c, duplicate->string);
		return bsFail(c, "duplicate key");
	}
	return true;
}

// --- Typed readers ---

const cJSON* bsMember(const cJSON* parent, const char* key)
{
	return parent != NULL ? cJSON_GetObjectItemCaseSensitive(parent, key) : NULL;
}

bool bsInRange(double v, const bsRange* r)
{
	return isfinite(v) && (r->loOpen ? v > r->lo : v >= r->lo) && v <= r->hi;
}

bool bsReadNumber(bsCtx* c, const cJSON* parent, const char* key, bool required,
	const bsRange* range, double def, double* out)
{
	const cJSON* v = bsMember(parent, key);
	if (v == NULL)
	{
		*out = def;
		return required ? bsMissing(c, key) : true;
	}
	size_t mark = bsPushKey(c, key);
	if (!cJSON_IsNumber(v) || !bsInRange(v->valuedouble, range))
	{
		return bsFailExpected(c, range->what, v);
	}
	*out = v->valuedouble;
	bsPop(c, mark);
	return true;
}

// An integral number in [lo, hi] (both at most 2^53, where doubles are still exact integers).
bool bsReadInteger(bsCtx* c, const cJSON* parent, const char* key, double lo, double hi,
	double def, double* out)
{
	const cJSON* v = bsMember(parent, key);
	if (v == NULL)
	{
		*out = def;
		return true;
	}
	size_t mark = bsPushKey(c, key);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) ||
		v->valuedouble != floor(v->valuedouble))
	{
		char what[96];
		snprintf(what, sizeof what, "an integer from %.0f to %.0f", lo, hi);
		return bsFailExpected(c, what, v);
	}
	*out = v->valuedouble;
	bsPop(c, mark);
	return true;
}

bool bsReadInt(bsCtx* c, const cJSON* parent, const char* key, int lo, int hi, int def,
	int* out)
{
	double v;
	if (!bsReadInteger(c, parent, key, lo, hi, def, &v))
	{
		return false;
	}
	*out = (int)v;
	return true;
}

// An array of exactly 3 numbers, each in range. The current path is the value's.
bool bsVec3FromValue(bsCtx* c, const cJSON* v, const bsRange* each, const char* what,
	bsVec3* out)
{
	double d[3];
	int n = 0;
	if (cJSON_IsArray(v))
	{
		for (const cJSON* e = v->child; e != NULL; e = e->next, ++n)
		{
			if (n >= 3 || !cJSON_IsNumber(e) || !bsInRange(e->valuedouble, each))
			{
				n = -1;
				break;
			}
			d[n] = e->valuedouble;
		}
	}
	if (n != 3)
	{
		return bsFailExpected(c, what, v);
	}
	*out = bsV3(d[0], d[1], d[2]);
	return true;
}

bool bsReadVec3(bsCtx* c, const cJSON* parent, const char* key, bool required,
	const bsRange* each, const char* what, bsVec3 def, bsVec3* out)
{
	const cJSON* v = bsMember(parent, key);
	if (v == NULL)
	{
		*out = def;
		return required ? bsMissing(c, key) : true;
	}
	size_t mark = bsPushKey(c, key);
	if (!bsVec3FromValue(c, v, each, what, out))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// max > min in every component; the current path is max's.
bool bsCheckMinMax(bsCtx* c, const cJSON* parent, bsVec3 lo, bsVec3 hi)
{
	if (hi.x > lo.x && hi.y > lo.y && hi.z > lo.z)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "max");
	char what[160];
	char got[80];
	bsDescribeValue(bsMember(parent, "min"), got);
	snprintf(what, sizeof what, "3 numbers greater than min %s component by component", got);
	bsFailExpected(c, what, bsMember(parent, "max"));
	bsPop(c, mark);
	return false;
}

// A file path, resolved against the config's directory. The current path is the value's.
bool bsFilePath(bsCtx* c, const char* file, char** out)
{
	size_t fileLength = strlen(file);
	size_t dirLength = file[0] == '/' ? 0 : c->dirLength;
	*out = malloc(dirLength + fileLength + 1);
	if (*out == NULL)
	{
		return bsOutOfMemory(c);
	}
	memcpy(*out, c->dir, dirLength);
	memcpy(*out + dirLength, file, fileLength + 1);
	bsTidyPath(*out);  // "configs/../out/a" is printed in messages and summaries: "out/a"
	return true;
}

bool bsReadFile(bsCtx* c, const cJSON* parent, const char* key, bool required,
	const char* def, char** out)
{
	const cJSON* v = bsMember(parent, key);
	if (v == NULL)
	{
		if (required)
		{
			return bsMissing(c, key);
		}
		return bsFilePath(c, def, out);
	}
	size_t mark = bsPushKey(c, key);
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
	{
		return bsFailExpected(c, "a non-empty string (a file path)", v);
	}
	if (!bsFilePath(c, v->valuestring, out))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

bool bsReadBool(bsCtx* c, const cJSON* parent, const char* key, bool def, bool* out)
{
	const cJSON* v = bsMember(parent, key);
	if (v == NULL)
	{
		*out = def;
		return true;
	}
	size_t mark = bsPushKey(c, key);
	if (!cJSON_IsBool(v))
	{
		return bsFailExpected(c, "true or false", v);
	}
	*out = cJSON_IsTrue(v);
	bsPop(c, mark);
	return true;
}

// One of names; *out is its index.
bool bsReadChoice(bsCtx* c, const cJSON* parent, const char* key, bool required,
	const char* const* names, int count, int def, int* out)
{
	const cJSON* v = bsMember(parent, key);
	if (v == NULL)
	{
		*out = def;
		return required ? bsMissing(c, key) : true;
	}
	size_t mark = bsPushKey(c, key);
	if (cJSON_IsString(v))
	{
		for (int i = 0; i < count; ++i)
		{
			if (strcmp(v->valuestring, names[i]) == 0)
			{
				*out = i;
				bsPop(c, mark);
				return true;
			}
		}
	}
	char list[256];
	bsJoinNames(list, sizeof list, names, count, true);
	char got[80];
	bsDescribeValue(v, got);
	const char* near = cJSON_IsString(v) ? bsClosest(v->valuestring, names, count) : NULL;
	if (near != NULL)
	{
		return bsFail(c, "expected one of %s, got %s (did you mean \"%s\"?)", list, got, near);
	}
	return bsFail(c, "expected one of %s, got %s", list, got);
}

// An object with the given keys (NULL when absent).
bool bsReadObject(bsCtx* c, const cJSON* parent, const char* key, const bsSchema* schema,
	const cJSON** out)
{
	const cJSON* v = bsMember(parent, key);
	*out = NULL;
	if (v == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, key);
	if (!cJSON_IsObject(v))
	{
		return bsFailExpected(c, "an object", v);
	}
	if (!bsCheckKeys(c, v, schema->keys, schema->keyCount))
	{
		return false;
	}
	bsPop(c, mark);
	*out = v;
	return true;
}

// An array (NULL and 0 when absent); *count its length.
bool bsReadArray(bsCtx* c, const cJSON* parent, const char* key, const char* what,
	const cJSON** out, int* count)
{
	const cJSON* v = bsMember(parent, key);
	*out = NULL;
	*count = 0;
	if (v == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, key);
	if (!cJSON_IsArray(v))
	{
		return bsFailExpected(c, what, v);
	}
	int n = 0;
	for (const cJSON* e = v->child; e != NULL; e = e->next)
	{
		if (n == INT_MAX)
		{
			c->result = bs_errTooLarge;
			return bsFail(c, "more than %d elements", INT_MAX);
		}
		++n;
	}
	bsPop(c, mark);
	*out = v;
	*count = n;
	return true;
}

// --- Table-driven reading ---

static bool bsReadField(bsCtx* c, const cJSON* object, const bsSchemaKey* k, void* out)
{
	switch (k->read)
	{
		case bs_readNone:
			return true;
		case bs_readNumber:
			return bsReadNumber(c, object, k->name, k->required, k->range, k->keep ? *(double*)out : k->def[0],
				out);
		case bs_readInt:
			return bsReadInt(c, object, k->name, (int)k->lo, (int)k->hi, k->keep ? *(int*)out : (int)k->def[0],
				out);
		case bs_readVec3:
			return bsReadVec3(c, object, k->name, k->required, k->range, k->what,
				k->keep ? *(bsVec3*)out : bsV3(k->def[0], k->def[1], k->def[2]), out);
		case bs_readFile:
			return bsReadFile(c, object, k->name, k->required, k->defText, out);
	}
	return true;
}

bool bsReadFields(bsCtx* c, const cJSON* object, const bsSchema* schema, void* dest)
{
	for (int i = 0; i < schema->keyCount; ++i)
	{
		const bsSchemaKey* k = schema->keys + i;
		if (!bsReadField(c, object, k, (char*)dest + k->offset))
		{
			return false;
		}
	}
	return true;
}

bool bsReadSection(bsCtx* c, const cJSON* parent, const char* key, const bsSchema* schema,
	void* dest)
{
	const cJSON* object;
	if (!bsReadObject(c, parent, key, schema, &object))
	{
		return false;
	}
	size_t mark = bsPushKey(c, key);
	if (!bsReadFields(c, object, schema, dest))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

bool bsReadElementFields(bsCtx* c, const cJSON* v, const bsSchema* schema, void* dest)
{
	if (!cJSON_IsObject(v))
	{
		return bsFailExpected(c, schema->what, v);
	}
	return bsCheckKeys(c, v, schema->keys, schema->keyCount) && bsReadFields(c, v, schema, dest);
}

bool bsReadElements(bsCtx* c, const char* key, const cJSON* array, bsElementReader* read,
	void* elements, size_t size, int* count, void* user)
{
	size_t mark = bsPushKey(c, key);
	int i = 0;
	for (const cJSON* e = array != NULL ? array->child : NULL; e != NULL; e = e->next, ++i)
	{
		size_t imark = bsPushIndex(c, i);
		*count = i + 1;
		if (!read(c, e, (char*)elements + (size_t)i * size, user))
		{
			return false;
		}
		bsPop(c, imark);
	}
	bsPop(c, mark);
	return true;
}

// A key of object v that keys (a type's subset) does not have: an error that lists the ones it does.
bool bsCheckKeysOf(bsCtx* c, const cJSON* v, const bsSchemaKey* keys, int keyCount, const char* kind,
	const char* type)
{
	for (const cJSON* m = v->child; m != NULL; m = m->next)
	{
		if (bsFindKey(keys, keyCount, m->string) == NULL)
		{
			char list[512];
			const char* names[32];
			for (int i = 0; i < keyCount && i < 32; ++i)
			{
				names[i] = keys[i].name;
			}
			bsJoinNames(list, sizeof list, names, keyCount < 32 ? keyCount : 32, false);
			bsPushKey(c, m->string);
			return bsFail(c, "not used by a \"%s\" %s (its keys: %s)", type, kind, list);
		}
	}
	return true;
}
