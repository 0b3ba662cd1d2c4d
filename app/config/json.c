// json.c — strict JSON (json.h): the UTF-8 check, a syntax checker that names each problem and its
// line:column, then cJSON for the tree; and reading a JSON file with a size cap.
#include "json.h"

#include "array.h"
#include "atomic_file.h"  // BS_PRINTF_FORMAT
#include "files.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

// What the checker expects next.
typedef enum bsWant
{
	bs_wantValue,       // after ':' or ',' in an array, or at the start
	bs_wantFirstValue,  // after '['
	bs_wantKey,         // after ',' in an object
	bs_wantFirstKey,    // after '{'
	bs_wantColon,
	bs_wantNext,        // after a value in an array or object
	bs_wantEnd          // after the top-level value
} bsWant;

typedef struct bsSyntax
{
	const unsigned char* s;
	size_t begin;  // after a UTF-8 byte order mark, if any
	size_t n;
	size_t at;     // where the error is
	char message[256];
	// The syntax checker's state: an explicit stack, no recursion.
	bsWant want;
	int depth;
	unsigned char stack[BS_JSON_MAX_DEPTH];  // the open '{' and '['
	size_t opened[BS_JSON_MAX_DEPTH];        // where each was opened
	size_t comma;                            // the last ',' (a trailing comma is reported there)
} bsSyntax;

BS_PRINTF_FORMAT(3, 4)
static bool bsSyntaxFail(bsSyntax* x, size_t at, const char* fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->message, sizeof x->message, fmt, ap);
	va_end(ap);
	x->at = at;
	return false;
}

// --- Encoding ---

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

// --- Syntax ---

// Where the token at s[i] ends, for a message: a string at its closing quote, a word or number, or
// one character. *limited says it was cut at 24 bytes.
static size_t bsTokenEnd(const bsSyntax* x, size_t i, bool* limited)
{
	const unsigned char* s = x->s;
	bool string = s[i] == '"';
	*limited = false;
	if (!string && !bsIsWordChar(s[i]))
	{
		size_t len = bsUtf8Length(s, i, x->n);
		return i + (len > 0 ? len : 1);
	}
	size_t end = i + 1;
	while (end < x->n && (string ? s[end] != '"' && s[end] >= 0x20 : bsIsWordChar(s[end])))
	{
		if (end - i >= 24)
		{
			*limited = true;
			return end;
		}
		++end;
	}
	if (string && end < x->n && s[end] == '"')
	{
		++end;
	}
	return end;
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
	if (s[i] < 0x20 || s[i] == 0x7F)
	{
		snprintf(out, 48, "U+%04X", (unsigned)s[i]);
		return;
	}
	bool limited;
	size_t end = bsTokenEnd(x, i, &limited);
	while (end > i + 1 && end < x->n && (s[end] & 0xC0) == 0x80)
	{
		--end;  // never cut a character
	}
	char quote = memchr(s + i, '\'', end - i) != NULL ? '"' : '\'';
	snprintf(out, 48, "%c%.*s%s%c", quote, (int)(end - i), (const char*)s + i, limited ? "..." : "",
		quote);
}

// "expected WHAT, found TOKEN" at i.
static bool bsSyntaxExpected(bsSyntax* x, size_t i, const char* what)
{
	char found[48];
	bsDescribeToken(x, i, found);
	return bsSyntaxFail(x, i, "expected %s, found %s", what, found);
}

// --- Tokens ---

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

// The escape at the backslash s[i] (s[i + 1] exists); *next is set past it, past both halves of a
// surrogate pair.
static bool bsScanEscape(bsSyntax* x, size_t i, size_t* next)
{
	const unsigned char* s = x->s;
	unsigned char e = s[i + 1];
	if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't')
	{
		*next = i + 2;
		return true;
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
	*next = i + 6;
	if (code >= 0xD800 && code <= 0xDBFF)
	{
		long low = i + 7 < x->n && s[i + 6] == '\\' && s[i + 7] == 'u' ? bsHex4(x, i + 8) : -1;
		if (low < 0xDC00 || low > 0xDFFF)
		{
			return bsSyntaxFail(x, i, "unpaired UTF-16 surrogate \\u%04lX in a string", code);
		}
		*next = i + 12;
	}
	return true;
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
		}
		else if (i + 1 >= x->n)
		{
			break;
		}
		else if (!bsScanEscape(x, i, &i))
		{
			return false;
		}
	}
	return bsSyntaxFail(x, open, "unterminated string (no closing '\"' before the end of file)");
}

// Past the digits at s[i] (i itself when there are none).
static size_t bsSkipDigits(const bsSyntax* x, size_t i)
{
	while (i < x->n && bsIsDigit(x->s[i]))
	{
		++i;
	}
	return i;
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
		i = bsSkipDigits(x, i);
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
		i = bsSkipDigits(x, i);
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
		i = bsSkipDigits(x, i);
	}
	*end = i;
	return true;
}

// The length of true, false or null at s[i]; 0 when none is there.
static size_t bsLiteralLength(const bsSyntax* x, size_t i)
{
	const unsigned char* s = x->s;
	size_t left = x->n - i;
	if (left >= 4 && (memcmp(s + i, "true", 4) == 0 || memcmp(s + i, "null", 4) == 0))
	{
		return 4;
	}
	return left >= 5 && memcmp(s + i, "false", 5) == 0 ? 5 : 0;
}

// --- The syntax checker: one function per state, each given the token at *i ---

static bool bsSyntaxOpen(bsSyntax* x, size_t* i)
{
	if (x->depth == BS_JSON_MAX_DEPTH)
	{
		return bsSyntaxFail(x, *i, "nesting deeper than %d levels", BS_JSON_MAX_DEPTH);
	}
	unsigned char ch = x->s[*i];
	x->stack[x->depth] = ch;
	x->opened[x->depth] = *i;
	++x->depth;
	++*i;
	x->want = ch == '{' ? bs_wantFirstKey : bs_wantFirstValue;
	return true;
}

static bool bsSyntaxClose(bsSyntax* x, size_t* i, bool* value)
{
	--x->depth;
	++*i;
	*value = true;
	return true;
}

// bs_wantValue, bs_wantFirstValue: a scalar (scanned whole), an opening bracket, or a ']' closing
// an empty array.
static bool bsSyntaxValue(bsSyntax* x, size_t* i, bool* value)
{
	const unsigned char* s = x->s;
	unsigned char ch = s[*i];
	if (ch == ']' && x->want == bs_wantFirstValue)
	{
		return bsSyntaxClose(x, i, value);
	}
	if (ch == '{' || ch == '[')
	{
		return bsSyntaxOpen(x, i);
	}
	*value = true;
	if (ch == '"')
	{
		return bsScanString(x, *i, i);
	}
	if (ch == '-' || bsIsDigit(ch))
	{
		return bsScanNumber(x, *i, i);
	}
	size_t len = bsLiteralLength(x, *i);
	size_t after = *i + len;
	if (len > 0 && !(after < x->n && (bsIsAlpha(s[after]) || bsIsDigit(s[after]))))
	{
		*i = after;
		return true;
	}
	if (len == 0 && ch == ']' && x->want == bs_wantValue && x->depth > 0 &&
		x->stack[x->depth - 1] == '[')
	{
		return bsSyntaxFail(x, x->comma, "trailing comma before ']'");
	}
	return bsSyntaxExpected(x, *i, "a value");
}

// bs_wantKey, bs_wantFirstKey: a key, or a '}' closing an empty object.
static bool bsSyntaxKey(bsSyntax* x, size_t* i, bool* value)
{
	unsigned char ch = x->s[*i];
	if (ch == '}' && x->want == bs_wantFirstKey)
	{
		return bsSyntaxClose(x, i, value);
	}
	if (ch == '"')
	{
		x->want = bs_wantColon;
		return bsScanString(x, *i, i);
	}
	if (ch == '}')
	{
		return bsSyntaxFail(x, x->comma, "trailing comma before '}'");
	}
	return bsSyntaxExpected(x, *i, x->want == bs_wantFirstKey ? "a key in double quotes or '}'"
		: "a key in double quotes");
}

// bs_wantNext: a ',' or the bracket that closes the innermost array or object.
static bool bsSyntaxNext(bsSyntax* x, size_t* i, bool* value)
{
	unsigned char closer = x->stack[x->depth - 1] == '{' ? '}' : ']';
	unsigned char ch = x->s[*i];
	if (ch == ',')
	{
		x->comma = *i;
		++*i;
		x->want = closer == '}' ? bs_wantKey : bs_wantValue;
		return true;
	}
	if (ch == closer)
	{
		return bsSyntaxClose(x, i, value);
	}
	char what[16];
	snprintf(what, sizeof what, "',' or '%c'", closer);
	return bsSyntaxExpected(x, *i, what);
}

// The text ended at i.
static bool bsSyntaxAtEnd(bsSyntax* x, size_t i)
{
	if (x->want == bs_wantEnd)
	{
		return true;
	}
	if (x->depth == 0)
	{
		return bsSyntaxFail(x, x->begin, "empty file (expected a JSON object)");
	}
	size_t line, column;
	bsLineColumn(x->s, x->begin, x->opened[x->depth - 1], &line, &column);
	return bsSyntaxFail(x, i, "unexpected end of file (the '%c' at line %zu, column %zu is not closed)",
		x->stack[x->depth - 1], line, column);
}

// Strict RFC 8259 JSON, at most BS_JSON_MAX_DEPTH levels deep.
static bool bsCheckSyntax(bsSyntax* x)
{
	x->want = bs_wantValue;
	x->depth = 0;
	x->comma = 0;
	size_t i = x->begin;
	for (;;)
	{
		while (i < x->n && bsIsSpace(x->s[i]))
		{
			++i;
		}
		if (i >= x->n)
		{
			return bsSyntaxAtEnd(x, i);
		}
		bool value = false;  // a complete value ended at i
		bool ok = false;
		switch (x->want)
		{
			case bs_wantValue:
			case bs_wantFirstValue:
				ok = bsSyntaxValue(x, &i, &value);
				break;
			case bs_wantKey:
			case bs_wantFirstKey:
				ok = bsSyntaxKey(x, &i, &value);
				break;
			case bs_wantColon:
				ok = x->s[i] == ':' ? true : bsSyntaxExpected(x, i, "':' after the key");
				x->want = bs_wantValue;
				++i;
				break;
			case bs_wantNext:
				ok = bsSyntaxNext(x, &i, &value);
				break;
			case bs_wantEnd:
				return bsSyntaxExpected(x, i, "end of file after the JSON value");
		}
		if (!ok)
		{
			return false;
		}
		if (value)
		{
			x->want = x->depth > 0 ? bs_wantNext : bs_wantEnd;
		}
	}
}

// --- Parsing ---

// Encoding, syntax, then cJSON on s[begin, n). On failure, problem says where and why.
static bsResult bsParseFrom(const unsigned char* s, size_t begin, size_t n, cJSON** root,
	bsJsonProblem* problem)
{
	bsSyntax x = {s, begin, n, 0, {0}, bs_wantValue, 0, {0}, {0}, 0};
	bsResult result = bs_errInvalidArgument;
	*root = NULL;
	problem->encoding = !bsCheckEncoding(&x);
	if (!problem->encoding && bsCheckSyntax(&x))
	{
		const char* end = NULL;
		*root = cJSON_ParseWithLengthOpts((const char*)s + begin, n - begin, &end, 0);
		if (*root != NULL)
		{
			return bs_ok;
		}
		// The syntax is valid JSON within our limits, so cJSON can only have run out of memory.
		result = bs_errOutOfMemory;
		x.at = end != NULL ? (size_t)(end - (const char*)s) : begin;
		snprintf(x.message, sizeof x.message, "out of memory while parsing");
	}
	bsLineColumn(s, begin, x.at < begin ? begin : x.at, &problem->line, &problem->column);
	snprintf(problem->message, sizeof problem->message, "%s", x.message);
	return result;
}

bsResult bsJson_ParseStrict(const char* text, size_t length, cJSON** root, bsJsonProblem* problem)
{
	return bsParseFrom((const unsigned char*)(text != NULL ? text : ""), 0, length, root, problem);
}

bsResult bsJson_Parse(const char* text, size_t length, const char* label, cJSON** root,
	bsJsonError* error)
{
	const unsigned char* s = (const unsigned char*)(text != NULL ? text : "");
	bool bom = length >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF;
	bsJsonProblem problem;
	bsResult result = bsParseFrom(s, bom ? 3 : 0, length, root, &problem);
	if (result != bs_ok && error != NULL)
	{
		snprintf(error->message, sizeof error->message, "%s:%zu:%zu: %s", label, problem.line,
			problem.column, problem.message);
	}
	return result;
}

// --- Files ---

// strerror, thread-safe (the XSI strerror_r of _POSIX_C_SOURCE >= 200112L).
static void bsErrnoText(int code, char* out, size_t size)
{
	if (strerror_r(code, out, size) != 0)
	{
		snprintf(out, size, "error %d", code);
	}
}

// Reads f in growing chunks (works for pipes too) until its end or until past
// BS_JSON_MAX_FILE_SIZE bytes. Returns the text, NULL when out of memory; *failed says a read
// failed (errno tells why).
static char* bsReadCapped(FILE* f, size_t* length, bool* failed)
{
	size_t capacity = 4096;
	size_t n = 0;
	char* text = malloc(capacity);
	*failed = false;
	while (text != NULL && n <= BS_JSON_MAX_FILE_SIZE)
	{
		if (n == capacity && !BS_ARRAY_RESERVE(text, capacity, capacity + 1))
		{
			free(text);
			text = NULL;
			break;
		}
		size_t got = fread(text + n, 1, capacity - n, f);
		n += got;
		if (got == 0)
		{
			*failed = ferror(f) != 0;
			break;
		}
	}
	*length = n;
	return text;
}

bsResult bsJson_ReadFile(const char* path, char** text, size_t* length, bsJsonError* error)
{
	*text = NULL;
	*length = 0;
	char reason[128];
	// Only a regular file: a FIFO would wait for a writer, a device could be endless.
	int why;
	int fd = bsOpenRegularFile(path, &why);
	FILE* f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (f == NULL)
	{
		if (fd >= 0)
		{
			why = errno;
			close(fd);
		}
		bsOpenError(why, reason, sizeof reason);
		if (error != NULL)
		{
			snprintf(error->message, sizeof error->message, "%s: %s", path, reason);
		}
		return bs_errInvalidArgument;
	}
	size_t n = 0;
	bool failed = false;
	char* t = bsReadCapped(f, &n, &failed);
	bsErrnoText(errno, reason, sizeof reason);
	fclose(f);
	bsJsonError failure;
	bsResult result = bs_ok;
	if (t == NULL)
	{
		result = bs_errOutOfMemory;
		snprintf(failure.message, sizeof failure.message, "%s: out of memory", path);
	}
	else if (failed)
	{
		result = bs_errInvalidArgument;
		snprintf(failure.message, sizeof failure.message, "%s: cannot read: %s", path, reason);
	}
	else if (n > BS_JSON_MAX_FILE_SIZE)
	{
		result = bs_errTooLarge;
		snprintf(failure.message, sizeof failure.message, "%s: larger than %d bytes: not a config",
			path, BS_JSON_MAX_FILE_SIZE);
	}
	if (result != bs_ok)
	{
		free(t);
		if (error != NULL)
		{
			*error = failure;
		}
		return result;
	}
	*text = t;
	*length = n;
	return bs_ok;
}

bsResult bsJson_Load(const char* path, cJSON** root, bsJsonError* error)
{
	*root = NULL;
	if (error != NULL)
	{
		error->message[0] = '\0';
	}
	char* text = NULL;
	size_t length = 0;
	bsResult result = bsJson_ReadFile(path, &text, &length, error);
	if (result == bs_ok)
	{
		result = bsJson_Parse(text, length, path, root, error);
	}
	free(text);
	return result;
}
