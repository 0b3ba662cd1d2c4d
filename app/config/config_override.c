// config_override.c — --set overrides: "dotted.path=VALUE" written into the JSON tree before it is
// read. The path is walked along the schema (config_read.c and the sections' files), so that a key the schema does not know
// is refused with a did-you-mean, and a missing object or array on the way is created as the schema
// (or the next segment, an index) says.
#include "config_override.h"

#include "array.h"
#include "config_read.h"
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// "--set TEXT: message". Returns false.
BS_PRINTF_FORMAT(4, 5)
static bool bsOverrideFail(bsCtx* c, bsResult result, const char* text, const char* fmt, ...)
{
	char message[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	c->result = result;
	if (c->error != NULL)
	{
		snprintf(c->error->message, sizeof c->error->message, "--set %.200s: %s", text, message);
	}
	return false;
}

// A whole decimal index without sign or leading zeros, below 10^9; -1 otherwise.
static int bsParseIndex(const char* s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 9 || (n > 1 && s[0] == '0'))
	{
		return -1;
	}
	int v = 0;
	for (size_t i = 0; i < n; ++i)
	{
		if (s[i] < '0' || s[i] > '9')
		{
			return -1;
		}
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

// The override's value: JSON when it parses, else the text as a string. Text that starts like a
// JSON array, object or string must be valid JSON.
static cJSON* bsOverrideValue(bsCtx* c, const char* text, const char* value)
{
	size_t n = strlen(value);
	cJSON* v = NULL;
	bsJsonProblem problem;
	bsResult parsed = bsJson_ParseStrict(value, n, &v, &problem);
	if (parsed == bs_ok)
	{
		return v;
	}
	if (problem.encoding)
	{
		bsOverrideFail(c, bs_errInvalidArgument, text, "the value is not valid UTF-8");
		return NULL;
	}
	if (parsed == bs_errOutOfMemory)
	{
		bsOverrideFail(c, bs_errOutOfMemory, text, "out of memory");
		return NULL;
	}
	size_t first = strspn(value, " \t\n\r");
	if (value[first] == '[' || value[first] == '{' || value[first] == '"')
	{
		bsOverrideFail(c, bs_errInvalidArgument, text, "the value is not valid JSON: column %zu: %s",
			problem.column, problem.message);
		return NULL;
	}
	v = cJSON_CreateString(value);
	if (v == NULL)
	{
		bsOverrideFail(c, bs_errOutOfMemory, text, "out of memory");
	}
	return v;
}

// Where the walk down an override's path is.
typedef struct bsOverrideWalk
{
	const char* text;        // the whole override, for messages
	cJSON* node;             // the object or array the next segment is looked up in
	const bsSchema* schema;  // node's schema
	char shown[320];         // the JSON path walked so far, for messages
	size_t shownLength;
} bsOverrideWalk;

// One step of the walk: what the segment names in the node.
typedef struct bsOverrideStep
{
	const char* segment;
	cJSON* child;           // NULL when the node has none yet
	const bsSchema* next;   // the child's schema
	int index;              // the child's index in an array node; -1 in an object
} bsOverrideStep;

static bool bsLookupIndex(bsCtx* c, bsOverrideWalk* w, bsOverrideStep* s, const char* where)
{
	s->index = bsParseIndex(s->segment);
	int size = cJSON_GetArraySize(w->node);
	if (s->index < 0)
	{
		return bsOverrideFail(c, bs_errInvalidArgument, w->text,
			"%s is an array: expected an index, got '%.64s'", where, s->segment);
	}
	if (s->index > size)
	{
		return bsOverrideFail(c, bs_errInvalidArgument, w->text,
			"index %d is out of range: %s has %d element%s (index %d appends)", s->index, where, size,
			size == 1 ? "" : "s", size);
	}
	s->child = s->index < size ? cJSON_GetArrayItem(w->node, s->index) : NULL;
	// An array's element; an object schema whose element is itself stands for a list of such objects too.
	s->next = w->schema->kind == bs_kindArray || w->schema->element == w->schema ? w->schema->element : &bsValueSchema;
	bsAppendIndex(w->shown, sizeof w->shown, &w->shownLength, s->index);
	return true;
}

static bool bsLookupKey(bsCtx* c, bsOverrideWalk* w, bsOverrideStep* s)
{
	const bsSchema* schema = w->schema;
	if (schema->kind == bs_kindMap)
	{
		s->next = schema->element;
	}
	else
	{
		const bsSchemaKey* key = bsFindKey(schema->keys, schema->keyCount, s->segment);
		if (key == NULL)
		{
			char hint[300];
			bsUnknownKeyHint(s->segment, schema->keys, schema->keyCount, hint, sizeof hint);
			bool top = w->shownLength == 0;
			return bsOverrideFail(c, bs_errInvalidArgument, w->text, "unknown key '%.64s'%s%s%s",
				s->segment, top ? "" : " in ", top ? "" : w->shown, hint);
		}
		s->next = key->schema;
	}
	s->child = cJSON_GetObjectItemCaseSensitive(w->node, s->segment);
	bsAppendKey(w->shown, sizeof w->shown, &w->shownLength, s->segment);
	return true;
}

// Looks the step's segment up in the walk's node (an index in an array, a key in an object).
static bool bsOverrideLookup(bsCtx* c, bsOverrideWalk* w, bsOverrideStep* s)
{
	char where[sizeof w->shown];
	snprintf(where, sizeof where, "%s", w->shownLength > 0 ? w->shown : "the top level");
	s->index = -1;
	if (cJSON_IsArray(w->node))
	{
		return bsLookupIndex(c, w, s, where);
	}
	if (cJSON_IsObject(w->node))
	{
		return bsLookupKey(c, w, s);
	}
	char got[80];
	bsDescribeValue(w->node, got);
	return bsOverrideFail(c, bs_errInvalidArgument, w->text, "%s is %s in the config, not an object "
		"or array: it has no '%.64s'", where, got, s->segment);
}

// The last segment: puts the value there, replacing what was.
static bool bsOverridePut(bsCtx* c, bsOverrideWalk* w, const bsOverrideStep* s, const char* value)
{
	cJSON* v = bsOverrideValue(c, w->text, value);
	if (v == NULL)
	{
		return false;
	}
	cJSON_bool done;
	if (s->index >= 0)
	{
		done = s->child != NULL ? cJSON_ReplaceItemInArray(w->node, s->index, v)
			: cJSON_AddItemToArray(w->node, v);
	}
	else
	{
		done = s->child != NULL ? cJSON_ReplaceItemInObjectCaseSensitive(w->node, s->segment, v)
			: cJSON_AddItemToObject(w->node, s->segment, v);
	}
	if (!done)
	{
		cJSON_Delete(v);
		return bsOverrideFail(c, bs_errOutOfMemory, w->text, "out of memory");
	}
	return true;
}

// A segment before the last: moves the walk into the child, creating it when missing as the rest of
// the path needs (an array where the schema has one, or where a value's next segment is an index).
static bool bsOverrideDescend(bsCtx* c, bsOverrideWalk* w, const bsOverrideStep* s,
	const char* rest)
{
	bsKind kind = s->next->kind;
	cJSON* child = s->child;
	if (child == NULL)
	{
		bool array = kind == bs_kindArray || (kind == bs_kindValue && bsParseIndex(rest) >= 0);
		if (kind == bs_kindValue && !array)
		{
			return bsOverrideFail(c, bs_errInvalidArgument, w->text, "%s holds a value, not an "
				"object: it has no '%.64s'", w->shown, rest);
		}
		child = array ? cJSON_CreateArray() : cJSON_CreateObject();
		cJSON_bool added = child != NULL && (s->index >= 0 ? cJSON_AddItemToArray(w->node, child)
			: cJSON_AddItemToObject(w->node, s->segment, child));
		if (!added)
		{
			cJSON_Delete(child);
			return bsOverrideFail(c, bs_errOutOfMemory, w->text, "out of memory");
		}
	}
	else if (kind == bs_kindValue || kind == bs_kindArray ? !cJSON_IsArray(child)
		: !cJSON_IsObject(child) && !(s->next->element == s->next && cJSON_IsArray(child)))
	{
		char got[80];
		bsDescribeValue(child, got);
		const char* need = kind == bs_kindArray || kind == bs_kindValue ? "an array" : "an object";
		return bsOverrideFail(c, bs_errInvalidArgument, w->text, "%s is %s in the config, not %s",
			w->shown, got, need);
	}
	w->node = child;
	w->schema = s->next;
	return true;
}

// Records the JSON path an override wrote, for " (set by --set)" in messages.
static bool bsRememberSetPath(bsCtx* c, const char* text, const char* path)
{
	char* copy = bsStrDup(path);
	if (copy == NULL || !BS_ARRAY_RESERVE(c->setPaths, c->setPathCapacity, (size_t)c->setPathCount + 1))
	{
		free(copy);
		return bsOverrideFail(c, bs_errOutOfMemory, text, "out of memory");
	}
	c->setPaths[c->setPathCount++] = copy;
	return true;
}

// Applies one "dotted.path=VALUE" to the tree.
static bool bsApplyOverride(bsCtx* c, cJSON* root, const char* text)
{
	const char* eq = strchr(text, '=');
	if (eq == NULL || eq == text)
	{
		return bsOverrideFail(c, bs_errInvalidArgument, text, "expected key.path=value");
	}
	size_t pathLength = (size_t)(eq - text);
	char* segments = malloc(pathLength + 1);
	if (segments == NULL)
	{
		return bsOverrideFail(c, bs_errOutOfMemory, text, "out of memory");
	}
	memcpy(segments, text, pathLength);
	segments[pathLength] = '\0';

	bsOverrideWalk w = {text, root, &bsRootSchema, {0}, 0};
	bool ok = false;
	for (char* seg = segments;;)
	{
		char* dot = strchr(seg, '.');
		if (dot != NULL)
		{
			*dot = '\0';
		}
		bsOverrideStep s = {seg, NULL, NULL, -1};
		if (seg[0] == '\0')
		{
			bsOverrideFail(c, bs_errInvalidArgument, text, "empty key in the path");
			break;
		}
		if (!bsOverrideLookup(c, &w, &s))
		{
			break;
		}
		if (dot == NULL)
		{
			ok = bsOverridePut(c, &w, &s, eq + 1);
			break;
		}
		if (!bsOverrideDescend(c, &w, &s, dot + 1))
		{
			break;
		}
		seg = dot + 1;
	}
	free(segments);
	return ok && bsRememberSetPath(c, text, w.shown);
}

bool bsApplyOverrides(bsCtx* c, cJSON* root, const char* const* overrides, int count)
{
	if (!cJSON_IsObject(root))
	{
		return true;
	}
	for (int i = 0; i < count; ++i)
	{
		if (overrides[i] == NULL)
		{
			return bsOverrideFail(c, bs_errInvalidArgument, "(null)", "expected key.path=value");
		}
		if (!bsApplyOverride(c, root, overrides[i]))
		{
			return false;
		}
	}
	return true;
}
