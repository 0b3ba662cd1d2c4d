// commit_signal.c — an LD_PRELOAD shim for tests/commit_signal_test.sh: rename(2) as usual, then, once
// the file just renamed is named $BS_SIGNAL_AFTER (a name in a folder, e.g. "scene.pov"), the signal
// $BS_SIGNAL_NUMBER is sent to the process. So a SIGINT or SIGTERM lands exactly between two renames of
// an output set's commit, every time, where a signal from outside lands only by luck.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rename(const char* from, const char* to);

int rename(const char* from, const char* to)
{
	static int (*real)(const char*, const char*);
	if (real == NULL)
	{
		*(void**)&real = dlsym(RTLD_NEXT, "rename");
	}
	int r = real(from, to);
	const char* name = getenv("BS_SIGNAL_AFTER");
	const char* number = getenv("BS_SIGNAL_NUMBER");
	const char* slash = strrchr(to, '/');
	if (r == 0 && name != NULL && number != NULL && strcmp(slash != NULL ? slash + 1 : to, name) == 0)
	{
		kill(getpid(), atoi(number));
	}
	return r;
}
