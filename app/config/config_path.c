// config_path.c — where in a config a message points and what it says: the JSON path of the value
// being read, "file: path: message" errors, values quoted in messages and did-you-mean suggestions.
#include "config_path.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char* bsStrDup(const char* s)
{
	size_t n = strlen(s) + 1;
	char* d = malloc(n);
	if (d != NULL)
	{
		memcpy(d, s, n);
	}
	return d;
}

static bool bsIsDigit(unsigned char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool bsIsAlpha(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

// --- Text for messages ---

void bsBuf_Put(bsBuf* b, const char* text, size_t n)
{
	if (b->full)
	{
		return;
	}
	size_t room = b->size - 1 - b->length;
	if (n > room)
	{
		n = room;
		b->full = true;
	}
	memcpy(b->data + b->length, text, n);
	b->length += n;
	b->data[b->length] = '\0';
}

void bsBuf_Str(bsBuf* b, const char* text)
{
	bsBuf_Put(b, text, strlen(text));
}

// Cuts a truncated buffer back to a UTF-8 character boundary and appends "...".
static void bsBuf_Ellipsis(bsBuf* b, size_t keep)
{
	if (keep > b->length)
	{
		keep = b->length;
	}
	while (keep > 0 && ((unsigned char)b->data[keep] & 0xC0) == 0x80)
	{
		--keep;
	}
	b->length = keep;
	b->data[keep] = '\0';
	b->full = false;
	bsBuf_Str(b, "...");
}

// The shortest of %.15g and %.17g that reads back as the same double.
void bsFormatNumber(double v, char out[32])
{
	if (isnan(v))
	{
		snprintf(out, 32, "nan");
		return;
	}
	if (isinf(v))
	{
		snprintf(out, 32, v > 0.0 ? "inf" : "-inf");
		return;
	}
	snprintf(out, 32, "%.15g", v);
	if (strtod(out, NULL) != v)
	{
		snprintf(out, 32, "%.17g", v);
	}
}

// A JSON string literal of s (at most maxBytes of it, then "...").
static void bsPutJsonString(bsBuf* b, const char* s, size_t maxBytes)
{
	bsBuf_Put(b, "\"", 1);
	size_t n = 0;
	for (const unsigned char* p = (const unsigned char*)s; *p != '\0'; ++p, ++n)
	{
		if (n >= maxBytes && (*p & 0xC0) != 0x80)
		{
			bsBuf_Str(b, "...");
			break;
		}
		char esc[8];
		switch (*p)
		{
			case '"':
				bsBuf_Str(b, "\\\"");
				break;
			case '\\':
				bsBuf_Str(b, "\\\\");
				break;
			case '\n':
				bsBuf_Str(b, "\\n");
				break;
			case '\t':
				bsBuf_Str(b, "\\t");
				break;
			default:
				if (*p < 0x20 || *p == 0x7F)
				{
					snprintf(esc, sizeof esc, "\\u%04x", (unsigned)*p);
					bsBuf_Str(b, esc);
				}
				else
				{
					bsBuf_Put(b, (const char*)p, 1);
				}
				break;
		}
	}
	bsBuf_Put(b, "\"", 1);
}

// Compact JSON of a value for messages: [4, -1, 2], {"a": 1}. Stops when the buffer is full; the
// depth is bounded by the syntax check.
static void bsPutValue(bsBuf* b, const cJSON* v)
{
	if (b->full)
	{
		return;
	}
	char num[32];
	if (cJSON_IsNumber(v))
	{
		bsFormatNumber(v->valuedouble, num);
		bsBuf_Str(b, num);
	}
	else if (cJSON_IsString(v))
	{
		bsPutJsonString(b, v->valuestring, 64);
	}
	else if (cJSON_IsTrue(v))
	{
		bsBuf_Str(b, "true");
	}
	else if (cJSON_IsFalse(v))
	{
		bsBuf_Str(b, "false");
	}
	else if (cJSON_IsNull(v))
	{
		bsBuf_Str(b, "null");
	}
	else if (cJSON_IsArray(v) || cJSON_IsObject(v))
	{
		bool object = cJSON_IsObject(v);
		bsBuf_Str(b, object ? "{" : "[");
		for (const cJSON* e = v->child; e != NULL && !b->full; e = e->next)
		{
			if (e != v->child)
			{
				bsBuf_Str(b, ", ");
			}
			if (object)
			{
				bsPutJsonString(b, e->string, 64);
				bsBuf_Str(b, ": ");
			}
			bsPutValue(b, e);
		}
		bsBuf_Str(b, object ? "}" : "]");
	}
	else
	{
		bsBuf_Str(b, "?");
	}
}

enum
{
	bs_valueTextMax = 60  // characters of a value quoted in a message
};

void bsDescribeValue(const cJSON* v, char out[80])
{
	char tmp[bs_valueTextMax + 8];
	bsBuf b = {tmp, sizeof tmp, 0, false};
	bsPutValue(&b, v);
	if (b.full || b.length > bs_valueTextMax)
	{
		bsBuf_Ellipsis(&b, bs_valueTextMax);
	}
	snprintf(out, 80, "%s", tmp);
}

// Optimal string alignment distance (Levenshtein plus adjacent transpositions), ASCII case folded.
// Words longer than 63 bytes get no suggestion (distance INT_MAX).
static int bsEditDistance(const char* a, const char* b)
{
	size_t n = strlen(a);
	size_t m = strlen(b);
	if (n > 63 || m > 63)
	{
		return INT_MAX;
	}
	int d[64][64];
	for (size_t i = 0; i <= n; ++i)
	{
		d[i][0] = (int)i;
	}
	for (size_t j = 0; j <= m; ++j)
	{
		d[0][j] = (int)j;
	}
	for (size_t i = 1; i <= n; ++i)
	{
		for (size_t j = 1; j <= m; ++j)
		{
			unsigned char ca = (unsigned char)a[i - 1];
			unsigned char cb = (unsigned char)b[j - 1];
			ca = (ca >= 'A' && ca <= 'Z') ? (unsigned char)(ca + 32) : ca;
			cb = (cb >= 'A' && cb <= 'Z') ? (unsigned char)(cb + 32) : cb;
			int cost = ca == cb ? 0 : 1;
			int best = d[i - 1][j] + 1;
			best = d[i][j - 1] + 1 < best ? d[i][j - 1] + 1 : best;
			best = d[i - 1][j - 1] + cost < best ? d[i - 1][j - 1] + cost : best;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
			{
				best = d[i - 2][j - 2] + 1 < best ? d[i - 2][j - 2] + 1 : best;
			}
			d[i][j] = best;
		}
	}
	return d[n][m];
}

// The name nearest to word, when near enough to be a likely typo; else NULL.
const char* bsClosest(const char* word, const char* const* names, int count)
{
	const char* best = NULL;
	int bestDistance = INT_MAX;
	size_t wordLength = strlen(word);
	for (int i = 0; i < count; ++i)
	{
		int distance = bsEditDistance(word, names[i]);
		size_t longest = strlen(names[i]) > wordLength ? strlen(names[i]) : wordLength;
		int allowed = longest <= 4 ? 1 : longest <= 8 ? 2 : 3;
		if (distance <= allowed && distance < bestDistance)
		{
			best = names[i];
			bestDistance = distance;
		}
	}
	return best;
}

// "a, b, c" or "\"a\", \"b\", \"c\"".
void bsJoinNames(char* out, size_t size, const char* const* names, int count, bool quoted)
{
	bsBuf b = {out, size, 0, false};
	out[0] = '\0';
	for (int i = 0; i < count; ++i)
	{
		if (i > 0)
		{
			bsBuf_Str(&b, ", ");
		}
		if (quoted)
		{
			bsBuf_Str(&b, "\"");
		}
		bsBuf_Str(&b, names[i]);
		if (quoted)
		{
			bsBuf_Str(&b, "\"");
		}
	}
}

// --- The JSON path and errors ---

void bsCtx_Init(bsCtx* c, const char* path, bsConfigError* error)
{
	memset(c, 0, sizeof *c);
	const char* slash = path != NULL ? strrchr(path, '/') : NULL;
	c->label = path != NULL ? path : "<config>";
	c->dir = path != NULL ? path : "";
	c->dirLength = slash != NULL ? (size_t)(slash - path) + 1 : 0;
	c->error = error;
	c->result = bs_ok;
}

void bsCtx_Free(bsCtx* c)
{
	for (int i = 0; i < c->setPathCount; ++i)
	{
		free(c->setPaths[i]);
	}
	free(c->setPaths);
	c->setPaths = NULL;
	c->setPathCount = 0;
}

static bool bsIsIdentifier(const char* key)
{
	if (!(bsIsAlpha((unsigned char)key[0]) || key[0] == '_'))
	{
		return false;
	}
	for (const char* p = key; *p != '\0'; ++p)
	{
		if (!(bsIsAlpha((unsigned char)*p) || bsIsDigit((unsigned char)*p) || *p == '_'))
		{
			return false;
		}
	}
	return true;
}

// Appends a path segment to path (of size bytes, pathLength used): .key, key at the start,
// ["odd key"], or [index].
void bsAppendKey(char* path, size_t size, size_t* pathLength, const char* key)
{
	bsBuf b = {path, size, *pathLength, false};
	if (bsIsIdentifier(key))
	{
		if (b.length > 0)
		{
			bsBuf_Str(&b, ".");
		}
		bsBuf_Str(&b, key);
	}
	else
	{
		bsBuf_Str(&b, "[");
		bsPutJsonString(&b, key, 40);
		bsBuf_Str(&b, "]");
	}
	*pathLength = b.length;
}

void bsAppendIndex(char* path, size_t size, size_t* pathLength, int index)
{
	char seg[24];
	snprintf(seg, sizeof seg, "[%d]", index);
	bsBuf b = {path, size, *pathLength, false};
	bsBuf_Str(&b, seg);
	*pathLength = b.length;
}

size_t bsPushKey(bsCtx* c, const char* key)
{
	size_t mark = c->pathLength;
	bsAppendKey(c->path, sizeof c->path, &c->pathLength, key);
	return mark;
}

size_t bsPushIndex(bsCtx* c, int index)
{
	size_t mark = c->pathLength;
	bsAppendIndex(c->path, sizeof c->path, &c->pathLength, index);
	return mark;
}

void bsPop(bsCtx* c, size_t mark)
{
	c->pathLength = mark;
	c->path[mark] = '\0';
}

// Is the current path at or under a path an override wrote?
static bool bsFromOverride(const bsCtx* c)
{
	for (int i = 0; i < c->setPathCount; ++i)
	{
		size_t n = strlen(c->setPaths[i]);
		if (strncmp(c->path, c->setPaths[i], n) == 0 &&
			(c->path[n] == '\0' || c->path[n] == '.' || c->path[n] == '['))
		{
			return true;
		}
	}
	return false;
}

// "label: path: message" (or "label: message" at the top level). Returns false.
bool bsFail(bsCtx* c, const char* fmt, ...)
{
	char message[480];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	if (c->result == bs_ok)
	{
		c->result = bs_errInvalidArgument;
	}
	if (c->error != NULL)
	{
		const char* note = bsFromOverride(c) ? " (set by --set)" : "";
		if (c->pathLength > 0)
		{
			snprintf(c->error->message, sizeof c->error->message, "%.190s: %s: %s%s", c->label, c->path,
				message, note);
		}
		else
		{
			snprintf(c->error->message, sizeof c->error->message, "%.190s: %s%s", c->label, message, note);
		}
	}
	return false;
}

bool bsOutOfMemory(bsCtx* c)
{
	c->result = bs_errOutOfMemory;
	if (c->error != NULL)
	{
		snprintf(c->error->message, sizeof c->error->message, "%s: out of memory", c->label);
	}
	return false;
}

// "expected WHAT, got VALUE" at the current path.
bool bsFailExpected(bsCtx* c, const char* what, const cJSON* v)
{
	char got[80];
	bsDescribeValue(v, got);
	return bsFail(c, "expected %s, got %s", what, got);
}

bool bsMissing(bsCtx* c, const char* key)
{
	return bsFail(c, "missing required key '%s'", key);
}
