#include "ply.h"

#include "array.h"
#include "atomic_file.h"
#include "core.h"

#include "blobsim/version.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// Floats travel as their IEEE-754 bit patterns, assembled byte by byte: only the representation is
// assumed, never the byte order.
_Static_assert(sizeof(float) == 4 && FLT_RADIX == 2 && FLT_MANT_DIG == 24 && FLT_MAX_EXP == 128,
	"PLY I/O assumes IEEE-754 binary32 float");
_Static_assert(sizeof(double) == 8 && DBL_MANT_DIG == 53 && DBL_MAX_EXP == 1024,
	"PLY I/O assumes IEEE-754 binary64 double");

// ---- Types and property targets -------------------------------------------------------------------

typedef enum bsPlyType
{
	bsPlyType_none = 0,
	bsPlyType_int8,
	bsPlyType_uint8,
	bsPlyType_int16,
	bsPlyType_uint16,
	bsPlyType_int32,
	bsPlyType_uint32,
	bsPlyType_float32,
	bsPlyType_float64,
} bsPlyType;

static const size_t bsPlyTypeSize[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};

static const struct
{
	const char* name;
	bsPlyType type;
} bsPlyTypeNames[] = {
	{"char", bsPlyType_int8},     {"int8", bsPlyType_int8},       {"uchar", bsPlyType_uint8},
	{"uint8", bsPlyType_uint8},   {"short", bsPlyType_int16},     {"int16", bsPlyType_int16},
	{"ushort", bsPlyType_uint16}, {"uint16", bsPlyType_uint16},   {"int", bsPlyType_int32},
	{"int32", bsPlyType_int32},   {"uint", bsPlyType_uint32},     {"uint32", bsPlyType_uint32},
	{"float", bsPlyType_float32}, {"float32", bsPlyType_float32}, {"double", bsPlyType_float64},
	{"float64", bsPlyType_float64},
};

// Canonical names, for messages.
static const char* const bsPlyTypeName[] = {
	"none", "char", "uchar", "short", "ushort", "int", "uint", "float", "double"};

enum
{
	bsTarget_x = 0,
	bsTarget_y,
	bsTarget_z,
	bsTarget_radius,
	bsTarget_vx,
	bsTarget_vy,
	bsTarget_vz,
	bsTarget_state,
	bsTarget_id,
	bsTarget_wx,
	bsTarget_wy,
	bsTarget_wz,
	bsTargetCount
};

static const char* const bsTargetName[bsTargetCount] = {"x", "y", "z", "radius", "vx", "vy", "vz", "state", "id",
	"wx", "wy", "wz"};

enum
{
	bsFormat_ascii = 0,
	bsFormat_binaryLittle,
	bsFormat_binaryBig,
};

typedef struct bsPlyProperty
{
	uint8_t type;       // bsPlyType of the value (of each item, for a list)
	uint8_t countType;  // bsPlyType of a list's count; bsPlyType_none for a scalar
	int8_t target;      // bsTarget_*, or -1 for a property that is skipped
} bsPlyProperty;

typedef struct bsPlyElement
{
	char name[bs_plyMaxNameLength + 1];
	size_t count;
	int first;          // index of its first property
	int propertyCount;
	int line;           // header line of the element statement
} bsPlyElement;

typedef struct bsPlyHeader
{
	int format;
	int elementCount;
	int propertyCount;
	int vertex;         // index of the vertex element
	int bodyLine;       // line number of the first body line (ascii messages)
	size_t bodyOffset;
	bsPlyElement elements[bs_plyMaxElements];
	bsPlyProperty properties[bs_plyMaxProperties];
} bsPlyHeader;

// ---- Errors -------------------------------------------------------------------------------------

typedef struct bsPlyContext
{
	const char* name;
	char* errbuf;
	size_t errlen;
} bsPlyContext;

// `name: message`, or `name:line: message` when line > 0. Returns false.
static bool bsPlyFail(const bsPlyContext* c, int line, const char* fmt, ...) BS_PRINTF_FORMAT(3, 4);

static bool bsPlyFail(const bsPlyContext* c, int line, const char* fmt, ...)
{
	if (c->errbuf == NULL || c->errlen == 0)
	{
		return false;
	}
	int n = line > 0 ? snprintf(c->errbuf, c->errlen, "%s:%d: ", c->name, line)
					 : snprintf(c->errbuf, c->errlen, "%s: ", c->name);
	if (n >= 0 && (size_t)n < c->errlen)
	{
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->errbuf + n, c->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

// A token of hostile input made fit for a message: printable, at most 40 characters.
static void bsQuote(char* out, size_t outLen, const char* s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len && n + 4 < outLen; ++i)
	{
		if (i == 40)
		{
			memcpy(out + n, "...", 3);
			n += 3;
			break;
		}
		unsigned char ch = (unsigned char)s[i];
		out[n++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	out[n] = '\0';
}

// ---- Header ---------------------------------------------------------------------------------------

typedef struct bsToken
{
	const char* s;
	size_t len;
} bsToken;

static bool bsTokenIs(bsToken t, const char* s)
{
	size_t len = strlen(s);
	return t.len == len && memcmp(t.s, s, len) == 0;
}

static bsPlyType bsLookupType(bsToken t)
{
	for (int i = 0; i < BS_COUNT(bsPlyTypeNames); ++i)
	{
		if (bsTokenIs(t, bsPlyTypeNames[i].name))
		{
			return bsPlyTypeNames[i].type;
		}
	}
	return bsPlyType_none;
}

static bool bsIsIntegerType(int type)
{
	return type != bsPlyType_none && type != bsPlyType_float32 && type != bsPlyType_float64;
}

// A decimal count: digits only, no sign, no overflow.
static bool bsParseCount(bsToken t, size_t* out)
{
	if (t.len == 0)
	{
		return false;
	}
	size_t v = 0;
	for (size_t i = 0; i < t.len; ++i)
	{
		if (t.s[i] < '0' || t.s[i] > '9')
		{
			return false;
		}
		size_t d = (size_t)(t.s[i] - '0');
		if (v > (SIZE_MAX - d) / 10)
		{
			return false;
		}
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

enum
{
	bsMaxTokens = 6
};

// Header line `line` from data[*pos]: its text without the line end in *out, *pos past it. False,
// with the failure reported, past the line or size limits or with no end_header before the end.
static bool bsPly_HeaderLine(const uint8_t* data, size_t size, size_t* pos, int line, const bsPlyContext* c,
	bsToken* out)
{
	if (line > bs_plyMaxHeaderLines)
	{
		return bsPlyFail(c, line, "header longer than %d lines", bs_plyMaxHeaderLines);
	}
	size_t window = size - *pos;
	if (window > bs_plyMaxLineLength + 2)
	{
		window = bs_plyMaxLineLength + 2;  // the line, a '\r' and the '\n'
	}
	const uint8_t* nl = memchr(data + *pos, '\n', window);
	if (nl == NULL)
	{
		if (window == size - *pos)
		{
			return bsPlyFail(c, 0, "missing end_header");
		}
		return bsPlyFail(c, line, "header line longer than %d bytes", bs_plyMaxLineLength);
	}
	out->s = (const char*)(data + *pos);
	out->len = (size_t)(nl - (data + *pos));
	*pos += out->len + 1;
	if (out->len > 0 && out->s[out->len - 1] == '\r')
	{
		--out->len;
	}
	if (out->len > bs_plyMaxLineLength)
	{
		return bsPlyFail(c, line, "header line longer than %d bytes", bs_plyMaxLineLength);
	}
	return true;
}

// Splits a line at spaces and tabs: the number of words (only the first bsMaxTokens are kept).
static int bsTokenize(bsToken text, bsToken tok[bsMaxTokens])
{
	const char* s = text.s;
	size_t len = text.len;
	int ntok = 0;
	for (size_t i = 0; i < len;)
	{
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
		{
			++i;
		}
		if (i == len)
		{
			break;
		}
		size_t start = i;
		while (i < len && s[i] != ' ' && s[i] != '\t')
		{
			++i;
		}
		if (ntok < bsMaxTokens)
		{
			tok[ntok].s = s + start;
			tok[ntok].len = i - start;
		}
		++ntok;
	}
	return ntok;
}

// The header as it is read, a keyword line at a time.
typedef struct bsPlyHeaderReader
{
	const bsPlyContext* c;
	bsPlyHeader* h;
	int line;
	bool formatSeen;
} bsPlyHeaderReader;

// `format <ascii|binary_little_endian|binary_big_endian> 1.0`, once, before any element.
static bool bsPlyHeaderReader_Format(bsPlyHeaderReader* r, const bsToken* tok, int ntok)
{
	const bsPlyContext* c = r->c;
	char quoted[64];
	if (r->formatSeen)
	{
		return bsPlyFail(c, r->line, "second format line");
	}
	if (r->h->elementCount > 0)
	{
		return bsPlyFail(c, r->line, "format line after an element");
	}
	if (ntok != 3)
	{
		return bsPlyFail(c, r->line, "expected 'format <ascii|binary_little_endian|binary_big_endian> 1.0'");
	}
	if (bsTokenIs(tok[1], "ascii"))
	{
		r->h->format = bsFormat_ascii;
	}
	else if (bsTokenIs(tok[1], "binary_little_endian"))
	{
		r->h->format = bsFormat_binaryLittle;
	}
	else if (bsTokenIs(tok[1], "binary_big_endian"))
	{
		r->h->format = bsFormat_binaryBig;
	}
	else
	{
		bsQuote(quoted, sizeof(quoted), tok[1].s, tok[1].len);
		return bsPlyFail(c, r->line, "unknown format '%s'", quoted);
	}
	if (!bsTokenIs(tok[2], "1.0"))
	{
		bsQuote(quoted, sizeof(quoted), tok[2].s, tok[2].len);
		return bsPlyFail(c, r->line, "unsupported PLY version '%s'", quoted);
	}
	r->formatSeen = true;
	return true;
}

// `element <name> <count>`; the one named vertex is the particles'.
static bool bsPlyHeaderReader_Element(bsPlyHeaderReader* r, const bsToken* tok, int ntok)
{
	const bsPlyContext* c = r->c;
	bsPlyHeader* h = r->h;
	if (!r->formatSeen)
	{
		return bsPlyFail(c, r->line, "missing format line");
	}
	if (ntok != 3)
	{
		return bsPlyFail(c, r->line, "expected 'element <name> <count>'");
	}
	if (h->elementCount == bs_plyMaxElements)
	{
		return bsPlyFail(c, r->line, "more than %d elements", bs_plyMaxElements);
	}
	if (tok[1].len > bs_plyMaxNameLength)
	{
		return bsPlyFail(c, r->line, "name longer than %d characters", bs_plyMaxNameLength);
	}
	bsPlyElement* e = h->elements + h->elementCount;
	memcpy(e->name, tok[1].s, tok[1].len);
	e->name[tok[1].len] = '\0';
	if (!bsParseCount(tok[2], &e->count))
	{
		char quoted[64];
		bsQuote(quoted, sizeof(quoted), tok[2].s, tok[2].len);
		return bsPlyFail(c, r->line, "bad element count '%s'", quoted);
	}
	e->first = h->propertyCount;
	e->propertyCount = 0;
	e->line = r->line;
	if (strcmp(e->name, "vertex") == 0)
	{
		if (h->vertex >= 0)
		{
			return bsPlyFail(c, r->line, "second vertex element");
		}
		h->vertex = h->elementCount;
	}
	h->elementCount += 1;
	return true;
}

// Property p, named nameTok, of the vertex element e: which particle field it fills (p->target,
// -1: none), once each and never as a list.
static bool bsPlyHeaderReader_Target(bsPlyHeaderReader* r, const bsPlyElement* e, bsPlyProperty* p, bsToken nameTok,
	bool isList)
{
	for (int t = 0; t < bsTargetCount; ++t)
	{
		if (bsTokenIs(nameTok, bsTargetName[t]))
		{
			p->target = (int8_t)t;
		}
	}
	if (p->target < 0)
	{
		return true;
	}
	if (isList)
	{
		return bsPlyFail(r->c, r->line, "property '%s' must not be a list", bsTargetName[p->target]);
	}
	for (int q = e->first; q < r->h->propertyCount; ++q)
	{
		if (r->h->properties[q].target == p->target)
		{
			return bsPlyFail(r->c, r->line, "duplicate property '%s'", bsTargetName[p->target]);
		}
	}
	return true;
}

// A type word that must name a PLY type: the type, or bsPlyType_none after reporting it.
static bsPlyType bsPlyHeaderReader_Type(bsPlyHeaderReader* r, bsToken t)
{
	bsPlyType type = bsLookupType(t);
	if (type == bsPlyType_none)
	{
		char quoted[64];
		bsQuote(quoted, sizeof(quoted), t.s, t.len);
		bsPlyFail(r->c, r->line, "unknown property type '%s'", quoted);
	}
	return type;
}

// `property <type> <name>` or `property list <count type> <type> <name>`, of the last element.
static bool bsPlyHeaderReader_Property(bsPlyHeaderReader* r, const bsToken* tok, int ntok)
{
	const bsPlyContext* c = r->c;
	bsPlyHeader* h = r->h;
	if (h->elementCount == 0)
	{
		return bsPlyFail(c, r->line, "property before any element");
	}
	bool isList = ntok >= 2 && bsTokenIs(tok[1], "list");
	if (ntok != (isList ? 5 : 3))
	{
		return bsPlyFail(c, r->line, isList ? "expected 'property list <count type> <type> <name>'"
											: "expected 'property <type> <name>'");
	}
	if (h->propertyCount == bs_plyMaxProperties)
	{
		return bsPlyFail(c, r->line, "more than %d properties", bs_plyMaxProperties);
	}
	bsPlyProperty* p = h->properties + h->propertyCount;
	p->countType = bsPlyType_none;
	if (isList)
	{
		bsPlyType countType = bsPlyHeaderReader_Type(r, tok[2]);
		if (countType == bsPlyType_none)
		{
			return false;
		}
		if (!bsIsIntegerType(countType))
		{
			char quoted[64];
			bsQuote(quoted, sizeof(quoted), tok[2].s, tok[2].len);
			return bsPlyFail(c, r->line, "list count type '%s' is not an integer type", quoted);
		}
		p->countType = (uint8_t)countType;
	}
	bsToken nameTok = tok[isList ? 4 : 2];
	bsPlyType type = bsPlyHeaderReader_Type(r, tok[isList ? 3 : 1]);
	if (type == bsPlyType_none)
	{
		return false;
	}
	if (nameTok.len > bs_plyMaxNameLength)
	{
		return bsPlyFail(c, r->line, "name longer than %d characters", bs_plyMaxNameLength);
	}
	p->type = (uint8_t)type;
	p->target = -1;
	bsPlyElement* e = h->elements + h->elementCount - 1;
	if (h->elementCount - 1 == h->vertex && !bsPlyHeaderReader_Target(r, e, p, nameTok, isList))
	{
		return false;
	}
	e->propertyCount += 1;
	h->propertyCount += 1;
	return true;
}

// After end_header: a vertex element with x, y and z, and all of vx, vy, vz or none.
static bool bsPlyHeader_CheckVertex(const bsPlyHeader* h, const bsPlyContext* c)
{
	if (h->vertex < 0)
	{
		return bsPlyFail(c, 0, "no vertex element");
	}
	const bsPlyElement* v = h->elements + h->vertex;
	bool has[bsTargetCount] = {false};
	for (int q = v->first; q < v->first + v->propertyCount; ++q)
	{
		if (h->properties[q].target >= 0)
		{
			has[h->properties[q].target] = true;
		}
	}
	for (int t = bsTarget_x; t <= bsTarget_z; ++t)
	{
		if (!has[t])
		{
			return bsPlyFail(c, v->line, "element vertex has no property '%s'", bsTargetName[t]);
		}
	}
	if ((has[bsTarget_vx] || has[bsTarget_vy] || has[bsTarget_vz]) &&
		!(has[bsTarget_vx] && has[bsTarget_vy] && has[bsTarget_vz]))
	{
		return bsPlyFail(c, v->line, "element vertex has only some of vx, vy, vz");
	}
	if ((has[bsTarget_wx] || has[bsTarget_wy] || has[bsTarget_wz]) &&
		!(has[bsTarget_wx] && has[bsTarget_wy] && has[bsTarget_wz]))
	{
		return bsPlyFail(c, v->line, "element vertex has only some of wx, wy, wz");
	}
	return true;
}

// The header, a line at a time up to end_header: its format, elements and properties, and where the
// body starts. Every failure names the line.
static bool bsPly_ParseHeader(const uint8_t* data, size_t size, const bsPlyContext* c, bsPlyHeader* h)
{
	memset(h, 0, sizeof(*h));
	h->vertex = -1;
	if (size < 4 || memcmp(data, "ply", 3) != 0 ||
		!(data[3] == '\n' || (data[3] == '\r' && size > 4 && data[4] == '\n')))
	{
		return bsPlyFail(c, 1, "not a PLY file (the first line is not 'ply')");
	}
	bsPlyHeaderReader r = {c, h, 0, false};
	size_t pos = 0;
	for (r.line = 1;; ++r.line)
	{
		bsToken text;
		if (!bsPly_HeaderLine(data, size, &pos, r.line, c, &text))
		{
			return false;
		}
		if (r.line == 1)
		{
			continue;  // "ply", checked above
		}
		for (size_t i = 0; i < text.len; ++i)
		{
			unsigned char ch = (unsigned char)text.s[i];
			if (ch != '\t' && (ch < 0x20 || ch > 0x7e))
			{
				return bsPlyFail(c, r.line, "invalid byte 0x%02x in the header", ch);
			}
		}
		bsToken tok[bsMaxTokens];
		int ntok = bsTokenize(text, tok);
		bool ok = true;
		if (ntok == 0 || bsTokenIs(tok[0], "comment") || bsTokenIs(tok[0], "obj_info"))
		{
			continue;  // blank lines tolerated: some writers leave them
		}
		else if (bsTokenIs(tok[0], "format"))
		{
			ok = bsPlyHeaderReader_Format(&r, tok, ntok);
		}
		else if (bsTokenIs(tok[0], "element"))
		{
			ok = bsPlyHeaderReader_Element(&r, tok, ntok);
		}
		else if (bsTokenIs(tok[0], "property"))
		{
			ok = bsPlyHeaderReader_Property(&r, tok, ntok);
		}
		else if (bsTokenIs(tok[0], "end_header"))
		{
			if (ntok != 1)
			{
				return bsPlyFail(c, r.line, "unexpected text after end_header");
			}
			if (!r.formatSeen)
			{
				return bsPlyFail(c, r.line, "missing format line");
			}
			h->bodyOffset = pos;
			h->bodyLine = r.line + 1;
			return bsPlyHeader_CheckVertex(h, c);
		}
		else
		{
			char quoted[64];
			bsQuote(quoted, sizeof(quoted), tok[0].s, tok[0].len);
			return bsPlyFail(c, r.line, "unknown header keyword '%s'", quoted);
		}
		if (!ok)
		{
			return false;
		}
	}
}

// ---- Body -----------------------------------------------------------------------------------------

typedef struct bsPlyBody
{
	const uint8_t* data;
	size_t size;
	size_t pos;
	int line;  // ascii only
	bool bigEndian;
	const bsPlyContext* c;
	const bsPlyHeader* h;
} bsPlyBody;

static double bsLoadBinary(const uint8_t* p, int type, bool bigEndian)
{
	size_t n = bsPlyTypeSize[type];
	uint64_t u = 0;
	for (size_t i = 0; i < n; ++i)
	{
		u = u << 8 | p[bigEndian ? i : n - 1 - i];
	}
	switch (type)
	{
		case bsPlyType_int8:
			return (double)((int64_t)u - (int64_t)((u & 0x80u) << 1));
		case bsPlyType_int16:
			return (double)((int64_t)u - (int64_t)((u & 0x8000u) << 1));
		case bsPlyType_int32:
			return (double)((int64_t)u - (int64_t)((u & 0x80000000u) << 1));
		case bsPlyType_float32:
		{
			uint32_t bits = (uint32_t)u;
			float f;
			memcpy(&f, &bits, sizeof(f));
			return (double)f;
		}
		case bsPlyType_float64:
		{
			double d;
			memcpy(&d, &u, sizeof(d));
			return d;
		}
		default:
			return (double)u;
	}
}

// The fewest bytes an item of element e can take: the bound that counts are checked against.
static size_t bsMinItemSize(const bsPlyHeader* h, const bsPlyElement* e)
{
	size_t size = 0;
	for (int q = e->first; q < e->first + e->propertyCount; ++q)
	{
		const bsPlyProperty* p = h->properties + q;
		if (h->format == bsFormat_ascii)
		{
			size += 2;  // one token of at least one character, and a separator
		}
		else
		{
			size += bsPlyTypeSize[p->countType != bsPlyType_none ? p->countType : p->type];
		}
	}
	return size;
}

static bool bsCheckCount(bsPlyBody* b, const bsPlyElement* e, size_t minItem)
{
	size_t remaining = b->size - b->pos;
	if (b->h->format == bsFormat_ascii)
	{
		remaining += 1;  // the last item needs no separator
	}
	size_t most = remaining / minItem;
	if (e->count > most)
	{
		return bsPlyFail(b->c, 0, "element %s has %zu items but the data holds at most %zu", e->name,
			e->count, most);
	}
	return true;
}

static bool bsTruncated(bsPlyBody* b, const bsPlyElement* e, size_t item)
{
	return bsPlyFail(b->c, b->h->format == bsFormat_ascii ? b->line : 0,
		"unexpected end of data in element %s (item %zu of %zu)", e->name, item, e->count);
}

// The next whitespace-separated ascii token; false at the end of the data.
static bool bsNextToken(bsPlyBody* b, bsToken* t)
{
	int line = b->line;
	while (b->pos < b->size)
	{
		uint8_t ch = b->data[b->pos];
		if (ch == '\n')
		{
			b->line += 1;
		}
		else if (ch != ' ' && ch != '\t' && ch != '\r')
		{
			break;
		}
		b->pos += 1;
	}
	if (b->pos == b->size)
	{
		b->line = line;  // the end of data is reported on the line of the last token
		return false;
	}
	size_t start = b->pos;
	while (b->pos < b->size)
	{
		uint8_t ch = b->data[b->pos];
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
		{
			break;
		}
		b->pos += 1;
	}
	t->s = (const char*)(b->data + start);
	t->len = b->pos - start;
	return true;
}

static bool bsAsciiValue(bsPlyBody* b, const bsPlyElement* e, size_t item, int type, double* out)
{
	bsToken t;
	if (!bsNextToken(b, &t))
	{
		return bsTruncated(b, e, item);
	}
	char buf[64];
	char quoted[64];
	char* end = buf;
	if (t.len < sizeof(buf))
	{
		memcpy(buf, t.s, t.len);
		buf[t.len] = '\0';
		*out = strtod(buf, &end);
	}
	if (t.len == 0 || t.len >= sizeof(buf) || end != buf + t.len)
	{
		bsQuote(quoted, sizeof(quoted), t.s, t.len);
		return bsPlyFail(b->c, b->line, "bad number '%s'", quoted);
	}
	if (bsIsIntegerType(type))
	{
		static const double lo[] = {0, -128.0, 0, -32768.0, 0, -2147483648.0, 0};
		static const double hi[] = {0, 127.0, 255.0, 32767.0, 65535.0, 2147483647.0, 4294967295.0};
		if (!(*out >= lo[type] && *out <= hi[type] && *out == floor(*out)))
		{
			bsQuote(quoted, sizeof(quoted), t.s, t.len);
			return bsPlyFail(b->c, b->line, "bad %s value '%s'", bsPlyTypeName[type], quoted);
		}
	}
	return true;
}

// Reads (or skips) one item of element e; values[target] receives the vertex properties.
static bool bsReadItem(bsPlyBody* b, const bsPlyElement* e, size_t item, double* values)
{
	const bsPlyHeader* h = b->h;
	for (int q = e->first; q < e->first + e->propertyCount; ++q)
	{
		const bsPlyProperty* p = h->properties + q;
		if (h->format == bsFormat_ascii)
		{
			double v;
			if (p->countType == bsPlyType_none)
			{
				if (!bsAsciiValue(b, e, item, p->type, &v))
				{
					return false;
				}
				if (p->target >= 0)
				{
					values[p->target] = v;
				}
				continue;
			}
			if (!bsAsciiValue(b, e, item, p->countType, &v))
			{
				return false;
			}
			if (v < 0.0)
			{
				return bsPlyFail(b->c, b->line, "negative list count in element %s", e->name);
			}
			// Each entry takes at least one byte, so this loop is bounded by the data.
			for (double k = 0.0; k < v; k += 1.0)
			{
				double ignored;
				if (!bsAsciiValue(b, e, item, p->type, &ignored))
				{
					return false;
				}
			}
			continue;
		}

		bool big = h->format == bsFormat_binaryBig;
		if (p->countType == bsPlyType_none)
		{
			size_t n = bsPlyTypeSize[p->type];
			if (b->size - b->pos < n)
			{
				return bsTruncated(b, e, item);
			}
			if (p->target >= 0)
			{
				values[p->target] = bsLoadBinary(b->data + b->pos, p->type, big);
			}
			b->pos += n;
			continue;
		}
		size_t cn = bsPlyTypeSize[p->countType];
		if (b->size - b->pos < cn)
		{
			return bsTruncated(b, e, item);
		}
		double listCount = bsLoadBinary(b->data + b->pos, p->countType, big);
		b->pos += cn;
		if (listCount < 0.0)
		{
			return bsPlyFail(b->c, 0, "negative list count in element %s (item %zu)", e->name, item);
		}
		size_t itemSize = bsPlyTypeSize[p->type];
		if ((b->size - b->pos) / itemSize < (size_t)listCount)
		{
			return bsTruncated(b, e, item);
		}
		b->pos += (size_t)listCount * itemSize;
	}
	return true;
}

static bool bsStoreVertex(bsPlyBody* b, size_t item, const double* v, bsPlyParticle* out)
{
	int line = b->h->format == bsFormat_ascii ? b->line : 0;
	for (int t = 0; t < bsTargetCount; ++t)
	{
		if (!isfinite(v[t]))
		{
			return bsPlyFail(b->c, line, "vertex %zu: non-finite %s", item, bsTargetName[t]);
		}
	}
	if (v[bsTarget_radius] < 0.0)
	{
		return bsPlyFail(b->c, line, "vertex %zu: negative radius %g", item, v[bsTarget_radius]);
	}
	double s = v[bsTarget_state];
	if (!(s == 0.0 || s == 1.0 || s == 2.0 || s == 3.0))
	{
		return bsPlyFail(b->c, line, "vertex %zu: state %g is not 0, 1, 2 or 3", item, s);
	}
	double id = v[bsTarget_id];
	if (!(id >= 0.0 && id <= 4294967295.0 && id == floor(id)))
	{
		return bsPlyFail(b->c, line, "vertex %zu: id %.17g is not an integer from 0 to 4294967295", item, id);
	}
	out->position = bsV3(v[bsTarget_x], v[bsTarget_y], v[bsTarget_z]);
	out->velocity = bsV3(v[bsTarget_vx], v[bsTarget_vy], v[bsTarget_vz]);
	out->spin = bsV3(v[bsTarget_wx], v[bsTarget_wy], v[bsTarget_wz]);
	out->radius = v[bsTarget_radius];
	out->state = (uint8_t)s;
	out->id = (uint32_t)id;
	return true;
}

static bool bsPly_ParseBody(bsPlyBody* b, bsPlyData* out)
{
	const bsPlyHeader* h = b->h;
	for (int ei = 0; ei <= h->vertex; ++ei)
	{
		const bsPlyElement* e = h->elements + ei;
		size_t minItem = bsMinItemSize(h, e);
		if (minItem == 0 || e->count == 0)
		{
			continue;  // an element without properties takes no bytes
		}
		if (!bsCheckCount(b, e, minItem))
		{
			return false;
		}
		if (ei < h->vertex)
		{
			bool fixed = h->format != bsFormat_ascii;
			for (int q = e->first; q < e->first + e->propertyCount; ++q)
			{
				fixed = fixed && h->properties[q].countType == bsPlyType_none;
			}
			if (fixed)
			{
				b->pos += e->count * minItem;  // checked above
				continue;
			}
			for (size_t i = 0; i < e->count; ++i)
			{
				if (!bsReadItem(b, e, i, NULL))
				{
					return false;
				}
			}
			continue;
		}

		if (e->count > SIZE_MAX / sizeof(bsPlyParticle))
		{
			return bsPlyFail(b->c, 0, "element vertex has too many items (%zu)", e->count);
		}
		out->particles = malloc(e->count * sizeof(bsPlyParticle));
		if (out->particles == NULL)
		{
			return bsPlyFail(b->c, 0, "out of memory for %zu particles", e->count);
		}
		for (size_t i = 0; i < e->count; ++i)
		{
			double values[bsTargetCount] = {0.0};
			if (!bsReadItem(b, e, i, values) || !bsStoreVertex(b, i, values, out->particles + i))
			{
				return false;
			}
		}
		out->count = e->count;
	}
	return true;
}

bool bsPly_Parse(const uint8_t* data, size_t size, const char* name, bsPlyData* out, char* errbuf,
	size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (errbuf != NULL && errlen > 0)
	{
		errbuf[0] = '\0';
	}
	bsPlyContext c = {name != NULL ? name : "(memory)", errbuf, errlen};
	if (data == NULL && size > 0)
	{
		return bsPlyFail(&c, 0, "no data");
	}
	bsPlyHeader* h = malloc(sizeof(bsPlyHeader));
	if (h == NULL)
	{
		return bsPlyFail(&c, 0, "out of memory");
	}
	bool ok = bsPly_ParseHeader(data, size, &c, h);
	if (ok)
	{
		bsPlyBody b = {data, size, h->bodyOffset, h->bodyLine, h->format == bsFormat_binaryBig, &c, h};
		// strtod in the "C" locale whatever the program set: '.' is the PLY decimal point.
		locale_t cLocale = (locale_t)0;
		locale_t previous = (locale_t)0;
		if (h->format == bsFormat_ascii)
		{
			cLocale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
			if (cLocale != (locale_t)0)
			{
				previous = uselocale(cLocale);
			}
		}
		ok = bsPly_ParseBody(&b, out);
		if (cLocale != (locale_t)0)
		{
			uselocale(previous);
			freelocale(cLocale);
		}
		if (ok)
		{
			const bsPlyElement* v = h->elements + h->vertex;
			bool has[bsTargetCount] = {false};
			for (int q = v->first; q < v->first + v->propertyCount; ++q)
			{
				if (h->properties[q].target >= 0)
				{
					has[h->properties[q].target] = true;
				}
			}
			out->fields = (has[bsTarget_radius] ? bs_plyHasRadius : 0u) |
				(has[bsTarget_vx] ? bs_plyHasVelocity : 0u) | (has[bsTarget_state] ? bs_plyHasState : 0u) |
				(has[bsTarget_id] ? bs_plyHasId : 0u) | (has[bsTarget_wx] ? bs_plyHasSpin : 0u);
		}
	}
	free(h);
	if (!ok)
	{
		free(out->particles);
		memset(out, 0, sizeof(*out));
	}
	return ok;
}

// ---- Files ----------------------------------------------------------------------------------------

bool bsPly_Read(const char* path, bsPlyData* out, char* errbuf, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	bsPlyContext c = {path != NULL ? path : "(null)", errbuf, errlen};
	// O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below, with devices such as
	// /dev/zero that never end.
	int fd = path != NULL ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd < 0)
	{
		return bsPlyFail(&c, 0, "cannot open: %s", strerror(path != NULL ? errno : EINVAL));
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
	{
		close(fd);
		return bsPlyFail(&c, 0, "not a regular file");
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	size_t capacity = 1 << 16;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		(uint64_t)st.st_size < (uint64_t)SIZE_MAX)
	{
		capacity = (size_t)st.st_size + 1;  // +1: the read that sees end of file
	}
	uint8_t* data = malloc(capacity);
	size_t size = 0;
	bool ok = data != NULL;
	if (!ok)
	{
		bsPlyFail(&c, 0, "out of memory for %zu bytes", capacity);
	}
	while (ok)
	{
		if (size == capacity && !BS_ARRAY_RESERVE(data, capacity, capacity + 1))
		{
			ok = bsPlyFail(&c, 0, "out of memory for %zu bytes", capacity);
			break;
		}
		ssize_t n = read(fd, data + size, capacity - size);
		if (n < 0)
		{
			if (errno == EINTR)
			{
				continue;
			}
			ok = bsPlyFail(&c, 0, "cannot read: %s", strerror(errno));
			break;
		}
		if (n == 0)
		{
			break;
		}
		size += (size_t)n;
	}
	close(fd);
	if (ok)
	{
		ok = bsPly_Parse(data, size, path, out, errbuf, errlen);
	}
	free(data);
	return ok;
}

static void bsStoreFloatLE(char* p, float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	p[0] = (char)(u & 0xffu);
	p[1] = (char)((u >> 8) & 0xffu);
	p[2] = (char)((u >> 16) & 0xffu);
	p[3] = (char)((u >> 24) & 0xffu);
}

static void bsStoreDoubleLE(char* p, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	for (int b = 0; b < 8; ++b)
	{
		p[b] = (char)((u >> (8 * b)) & 0xffu);
	}
}

enum
{
	bsPlyRecordSize = 7 * 4 + 1 + 4,
	bsPlyWideRecordSize = bsPlyRecordSize + 3 * 4,  // x, y, z as doubles
	bsPlySpinSize = 3 * 4,                          // wx, wy, wz, when the particles spin
	bsPlyRecordsPerReserve = 1024,
};

bool bsPly_NeedsDoubles(const bsParticles* p)
{
	for (size_t i = 0; i < p->count; ++i)
	{
		bsVec3 x = p->position[i];
		double reach = bs_plyFloatReach * p->radius[i];
		if (!(fabs(x.x) <= reach && fabs(x.y) <= reach && fabs(x.z) <= reach))
		{
			return true;
		}
	}
	return false;
}

// The record's values: x y z radius vx vy vz, then wx wy wz (0 without spin).
static void bsPly_Get(const bsParticles* p, size_t i, double v[10], unsigned* state)
{
	bsVec3 w = p->spin != NULL ? p->spin[i] : bsV3(0.0, 0.0, 0.0);
	v[7] = w.x;
	v[8] = w.y;
	v[9] = w.z;
	v[0] = p->position[i].x;
	v[1] = p->position[i].y;
	v[2] = p->position[i].z;
	v[3] = p->radius[i];
	v[4] = p->velocity[i].x;
	v[5] = p->velocity[i].y;
	v[6] = p->velocity[i].z;
	*state = p->state[i];
}

static bool bsPly_WriteArrays(const char* path, const bsParticles* src, char* errbuf, size_t errlen)
{
	size_t count = src->count;
	bsPlyContext c = {path != NULL ? path : "(null)", errbuf, errlen};
	// Check first, so that a bad particle costs no I/O.
	for (size_t i = 0; i < count; ++i)
	{
		double v[10];
		unsigned state;
		bsPly_Get(src, i, v, &state);
		for (int k = 0; k < 10; ++k)
		{
			if (!(fabs(v[k]) <= (double)FLT_MAX))
			{
				return bsPlyFail(&c, 0, "particle %zu: %s = %g is not a finite float", i,
					bsTargetName[k < 7 ? k : k - 7 + bsTarget_wx], v[k]);
			}
		}
		if (v[3] < 0.0)
		{
			return bsPlyFail(&c, 0, "particle %zu: negative radius %g", i, v[3]);
		}
		if (state >= bs_particleStateCount)
		{
			return bsPlyFail(&c, 0, "particle %zu: state %u is not 0, 1, 2 or 3", i, state);
		}
	}

	bsAtomicFile f;
	if (!bsAtomicFile_Open(&f, path, errbuf, errlen))
	{
		return false;
	}
	bool wide = bsPly_NeedsDoubles(src);
	const char* type = wide ? "double" : "float";
	bool spin = src->spin != NULL;
	size_t recordSize = (wide ? bsPlyWideRecordSize : bsPlyRecordSize) + (spin ? bsPlySpinSize : 0);
	bsAtomicFile_Printf(&f,
		"ply\n"
		"format binary_little_endian 1.0\n"
		"comment blobsim %s\n"
		"element vertex %zu\n"
		"property %s x\n"
		"property %s y\n"
		"property %s z\n"
		"property float radius\n"
		"property float vx\n"
		"property float vy\n"
		"property float vz\n"
		"property uchar state\n"
		"property uint id\n"
		"%s"
		"end_header\n",
		BLOBSIM_VERSION, count, type, type, type,
		spin ? "property float wx\nproperty float wy\nproperty float wz\n" : "");
	for (size_t i = 0; i < count;)
	{
		size_t n = count - i < bsPlyRecordsPerReserve ? count - i : bsPlyRecordsPerReserve;
		char* out = bsAtomicFile_Reserve(&f, n * recordSize);
		if (out == NULL)
		{
			break;
		}
		for (size_t k = 0; k < n; ++k, ++i)
		{
			double v[10];
			unsigned state;
			bsPly_Get(src, i, v, &state);
			char* r = out + k * recordSize;
			for (int q = 0; q < 3 && wide; ++q)
			{
				bsStoreDoubleLE(r + 8 * q, v[q]);
			}
			r += wide ? 24 - 12 : 0;  // the rest as in a float record, after the wider x, y, z
			for (int q = wide ? 3 : 0; q < 7; ++q)
			{
				bsStoreFloatLE(r + 4 * q, (float)v[q]);
			}
			r[28] = (char)state;
			uint32_t id = src->id[i];
			for (int q = 0; q < 4; ++q)
			{
				r[29 + q] = (char)((id >> (8 * q)) & 0xffu);
			}
			for (int q = 0; q < 3 && spin; ++q)
			{
				bsStoreFloatLE(r + 33 + 4 * q, (float)v[7 + q]);
			}
		}
		bsAtomicFile_Advance(&f, n * recordSize);
	}
	return bsAtomicFile_Commit(&f, 0);
}

bool bsPly_WriteParticles(const char* path, const bsParticles* particles, char* errbuf, size_t errlen)
{
	if (particles == NULL || (particles->count > 0 && (particles->position == NULL ||
		particles->velocity == NULL || particles->radius == NULL || particles->state == NULL || particles->id == NULL)))
	{
		bsPlyContext c = {path != NULL ? path : "(null)", errbuf, errlen};
		return bsPlyFail(&c, 0, "no particle arrays given");
	}
	return bsPly_WriteArrays(path, particles, errbuf, errlen);
}

bool bsPly_WriteSurface(const char* path, const bsSurfaceMesh* mesh, char* errbuf, size_t errlen)
{
	bsAtomicFile f;
	if (!bsAtomicFile_Open(&f, path, errbuf, errlen))
	{
		return false;
	}
	bsAtomicFile_Printf(&f,
		"ply\n"
		"format binary_little_endian 1.0\n"
		"comment blobsim %s surface\n"
		"element vertex %zu\n"
		"property float x\n"
		"property float y\n"
		"property float z\n"
		"property float nx\n"
		"property float ny\n"
		"property float nz\n"
		"element face %zu\n"
		"property list uchar uint vertex_indices\n"
		"end_header\n",
		BLOBSIM_VERSION, mesh->vertexCount, mesh->triangleCount);
	enum
	{
		vertexSize = 24,
		faceSize = 13,
		perReserve = 1024,
	};
	for (size_t i = 0; i < mesh->vertexCount;)
	{
		size_t n = mesh->vertexCount - i < perReserve ? mesh->vertexCount - i : perReserve;
		char* out = bsAtomicFile_Reserve(&f, n * vertexSize);
		if (out == NULL)
		{
			break;
		}
		for (size_t k = 0; k < n; ++k, ++i)
		{
			bsVec3 p = mesh->positions[i], q = mesh->normals[i];
			float v[6] = {(float)p.x, (float)p.y, (float)p.z, (float)q.x, (float)q.y, (float)q.z};
			for (int j = 0; j < 6; ++j)
			{
				bsStoreFloatLE(out + k * vertexSize + 4 * j, v[j]);
			}
		}
		bsAtomicFile_Advance(&f, n * vertexSize);
	}
	for (size_t t = 0; t < mesh->triangleCount;)
	{
		size_t n = mesh->triangleCount - t < perReserve ? mesh->triangleCount - t : perReserve;
		char* out = bsAtomicFile_Reserve(&f, n * faceSize);
		if (out == NULL)
		{
			break;
		}
		for (size_t k = 0; k < n; ++k, ++t)
		{
			char* r = out + k * faceSize;
			r[0] = 3;
			for (int j = 0; j < 3; ++j)
			{
				uint32_t u = mesh->indices[3 * t + (size_t)j];
				for (int b = 0; b < 4; ++b)
				{
					r[1 + 4 * j + b] = (char)((u >> (8 * b)) & 0xffu);
				}
			}
		}
		bsAtomicFile_Advance(&f, n * faceSize);
	}
	return bsAtomicFile_Commit(&f, 0);
}
