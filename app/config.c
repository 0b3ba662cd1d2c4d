// config.c — the config reader: strict JSON syntax check, cJSON tree, --set overrides, validation into
// bsConfig, hash.
//
// The text goes through four passes, each with its own kind of message:
//   1. encoding: UTF-8 without NUL bytes                                 file:line:column: ...
//   2. syntax: a strict JSON checker (no allocation, iterative, depth-limited) file:line:column: ...
//      cJSON alone accepts what JSON does not (01, 1., \u0000 silently truncating a string) and gives
//      only a byte offset, sometimes past the culprit; the checker names the problem and its place.
//   3. cJSON builds the tree (cJSON_ParseWithLengthOpts; its global error pointer is never read)
//   4. overrides, then validation of the tree into bsConfig               file: json.path: ...
#include "config.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define BS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define BS_PRINTF(f, a)
#endif

#define BS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

// --- Material presets ---

typedef struct bsPreset
{
	const char* name;
	const char* texture;  // inside texture { }
} bsPreset;

static const bsPreset bsPresets[] = {
	{"white", "pigment { color rgb <0.92, 0.92, 0.92> } finish { ambient 0.05 diffuse 0.85 }"},
	{"plaster", "pigment { color rgb <0.93, 0.9, 0.84> } finish { ambient 0.05 diffuse 0.9 } "
		"normal { granite 0.05 scale 0.2 }"},
	{"wood", "pigment { wood turbulence 0.1 color_map { [0 color rgb <0.55, 0.35, 0.17>] "
		"[0.7 color rgb <0.45, 0.27, 0.12>] [1 color rgb <0.35, 0.2, 0.08>] } scale 0.1 } "
		"finish { ambient 0.05 diffuse 0.75 specular 0.15 roughness 0.05 }"},
	{"metal", "pigment { color rgb <0.75, 0.76, 0.78> } "
		"finish { ambient 0.02 diffuse 0.35 specular 0.8 roughness 0.02 metallic reflection 0.4 }"},
	{"glass", "pigment { color rgbf <0.95, 0.97, 1, 0.9> } "
		"finish { ambient 0 diffuse 0.05 specular 0.9 roughness 0.001 reflection 0.1 }"},
	{"grass", "pigment { color rgb <0.25, 0.5, 0.15> } finish { ambient 0.05 diffuse 0.8 } "
		"normal { bumps 0.4 scale 0.05 }"},
	{"stone", "pigment { granite color_map { [0 color rgb <0.45, 0.45, 0.43>] "
		"[1 color rgb <0.6, 0.58, 0.55>] } scale 0.5 } finish { ambient 0.05 diffuse 0.8 } "
		"normal { granite 0.2 scale 0.3 }"},
	{"roof", "pigment { color rgb <0.55, 0.2, 0.15> } finish { ambient 0.05 diffuse 0.8 } "
		"normal { bumps 0.15 scale 0.1 }"},
	{"snow", "pigment { color rgb <0.97, 0.98, 1> } "
		"finish { ambient 0.12 diffuse 0.85 specular 0.25 roughness 0.08 }"},
	{"slime", "pigment { color rgbf <0.4, 0.85, 0.2, 0.3> } "
		"finish { ambient 0.1 diffuse 0.6 specular 0.9 roughness 0.005 reflection 0.05 }"},
	{"mud", "pigment { color rgb <0.35, 0.25, 0.15> } "
		"finish { ambient 0.04 diffuse 0.7 specular 0.3 roughness 0.03 } normal { wrinkles 0.3 scale 0.1 }"},
	{"oil", "pigment { color rgb <0.05, 0.04, 0.03> } "
		"finish { ambient 0.02 diffuse 0.3 specular 1 roughness 0.002 reflection 0.2 }"},
};

const char* bsMaterialPreset(const char* name)
{
	if (name == NULL)
	{
		return NULL;
	}
	for (int i = 0; i < BS_COUNT(bsPresets); ++i)
	{
		if (strcmp(name, bsPresets[i].name) == 0)
		{
			return bsPresets[i].texture;
		}
	}
	return NULL;
}

int bsMaterialPresetCount(void)
{
	return BS_COUNT(bsPresets);
}

const char* bsMaterialPresetName(int index)
{
	return index >= 0 && index < BS_COUNT(bsPresets) ? bsPresets[index].name : NULL;
}

// The `type` of an emitter, in the order of bsEmitterType, then the config's own `file`.
static const char* const bsEmitterNames[] = {"grid", "random", "file"};
enum
{
	bs_emitterFileIndex = 2
};

// --- Small helpers ---

static char* bsStrDup(const char* s)
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

// Characters that continue a word or number token in messages ("True", "1.5e3").
static bool bsIsWordChar(unsigned char ch)
{
	return bsIsAlpha(ch) || bsIsDigit(ch) || ch == '_' || ch == '-' || ch == '+' || ch == '.';
}

static bool bsIsSpace(unsigned char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

// An appending buffer that truncates instead of overflowing (full says it did).
typedef struct bsBuf
{
	char* data;
	size_t size;
	size_t length;
	bool full;
} bsBuf;

static void bsBuf_Put(bsBuf* b, const char* text, size_t n)
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

static void bsBuf_Str(bsBuf* b, const char* text)
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
static void bsFormatNumber(double v, char out[32])
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

static void bsDescribeValue(const cJSON* v, char out[80])
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
static const char* bsClosest(const char* word, const char* const* names, int count)
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
static void bsJoinNames(char* out, size_t size, const char* const* names, int count, bool quoted)
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

// --- Pass 1 and 2: encoding and strict JSON syntax ---

// Line and column (both from 1; columns count characters, a tab is one) of byte offset.
static void bsLineColumn(const unsigned char* s, size_t begin, size_t offset, size_t* line,
	size_t* column)
{
	size_t l = 1;
	size_t c = 1;
	for (size_t i = begin; i < offset; ++i)
	{
		if (s[i] == '\n')
		{
			++l;
			c = 1;
		}
		else if ((s[i] & 0xC0) != 0x80)
		{
			++c;
		}
	}
	*line = l;
	*column = c;
}

typedef struct bsSyntax
{
	const unsigned char* s;
	size_t begin;  // after a UTF-8 byte order mark, if any
	size_t n;
	size_t at;     // where the error is
	char message[256];
} bsSyntax;

BS_PRINTF(3, 4)
static bool bsSyntaxFail(bsSyntax* x, size_t at, const char* fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->message, sizeof x->message, fmt, ap);
	va_end(ap);
	x->at = at;
	return false;
}

// Length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlongs, surrogates or values above
// U+10FFFF); 0 when invalid.
static size_t bsUtf8Length(const unsigned char* s, size_t i, size_t n)
{
	unsigned char c = s[i];
	if (c < 0x80)
	{
		return 1;
	}
	size_t len;
	unsigned char lo = 0x80;
	unsigned char hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF)
	{
		len = 2;
	}
	else if (c >= 0xE0 && c <= 0xEF)
	{
		len = 3;
		lo = c == 0xE0 ? 0xA0 : 0x80;
		hi = c == 0xED ? 0x9F : 0xBF;
	}
	else if (c >= 0xF0 && c <= 0xF4)
	{
		len = 4;
		lo = c == 0xF0 ? 0x90 : 0x80;
		hi = c == 0xF4 ? 0x8F : 0xBF;
	}
	else
	{
		return 0;
	}
	if (n - i < len || s[i + 1] < lo || s[i + 1] > hi)
	{
		return 0;
	}
	for (size_t k = 2; k < len; ++k)
	{
		if (s[i + k] < 0x80 || s[i + k] > 0xBF)
		{
			return 0;
		}
	}
	return len;
}

static bool bsCheckEncoding(bsSyntax* x)
{
	const unsigned char* s = x->s;
	if (x->n >= 2 && ((s[0] == 0xFF && s[1] == 0xFE) || (s[0] == 0xFE && s[1] == 0xFF)))
	{
		return bsSyntaxFail(x, 0, "UTF-16 text: save the file as UTF-8");
	}
	for (size_t i = x->begin; i < x->n;)
	{
		if (s[i] == 0)
		{
			return bsSyntaxFail(x, i, "NUL byte (is this a binary or UTF-16 file?)");
		}
		size_t len = bsUtf8Length(s, i, x->n);
		if (len == 0)
		{
			return bsSyntaxFail(x, i, "invalid UTF-8 (byte 0x%02x): save the file as UTF-8",
				(unsigned)s[i]);
		}
		i += len;
	}
	return true;
}

// What the text holds at i, for "found ..." in messages: a word, a string start, a character.
static void bsDescribeToken(const bsSyntax* x, size_t i, char out[48])
{
	const unsigned char* s = x->s;
	if (i >= x->n)
	{
		snprintf(out, 48, "end of file");
		return;
	}
	unsigned char ch = s[i];
	if (ch < 0x20 || ch == 0x7F)
	{
		snprintf(out, 48, "U+%04X", (unsigned)ch);
		return;
	}
	size_t end = i + 1;
	bool limited = false;  // cut at 24 bytes
	if (ch == '"')
	{
		while (end < x->n && s[end] != '"' && s[end] >= 0x20)
		{
			if (end - i >= 24)
			{
				limited = true;
				break;
			}
			++end;
		}
		if (!limited && end < x->n && s[end] == '"')
		{
			++end;
		}
	}
	else if (bsIsWordChar(ch))
	{
		while (end < x->n && bsIsWordChar(s[end]))
		{
			if (end - i >= 24)
			{
				limited = true;
				break;
			}
			++end;
		}
	}
	else
	{
		size_t len = bsUtf8Length(s, i, x->n);
		end = i + (len > 0 ? len : 1);
	}
	while (end > i + 1 && end < x->n && (s[end] & 0xC0) == 0x80)
	{
		--end;  // never cut a character
	}
	char quote = memchr(s + i, '\'', end - i) != NULL ? '"' : '\'';
	snprintf(out, 48, "%c%.*s%s%c", quote, (int)(end - i), (const char*)s + i, limited ? "..." : "",
		quote);
}

static int bsHexValue(unsigned char ch)
{
	if (bsIsDigit(ch))
	{
		return ch - '0';
	}
	if (ch >= 'a' && ch <= 'f')
	{
		return ch - 'a' + 10;
	}
	if (ch >= 'A' && ch <= 'F')
	{
		return ch - 'A' + 10;
	}
	return -1;
}

// Four hex digits at s[i]; -1 when there are not.
static long bsHex4(const bsSyntax* x, size_t i)
{
	if (i > x->n || x->n - i < 4)
	{
		return -1;
	}
	long v = 0;
	for (size_t k = 0; k < 4; ++k)
	{
		int h = bsHexValue(x->s[i + k]);
		if (h < 0)
		{
			return -1;
		}
		v = v * 16 + h;
	}
	return v;
}

// A string starting at the quote s[i]; *end is set past its closing quote.
static bool bsScanString(bsSyntax* x, size_t i, size_t* end)
{
	const unsigned char* s = x->s;
	size_t open = i++;
	while (i < x->n)
	{
		unsigned char ch = s[i];
		if (ch == '"')
		{
			*end = i + 1;
			return true;
		}
		if (ch == '\n' || ch == '\r')
		{
			return bsSyntaxFail(x, open, "unterminated string (no closing '\"' on its line)");
		}
		if (ch < 0x20)
		{
			return bsSyntaxFail(x, i, "control character U+%04X in a string (write it as \\u%04X)",
				(unsigned)ch, (unsigned)ch);
		}
		if (ch != '\\')
		{
			++i;
			continue;
		}
		if (i + 1 >= x->n)
		{
			break;
		}
		unsigned char e = s[i + 1];
		if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
			e == 't')
		{
			i += 2;
			continue;
		}
		if (e != 'u')
		{
			if (e > 0x20 && e < 0x7F)
			{
				return bsSyntaxFail(x, i, "invalid escape '\\%c' in a string", e);
			}
			return bsSyntaxFail(x, i, "invalid escape in a string");
		}
		long code = bsHex4(x, i + 2);
		if (code < 0)
		{
			return bsSyntaxFail(x, i, "invalid escape: \\u needs 4 hex digits");
		}
		if (code == 0)
		{
			return bsSyntaxFail(x, i, "\\u0000 is not allowed in a string");
		}
		if (code >= 0xDC00 && code <= 0xDFFF)
		{
			return bsSyntaxFail(x, i, "unpaired UTF-16 surrogate \\u%04lX in a string", code);
		}
		if (code >= 0xD800 && code <= 0xDBFF)
		{
			long low = i + 7 < x->n && s[i + 6] == '\\' && s[i + 7] == 'u' ? bsHex4(x, i + 8) : -1;
			if (low < 0xDC00 || low > 0xDFFF)
			{
				return bsSyntaxFail(x, i, "unpaired UTF-16 surrogate \\u%04lX in a string", code);
			}
			i += 12;
			continue;
		}
		i += 6;
	}
	return bsSyntaxFail(x, open, "unterminated string (no closing '\"' before the end of file)");
}

// A number at s[i] by the JSON grammar -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
static bool bsScanNumber(bsSyntax* x, size_t i, size_t* end)
{
	const unsigned char* s = x->s;
	size_t n = x->n;
	size_t start = i;
	if (s[i] == '-')
	{
		++i;
	}
	if (i < n && s[i] == '0')
	{
		++i;
		if (i < n && bsIsDigit(s[i]))
		{
			return bsSyntaxFail(x, start, "invalid number: leading zeros are not allowed");
		}
	}
	else if (i < n && bsIsDigit(s[i]))
	{
		while (i < n && bsIsDigit(s[i]))
		{
			++i;
		}
	}
	else
	{
		return bsSyntaxFail(x, i, "invalid number: expected a digit after '-'");
	}
	if (i < n && s[i] == '.')
	{
		++i;
		if (i >= n || !bsIsDigit(s[i]))
		{
			return bsSyntaxFail(x, i, "invalid number: expected a digit after '.'");
		}
		while (i < n && bsIsDigit(s[i]))
		{
			++i;
		}
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E'))
	{
		++i;
		if (i < n && (s[i] == '+' || s[i] == '-'))
		{
			++i;
		}
		if (i >= n || !bsIsDigit(s[i]))
		{
			return bsSyntaxFail(x, i, "invalid number: expected a digit in the exponent");
		}
		while (i < n && bsIsDigit(s[i]))
		{
			++i;
		}
	}
	*end = i;
	return true;
}

// Strict RFC 8259 JSON, at most BS_CONFIG_MAX_DEPTH levels deep. An explicit stack, no recursion.
static bool bsCheckSyntax(bsSyntax* x)
{
	enum
	{
		wantValue,       // after ':' or ',' in an array, or at the start
		wantFirstValue,  // after '['
		wantKey,         // after ',' in an object
		wantFirstKey,    // after '{'
		wantColon,
		wantNext,        // after a value in an array or object
		wantEnd          // after the top-level value
	} state = wantValue;
	const unsigned char* s = x->s;
	size_t n = x->n;
	unsigned char stack[BS_CONFIG_MAX_DEPTH];
	size_t opened[BS_CONFIG_MAX_DEPTH];
	int depth = 0;
	size_t comma = 0;
	size_t i = x->begin;
	char found[48];
	for (;;)
	{
		while (i < n && bsIsSpace(s[i]))
		{
			++i;
		}
		if (i >= n)
		{
			if (state == wantEnd)
			{
				return true;
			}
			if (depth == 0)
			{
				return bsSyntaxFail(x, x->begin, "empty file (expected a JSON object)");
			}
			size_t line, column;
			bsLineColumn(s, x->begin, opened[depth - 1], &line, &column);
			return bsSyntaxFail(x, i, "unexpected end of file (the '%c' at line %zu, column %zu is "
				"not closed)", stack[depth - 1], line, column);
		}
		unsigned char ch = s[i];
		bsDescribeToken(x, i, found);
		bool value = false;  // a complete value ended at i
		switch (state)
		{
			case wantFirstValue:
				if (ch == ']')
				{
					--depth;
					++i;
					value = true;
					break;
				}
				// fall through
			case wantValue:
				if (ch == '{' || ch == '[')
				{
					if (depth == BS_CONFIG_MAX_DEPTH)
					{
						return bsSyntaxFail(x, i, "nesting deeper than %d levels", BS_CONFIG_MAX_DEPTH);
					}
					stack[depth] = ch;
					opened[depth] = i;
					++depth;
					++i;
					state = ch == '{' ? wantFirstKey : wantFirstValue;
				}
				else if (ch == '"')
				{
					if (!bsScanString(x, i, &i))
					{
						return false;
					}
					value = true;
				}
				else if (ch == '-' || bsIsDigit(ch))
				{
					if (!bsScanNumber(x, i, &i))
					{
						return false;
					}
					value = true;
				}
				else if ((n - i >= 4 && memcmp(s + i, "true", 4) == 0) ||
					(n - i >= 4 && memcmp(s + i, "null", 4) == 0) ||
					(n - i >= 5 && memcmp(s + i, "false", 5) == 0))
				{
					size_t len = ch == 'f' ? 5 : 4;
					if (i + len < n && (bsIsAlpha(s[i + len]) || bsIsDigit(s[i + len])))
					{
						return bsSyntaxFail(x, i, "expected a value, found %s", found);
					}
					i += len;
					value = true;
				}
				else if (ch == ']' && state == wantValue && depth > 0 && stack[depth - 1] == '[')
				{
					return bsSyntaxFail(x, comma, "trailing comma before ']'");
				}
				else
				{
					return bsSyntaxFail(x, i, "expected a value, found %s", found);
				}
				break;
			case wantFirstKey:
				if (ch == '}')
				{
					--depth;
					++i;
					value = true;
					break;
				}
				// fall through
			case wantKey:
				if (ch == '"')
				{
					if (!bsScanString(x, i, &i))
					{
						return false;
					}
					state = wantColon;
				}
				else if (ch == '}' && state == wantKey)
				{
					return bsSyntaxFail(x, comma, "trailing comma before '}'");
				}
				else
				{
					return bsSyntaxFail(x, i, "expected a key in double quotes%s, found %s",
						state == wantFirstKey ? " or '}'" : "", found);
				}
				break;
			case wantColon:
				if (ch != ':')
				{
					return bsSyntaxFail(x, i, "expected ':' after the key, found %s", found);
				}
				++i;
				state = wantValue;
				break;
			case wantNext:
			{
				unsigned char closer = stack[depth - 1] == '{' ? '}' : ']';
				if (ch == ',')
				{
					comma = i;
					++i;
					state = closer == '}' ? wantKey : wantValue;
				}
				else if (ch == closer)
				{
					--depth;
					++i;
					value = true;
				}
				else
				{
					return bsSyntaxFail(x, i, "expected ',' or '%c', found %s", closer, found);
				}
				break;
			}
			case wantEnd:
				return bsSyntaxFail(x, i, "expected end of file after the JSON value, found %s", found);
		}
		if (value)
		{
			state = depth > 0 ? wantNext : wantEnd;
		}
	}
}

// Encoding, syntax, then cJSON. On failure *at and message describe the problem.
static cJSON* bsParseJson(bsSyntax* x, bool* outOfMemory)
{
	*outOfMemory = false;
	if (!bsCheckEncoding(x) || !bsCheckSyntax(x))
	{
		return NULL;
	}
	const char* end = NULL;
	cJSON* root = cJSON_ParseWithLengthOpts((const char*)x->s + x->begin, x->n - x->begin, &end, 0);
	if (root == NULL)
	{
		// The syntax is valid JSON within our limits, so cJSON can only have run out of memory.
		*outOfMemory = true;
		x->at = end != NULL ? (size_t)(end - (const char*)x->s) : x->begin;
		snprintf(x->message, sizeof x->message, "out of memory while parsing");
	}
	return root;
}

// --- The schema: which keys each object allows (also walks --set paths) ---

typedef enum bsKind
{
	bs_kindValue = 0,  // a number, string or array of numbers
	bs_kindObject,     // fixed keys
	bs_kindArray,      // elements of one schema
	bs_kindMap,        // any key, values of one schema
	bs_kindMaterial    // a preset name or an object with fixed keys
} bsKind;

typedef struct bsSchema bsSchema;

typedef struct bsSchemaKey
{
	const char* name;
	const bsSchema* schema;
} bsSchemaKey;

struct bsSchema
{
	bsKind kind;
	const bsSchemaKey* keys;  // object, material
	int keyCount;
	const bsSchema* element;  // array, map
};

#define BS_OBJECT(keys) {bs_kindObject, keys, BS_COUNT(keys), NULL}

static const bsSchema bsValueSchema = {bs_kindValue, NULL, 0, NULL};
#define BS_VALUE &bsValueSchema

static const bsSchemaKey bsMaterialKeys[] = {
	{"pigment", BS_VALUE}, {"finish", BS_VALUE}, {"normal", BS_VALUE}};
static const bsSchema bsMaterialSchema = {bs_kindMaterial, bsMaterialKeys, BS_COUNT(bsMaterialKeys),
	NULL};
static const bsSchema bsMaterialMapSchema = {bs_kindMap, NULL, 0, &bsMaterialSchema};

static const bsSchemaKey bsMeshKeys[] = {{"file", BS_VALUE}, {"translate", BS_VALUE},
	{"rotate", BS_VALUE}, {"scale", BS_VALUE}, {"material", &bsMaterialSchema},
	{"materials", &bsMaterialMapSchema}};
static const bsSchema bsMeshSchema = BS_OBJECT(bsMeshKeys);
static const bsSchema bsMeshArraySchema = {bs_kindArray, NULL, 0, &bsMeshSchema};

static const bsSchemaKey bsPlaneKeys[] = {
	{"point", BS_VALUE}, {"normal", BS_VALUE}, {"material", &bsMaterialSchema}};
static const bsSchema bsPlaneSchema = BS_OBJECT(bsPlaneKeys);
static const bsSchema bsPlaneArraySchema = {bs_kindArray, NULL, 0, &bsPlaneSchema};

static const bsSchemaKey bsEnvironmentKeys[] = {
	{"meshes", &bsMeshArraySchema}, {"planes", &bsPlaneArraySchema}};
static const bsSchema bsEnvironmentSchema = BS_OBJECT(bsEnvironmentKeys);

// Every emitter key; each type allows a subset (bsGridKeys, bsRandomKeys, bsFileKeys).
static const bsSchemaKey bsEmitterKeys[] = {{"type", BS_VALUE}, {"min", BS_VALUE},
	{"max", BS_VALUE}, {"count", BS_VALUE}, {"jitter", BS_VALUE}, {"file", BS_VALUE}};
static const bsSchema bsEmitterSchema = BS_OBJECT(bsEmitterKeys);
static const bsSchema bsEmitterArraySchema = {bs_kindArray, NULL, 0, &bsEmitterSchema};
static const bsSchemaKey bsGridKeys[] = {{"type", BS_VALUE}, {"min", BS_VALUE}, {"max", BS_VALUE},
	{"count", BS_VALUE}, {"jitter", BS_VALUE}};
static const bsSchemaKey bsRandomKeys[] = {
	{"type", BS_VALUE}, {"min", BS_VALUE}, {"max", BS_VALUE}, {"count", BS_VALUE}};
static const bsSchemaKey bsFileKeys[] = {{"type", BS_VALUE}, {"file", BS_VALUE}};

static const bsSchemaKey bsParticlesKeys[] = {{"radius", BS_VALUE}, {"radius_spread", BS_VALUE},
	{"velocity", BS_VALUE}, {"emitters", &bsEmitterArraySchema}};
static const bsSchema bsParticlesSchema = BS_OBJECT(bsParticlesKeys);

static const bsSchemaKey bsMotionKeys[] = {
	{"steps", BS_VALUE}, {"dt", BS_VALUE}, {"gravity", BS_VALUE}, {"drag", BS_VALUE}};
static const bsSchema bsMotionSchema = BS_OBJECT(bsMotionKeys);

static const bsSchemaKey bsBoundsKeys[] = {{"min", BS_VALUE}, {"max", BS_VALUE}};
static const bsSchema bsBoundsSchema = BS_OBJECT(bsBoundsKeys);
static const bsSchemaKey bsCollisionKeys[] = {{"method", BS_VALUE}, {"response", BS_VALUE},
	{"restitution", BS_VALUE}, {"friction", BS_VALUE}, {"max_contacts", BS_VALUE},
	{"bounds", &bsBoundsSchema}};
static const bsSchema bsCollisionSchema = BS_OBJECT(bsCollisionKeys);

static const bsSchemaKey bsCameraKeys[] = {
	{"location", BS_VALUE}, {"look_at", BS_VALUE}, {"angle", BS_VALUE}};
static const bsSchema bsCameraSchema = BS_OBJECT(bsCameraKeys);
static const bsSchemaKey bsLightKeys[] = {{"location", BS_VALUE}, {"color", BS_VALUE}};
static const bsSchema bsLightSchema = BS_OBJECT(bsLightKeys);
static const bsSchema bsLightArraySchema = {bs_kindArray, NULL, 0, &bsLightSchema};
static const bsSchemaKey bsBlobKeys[] = {{"threshold", BS_VALUE}, {"strength", BS_VALUE},
	{"radius_scale", BS_VALUE}, {"max_components", BS_VALUE}};
static const bsSchema bsBlobSchema = BS_OBJECT(bsBlobKeys);
static const bsSchemaKey bsRenderKeys[] = {{"camera", &bsCameraSchema},
	{"lights", &bsLightArraySchema}, {"background", BS_VALUE}, {"width", BS_VALUE},
	{"height", BS_VALUE}, {"antialias", BS_VALUE}, {"jitter", BS_VALUE}, {"blob", &bsBlobSchema},
	{"particle_material", &bsMaterialSchema}};
static const bsSchema bsRenderSchema = BS_OBJECT(bsRenderKeys);

static const bsSchemaKey bsOutputKeys[] = {{"directory", BS_VALUE}, {"frame_every", BS_VALUE}};
static const bsSchema bsOutputSchema = BS_OBJECT(bsOutputKeys);

static const bsSchemaKey bsRootKeys[] = {{"seed", BS_VALUE},
	{"environment", &bsEnvironmentSchema}, {"particles", &bsParticlesSchema},
	{"motion", &bsMotionSchema}, {"collision", &bsCollisionSchema}, {"render", &bsRenderSchema},
	{"output", &bsOutputSchema}};
static const bsSchema bsRootSchema = BS_OBJECT(bsRootKeys);

static const bsSchemaKey* bsFindKey(const bsSchemaKey* keys, int count, const char* name)
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
static void bsUnknownKeyHint(const char* key, const bsSchemaKey* keys, int count, char* out,
	size_t size)
{
	const char* names[16];
	int n = count < 16 ? count : 16;
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
	bsJoinNames(list, sizeof list, names, n, false);
	snprintf(out, size, " (allowed: %s)", list);
}

// --- Validation context: the JSON path of what is being read, and the error ---

typedef struct bsCtx
{
	const char* label;      // the config's name in messages
	const char* dir;        // prefix for relative file paths ("" or ending in '/')
	size_t dirLength;
	bsConfigError* error;
	bsResult result;
	char path[320];         // JSON path of the value being read, e.g. particles.emitters[1].count
	size_t pathLength;
	char** setPaths;        // JSON paths written by --set overrides
	int setPathCount;
} bsCtx;

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
static void bsAppendKey(char* path, size_t size, size_t* pathLength, const char* key)
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

static void bsAppendIndex(char* path, size_t size, size_t* pathLength, int index)
{
	char seg[24];
	snprintf(seg, sizeof seg, "[%d]", index);
	bsBuf b = {path, size, *pathLength, false};
	bsBuf_Str(&b, seg);
	*pathLength = b.length;
}

static size_t bsPushKey(bsCtx* c, const char* key)
{
	size_t mark = c->pathLength;
	bsAppendKey(c->path, sizeof c->path, &c->pathLength, key);
	return mark;
}

static size_t bsPushIndex(bsCtx* c, int index)
{
	size_t mark = c->pathLength;
	bsAppendIndex(c->path, sizeof c->path, &c->pathLength, index);
	return mark;
}

static void bsPop(bsCtx* c, size_t mark)
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
BS_PRINTF(2, 3)
static bool bsFail(bsCtx* c, const char* fmt, ...)
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

static bool bsOutOfMemory(bsCtx* c)
{
	c->result = bs_errOutOfMemory;
	if (c->error != NULL)
	{
		snprintf(c->error->message, sizeof c->error->message, "%s: out of memory", c->label);
	}
	return false;
}

// "expected WHAT, got VALUE" at the current path.
static bool bsFailExpected(bsCtx* c, const char* what, const cJSON* v)
{
	char got[80];
	bsDescribeValue(v, got);
	return bsFail(c, "expected %s, got %s", what, got);
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
static bool bsCheckKeys(bsCtx* c, const cJSON* object, const bsSchemaKey* keys, int keyCount)
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

// --- Typed readers. Each reads parent[key] into *out (the default when absent) ---

static const cJSON* bsMember(const cJSON* parent, const char* key)
{
	return parent != NULL ? cJSON_GetObjectItemCaseSensitive(parent, key) : NULL;
}

static bool bsMissing(bsCtx* c, const char* key)
{
	return bsFail(c, "missing required key '%s'", key);
}

// A finite number with lo <= v (lo < v when loOpen) and v <= hi.
typedef struct bsRange
{
	double lo, hi;
	bool loOpen;
	const char* what;  // "a number > 0"
} bsRange;

static bool bsInRange(double v, const bsRange* r)
{
	return isfinite(v) && (r->loOpen ? v > r->lo : v >= r->lo) && v <= r->hi;
}

static const bsRange bsAnyNumber = {-DBL_MAX, DBL_MAX, false, "a number"};
static const bsRange bsPositive = {0.0, DBL_MAX, true, "a number > 0"};
static const bsRange bsNonNegative = {0.0, DBL_MAX, false, "a number >= 0"};
static const bsRange bsUnit = {0.0, 1.0, false, "a number from 0 to 1"};

static bool bsReadNumber(bsCtx* c, const cJSON* parent, const char* key, bool required,
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
static bool bsReadInteger(bsCtx* c, const cJSON* parent, const char* key, double lo, double hi,
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

static bool bsReadInt(bsCtx* c, const cJSON* parent, const char* key, int lo, int hi, int def,
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
static bool bsVec3FromValue(bsCtx* c, const cJSON* v, const bsRange* each, const char* what,
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

static bool bsReadVec3(bsCtx* c, const cJSON* parent, const char* key, bool required,
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
static bool bsCheckMinMax(bsCtx* c, const cJSON* parent, bsVec3 lo, bsVec3 hi)
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
static bool bsFilePath(bsCtx* c, const char* file, char** out)
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
	return true;
}

static bool bsReadFile(bsCtx* c, const cJSON* parent, const char* key, bool required,
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

// One of names; *out is its index.
static bool bsReadChoice(bsCtx* c, const cJSON* parent, const char* key, bool required,
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
static bool bsReadObject(bsCtx* c, const cJSON* parent, const char* key, const bsSchema* schema,
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
static bool bsReadArray(bsCtx* c, const cJSON* parent, const char* key, const char* what,
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

// --- Materials ---

// Braces balanced outside "..." strings, so raw text cannot close the block it is put in.
static bool bsBalancedBraces(const char* s)
{
	long depth = 0;
	bool quoted = false;
	for (; *s != '\0'; ++s)
	{
		if (*s == '"')
		{
			quoted = !quoted;
		}
		else if (!quoted && *s == '{')
		{
			++depth;
		}
		else if (!quoted && *s == '}' && --depth < 0)
		{
			return false;
		}
	}
	return depth == 0 && !quoted;
}

static void bsMaterial_Free(bsMaterial* m)
{
	free(m->preset);
	free(m->pigment);
	free(m->finish);
	free(m->normal);
	free(m->texture);
	memset(m, 0, sizeof *m);
}

static bool bsPresetMaterial(bsCtx* c, const char* name, bsMaterial* out)
{
	out->preset = bsStrDup(name);
	out->texture = bsStrDup(bsMaterialPreset(name));
	return out->preset != NULL && out->texture != NULL ? true : bsOutOfMemory(c);
}

// A material value; the current path is its own.
static bool bsMaterialFromValue(bsCtx* c, const cJSON* v, bsMaterial* out)
{
	if (cJSON_IsString(v))
	{
		if (bsMaterialPreset(v->valuestring) == NULL)
		{
			const char* names[BS_COUNT(bsPresets)];
			for (int i = 0; i < BS_COUNT(bsPresets); ++i)
			{
				names[i] = bsPresets[i].name;
			}
			char got[80];
			bsDescribeValue(v, got);
			const char* near = bsClosest(v->valuestring, names, BS_COUNT(bsPresets));
			if (near != NULL)
			{
				return bsFail(c, "unknown material preset %s (did you mean \"%s\"?)", got, near);
			}
			char list[256];
			bsJoinNames(list, sizeof list, names, BS_COUNT(bsPresets), false);
			return bsFail(c, "unknown material preset %s (presets: %s)", got, list);
		}
		return bsPresetMaterial(c, v->valuestring, out);
	}
	if (!cJSON_IsObject(v))
	{
		return bsFailExpected(c, "a preset name or an object with pigment, finish, normal", v);
	}
	if (!bsCheckKeys(c, v, bsMaterialKeys, BS_COUNT(bsMaterialKeys)))
	{
		return false;
	}
	char** parts[3] = {&out->pigment, &out->finish, &out->normal};
	size_t total = 1;
	for (int i = 0; i < 3; ++i)
	{
		const cJSON* p = bsMember(v, bsMaterialKeys[i].name);
		if (p == NULL)
		{
			continue;
		}
		size_t mark = bsPushKey(c, bsMaterialKeys[i].name);
		if (!cJSON_IsString(p) || p->valuestring[0] == '\0')
		{
			return bsFailExpected(c, "a non-empty string of POV-Ray text", p);
		}
		if (!bsBalancedBraces(p->valuestring))
		{
			return bsFail(c, "unbalanced braces or quotes in the POV-Ray text");
		}
		*parts[i] = bsStrDup(p->valuestring);
		if (*parts[i] == NULL)
		{
			return bsOutOfMemory(c);
		}
		total += strlen(bsMaterialKeys[i].name) + strlen(p->valuestring) + 7;
		bsPop(c, mark);
	}
	if (total == 1)
	{
		return bsFail(c, "expected at least one of pigment, finish, normal");
	}
	out->texture = malloc(total);
	if (out->texture == NULL)
	{
		return bsOutOfMemory(c);
	}
	bsBuf b = {out->texture, total, 0, false};
	for (int i = 0; i < 3; ++i)
	{
		if (*parts[i] != NULL)
		{
			bsBuf_Str(&b, b.length > 0 ? " " : "");
			bsBuf_Str(&b, bsMaterialKeys[i].name);
			bsBuf_Str(&b, " { ");
			bsBuf_Str(&b, *parts[i]);
			bsBuf_Str(&b, " }");
		}
	}
	return true;
}

static bool bsReadMaterial(bsCtx* c, const cJSON* parent, const char* key, const char* def,
	bsMaterial* out)
{
	const cJSON* v = bsMember(parent, key);
	if (v == NULL)
	{
		return bsPresetMaterial(c, def, out);
	}
	size_t mark = bsPushKey(c, key);
	if (!bsMaterialFromValue(c, v, out))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// --- The sections ---

static bool bsReadMesh(bsCtx* c, const cJSON* v, bsMeshConfig* mesh)
{
	if (!cJSON_IsObject(v))
	{
		return bsFailExpected(c, "an object (a mesh)", v);
	}
	if (!bsCheckKeys(c, v, bsMeshKeys, BS_COUNT(bsMeshKeys)))
	{
		return false;
	}
	mesh->scale = bsV3(1.0, 1.0, 1.0);
	if (!bsReadFile(c, v, "file", true, NULL, &mesh->file) ||
		!bsReadVec3(c, v, "translate", false, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0),
			&mesh->translate) ||
		!bsReadVec3(c, v, "rotate", false, &bsAnyNumber, "3 numbers (degrees)", bsV3(0.0, 0.0, 0.0),
			&mesh->rotate))
	{
		return false;
	}
	const cJSON* scale = bsMember(v, "scale");
	if (scale != NULL)
	{
		size_t mark = bsPushKey(c, "scale");
		static const bsRange nonZero = {-DBL_MAX, DBL_MAX, false, "a non-zero number"};
		const char* what = "a non-zero number or 3 non-zero numbers";
		if (cJSON_IsNumber(scale))
		{
			double s = scale->valuedouble;
			if (!isfinite(s) || s == 0.0)
			{
				return bsFailExpected(c, what, scale);
			}
			mesh->scale = bsV3(s, s, s);
		}
		else if (!bsVec3FromValue(c, scale, &nonZero, what, &mesh->scale))
		{
			return false;
		}
		if (mesh->scale.x == 0.0 || mesh->scale.y == 0.0 || mesh->scale.z == 0.0)
		{
			return bsFailExpected(c, what, scale);
		}
		bsPop(c, mark);
	}
	if (!bsReadMaterial(c, v, "material", "white", &mesh->material))
	{
		return false;
	}
	const cJSON* groups = bsMember(v, "materials");
	if (groups == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "materials");
	if (!cJSON_IsObject(groups))
	{
		return bsFailExpected(c, "an object mapping OBJ group names to materials", groups);
	}
	if (!bsCheckKeys(c, groups, NULL, 0))
	{
		return false;
	}
	int n = 0;
	for (const cJSON* g = groups->child; g != NULL; g = g->next)
	{
		++n;
	}
	mesh->groups = n > 0 ? calloc((size_t)n, sizeof *mesh->groups) : NULL;
	if (n > 0 && mesh->groups == NULL)
	{
		return bsOutOfMemory(c);
	}
	for (const cJSON* g = groups->child; g != NULL; g = g->next)
	{
		bsGroupMaterial* gm = mesh->groups + mesh->groupCount++;
		gm->group = bsStrDup(g->string);
		if (gm->group == NULL)
		{
			return bsOutOfMemory(c);
		}
		size_t gmark = bsPushKey(c, g->string);
		if (!bsMaterialFromValue(c, g, &gm->material))
		{
			return false;
		}
		bsPop(c, gmark);
	}
	bsPop(c, mark);
	return true;
}

static bool bsReadPlane(bsCtx* c, const cJSON* v, bsPlaneConfig* plane)
{
	if (!cJSON_IsObject(v))
	{
		return bsFailExpected(c, "an object (a plane)", v);
	}
	if (!bsCheckKeys(c, v, bsPlaneKeys, BS_COUNT(bsPlaneKeys)) ||
		!bsReadVec3(c, v, "point", false, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0),
			&plane->point))
	{
		return false;
	}
	const char* what = "3 numbers, not all zero";
	if (!bsReadVec3(c, v, "normal", false, &bsAnyNumber, what, bsV3(0.0, 1.0, 0.0), &plane->normal))
	{
		return false;
	}
	// Scaled by the largest component first, so tiny and huge normals normalise too.
	double m = bsMaxAbs(plane->normal);
	if (m == 0.0)
	{
		bsPushKey(c, "normal");
		return bsFailExpected(c, what, bsMember(v, "normal"));
	}
	bsVec3 n = bsV3(plane->normal.x / m, plane->normal.y / m, plane->normal.z / m);
	plane->normal = bsNormalize(n);
	return bsReadMaterial(c, v, "material", "white", &plane->material);
}

static bool bsReadEnvironment(bsCtx* c, const cJSON* root, bsEnvironmentConfig* env)
{
	const cJSON* e;
	if (!bsReadObject(c, root, "environment", &bsEnvironmentSchema, &e))
	{
		return false;
	}
	if (e == NULL)
	{
		return bsMissing(c, "environment");
	}
	size_t mark = bsPushKey(c, "environment");
	const cJSON* meshes;
	const cJSON* planes;
	int meshCount, planeCount;
	if (!bsReadArray(c, e, "meshes", "an array of meshes", &meshes, &meshCount) ||
		!bsReadArray(c, e, "planes", "an array of planes", &planes, &planeCount))
	{
		return false;
	}
	if (meshCount + (double)planeCount < 1.0)
	{
		return bsFail(c, "expected at least one mesh or plane");
	}
	env->meshes = meshCount > 0 ? calloc((size_t)meshCount, sizeof *env->meshes) : NULL;
	env->planes = planeCount > 0 ? calloc((size_t)planeCount, sizeof *env->planes) : NULL;
	if ((meshCount > 0 && env->meshes == NULL) || (planeCount > 0 && env->planes == NULL))
	{
		return bsOutOfMemory(c);
	}
	size_t amark = bsPushKey(c, "meshes");
	int i = 0;
	for (const cJSON* m = meshes != NULL ? meshes->child : NULL; m != NULL; m = m->next, ++i)
	{
		size_t imark = bsPushIndex(c, i);
		env->meshCount = i + 1;
		if (!bsReadMesh(c, m, env->meshes + i))
		{
			return false;
		}
		bsPop(c, imark);
	}
	bsPop(c, amark);
	amark = bsPushKey(c, "planes");
	i = 0;
	for (const cJSON* p = planes != NULL ? planes->child : NULL; p != NULL; p = p->next, ++i)
	{
		size_t imark = bsPushIndex(c, i);
		env->planeCount = i + 1;
		if (!bsReadPlane(c, p, env->planes + i))
		{
			return false;
		}
		bsPop(c, imark);
	}
	bsPop(c, amark);
	bsPop(c, mark);
	return true;
}

// The particles an emitter makes; checks the per-emitter and the running total against the limit.
static bool bsCountParticles(bsCtx* c, double particles, int64_t* total, bsEmitterConfig* em)
{
	size_t mark = bsPushKey(c, "count");
	char text[32];
	if (particles > (double)BS_CONFIG_MAX_PARTICLES)
	{
		c->result = bs_errTooLarge;
		bsFormatNumber(particles, text);
		return bsFail(c, "%s particles, more than the limit of %d", text, BS_CONFIG_MAX_PARTICLES);
	}
	em->particleCount = (int64_t)particles;
	*total += em->particleCount;
	if (*total > BS_CONFIG_MAX_PARTICLES)
	{
		c->result = bs_errTooLarge;
		return bsFail(c, "the emitters make %lld particles in total, more than the limit of %d",
			(long long)*total, BS_CONFIG_MAX_PARTICLES);
	}
	bsPop(c, mark);
	return true;
}

static bool bsReadEmitter(bsCtx* c, const cJSON* v, bsEmitterConfig* em, int64_t* total)
{
	if (!cJSON_IsObject(v))
	{
		return bsFailExpected(c, "an object (an emitter)", v);
	}
	int type = 0;
	if (!bsCheckKeys(c, v, bsEmitterKeys, BS_COUNT(bsEmitterKeys)) ||
		!bsReadChoice(c, v, "type", true, bsEmitterNames, BS_COUNT(bsEmitterNames), 0, &type))
	{
		return false;
	}
	const bsSchemaKey* keys = type == bs_emitterGrid ? bsGridKeys
		: type == bs_emitterRandom ? bsRandomKeys : bsFileKeys;
	int keyCount = type == bs_emitterGrid ? BS_COUNT(bsGridKeys)
		: type == bs_emitterRandom ? BS_COUNT(bsRandomKeys) : BS_COUNT(bsFileKeys);
	for (const cJSON* m = v->child; m != NULL; m = m->next)
	{
		if (bsFindKey(keys, keyCount, m->string) == NULL)
		{
			char list[256];
			const char* names[8];
			for (int i = 0; i < keyCount; ++i)
			{
				names[i] = keys[i].name;
			}
			bsJoinNames(list, sizeof list, names, keyCount, false);
			bsPushKey(c, m->string);
			return bsFail(c, "not used by a \"%s\" emitter (its keys: %s)", bsEmitterNames[type], list);
		}
	}
	if (type == bs_emitterFileIndex)
	{
		return bsReadFile(c, v, "file", true, NULL, &em->file) && bsCountParticles(c, 0.0, total, em);
	}
	bsEmitter* e = &em->emitter;
	e->type = (bsEmitterType)type;
	if (!bsReadVec3(c, v, "min", true, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0), &e->min) ||
		!bsReadVec3(c, v, "max", true, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0), &e->max) ||
		!bsCheckMinMax(c, v, e->min, e->max))
	{
		return false;
	}
	const cJSON* count = bsMember(v, "count");
	if (count == NULL)
	{
		return bsMissing(c, "count");
	}
	size_t mark = bsPushKey(c, "count");
	static const bsRange atLeastOne = {1.0, DBL_MAX, false, "a positive integer"};
	double particles;
	if (e->type == bs_emitterGrid)
	{
		const char* what = "3 positive integers";
		bsVec3 n;
		if (!bsVec3FromValue(c, count, &atLeastOne, what, &n))
		{
			return false;
		}
		if (n.x != floor(n.x) || n.y != floor(n.y) || n.z != floor(n.z))
		{
			return bsFailExpected(c, what, count);
		}
		particles = n.x * n.y * n.z;  // exact up to 2^53, far above the limit
		if (particles <= (double)BS_CONFIG_MAX_PARTICLES)
		{
			e->count[0] = (uint64_t)n.x;
			e->count[1] = (uint64_t)n.y;
			e->count[2] = (uint64_t)n.z;
		}
		bsPop(c, mark);
		if (!bsReadNumber(c, v, "jitter", false, &bsUnit, 0.0, &e->jitter))
		{
			return false;
		}
	}
	else
	{
		if (!cJSON_IsNumber(count) || !bsInRange(count->valuedouble, &atLeastOne) ||
			count->valuedouble != floor(count->valuedouble))
		{
			return bsFailExpected(c, atLeastOne.what, count);
		}
		particles = count->valuedouble;
		if (particles <= (double)BS_CONFIG_MAX_PARTICLES)
		{
			e->count[0] = (uint64_t)particles;
		}
		bsPop(c, mark);
	}
	return bsCountParticles(c, particles, total, em);
}

static bool bsReadParticles(bsCtx* c, const cJSON* root, bsParticlesConfig* p)
{
	const cJSON* o;
	if (!bsReadObject(c, root, "particles", &bsParticlesSchema, &o))
	{
		return false;
	}
	if (o == NULL)
	{
		return bsMissing(c, "particles");
	}
	size_t mark = bsPushKey(c, "particles");
	const cJSON* emitters;
	int count;
	if (!bsReadNumber(c, o, "radius", true, &bsPositive, 0.0, &p->radius) ||
		!bsReadNumber(c, o, "radius_spread", false, &bsUnit, 0.0, &p->radiusSpread) ||
		!bsReadVec3(c, o, "velocity", false, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0),
			&p->velocity) ||
		!bsReadArray(c, o, "emitters", "an array of emitters", &emitters, &count))
	{
		return false;
	}
	if (emitters == NULL)
	{
		return bsMissing(c, "emitters");
	}
	size_t amark = bsPushKey(c, "emitters");
	// An empty array is allowed: no particles, the environment alone (the paper's Fig. 8a).
	p->emitters = calloc((size_t)(count > 0 ? count : 1), sizeof *p->emitters);
	if (p->emitters == NULL)
	{
		return bsOutOfMemory(c);
	}
	int i = 0;
	for (const cJSON* e = emitters->child; e != NULL; e = e->next, ++i)
	{
		size_t imark = bsPushIndex(c, i);
		p->emitterCount = i + 1;
		if (!bsReadEmitter(c, e, p->emitters + i, &p->particleCount))
		{
			return false;
		}
		bsPop(c, imark);
	}
	bsPop(c, amark);
	bsPop(c, mark);
	return true;
}

static bool bsReadMotion(bsCtx* c, const cJSON* root, bsMotionConfig* m)
{
	const cJSON* o;
	if (!bsReadObject(c, root, "motion", &bsMotionSchema, &o))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "motion");
	if (!bsReadInt(c, o, "steps", 1, INT_MAX, 1, &m->steps) ||
		!bsReadNumber(c, o, "dt", false, &bsPositive, 1.0, &m->dt) ||
		!bsReadVec3(c, o, "gravity", false, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0),
			&m->gravity) ||
		!bsReadNumber(c, o, "drag", false, &bsNonNegative, 0.0, &m->drag))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

static bool bsReadCollision(bsCtx* c, const cJSON* root, bsCollisionConfig* col)
{
	const cJSON* o;
	if (!bsReadObject(c, root, "collision", &bsCollisionSchema, &o))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "collision");
	const char* methods[bs_methodCount];
	for (int i = 0; i < bs_methodCount; ++i)
	{
		methods[i] = bsMethodName((bsMethod)i);
	}
	const char* responses[bs_responseCount];
	for (int i = 0; i < bs_responseCount; ++i)
	{
		responses[i] = bsResponseName((bsResponse)i);
	}
	// The names come from collide.h and simulate.h; their parsers turn the chosen one into the enum.
	int method = 0;
	int response = 0;
	if (!bsReadChoice(c, o, "method", false, methods, bs_methodCount, bs_methodKarabassi, &method) ||
		!bsReadChoice(c, o, "response", false, responses, bs_responseCount, bs_responseStick,
			&response))
	{
		return false;
	}
	if (!bsParseMethod(methods[method], &col->method) ||
		!bsParseResponse(responses[response], &col->response))
	{
		return bsFail(c, "internal error: a method or response name does not parse");
	}
	if (!bsReadNumber(c, o, "restitution", false, &bsUnit, 0.5, &col->restitution) ||
		!bsReadNumber(c, o, "friction", false, &bsUnit, 0.0, &col->friction) ||
		!bsReadInt(c, o, "max_contacts", 1, 64, 4, &col->maxContacts))
	{
		return false;
	}
	const cJSON* bounds;
	if (!bsReadObject(c, o, "bounds", &bsBoundsSchema, &bounds))
	{
		return false;
	}
	if (bounds != NULL)
	{
		size_t bmark = bsPushKey(c, "bounds");
		if (!bsReadVec3(c, bounds, "min", true, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0),
				&col->boundsMin) ||
			!bsReadVec3(c, bounds, "max", true, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0),
				&col->boundsMax) ||
			!bsCheckMinMax(c, bounds, col->boundsMin, col->boundsMax))
		{
			return false;
		}
		col->hasBounds = true;
		bsPop(c, bmark);
	}
	bsPop(c, mark);
	return true;
}

static bool bsReadRender(bsCtx* c, const cJSON* root, bsRenderConfig* r)
{
	const cJSON* o;
	if (!bsReadObject(c, root, "render", &bsRenderSchema, &o))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "render");

	const cJSON* camera;
	static const bsRange angle = {1.0, 179.0, false, "a number from 1 to 179 (degrees)"};
	if (!bsReadObject(c, o, "camera", &bsCameraSchema, &camera))
	{
		return false;
	}
	size_t cmark = bsPushKey(c, "camera");
	if (!bsReadVec3(c, camera, "location", false, &bsAnyNumber, "3 numbers", bsV3(0.0, 2.0, -5.0),
			&r->camera.location) ||
		!bsReadVec3(c, camera, "look_at", false, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0),
			&r->camera.lookAt) ||
		!bsReadNumber(c, camera, "angle", false, &angle, 60.0, &r->camera.angle))
	{
		return false;
	}
	if (r->camera.location.x == r->camera.lookAt.x && r->camera.location.y == r->camera.lookAt.y &&
		r->camera.location.z == r->camera.lookAt.z)
	{
		bsPushKey(c, "look_at");
		return bsFail(c, "the camera looks at its own location <%g, %g, %g>", r->camera.lookAt.x,
			r->camera.lookAt.y, r->camera.lookAt.z);
	}
	bsPop(c, cmark);

	const cJSON* lights;
	int lightCount;
	if (!bsReadArray(c, o, "lights", "an array of lights", &lights, &lightCount))
	{
		return false;
	}
	if (lights == NULL)
	{
		r->lights = calloc(1, sizeof *r->lights);
		if (r->lights == NULL)
		{
			return bsOutOfMemory(c);
		}
		r->lightCount = 1;
		r->lights[0].location = bsV3(5.0, 10.0, -5.0);
		r->lights[0].color = bsV3(1.0, 1.0, 1.0);
	}
	else if (lightCount > 0)
	{
		r->lights = calloc((size_t)lightCount, sizeof *r->lights);
		if (r->lights == NULL)
		{
			return bsOutOfMemory(c);
		}
		size_t lmark = bsPushKey(c, "lights");
		int i = 0;
		for (const cJSON* l = lights->child; l != NULL; l = l->next, ++i)
		{
			size_t imark = bsPushIndex(c, i);
			r->lightCount = i + 1;
			if (!cJSON_IsObject(l))
			{
				return bsFailExpected(c, "an object (a light)", l);
			}
			if (!bsCheckKeys(c, l, bsLightKeys, BS_COUNT(bsLightKeys)) ||
				!bsReadVec3(c, l, "location", true, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0),
					&r->lights[i].location) ||
				!bsReadVec3(c, l, "color", false, &bsNonNegative, "3 numbers >= 0 (rgb)",
					bsV3(1.0, 1.0, 1.0), &r->lights[i].color))
			{
				return false;
			}
			bsPop(c, imark);
		}
		bsPop(c, lmark);
	}

	const cJSON* blob;
	if (!bsReadVec3(c, o, "background", false, &bsUnit, "3 numbers from 0 to 1 (rgb)",
			bsV3(1.0, 1.0, 1.0), &r->background) ||
		!bsReadInt(c, o, "width", 16, 16384, 800, &r->width) ||
		!bsReadInt(c, o, "height", 16, 16384, 600, &r->height) ||
		!bsReadNumber(c, o, "antialias", false, &bsNonNegative, 0.3, &r->antialias) ||
		!bsReadNumber(c, o, "jitter", false, &bsNonNegative, 1.0, &r->jitter) ||
		!bsReadObject(c, o, "blob", &bsBlobSchema, &blob))
	{
		return false;
	}
	size_t bmark = bsPushKey(c, "blob");
	double maxComponents;
	if (!bsReadNumber(c, blob, "threshold", false, &bsPositive, 0.6, &r->blob.threshold) ||
		!bsReadNumber(c, blob, "strength", false, &bsPositive, 1.0, &r->blob.strength) ||
		!bsReadNumber(c, blob, "radius_scale", false, &bsPositive, 1.6, &r->blob.radiusScale) ||
		!bsReadInteger(c, blob, "max_components", 1.0, INT_MAX, 30000.0, &maxComponents))
	{
		return false;
	}
	r->blob.maxComponents = (int)maxComponents;
	if (!(r->blob.threshold < r->blob.strength))
	{
		char strength[32];
		bsFormatNumber(r->blob.strength, strength);
		char what[96];
		snprintf(what, sizeof what, "a number > 0 and below strength %s", strength);
		const cJSON* t = bsMember(blob, "threshold");
		bsPushKey(c, "threshold");
		if (t == NULL)
		{
			return bsFail(c, "the default threshold 0.6 is not below strength %s", strength);
		}
		return bsFailExpected(c, what, t);
	}
	bsPop(c, bmark);
	if (!bsReadMaterial(c, o, "particle_material", "snow", &r->particleMaterial))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

static bool bsReadOutput(bsCtx* c, const cJSON* root, bsOutputConfig* out)
{
	const cJSON* o;
	if (!bsReadObject(c, root, "output", &bsOutputSchema, &o))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "output");
	if (!bsReadFile(c, o, "directory", false, "out", &out->directory) ||
		!bsReadInt(c, o, "frame_every", 0, INT_MAX, 0, &out->frameEvery))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

static bool bsReadConfig(bsCtx* c, const cJSON* root, bsConfig* config)
{
	if (!cJSON_IsObject(root))
	{
		return bsFailExpected(c, "a JSON object at the top level", root);
	}
	if (!bsCheckKeys(c, root, bsRootKeys, BS_COUNT(bsRootKeys)))
	{
		return false;
	}
	double seed;
	if (!bsReadInteger(c, root, "seed", 0.0, 9007199254740991.0, 1.0, &seed))
	{
		return false;
	}
	config->seed = (uint64_t)seed;
	return bsReadEnvironment(c, root, &config->environment) &&
		bsReadParticles(c, root, &config->particles) && bsReadMotion(c, root, &config->motion) &&
		bsReadCollision(c, root, &config->collision) && bsReadRender(c, root, &config->render) &&
		bsReadOutput(c, root, &config->output);
}

// --- Overrides ---

// "--set TEXT: message". Returns false.
BS_PRINTF(4, 5)
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
		if (!bsIsDigit((unsigned char)s[i]))
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
	bsSyntax x = {(const unsigned char*)value, 0, n, 0, {0}};
	if (!bsCheckEncoding(&x))
	{
		bsOverrideFail(c, bs_errInvalidArgument, text, "the value is not valid UTF-8");
		return NULL;
	}
	size_t first = 0;
	while (first < n && bsIsSpace((unsigned char)value[first]))
	{
		++first;
	}
	bool outOfMemory = false;
	cJSON* v = bsParseJson(&x, &outOfMemory);
	if (v != NULL)
	{
		return v;
	}
	if (outOfMemory)
	{
		bsOverrideFail(c, bs_errOutOfMemory, text, "out of memory");
		return NULL;
	}
	if (first < n && (value[first] == '[' || value[first] == '{' || value[first] == '"'))
	{
		size_t line, column;
		bsLineColumn(x.s, 0, x.at, &line, &column);
		bsOverrideFail(c, bs_errInvalidArgument, text, "the value is not valid JSON: column %zu: %s",
			column, x.message);
		return NULL;
	}
	v = cJSON_CreateString(value);
	if (v == NULL)
	{
		bsOverrideFail(c, bs_errOutOfMemory, text, "out of memory");
	}
	return v;
}

// Applies one "dotted.path=VALUE" to the tree, creating missing objects and arrays on the way.
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

	char shown[320];  // the JSON path walked so far, for messages
	size_t shownLength = 0;
	shown[0] = '\0';
	cJSON* node = root;
	const bsSchema* schema = &bsRootSchema;
	cJSON* value = NULL;
	bool ok = false;
	char* seg = segments;
	for (;;)
	{
		char* dot = strchr(seg, '.');
		bool last = dot == NULL;
		if (dot != NULL)
		{
			*dot = '\0';
		}
		if (seg[0] == '\0')
		{
			bsOverrideFail(c, bs_errInvalidArgument, text, "empty key in the path");
			break;
		}
		const char* where = shownLength > 0 ? shown : "the top level";
		const bsSchema* next = NULL;
		cJSON* child = NULL;
		int index = -1;
		if (cJSON_IsArray(node))
		{
			index = bsParseIndex(seg);
			int size = cJSON_GetArraySize(node);
			if (index < 0)
			{
				bsOverrideFail(c, bs_errInvalidArgument, text,
					"%s is an array: expected an index, got '%.64s'", where, seg);
				break;
			}
			if (index > size)
			{
				bsOverrideFail(c, bs_errInvalidArgument, text,
					"index %d is out of range: %s has %d element%s (index %d appends)", index, where,
					size, size == 1 ? "" : "s", size);
				break;
			}
			child = index < size ? cJSON_GetArrayItem(node, index) : NULL;
			next = schema->kind == bs_kindArray ? schema->element : &bsValueSchema;
			bsAppendIndex(shown, sizeof shown, &shownLength, index);
		}
		else if (cJSON_IsObject(node))
		{
			if (schema->kind == bs_kindMap)
			{
				next = schema->element;
			}
			else
			{
				const bsSchemaKey* key = bsFindKey(schema->keys, schema->keyCount, seg);
				if (key == NULL)
				{
					char hint[300];
					bsUnknownKeyHint(seg, schema->keys, schema->keyCount, hint, sizeof hint);
					bsOverrideFail(c, bs_errInvalidArgument, text, "unknown key '%.64s'%s%s%s", seg,
						shownLength > 0 ? " in " : "", shownLength > 0 ? shown : "", hint);
					break;
				}
				next = key->schema;
			}
			child = cJSON_GetObjectItemCaseSensitive(node, seg);
			bsAppendKey(shown, sizeof shown, &shownLength, seg);
		}
		else
		{
			char got[80];
			bsDescribeValue(node, got);
			bsOverrideFail(c, bs_errInvalidArgument, text, "%s is %s in the config, not an object or "
				"array: it has no '%.64s'", where, got, seg);
			break;
		}

		if (last)
		{
			value = bsOverrideValue(c, text, eq + 1);
			if (value == NULL)
			{
				break;
			}
			cJSON_bool done;
			if (index >= 0)
			{
				done = child != NULL ? cJSON_ReplaceItemInArray(node, index, value)
					: cJSON_AddItemToArray(node, value);
			}
			else
			{
				done = child != NULL ? cJSON_ReplaceItemInObjectCaseSensitive(node, seg, value)
					: cJSON_AddItemToObject(node, seg, value);
			}
			if (!done)
			{
				bsOverrideFail(c, bs_errOutOfMemory, text, "out of memory");
				break;
			}
			value = NULL;
			ok = true;
			break;
		}

		if (child == NULL)
		{
			// Create the container the rest of the path needs.
			bool array = next->kind == bs_kindArray ||
				(next->kind == bs_kindValue && bsParseIndex(dot + 1) >= 0);
			if (next->kind == bs_kindValue && !array)
			{
				bsOverrideFail(c, bs_errInvalidArgument, text, "%s holds a value, not an object: it "
					"has no '%.64s'", shown, dot + 1);
				break;
			}
			child = array ? cJSON_CreateArray() : cJSON_CreateObject();
			cJSON_bool added = child != NULL && (index >= 0 ? cJSON_AddItemToArray(node, child)
				: cJSON_AddItemToObject(node, seg, child));
			if (!added)
			{
				cJSON_Delete(child);
				bsOverrideFail(c, bs_errOutOfMemory, text, "out of memory");
				break;
			}
		}
		else if (next->kind == bs_kindValue ? !cJSON_IsArray(child)
			: next->kind == bs_kindArray ? !cJSON_IsArray(child) : !cJSON_IsObject(child))
		{
			char got[80];
			bsDescribeValue(child, got);
			const char* need = next->kind == bs_kindArray || next->kind == bs_kindValue
				? "an array" : "an object";
			bsOverrideFail(c, bs_errInvalidArgument, text, "%s is %s in the config, not %s", shown,
				got, need);
			break;
		}
		node = child;
		schema = next;
		seg = dot + 1;
	}
	cJSON_Delete(value);
	free(segments);
	if (ok)
	{
		char* copy = bsStrDup(shown);
		char** grown = copy != NULL
			? realloc(c->setPaths, (size_t)(c->setPathCount + 1) * sizeof *c->setPaths) : NULL;
		if (grown == NULL)
		{
			free(copy);
			return bsOverrideFail(c, bs_errOutOfMemory, text, "out of memory");
		}
		c->setPaths = grown;
		c->setPaths[c->setPathCount++] = copy;
	}
	return ok;
}

// --- Hash: FNV-1a 64 over a canonical encoding of the tree ---

typedef struct bsHasher
{
	uint64_t h;
	bool outOfMemory;
} bsHasher;

static void bsHashBytes(bsHasher* hs, const void* data, size_t n)
{
	const unsigned char* p = data;
	for (size_t i = 0; i < n; ++i)
	{
		hs->h ^= p[i];
		hs->h *= 1099511628211ull;
	}
}

static void bsHashU64(bsHasher* hs, uint64_t v)
{
	unsigned char b[8];
	for (int i = 0; i < 8; ++i)
	{
		b[i] = (unsigned char)(v >> (8 * i));
	}
	bsHashBytes(hs, b, 8);
}

static void bsHashString(bsHasher* hs, const char* s)
{
	size_t n = strlen(s);
	bsHashBytes(hs, "s", 1);
	bsHashU64(hs, (uint64_t)n);
	bsHashBytes(hs, s, n);
}

static int bsCompareKeys(const void* pa, const void* pb)
{
	const cJSON* a = *(const cJSON* const*)pa;
	const cJSON* b = *(const cJSON* const*)pb;
	return strcmp(a->string, b->string);
}

// Recursion is bounded: the tree passed the depth check and the schema, which is a few levels deep.
static void bsHashValue(bsHasher* hs, const cJSON* v)
{
	if (cJSON_IsNumber(v))
	{
		double d = v->valuedouble == 0.0 ? 0.0 : v->valuedouble;  // -0 is 0
		uint64_t bits;
		memcpy(&bits, &d, sizeof bits);
		bsHashBytes(hs, "d", 1);
		bsHashU64(hs, bits);
	}
	else if (cJSON_IsString(v))
	{
		bsHashString(hs, v->valuestring);
	}
	else if (cJSON_IsTrue(v))
	{
		bsHashBytes(hs, "t", 1);
	}
	else if (cJSON_IsFalse(v))
	{
		bsHashBytes(hs, "f", 1);
	}
	else if (cJSON_IsArray(v))
	{
		uint64_t n = 0;
		for (const cJSON* e = v->child; e != NULL; e = e->next)
		{
			++n;
		}
		bsHashBytes(hs, "[", 1);
		bsHashU64(hs, n);
		for (const cJSON* e = v->child; e != NULL; e = e->next)
		{
			bsHashValue(hs, e);
		}
	}
	else if (cJSON_IsObject(v))
	{
		size_t n = 0;
		for (const cJSON* e = v->child; e != NULL; e = e->next)
		{
			++n;
		}
		const cJSON** members = n > 0 ? malloc(n * sizeof *members) : NULL;
		if (n > 0 && members == NULL)
		{
			hs->outOfMemory = true;
			return;
		}
		size_t i = 0;
		for (const cJSON* e = v->child; e != NULL; e = e->next)
		{
			members[i++] = e;
		}
		if (n > 1)
		{
			qsort(members, n, sizeof *members, bsCompareKeys);
		}
		bsHashBytes(hs, "{", 1);
		bsHashU64(hs, (uint64_t)n);
		for (i = 0; i < n; ++i)
		{
			bsHashString(hs, members[i]->string);
			bsHashValue(hs, members[i]);
		}
		free(members);
	}
	else
	{
		bsHashBytes(hs, "n", 1);
	}
}

// --- Public API ---

void bsConfig_Free(bsConfig* config)
{
	if (config == NULL)
	{
		return;
	}
	free(config->path);
	for (int i = 0; i < config->environment.meshCount; ++i)
	{
		bsMeshConfig* m = config->environment.meshes + i;
		free(m->file);
		bsMaterial_Free(&m->material);
		for (int g = 0; g < m->groupCount; ++g)
		{
			free(m->groups[g].group);
			bsMaterial_Free(&m->groups[g].material);
		}
		free(m->groups);
	}
	free(config->environment.meshes);
	for (int i = 0; i < config->environment.planeCount; ++i)
	{
		bsMaterial_Free(&config->environment.planes[i].material);
	}
	free(config->environment.planes);
	for (int i = 0; i < config->particles.emitterCount; ++i)
	{
		free(config->particles.emitters[i].file);
	}
	free(config->particles.emitters);
	free(config->render.lights);
	bsMaterial_Free(&config->render.particleMaterial);
	free(config->output.directory);
	memset(config, 0, sizeof *config);
}

uint64_t bsConfig_Hash(const bsConfig* config)
{
	return config != NULL ? config->hash : 0;
}

bsResult bsJson_Parse(const char* text, size_t length, const char* label, cJSON** root,
	bsConfigError* error)
{
	*root = NULL;
	const unsigned char* s = (const unsigned char*)(text != NULL ? text : "");
	bsSyntax x = {s, 0, length, 0, {0}};
	if (length >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
	{
		x.begin = 3;  // a UTF-8 byte order mark
	}
	bool outOfMemory = false;
	*root = bsParseJson(&x, &outOfMemory);
	if (*root == NULL)
	{
		size_t line, column;
		bsLineColumn(s, x.begin, x.at < x.begin ? x.begin : x.at, &line, &column);
		if (error != NULL)
		{
			snprintf(error->message, sizeof error->message, "%s:%zu:%zu: %s", label, line, column,
				x.message);
		}
		return outOfMemory ? bs_errOutOfMemory : bs_errInvalidArgument;
	}
	return bs_ok;
}

bsResult bsConfig_ParseWithOverrides(const char* text, size_t length, const char* path,
	const char* const* overrides, int overrideCount, bsConfig* config, bsConfigError* error)
{
	if (error != NULL)
	{
		error->message[0] = '\0';
	}
	if (config == NULL || (text == NULL && length > 0) || overrideCount < 0 ||
		(overrides == NULL && overrideCount > 0))
	{
		if (error != NULL)
		{
			snprintf(error->message, sizeof error->message, "bsConfig_Parse: invalid argument");
		}
		return bs_errInvalidArgument;
	}
	memset(config, 0, sizeof *config);

	const char* label = path != NULL ? path : "<config>";
	const char* slash = path != NULL ? strrchr(path, '/') : NULL;
	bsCtx c;
	memset(&c, 0, sizeof c);
	c.label = label;
	c.dir = path != NULL ? path : "";
	c.dirLength = slash != NULL ? (size_t)(slash - path) + 1 : 0;
	c.error = error;
	c.result = bs_ok;

	cJSON* root = NULL;
	bsResult parsed = bsJson_Parse(text, length, label, &root, error);
	if (parsed != bs_ok)
	{
		return parsed;
	}

	bool ok = true;
	if (cJSON_IsObject(root))
	{
		for (int i = 0; i < overrideCount && ok; ++i)
		{
			if (overrides[i] == NULL)
			{
				ok = bsOverrideFail(&c, bs_errInvalidArgument, "(null)", "expected key.path=value");
			}
			else
			{
				ok = bsApplyOverride(&c, root, overrides[i]);
			}
		}
	}
	if (ok)
	{
		ok = bsReadConfig(&c, root, config);
	}
	if (ok)
	{
		config->path = bsStrDup(label);
		bsHasher hs = {14695981039346656037ull, false};
		bsHashValue(&hs, root);
		config->hash = hs.h;
		if (config->path == NULL || hs.outOfMemory)
		{
			ok = bsOutOfMemory(&c);
		}
	}
	cJSON_Delete(root);
	for (int i = 0; i < c.setPathCount; ++i)
	{
		free(c.setPaths[i]);
	}
	free(c.setPaths);
	if (!ok)
	{
		bsConfig_Free(config);
		return c.result != bs_ok ? c.result : bs_errInvalidArgument;
	}
	return bs_ok;
}

bsResult bsConfig_Parse(const char* text, size_t length, const char* path, bsConfig* config,
	bsConfigError* error)
{
	return bsConfig_ParseWithOverrides(text, length, path, NULL, 0, config, error);
}

// strerror, thread-safe (the XSI strerror_r of _POSIX_C_SOURCE >= 200112L).
static void bsErrnoText(int code, char* out, size_t size)
{
	if (strerror_r(code, out, size) != 0)
	{
		snprintf(out, size, "error %d", code);
	}
}

// Reads a whole JSON file of at most BS_CONFIG_MAX_FILE_SIZE bytes into *out (malloc'd, the caller
// frees it; NULL on failure, with the message in error).
static bsResult bsReadJsonFile(const char* path, char** out, size_t* outLength, bsConfigError* error)
{
	*out = NULL;
	*outLength = 0;
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		if (error != NULL)
		{
			char reason[128];
			bsErrnoText(errno, reason, sizeof reason);
			snprintf(error->message, sizeof error->message, "%s: cannot open: %s", path, reason);
		}
		return bs_errInvalidArgument;
	}
	// Read in growing chunks (works for pipes too); stop once past the limit.
	size_t capacity = 4096;
	size_t length = 0;
	char* text = malloc(capacity);
	bsResult result = bs_ok;
	while (text != NULL && length <= BS_CONFIG_MAX_FILE_SIZE)
	{
		if (length == capacity)
		{
			char* grown = realloc(text, capacity * 2);
			if (grown == NULL)
			{
				free(text);
				text = NULL;
				break;
			}
			text = grown;
			capacity *= 2;
		}
		size_t got = fread(text + length, 1, capacity - length, f);
		length += got;
		if (got == 0)
		{
			if (ferror(f))
			{
				result = bs_errInvalidArgument;
				if (error != NULL)
				{
					char reason[128];
					bsErrnoText(errno, reason, sizeof reason);
					snprintf(error->message, sizeof error->message, "%s: cannot read: %s", path, reason);
				}
			}
			break;
		}
	}
	if (text != NULL && result == bs_ok && length > BS_CONFIG_MAX_FILE_SIZE)
	{
		result = bs_errTooLarge;
		if (error != NULL)
		{
			snprintf(error->message, sizeof error->message, "%s: larger than %d bytes: not a config",
				path, BS_CONFIG_MAX_FILE_SIZE);
		}
	}
	fclose(f);
	if (text == NULL)
	{
		if (error != NULL)
		{
			snprintf(error->message, sizeof error->message, "%s: out of memory", path);
		}
		return bs_errOutOfMemory;
	}
	if (result != bs_ok)
	{
		free(text);
		return result;
	}
	*out = text;
	*outLength = length;
	return bs_ok;
}

bsResult bsConfig_LoadWithOverrides(const char* path, const char* const* overrides,
	int overrideCount, bsConfig* config, bsConfigError* error)
{
	if (error != NULL)
	{
		error->message[0] = '\0';
	}
	if (config != NULL)
	{
		memset(config, 0, sizeof *config);
	}
	if (path == NULL || config == NULL)
	{
		if (error != NULL)
		{
			snprintf(error->message, sizeof error->message, "bsConfig_Load: invalid argument");
		}
		return bs_errInvalidArgument;
	}
	char* text = NULL;
	size_t length = 0;
	bsResult result = bsReadJsonFile(path, &text, &length, error);
	if (result == bs_ok)
	{
		result = bsConfig_ParseWithOverrides(text, length, path, overrides, overrideCount, config,
			error);
	}
	free(text);
	return result;
}

bsResult bsJson_Load(const char* path, cJSON** root, bsConfigError* error)
{
	*root = NULL;
	if (error != NULL)
	{
		error->message[0] = '\0';
	}
	char* text = NULL;
	size_t length = 0;
	bsResult result = bsReadJsonFile(path, &text, &length, error);
	if (result == bs_ok)
	{
		result = bsJson_Parse(text, length, path, root, error);
	}
	free(text);
	return result;
}

bsResult bsConfig_Load(const char* path, bsConfig* config, bsConfigError* error)
{
	return bsConfig_LoadWithOverrides(path, NULL, 0, config, error);
}
