// cli.h — what every command of the executable shares: exit statuses and strict option parsers.
// Each parser reports a one-line error on stderr naming the command and the option; the caller then
// exits with bs_exitUsage.
#pragma once

#include <stdbool.h>
#include <stdint.h>

// Exit statuses of every command (documented in `blobsim --help`).
enum
{
	bs_exitOk = 0,       // success
	bs_exitFailure = 1,  // runtime failure: I/O, memory, invalid data
	bs_exitUsage = 2     // usage error: unknown command or option, bad option value
};

// --- Option values (shared by the commands) ---

// Matches argv[*index] against `--name VALUE` or `--name=VALUE`. On a match, stores the value,
// advances *index past what was consumed and returns 1; returns 0 when the argument is another
// option; returns -1 (after printing "blobsim CMD: --name needs a value") when the value is missing.
int bsMatchOption(const char* command, const char* name, int argc, char** argv, int* index,
	const char** value);

// Matches `--set KEY=VALUE` (or `--set=KEY=VALUE`) like bsMatchOption and appends the text to
// sets[*count] (max entries at most). Returns 1 on a match, 0 when the argument is another option,
// -1 after a usage error (a missing value, no '=', more than max).
int bsMatchSetOption(const char* command, int argc, char** argv, int* index, const char** sets, int* count,
	int max);

// A whole decimal integer in [lo, hi]: no sign for unsigned, no spaces, no trailing characters.
// On failure prints "blobsim CMD: OPTION: expected ..., got 'TEXT' (see 'blobsim CMD --help')".
bool bsParseIntOption(const char* command, const char* option, const char* text, long long lo,
	long long hi, long long* out);
bool bsParseU64Option(const char* command, const char* option, const char* text, uint64_t* out);
// A finite number in [lo, hi].
bool bsParseDoubleOption(const char* command, const char* option, const char* text, double lo,
	double hi, double* out);

// Prints the one-line usage error on stderr: "blobsim CMD: MESSAGE 'ARG' (see 'blobsim CMD --help')".
// command NULL: the top level ("blobsim: ..."); arg NULL: no quoted argument.
void bsUsageError(const char* command, const char* message, const char* arg);
