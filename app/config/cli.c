// cli.c — the strict option parsers shared by every command of the executable.
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bsUsageError(const char* command, const char* message, const char* arg)
{
	const char* space = command != NULL ? " " : "";
	const char* cmd = command != NULL ? command : "";
	if (arg != NULL)
	{
		fprintf(stderr, "blobsim%s%s: %s '%s' (see 'blobsim%s%s --help')\n", space, cmd, message, arg,
			space, cmd);
	}
	else
	{
		fprintf(stderr, "blobsim%s%s: %s (see 'blobsim%s%s --help')\n", space, cmd, message, space,
			cmd);
	}
}

int bsMatchOption(const char* command, const char* name, int argc, char** argv, int* index,
	const char** value)
{
	const char* arg = argv[*index];
	size_t len = strlen(name);
	if (strncmp(arg, name, len) != 0)
	{
		return 0;
	}
	if (arg[len] == '=')
	{
		*value = arg + len + 1;
		*index += 1;
		return 1;
	}
	if (arg[len] != '\0')
	{
		return 0;
	}
	if (*index + 1 >= argc)
	{
		char message[128];
		snprintf(message, sizeof message, "%s needs a value", name);
		bsUsageError(command, message, NULL);
		return -1;
	}
	*value = argv[*index + 1];
	*index += 2;
	return 1;
}

int bsMatchSetOption(const char* command, int argc, char** argv, int* index, const char** sets, int* count,
	int max)
{
	const char* value = NULL;
	int m = bsMatchOption(command, "--set", argc, argv, index, &value);
	if (m <= 0)
	{
		return m;
	}
	if (strchr(value, '=') == NULL)
	{
		bsUsageError(command, "--set: expected KEY=VALUE, got", value);
		return -1;
	}
	if (*count >= max)
	{
		char message[64];
		snprintf(message, sizeof message, "too many --set options (%d at most)", max);
		bsUsageError(command, message, NULL);
		return -1;
	}
	sets[(*count)++] = value;
	return 1;
}

static void bsValueError(const char* command, const char* option, const char* expected,
	const char* text)
{
	char message[256];
	snprintf(message, sizeof message, "%s: expected %s, got", option, expected);
	bsUsageError(command, message, text);
}

bool bsParseIntOption(const char* command, const char* option, const char* text, long long lo,
	long long hi, long long* out)
{
	char expected[128];
	snprintf(expected, sizeof expected, "an integer from %lld to %lld", lo, hi);
	// strtoll skips leading spaces and accepts '+': neither is a well-formed value here.
	bool startOk = (text[0] >= '0' && text[0] <= '9') || (text[0] == '-' && text[1] >= '0' &&
		text[1] <= '9');
	if (!startOk)
	{
		bsValueError(command, option, expected, text);
		return false;
	}
	errno = 0;
	char* end = NULL;
	long long v = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
	{
		bsValueError(command, option, expected, text);
		return false;
	}
	*out = v;
	return true;
}

bool bsParseU64Option(const char* command, const char* option, const char* text, uint64_t* out)
{
	const char* expected = "an unsigned 64-bit integer";
	// strtoull accepts "-5" (and wraps it): only digits are allowed.
	if (!(text[0] >= '0' && text[0] <= '9'))
	{
		bsValueError(command, option, expected, text);
		return false;
	}
	errno = 0;
	char* end = NULL;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0')
	{
		bsValueError(command, option, expected, text);
		return false;
	}
	*out = (uint64_t)v;
	return true;
}

bool bsParseDoubleOption(const char* command, const char* option, const char* text, double lo,
	double hi, double* out)
{
	char expected[128];
	snprintf(expected, sizeof expected, "a number from %g to %g", lo, hi);
	bool startOk = (text[0] >= '0' && text[0] <= '9') || text[0] == '-' || text[0] == '.';
	if (!startOk)
	{
		bsValueError(command, option, expected, text);
		return false;
	}
	errno = 0;
	char* end = NULL;
	double v = strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || v < lo || v > hi)
	{
		bsValueError(command, option, expected, text);
		return false;
	}
	*out = v;
	return true;
}
