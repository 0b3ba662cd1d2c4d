// obj.c — the OBJ loader (see obj.h for the format it accepts and the messages it gives).
//
// One lexer, two passes over it (a third after an error): bs_objCount counts vertices, triangles and
// group statements so the arrays can be allocated exactly; bs_objStore parses every number and index
// and fills them. Every
// check is made by the store pass; the count pass makes only those it meets on the way (NUL bytes,
// long lines, wrong numbers of tokens, limits). When the count pass fails, bs_objValidate (the store
// pass without storing) runs over the text so the error reported is always the first one in the file.
//
// Costs are linear in the input whatever it holds (but for the ear clipping of faces of more than 3
// vertices, whose work is bounded per face: polygon.h): no token is scanned more than a constant number of
// times, names are interned as they are read and a face finds its group by a pair of name ids, and
// the hash tables are seeded per parse (from ASLR and the clock), so a file cannot be prepared to make
// them collide. The seed is not secret against someone who watches the process; it need not be.
#include "obj.h"

#include "array.h"
#include "polygon.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__)
#define BS_OBJ_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define BS_OBJ_PRINTF(f, a)
#endif

// Character classes of the lexer.
enum
{
	bs_objToken = 0,
	bs_objBlank,
	bs_objNewline,
	bs_objHash,
	bs_objNul,
	bs_objBackslash,
	bs_objEnd,  // not a character: the end of the text
};

static const unsigned char bsObjClass[256] = {
	[0] = bs_objNul,
	['\t'] = bs_objBlank,
	['\n'] = bs_objNewline,
	['\v'] = bs_objBlank,
	['\f'] = bs_objBlank,
	['\r'] = bs_objNewline,
	[' '] = bs_objBlank,
	['#'] = bs_objHash,
	['\\'] = bs_objBackslash,
};

typedef enum bsObjMode
{
	bs_objCount,
	bs_objValidate,
	bs_objStore,
} bsObjMode;

typedef enum bsObjName
{
	bs_objObject,
	bs_objGroup,
	bs_objMaterial,
} bsObjName;

// A distinct o/g/usemtl name (the names of one statement joined by single spaces).
typedef struct bsObjNameEntry
{
	size_t offset;  // in nameArena, NUL-terminated there
	size_t length;
	uint64_t hash;
} bsObjNameEntry;

typedef struct bsObjParser
{
	const char* text;
	const char* end;
	const char* name;
	bsObjOptions options;
	bsObjMode mode;
	bsObjError* error;
	bsResult result;  // of the first failure

	const char* p;     // the cursor
	const char* stmt;  // the first byte of the current statement's first physical line
	uint64_t line;     // physical line of the cursor
	uint64_t stmtLine; // first physical line of the current statement

	uint64_t vertexCount;         // vertices so far
	uint64_t triangleCount;       // triangles so far, before dropping degenerates
	uint64_t nameStatements;      // o, g and usemtl statements
	uint64_t nameStatementBytes;  // their bytes after the keyword, plus one each: bounds the names
	uint64_t ignoredLines, ignoredPoints, ignoredStatements;
	const char* keyword;          // the current statement's keyword
	const char* lastTokenEnd;     // the end of the current statement's last token so far
	uint64_t coloredCount;        // `v` statements with a colour
	uint64_t maxCorners;          // the most vertices of a face

	// bs_objStore only. Names are interned (each distinct one stored once) and a group is keyed by the
	// pair of name ids (base, material), so choosing the group of a face costs O(1) however long the
	// names are; a group's name string is made once, when the group is created.
	bsObjMesh* mesh;
	uint64_t vertexCapacity;
	uint64_t triangleCapacity;
	uint64_t groupCapacity;
	uint64_t seed;               // of the hashes, per parse
	char* nameArena;
	size_t nameArenaUsed;
	size_t nameArenaCapacity;
	bsObjNameEntry* nameEntries; // name id - 1
	uint32_t nameCount;
	uint64_t nameCapacity;
	uint32_t* nameSlots;         // open addressing: name id, 0 empty
	size_t nameSlotMask;
	uint32_t current[3];         // name ids by bsObjName, 0: none
	bool keyDirty;               // a name changed since the current group was chosen
	uint32_t currentGroup;
	uint32_t defaultName;        // the id of "default", interned first: `g default` is the same base
	uint64_t* groupKeys;         // per group: base id << 32 | material id
	uint32_t* groupSlots;        // open addressing: group index + 1, 0 empty
	size_t groupSlotMask;
	size_t groupNameBytes;
	uint32_t* corners;               // the current face's vertices
	uint64_t cornerCapacity;
	uint32_t (*faceTriangles)[3];    // its triangles
	bsPolygonScratch polygon;
} bsObjParser;

bsObjOptions bsDefaultObjOptions(void)
{
	bsObjOptions o;
	o.maxLineBytes = (size_t)1 << 20;
	o.maxVertices = UINT32_MAX;
	o.maxTriangles = UINT32_MAX;
	o.maxGroups = UINT32_MAX;
	o.maxNameBytes = (size_t)64 << 20;
	return o;
}

// ---- messages ----

BS_OBJ_PRINTF(5, 6)
static void bsObj_Report(bsObjError* error, const char* name, uint64_t line, uint64_t column,
	const char* format, ...)
{
	error->line = line;
	error->column = column;
	size_t cap = sizeof(error->message);
	int n;
	if (line == 0)
	{
		n = snprintf(error->message, cap, "%s: ", name);
	}
	else if (column == 0)
	{
		n = snprintf(error->message, cap, "%s:%" PRIu64 ": ", name, line);
	}
	else
	{
		n = snprintf(error->message, cap, "%s:%" PRIu64 ":%" PRIu64 ": ", name, line, column);
	}
	if (n < 0 || (size_t)n >= cap - 1)
	{
		return;  // the name alone fills the buffer: keep it truncated
	}
	va_list args;
	va_start(args, format);
	vsnprintf(error->message + n, cap - (size_t)n, format, args);
	va_end(args);
}

// The 1-based column of `at` in the current statement, each line continuation counting as one.
static uint64_t bsObj_Column(const bsObjParser* ps, const char* at);

// Fails at the current statement: with the column of `at`, or without a column when at is NULL.
BS_OBJ_PRINTF(4, 5)
static bool bsObj_Fail(bsObjParser* ps, bsResult result, const char* at, const char* format, ...)
{
	bsObjError* e = ps->error;
	uint64_t column = at != NULL ? bsObj_Column(ps, at) : 0;
	e->line = ps->stmtLine;
	e->column = column;
	size_t cap = sizeof(e->message);
	int n = column != 0
		? snprintf(e->message, cap, "%s:%" PRIu64 ":%" PRIu64 ": ", ps->name, ps->stmtLine, column)
		: snprintf(e->message, cap, "%s:%" PRIu64 ": ", ps->name, ps->stmtLine);
	if (n >= 0 && (size_t)n < cap - 1)
	{
		va_list args;
		va_start(args, format);
		vsnprintf(e->message + n, cap - (size_t)n, format, args);
		va_end(args);
	}
	ps->result = result;
	return false;
}

// A token for a message: at most 40 bytes, printable ASCII kept, other bytes as \xNN, "..." when cut.
static const char* bsObj_Quote(char out[200], const char* b, const char* e)
{
	size_t n = 0;
	size_t shown = 0;
	for (const char* p = b; p < e; ++p)
	{
		if (shown == 40)
		{
			memcpy(out + n, "...", 3);
			n += 3;
			break;
		}
		unsigned char c = (unsigned char)*p;
		if (c >= 0x20 && c < 0x7f && c != '\\')
		{
			out[n++] = (char)c;
		}
		else
		{
			static const char hex[] = "0123456789abcdef";
			out[n++] = '\\';
			out[n++] = 'x';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		}
		++shown;
	}
	out[n] = '\0';
	return out;
}

// ---- lexer ----

// The position after the line break at p (LF, CR, or CRLF as one).
static const char* bsObj_BreakEnd(const char* p, const char* end)
{
	return *p == '\r' && p + 1 < end && p[1] == '\n' ? p + 2 : p + 1;
}

// If the backslash at p starts a line continuation (only blanks up to the line break or the end of the
// text), the position after it; otherwise NULL.
static const char* bsObj_Continuation(const char* p, const char* end)
{
	const char* q = p + 1;
	while (q < end && bsObjClass[(unsigned char)*q] == bs_objBlank)
	{
		++q;
	}
	if (q == end)
	{
		return q;
	}
	return *q == '\n' || *q == '\r' ? bsObj_BreakEnd(q, end) : NULL;
}

static uint64_t bsObj_Column(const bsObjParser* ps, const char* at)
{
	uint64_t column = 1;
	const char* p = ps->stmt;
	while (p < at)
	{
		const char* q = *p == '\\' ? bsObj_Continuation(p, ps->end) : NULL;
		p = q != NULL ? q : p + 1;
		++column;
	}
	return column;
}

// Does a token end at p?
static bool bsObj_IsDelimiter(const char* p, const char* end)
{
	if (p == end)
	{
		return true;
	}
	int c = bsObjClass[(unsigned char)*p];
	return c != bs_objToken && (c != bs_objBackslash || bsObj_Continuation(p, end) != NULL);
}

static const char* bsObj_TokenEnd(const char* p, const char* end)
{
	while (p < end)
	{
		int c = bsObjClass[(unsigned char)*p];
		if (c != bs_objToken && (c != bs_objBackslash || bsObj_Continuation(p, end) != NULL))
		{
			break;
		}
		++p;
	}
	return p;
}

// Skips blanks and line continuations; returns the class at the cursor (bs_objEnd at the end).
static int bsObj_SkipBlank(bsObjParser* ps)
{
	const char* p = ps->p;
	const char* end = ps->end;
	for (;;)
	{
		if (p == end)
		{
			ps->p = p;
			return bs_objEnd;
		}
		int c = bsObjClass[(unsigned char)*p];
		if (c == bs_objBlank)
		{
			++p;
			continue;
		}
		if (c == bs_objBackslash)
		{
			const char* q = bsObj_Continuation(p, end);
			if (q == NULL)
			{
				ps->p = p;
				return bs_objToken;
			}
			ps->line += q[-1] == '\n' || q[-1] == '\r';
			p = q;
			continue;
		}
		ps->p = p;
		return c;
	}
}

static bool bsObj_FailNul(bsObjParser* ps, const char* at)
{
	return bsObj_Fail(ps, bs_errInvalidArgument, at, "NUL byte in text");
}

// The first line break (CR or LF) or NUL byte from p on, or end.
static const char* bsObj_FindBreak(const char* p, const char* end)
{
	while (p < end)
	{
		int c = bsObjClass[(unsigned char)*p];
		if (c == bs_objNewline || c == bs_objNul)
		{
			return p;
		}
		++p;
	}
	return end;
}

// Skips the rest of the statement (a comment, an ignored statement), following continuations. Leaves
// the cursor at the statement's line break or at the end of the text.
static bool bsObj_SkipRest(bsObjParser* ps)
{
	const char* p = ps->p;
	const char* end = ps->end;
	for (;;)
	{
		const char* newline = bsObj_FindBreak(p, end);
		if (newline == end)
		{
			ps->p = end;
			return true;
		}
		if (*newline == '\0')
		{
			ps->p = newline;
			return bsObj_FailNul(ps, newline);
		}
		const char* q = newline;
		while (q > p && bsObjClass[(unsigned char)q[-1]] == bs_objBlank)
		{
			--q;
		}
		if (q > p && q[-1] == '\\')
		{
			++ps->line;
			p = bsObj_BreakEnd(newline, end);
			continue;
		}
		ps->p = newline;
		return true;
	}
}

// Moves to the next token of the statement: 1 at a token, 0 at the statement's end (the cursor at its
// line break or the end of the text; a comment skipped), -1 on an error.
static int bsObj_NextToken(bsObjParser* ps)
{
	switch (bsObj_SkipBlank(ps))
	{
		case bs_objToken:
		case bs_objBackslash:
			return 1;
		case bs_objHash:
			return bsObj_SkipRest(ps) ? 0 : -1;
		case bs_objNul:
			bsObj_FailNul(ps, ps->p);
			return -1;
		default:
			return 0;
	}
}

// ---- numbers ----

static const double bsObjPow10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

typedef enum bsObjNumber
{
	bs_objNumberOk,
	bs_objNumberMalformed,
	bs_objNumberNonFinite,
	bs_objNumberRange,
	bs_objNumberNoMemory,
} bsObjNumber;

static bool bsObj_StartsWithNoCase(const char* p, const char* end, const char* word)
{
	for (; *word != '\0'; ++word, ++p)
	{
		if (p == end || (*p | 0x20) != *word)
		{
			return false;
		}
	}
	return true;
}

// nan, inf, infinity or nan(...), any case, after an optional sign: the spellings strtod would take.
static bool bsObj_IsNonFiniteWord(const char* p, const char* e)
{
	if (p < e && (*p == '+' || *p == '-'))
	{
		++p;
	}
	size_t n = (size_t)(e - p);
	if (bsObj_StartsWithNoCase(p, e, "nan"))
	{
		return n == 3 || p[3] == '(';
	}
	return (n == 3 && bsObj_StartsWithNoCase(p, e, "inf")) ||
		(n == 8 && bsObj_StartsWithNoCase(p, e, "infinity"));
}

// Parses the decimal number of the token at p. Exact: the fast path takes up to 19 significant digits
// with a mantissa below 2^53 and a power of ten up to 22, where one IEEE multiply or divide of two
// exact doubles is correctly rounded (Clinger); anything else goes to strtod. strtod only ever sees
// [+-]digits[.digits][e[+-]digits], and the program never calls setlocale, so the "C" locale holds and
// the decimal point is '.'. A program that embeds this loader and changes LC_NUMERIC gets "malformed
// number" for numbers off the fast path.
static bsObjNumber bsObj_ParseDouble(const char* p, const char* end, double* out, const char** after)
{
	const char* start = p;
	bool negative = false;
	if (p < end && (*p == '+' || *p == '-'))
	{
		negative = *p == '-';
		++p;
	}
	uint64_t m = 0;
	int digits = 0;      // significant digits in m
	int64_t e10 = 0;
	bool inexact = false;  // a nonzero digit did not fit in m
	bool any = false;
	while (p < end && (unsigned)(*p - '0') < 10u)
	{
		unsigned d = (unsigned)(*p - '0');
		if (digits < 19)
		{
			m = m * 10u + d;
			digits += m != 0;
		}
		else
		{
			++e10;
			inexact |= d != 0;
		}
		any = true;
		++p;
	}
	if (p < end && *p == '.')
	{
		++p;
		while (p < end && (unsigned)(*p - '0') < 10u)
		{
			unsigned d = (unsigned)(*p - '0');
			if (digits < 19)
			{
				m = m * 10u + d;
				digits += m != 0;
				--e10;
			}
			else
			{
				inexact |= d != 0;
			}
			any = true;
			++p;
		}
	}
	if (!any)
	{
		return bs_objNumberMalformed;
	}
	if (p < end && (*p == 'e' || *p == 'E'))
	{
		++p;
		bool expNegative = false;
		if (p < end && (*p == '+' || *p == '-'))
		{
			expNegative = *p == '-';
			++p;
		}
		if (p == end || (unsigned)(*p - '0') >= 10u)
		{
			return bs_objNumberMalformed;
		}
		int64_t x = 0;
		while (p < end && (unsigned)(*p - '0') < 10u)
		{
			if (x < INT64_C(1000000000000000))
			{
				x = x * 10 + (*p - '0');
			}
			++p;
		}
		e10 += expNegative ? -x : x;
	}
	*after = p;
	if (!bsObj_IsDelimiter(p, end))
	{
		return bs_objNumberMalformed;
	}
	double v;
	if (m == 0)
	{
		v = 0.0;
	}
	else if (!inexact && m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22)
	{
		v = e10 >= 0 ? (double)m * bsObjPow10[e10] : (double)m / bsObjPow10[-e10];
	}
	else if (e10 > 400)
	{
		return bs_objNumberRange;  // m >= 1, so at least 1e401
	}
	else
	{
		size_t n = (size_t)(p - start);
		char local[128];
		char* buffer = n < sizeof(local) ? local : malloc(n + 1);
		if (buffer == NULL)
		{
			return bs_objNumberNoMemory;
		}
		memcpy(buffer, start, n);
		buffer[n] = '\0';
		char* stop = NULL;
		v = strtod(buffer, &stop);
		bool whole = stop == buffer + n;
		if (buffer != local)
		{
			free(buffer);
		}
		if (!whole)
		{
			return bs_objNumberMalformed;
		}
		if (isinf(v))
		{
			return bs_objNumberRange;
		}
		*out = v;  // strtod keeps the sign
		return bs_objNumberOk;
	}
	*out = negative ? -v : v;
	return bs_objNumberOk;
}

// [+-]digits at p into *value; *overflow when the magnitude exceeds INT64_MAX. NULL without a digit.
static const char* bsObj_ParseInteger(const char* p, const char* end, int64_t* value, bool* overflow)
{
	bool negative = false;
	if (p < end && (*p == '+' || *p == '-'))
	{
		negative = *p == '-';
		++p;
	}
	if (p == end || (unsigned)(*p - '0') >= 10u)
	{
		return NULL;
	}
	uint64_t x = 0;
	while (p < end && (unsigned)(*p - '0') < 10u)
	{
		unsigned d = (unsigned)(*p - '0');
		if (x > ((uint64_t)INT64_MAX - d) / 10u)
		{
			*overflow = true;
		}
		else
		{
			x = x * 10u + d;
		}
		++p;
	}
	*value = negative ? -(int64_t)x : (int64_t)x;
	return p;
}

// ---- store helpers ----

static bool bsObj_FailMemory(bsObjParser* ps)
{
	bsObj_Report(ps->error, ps->name, 0, 0, "out of memory");
	ps->result = bs_errOutOfMemory;
	return false;
}

static bool bsObj_FailInternal(bsObjParser* ps)
{
	return bsObj_Fail(ps, bs_errInvalidArgument, NULL, "internal error: the passes disagree");
}

// FNV-1a from a seeded basis, then mixed.
static uint64_t bsObj_HashBytes(uint64_t seed, const char* s, size_t n)
{
	uint64_t h = UINT64_C(14695981039346656037) ^ seed;
	for (size_t i = 0; i < n; ++i)
	{
		h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
	}
	return bsMurmurMix(h ^ (uint64_t)n);
}

// The id of the name s[0 .. n) (which lies at the arena's free tail), storing it if new.
static bool bsObj_Intern(bsObjParser* ps, const char* s, size_t n, uint32_t* id)
{
	uint64_t hash = bsObj_HashBytes(ps->seed, s, n);
	size_t slot = (size_t)hash & ps->nameSlotMask;
	for (;;)
	{
		uint32_t k = ps->nameSlots[slot];
		if (k == 0)
		{
			break;
		}
		const bsObjNameEntry* e = ps->nameEntries + (k - 1);
		if (e->hash == hash && e->length == n && memcmp(ps->nameArena + e->offset, s, n) == 0)
		{
			*id = k;
			return true;
		}
		slot = (slot + 1) & ps->nameSlotMask;
	}
	if (ps->nameCount >= ps->nameCapacity || s != ps->nameArena + ps->nameArenaUsed)
	{
		return bsObj_FailInternal(ps);
	}
	bsObjNameEntry* e = ps->nameEntries + ps->nameCount;
	e->offset = ps->nameArenaUsed;
	e->length = n;
	e->hash = hash;
	ps->nameArenaUsed += n + 1;
	*id = ++ps->nameCount;
	ps->nameSlots[slot] = *id;
	return true;
}

// Makes the group of the current names current, creating it on first use.
static bool bsObj_SelectGroup(bsObjParser* ps)
{
	uint32_t base = ps->current[bs_objGroup] != 0 ? ps->current[bs_objGroup]
		: ps->current[bs_objObject] != 0 ? ps->current[bs_objObject] : ps->defaultName;
	uint32_t material = ps->current[bs_objMaterial];
	uint64_t key = (uint64_t)base << 32 | material;
	bsObjMesh* mesh = ps->mesh;
	size_t slot = (size_t)bsMurmurMix(key ^ ps->seed) & ps->groupSlotMask;
	for (;;)
	{
		uint32_t k = ps->groupSlots[slot];
		if (k == 0)
		{
			break;
		}
		if (ps->groupKeys[k - 1] == key)
		{
			ps->currentGroup = k - 1;
			ps->keyDirty = false;
			return true;
		}
		slot = (slot + 1) & ps->groupSlotMask;
	}
	if (mesh->groupCount >= ps->options.maxGroups)
	{
		return bsObj_Fail(ps, bs_errTooLarge, ps->keyword, "more than %" PRIu32 " groups",
			ps->options.maxGroups);
	}
	const char* baseText = ps->nameArena + ps->nameEntries[base - 1].offset;
	size_t baseLength = ps->nameEntries[base - 1].length;
	const char* materialText = material != 0 ? ps->nameArena + ps->nameEntries[material - 1].offset : "";
	size_t materialLength = material != 0 ? ps->nameEntries[material - 1].length : 0;
	// Each length is below the text's: the sum cannot overflow.
	size_t bytes = baseLength + (material != 0 ? 1 + materialLength : 0) + 1;
	if (bytes > ps->options.maxNameBytes - ps->groupNameBytes)
	{
		return bsObj_Fail(ps, bs_errTooLarge, ps->keyword, "group names exceed %zu bytes in total",
			ps->options.maxNameBytes);
	}
	if (mesh->groupCount >= ps->groupCapacity)
	{
		return bsObj_FailInternal(ps);
	}
	char* name = malloc(bytes);
	if (name == NULL)
	{
		return bsObj_FailMemory(ps);
	}
	memcpy(name, baseText, baseLength);
	if (material != 0)
	{
		name[baseLength] = ':';
		memcpy(name + baseLength + 1, materialText, materialLength);
	}
	name[bytes - 1] = '\0';
	uint32_t g = mesh->groupCount++;
	mesh->groups[g].name = name;
	ps->groupKeys[g] = key;
	ps->groupSlots[slot] = g + 1;
	ps->groupNameBytes += bytes;
	ps->currentGroup = g;
	ps->keyDirty = false;
	return true;
}

static bool bsObj_EmitTriangle(bsObjParser* ps, uint32_t a, uint32_t b, uint32_t c)
{
	bsObjMesh* mesh = ps->mesh;
	bsTriangle t;
	if (bsMakeTriangle(mesh->vertices[a], mesh->vertices[b], mesh->vertices[c], &t) != bs_ok)
	{
		++mesh->droppedDegenerate;  // collinear, coincident, or so large the area overflows
		return true;
	}
	if (ps->keyDirty && !bsObj_SelectGroup(ps))
	{
		return false;
	}
	uint32_t i = mesh->triangleCount;
	if (i >= ps->triangleCapacity)
	{
		return bsObj_FailInternal(ps);
	}
	mesh->triangles[i][0] = a;
	mesh->triangles[i][1] = b;
	mesh->triangles[i][2] = c;
	mesh->triangleGroup[i] = ps->currentGroup;
	mesh->triangleCount = i + 1;
	return true;
}

// ---- statements ----

// A number of a `v` statement at the cursor into *value, the cursor after it.
static bool bsObj_Number(bsObjParser* ps, double* value)
{
	const char* token = ps->p;
	const char* after = token;
	bsObjNumber status = bsObj_ParseDouble(token, ps->end, value, &after);
	if (status == bs_objNumberOk)
	{
		ps->p = after;
		return true;
	}
	const char* tokenEnd = bsObj_TokenEnd(token, ps->end);
	char quoted[200];
	bsObj_Quote(quoted, token, tokenEnd);
	if (status == bs_objNumberMalformed && bsObj_IsNonFiniteWord(token, tokenEnd))
	{
		status = bs_objNumberNonFinite;
	}
	switch (status)
	{
		case bs_objNumberNonFinite:
			return bsObj_Fail(ps, bs_errNonFinite, token, "non-finite number '%s'", quoted);
		case bs_objNumberRange:
			return bsObj_Fail(ps, bs_errNonFinite, token, "number out of range '%s'", quoted);
		case bs_objNumberNoMemory:
			return bsObj_FailMemory(ps);
		default:
			return bsObj_Fail(ps, bs_errInvalidArgument, token, "malformed number '%s'", quoted);
	}
}

// A statement with the wrong number of arguments, at its keyword, quoting what it had: the bytes from
// its first argument to the end of its last (from, to; from == NULL when it had none).
static bool bsObj_FailArity(bsObjParser* ps, const char* from, const char* to, const char* statement,
	const char* unit, uint64_t n, const char* expected)
{
	char quoted[200] = "";
	if (from != NULL)
	{
		bsObj_Quote(quoted, from, to);
	}
	return bsObj_Fail(ps, bs_errInvalidArgument, ps->keyword, "%s has %" PRIu64 " %s%s%s%s, expected %s",
		statement, n, unit, from != NULL ? " '" : "", quoted, from != NULL ? "'" : "", expected);
}

// v x y z [w] or v x y z r g b: the position, and the colour when there is one.
static bool bsObj_Vertex(bsObjParser* ps)
{
	double number[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
	uint64_t n = 0;
	const char* first = NULL;
	int r;
	while ((r = bsObj_NextToken(ps)) > 0)
	{
		first = first != NULL ? first : ps->p;
		double v = 0.0;
		if (ps->mode == bs_objCount)
		{
			ps->p = bsObj_TokenEnd(ps->p, ps->end);
		}
		else if (!bsObj_Number(ps, &v))
		{
			return false;
		}
		number[n < 6 ? n : 5] = n < 6 ? v : number[5];
		++n;
		ps->lastTokenEnd = ps->p;
	}
	if (r < 0)
	{
		return false;
	}
	if (n != 3 && n != 4 && n != 6)
	{
		return bsObj_FailArity(ps, first, ps->lastTokenEnd, "vertex", "numbers", n,
			"3 (x y z), 4 (x y z w) or 6 (x y z and an r g b colour)");
	}
	if (ps->vertexCount >= ps->options.maxVertices)
	{
		return bsObj_Fail(ps, bs_errTooLarge, ps->keyword, "more than %" PRIu32 " vertices",
			ps->options.maxVertices);
	}
	ps->coloredCount += n == 6;
	if (ps->mode == bs_objStore)
	{
		if (ps->vertexCount >= ps->vertexCapacity)
		{
			return bsObj_FailInternal(ps);
		}
		ps->mesh->vertices[ps->vertexCount] = bsV3(number[0], number[1], number[2]);
		if (ps->mesh->colors != NULL)
		{
			ps->mesh->colors[ps->vertexCount] = n == 6 ? bsV3(number[3], number[4], number[5])
				: bsV3(1.0, 1.0, 1.0);
		}
	}
	++ps->vertexCount;
	return true;
}

static bool bsObj_FailReference(bsObjParser* ps, const char* token)
{
	char quoted[200];
	bsObj_Quote(quoted, token, bsObj_TokenEnd(token, ps->end));
	return bsObj_Fail(ps, bs_errInvalidArgument, token,
		"malformed face vertex '%s' (expected v, v/vt, v//vn or v/vt/vn)", quoted);
}

// One face vertex v, v/vt, v//vn or v/vt/vn at the cursor: the 0-based vertex into *index.
static bool bsObj_Reference(bsObjParser* ps, uint32_t* index)
{
	const char* token = ps->p;
	const char* end = ps->end;
	int64_t v = 0, vt = 1, vn = 1;
	bool overflow = false;
	const char* q = bsObj_ParseInteger(token, end, &v, &overflow);
	if (q != NULL && q < end && *q == '/')
	{
		++q;
		if (q < end && *q == '/')
		{
			q = bsObj_ParseInteger(q + 1, end, &vn, &overflow);
		}
		else
		{
			q = bsObj_ParseInteger(q, end, &vt, &overflow);
			if (q != NULL && q < end && *q == '/')
			{
				q = bsObj_ParseInteger(q + 1, end, &vn, &overflow);
			}
		}
	}
	if (q == NULL || !bsObj_IsDelimiter(q, end))
	{
		return bsObj_FailReference(ps, token);
	}
	if (overflow)
	{
		char quoted[200];
		bsObj_Quote(quoted, token, q);
		return bsObj_Fail(ps, bs_errInvalidArgument, token, "integer overflow in index '%s'", quoted);
	}
	if (v == 0)
	{
		return bsObj_Fail(ps, bs_errInvalidArgument, token,
			"vertex index 0 is invalid (indices start at 1)");
	}
	if (vt == 0)
	{
		return bsObj_Fail(ps, bs_errInvalidArgument, token,
			"texture coordinate index 0 is invalid (indices start at 1)");
	}
	if (vn == 0)
	{
		return bsObj_Fail(ps, bs_errInvalidArgument, token,
			"normal index 0 is invalid (indices start at 1)");
	}
	uint64_t count = ps->vertexCount;
	uint64_t magnitude = v > 0 ? (uint64_t)v : (uint64_t)(-v);  // v > INT64_MIN: no overflow
	if (magnitude > count)
	{
		return bsObj_Fail(ps, bs_errInvalidArgument, token,
			"vertex index %" PRId64 " out of range (%" PRIu64 " %s defined so far)", v, count,
			count == 1 ? "vertex" : "vertices");
	}
	*index = (uint32_t)(v > 0 ? magnitude - 1 : count - magnitude);
	ps->p = q;
	return true;
}

// Cuts the face's corners (ps->corners[0 .. n)) into n - 2 triangles (polygon.h) and emits them.
static bool bsObj_EmitFace(bsObjParser* ps, uint32_t n)
{
	if (n > ps->cornerCapacity)
	{
		return bsObj_FailInternal(ps);
	}
	if (n == 3)
	{
		return bsObj_EmitTriangle(ps, ps->corners[0], ps->corners[1], ps->corners[2]);
	}
	bsTriangulatePolygon(ps->mesh->vertices, ps->corners, n, &ps->polygon, ps->faceTriangles);
	for (uint32_t k = 0; k + 2 < n; ++k)
	{
		const uint32_t* t = ps->faceTriangles[k];
		if (!bsObj_EmitTriangle(ps, t[0], t[1], t[2]))
		{
			return false;
		}
	}
	return true;
}

static bool bsObj_Face(bsObjParser* ps)
{
	uint64_t n = 0;
	const char* first = NULL;
	int r;
	while ((r = bsObj_NextToken(ps)) > 0)
	{
		first = first != NULL ? first : ps->p;
		uint32_t index = 0;
		if (ps->mode == bs_objCount)
		{
			ps->p = bsObj_TokenEnd(ps->p, ps->end);
		}
		else if (!bsObj_Reference(ps, &index))
		{
			return false;
		}
		else if (ps->mode == bs_objStore && n < ps->cornerCapacity)
		{
			ps->corners[n] = index;
		}
		++n;
		ps->lastTokenEnd = ps->p;
	}
	if (r < 0)
	{
		return false;
	}
	if (n < 3)
	{
		return bsObj_FailArity(ps, first, ps->lastTokenEnd, "face", "vertices", n, "at least 3");
	}
	if (n - 2 > ps->options.maxTriangles - ps->triangleCount || n > UINT32_MAX)
	{
		return bsObj_Fail(ps, bs_errTooLarge, ps->keyword, "more than %" PRIu32 " triangles",
			ps->options.maxTriangles);
	}
	ps->triangleCount += n - 2;
	ps->maxCorners = n > ps->maxCorners ? n : ps->maxCorners;
	return ps->mode != bs_objStore || bsObj_EmitFace(ps, (uint32_t)n);
}

// o, g, usemtl: the names joined by single spaces (none clears the name).
static bool bsObj_Name(bsObjParser* ps, bsObjName which)
{
	if (ps->nameStatements >= UINT32_MAX - 1)
	{
		return bsObj_Fail(ps, bs_errTooLarge, ps->keyword, "more than %" PRIu32 " o, g and usemtl statements",
			UINT32_MAX - 2);  // names are numbered by uint32_t, 0 meaning none
	}
	++ps->nameStatements;
	const char* from = ps->p;
	if (ps->mode != bs_objStore)
	{
		if (!bsObj_SkipRest(ps))
		{
			return false;
		}
		ps->nameStatementBytes += (uint64_t)(ps->p - from) + 1;
		return true;
	}
	// Joined at the arena's free tail, which has room for this statement's bytes (the count pass
	// reserved them): kept there only when the name is new.
	char* out = ps->nameArena + ps->nameArenaUsed;
	size_t room = ps->nameArenaCapacity - ps->nameArenaUsed;
	size_t n = 0;
	int r;
	while ((r = bsObj_NextToken(ps)) > 0)
	{
		const char* token = ps->p;
		ps->p = bsObj_TokenEnd(token, ps->end);
		size_t length = (size_t)(ps->p - token);
		if (n + (n > 0) + length + 1 > room)
		{
			return bsObj_FailInternal(ps);
		}
		if (n > 0)
		{
			out[n++] = ' ';
		}
		memcpy(out + n, token, length);
		n += length;
	}
	if (r < 0)
	{
		return false;
	}
	uint32_t id = 0;
	if (n > 0)
	{
		out[n] = '\0';
		if (!bsObj_Intern(ps, out, n, &id))
		{
			return false;
		}
	}
	ps->current[which] = id;
	if (which == bs_objObject)
	{
		ps->current[bs_objGroup] = 0;
	}
	ps->keyDirty = true;
	return true;
}

static bool bsObj_Run(bsObjParser* ps)
{
	const char* end = ps->end;
	while (ps->p < end)
	{
		ps->stmt = ps->p;
		ps->stmtLine = ps->line;
		int r = bsObj_NextToken(ps);
		if (r < 0)
		{
			return false;
		}
		if (r > 0)
		{
			const char* k = ps->p;
			ps->keyword = k;
			ps->p = bsObj_TokenEnd(k, end);
			size_t n = (size_t)(ps->p - k);
			bool ok;
			if (n == 1 && k[0] == 'v')
			{
				ok = bsObj_Vertex(ps);
			}
			else if (n == 1 && k[0] == 'f')
			{
				ok = bsObj_Face(ps);
			}
			else if (n == 1 && k[0] == 'g')
			{
				ok = bsObj_Name(ps, bs_objGroup);
			}
			else if (n == 1 && k[0] == 'o')
			{
				ok = bsObj_Name(ps, bs_objObject);
			}
			else if (n == 6 && memcmp(k, "usemtl", 6) == 0)
			{
				ok = bsObj_Name(ps, bs_objMaterial);
			}
			else
			{
				if (n == 1 && k[0] == 'l')
				{
					++ps->ignoredLines;
				}
				else if (n == 1 && k[0] == 'p')
				{
					++ps->ignoredPoints;
				}
				else
				{
					++ps->ignoredStatements;
				}
				ok = bsObj_SkipRest(ps);
			}
			if (!ok)
			{
				return false;
			}
		}
		if ((size_t)(ps->p - ps->stmt) > ps->options.maxLineBytes)
		{
			return bsObj_Fail(ps, bs_errTooLarge, NULL, "line longer than %zu bytes",
				ps->options.maxLineBytes);
		}
		if (ps->p < end)
		{
			ps->p = bsObj_BreakEnd(ps->p, end);
			++ps->line;
		}
	}
	return true;
}

// ---- entry points ----

static void bsObj_InitParser(bsObjParser* ps, const char* text, size_t length, const char* name,
	const bsObjOptions* options, bsObjMode mode, bsObjError* error)
{
	memset(ps, 0, sizeof(*ps));
	ps->text = text;
	ps->end = text + length;
	ps->name = name;
	ps->options = *options;
	ps->mode = mode;
	ps->error = error;
	ps->result = bs_ok;
	// A UTF-8 byte-order mark (Windows editors write one) is not part of the first statement.
	bool bom = length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0;
	ps->p = bom ? text + 3 : text;
	ps->stmt = ps->p;
	ps->line = 1;
	ps->stmtLine = 1;
}

static void bsObj_FreeParser(bsObjParser* ps)
{
	free(ps->nameArena);
	free(ps->nameEntries);
	free(ps->nameSlots);
	free(ps->groupKeys);
	free(ps->groupSlots);
	free(ps->corners);
	free(ps->faceTriangles);
	bsPolygonScratch_Free(&ps->polygon);
}

// A zeroed open-addressing table of at least 2 * capacity slots (a power of two), NULL for capacity 0.
static uint32_t* bsObj_Slots(uint64_t capacity, size_t* mask, bool* failed)
{
	*mask = 0;
	if (capacity == 0 || *failed)
	{
		return NULL;
	}
	if (capacity > SIZE_MAX / 4 / sizeof(uint32_t))
	{
		*failed = true;
		return NULL;
	}
	size_t count = 1;
	while (count < 2 * capacity)
	{
		count *= 2;
	}
	uint32_t* slots = calloc(count, sizeof(uint32_t));
	*failed |= slots == NULL;
	*mask = count - 1;
	return slots;
}

// A seed for the hashes that differs between runs (ASLR, the clock). Only the speed of lookups depends
// on it, never the result.
static uint64_t bsObj_Seed(const void* local)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t x = (uint64_t)(uintptr_t)local ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec;
	return bsMurmurMix(x + UINT64_C(0x9e3779b97f4a7c15));
}

// count * size bytes, NULL for count 0; *failed on overflow or when malloc fails.
static void* bsObj_Array(uint64_t count, size_t size, bool* failed)
{
	if (count == 0)
	{
		return NULL;
	}
	if (count > SIZE_MAX / size)
	{
		*failed = true;
		return NULL;
	}
	void* p = malloc((size_t)count * size);
	*failed |= p == NULL;
	return p;
}

// The store pass's arrays, sized exactly by the count pass: false when out of memory (what was
// allocated is freed by bsObj_FreeParser and bsObj_Free).
static bool bsObj_Allocate(bsObjParser* ps, const bsObjParser* counted, bsObjMesh* mesh)
{
	uint64_t vertexCount = counted->vertexCount;
	uint64_t triangleCount = counted->triangleCount;
	uint64_t groupCapacity = counted->nameStatements + 1;
	groupCapacity = groupCapacity < triangleCount ? groupCapacity : triangleCount;
	groupCapacity = groupCapacity < ps->options.maxGroups ? groupCapacity : ps->options.maxGroups;
	uint64_t nameCapacity = counted->nameStatements + 1;  // and "default"
	uint64_t nameBytes = counted->nameStatementBytes + sizeof("default");
	uint64_t maxCorners = counted->maxCorners;
	ps->mesh = mesh;
	ps->vertexCapacity = vertexCount;
	ps->triangleCapacity = triangleCount;
	ps->groupCapacity = groupCapacity;
	ps->nameCapacity = nameCapacity;
	ps->keyDirty = true;
	ps->seed = bsObj_Seed(ps);
	bool failed = nameBytes > SIZE_MAX;
	mesh->vertices = bsObj_Array(vertexCount, sizeof(bsVec3), &failed);
	mesh->colors = bsObj_Array(counted->coloredCount > 0 ? vertexCount : 0, sizeof(bsVec3), &failed);
	mesh->triangles = bsObj_Array(triangleCount, sizeof(mesh->triangles[0]), &failed);
	mesh->triangleGroup = bsObj_Array(triangleCount, sizeof(uint32_t), &failed);
	mesh->groups = bsObj_Array(groupCapacity, sizeof(bsObjGroup), &failed);
	ps->groupKeys = bsObj_Array(groupCapacity, sizeof(uint64_t), &failed);
	ps->groupSlots = bsObj_Slots(groupCapacity, &ps->groupSlotMask, &failed);
	ps->nameEntries = bsObj_Array(nameCapacity, sizeof(bsObjNameEntry), &failed);
	ps->nameSlots = bsObj_Slots(nameCapacity, &ps->nameSlotMask, &failed);
	ps->nameArena = bsObj_Array(failed ? 0 : nameBytes, 1, &failed);
	ps->nameArenaCapacity = failed ? 0 : (size_t)nameBytes;
	ps->corners = bsObj_Array(maxCorners, sizeof(uint32_t), &failed);
	ps->cornerCapacity = failed ? 0 : maxCorners;
	ps->faceTriangles = bsObj_Array(maxCorners > 2 ? maxCorners - 2 : 0, sizeof(ps->faceTriangles[0]),
		&failed);
	failed = failed || (maxCorners > 0 && !bsPolygonScratch_Reserve(&ps->polygon, (size_t)maxCorners));
	if (failed)
	{
		return false;
	}
	memcpy(ps->nameArena, "default", sizeof("default"));
	return bsObj_Intern(ps, ps->nameArena, sizeof("default") - 1, &ps->defaultName);
}

void bsObj_Free(bsObjMesh* mesh)
{
	if (mesh == NULL)
	{
		return;
	}
	if (mesh->groups != NULL)
	{
		for (uint32_t i = 0; i < mesh->groupCount; ++i)
		{
			free(mesh->groups[i].name);
		}
	}
	free(mesh->groups);
	free(mesh->vertices);
	free(mesh->triangles);
	free(mesh->triangleGroup);
	free(mesh->colors);
	memset(mesh, 0, sizeof(*mesh));
}

bsResult bsObj_Parse(const char* text, size_t length, const char* name, bsObjMesh* mesh,
	bsObjError* error)
{
	return bsObj_ParseWithOptions(text, length, name, NULL, mesh, error);
}

bsResult bsObj_ParseWithOptions(const char* text, size_t length, const char* name,
	const bsObjOptions* options, bsObjMesh* mesh, bsObjError* error)
{
	bsObjError scratch;
	if (error == NULL)
	{
		error = &scratch;
	}
	error->line = 0;
	error->column = 0;
	error->message[0] = '\0';
	if (name == NULL)
	{
		name = "<obj>";
	}
	if (mesh != NULL)
	{
		memset(mesh, 0, sizeof(*mesh));
	}
	if (mesh == NULL || (text == NULL && length > 0))
	{
		bsObj_Report(error, name, 0, 0, "invalid argument");
		return bs_errInvalidArgument;
	}
	if (text == NULL)
	{
		text = "";
	}
	bsObjOptions o = bsDefaultObjOptions();
	if (options != NULL)
	{
		o.maxLineBytes = options->maxLineBytes != 0 ? options->maxLineBytes : o.maxLineBytes;
		o.maxVertices = options->maxVertices != 0 ? options->maxVertices : o.maxVertices;
		o.maxTriangles = options->maxTriangles != 0 ? options->maxTriangles : o.maxTriangles;
		o.maxGroups = options->maxGroups != 0 ? options->maxGroups : o.maxGroups;
		o.maxNameBytes = options->maxNameBytes != 0 ? options->maxNameBytes : o.maxNameBytes;
	}

	bsObjParser ps;
	bsObj_InitParser(&ps, text, length, name, &o, bs_objCount, error);
	if (!bsObj_Run(&ps))
	{
		// Report the first error of the file, which the full checks may find earlier.
		bsResult countResult = ps.result;
		bsObjParser check;
		bsObj_InitParser(&check, text, length, name, &o, bs_objValidate, error);
		bool ok = bsObj_Run(&check);
		bsObj_FreeParser(&check);
		return ok ? countResult : check.result;
	}

	bsObjParser counted = ps;  // the count pass holds no memory
	bsObj_InitParser(&ps, text, length, name, &o, bs_objStore, error);
	bool failed = !bsObj_Allocate(&ps, &counted, mesh);
	bsResult result = bs_ok;
	if (failed)
	{
		bsObj_FailMemory(&ps);
		result = bs_errOutOfMemory;
	}
	else if (!bsObj_Run(&ps))
	{
		result = ps.result;
	}
	else if (mesh->triangleCount == 0)
	{
		result = bs_errInvalidArgument;
		if (mesh->droppedDegenerate > 0)
		{
			bsObj_Report(error, name, 0, 0, "no triangles (all %" PRIu32 " dropped as degenerate)",
				mesh->droppedDegenerate);
		}
		else
		{
			bsObj_Report(error, name, 0, 0, "no triangles");
		}
	}
	bsObj_FreeParser(&ps);
	if (result != bs_ok)
	{
		bsObj_Free(mesh);
		return result;
	}
	mesh->vertexCount = (uint32_t)ps.vertexCount;
	mesh->coloredVertexCount = (uint32_t)counted.coloredCount;
	mesh->ignoredLines = ps.ignoredLines;
	mesh->ignoredPoints = ps.ignoredPoints;
	mesh->ignoredStatements = ps.ignoredStatements;
	// Give back what the dropped triangles and the unused group slots took (shrinking cannot fail in
	// a way that matters: on failure the larger block is kept).
	if (mesh->triangleCount < counted.triangleCount)
	{
		(void)BS_ARRAY_RESIZE(mesh->triangles, mesh->triangleCount);
		(void)BS_ARRAY_RESIZE(mesh->triangleGroup, mesh->triangleCount);
	}
	if (mesh->groupCount < ps.groupCapacity)
	{
		(void)BS_ARRAY_RESIZE(mesh->groups, mesh->groupCount);
	}
	return bs_ok;
}

static void bsObj_ErrnoText(int err, char* buffer, size_t capacity)
{
	// XSI strerror_r (we define _POSIX_C_SOURCE, not _GNU_SOURCE): thread-safe, unlike strerror.
	if (strerror_r(err, buffer, capacity) != 0)
	{
		snprintf(buffer, capacity, "error %d", err);
	}
}

bsResult bsObj_Load(const char* path, bsObjMesh* mesh, bsObjError* error)
{
	bsObjError scratch;
	if (error == NULL)
	{
		error = &scratch;
	}
	error->line = 0;
	error->column = 0;
	error->message[0] = '\0';
	if (mesh != NULL)
	{
		memset(mesh, 0, sizeof(*mesh));
	}
	if (path == NULL || mesh == NULL)
	{
		bsObj_Report(error, path != NULL ? path : "<obj>", 0, 0, "invalid argument");
		return bs_errInvalidArgument;
	}
	char why[128];
	// O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below anyway).
	int fd;
	do
	{
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
	{
		bsObj_ErrnoText(errno, why, sizeof(why));
		bsObj_Report(error, path, 0, 0, "cannot open: %s", why);
		return bs_errInvalidArgument;
	}
	struct stat st;
	int statError = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
	if (statError != 0)
	{
		bsObj_ErrnoText(statError, why, sizeof(why));
		close(fd);
		bsObj_Report(error, path, 0, 0, "cannot read: %s", why);
		return bs_errInvalidArgument;
	}
	if (!S_ISREG(st.st_mode))
	{
		close(fd);
		bsObj_Report(error, path, 0, 0, "not a regular file");
		return bs_errInvalidArgument;
	}
	if (st.st_size < 0 || (uintmax_t)st.st_size >= SIZE_MAX)
	{
		close(fd);
		bsObj_Report(error, path, 0, 0, "file too large");
		return bs_errTooLarge;
	}
	size_t size = (size_t)st.st_size;
	char* buffer = malloc(size > 0 ? size : 1);
	if (buffer == NULL)
	{
		close(fd);
		bsObj_Report(error, path, 0, 0, "out of memory");
		return bs_errOutOfMemory;
	}
	size_t got = 0;
	while (got < size)  // a file that shrinks while read is parsed as far as it goes
	{
		size_t want = size - got < ((size_t)1 << 30) ? size - got : (size_t)1 << 30;
		ssize_t r = read(fd, buffer + got, want);
		if (r < 0 && errno == EINTR)
		{
			continue;
		}
		if (r < 0)
		{
			bsObj_ErrnoText(errno, why, sizeof(why));
			close(fd);
			free(buffer);
			bsObj_Report(error, path, 0, 0, "cannot read: %s", why);
			return bs_errInvalidArgument;
		}
		if (r == 0)
		{
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	bsResult result = bsObj_Parse(buffer, got, path, mesh, error);
	free(buffer);
	return result;
}
