// test_process.c — bsProcess: exit codes and signals as the shell produces them, the stderr tail
// (short, and longer than the buffer), stdout to a file, the last-lines helper, a program that
// cannot start, and children started from several threads at once, each seeing only its own stderr.
#include "test.h"

#include "process.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Runs `sh -c script` and waits.
static int RunShell(const char* script, const char* stdoutPath, bsProcessOutput* out)
{
	char* argv[] = {"sh", "-c", (char*)script, NULL};
	bsProcessInput in = {"/bin/sh", argv, stdoutPath};
	bsProcess p;
	char err[256];
	ENSURE(bsProcess_Start(&in, &p, err, sizeof(err)));
	ENSURE(p.pid > 0);
	bsProcess_Wait(&p, out);
	ENSURE(p.pid == -1 && p.stderrFd == -1);
	return 0;
}

static int ExitAndStderr(void)
{
	bsProcessOutput* out = malloc(sizeof(bsProcessOutput));
	ENSURE(out != NULL);
	RUN_SUBTEST(RunShell("printf 'first\\nsecond\\n\\n' >&2; exit 3", NULL, out));
	ENSURE(out->state == bs_processExited && out->exitCode == 3 && out->signal == 0);
	ENSURE(strcmp(out->stderrTail, "first\nsecond\n\n") == 0 && !out->stderrTruncated);
	char text[64];
	bsProcess_LastLines(out->stderrTail, 1, text, sizeof(text));
	ENSURE(strcmp(text, "second") == 0);
	bsProcess_LastLines(out->stderrTail, 5, text, sizeof(text));
	ENSURE(strcmp(text, "first; second") == 0);
	bsProcess_LastLines("", 2, text, sizeof(text));
	ENSURE(text[0] == '\0');
	bsProcess_LastLines("no newline at the end", 1, text, 8);
	ENSURE(strcmp(text, "no newl") == 0);
	bsProcess_Describe(out, text, sizeof(text));
	ENSURE(strcmp(text, "exit 3") == 0);

	RUN_SUBTEST(RunShell("exit 0", NULL, out));
	ENSURE(out->state == bs_processExited && out->exitCode == 0 && out->stderrTail[0] == '\0');

	// Killed by a signal: the signal, no exit code.
	RUN_SUBTEST(RunShell("kill -SEGV $$", NULL, out));
	ENSURE(out->state == bs_processSignaled && out->signal == SIGSEGV && out->exitCode == -1);
	bsProcess_Describe(out, text, sizeof(text));
	ENSURE(strcmp(text, "signal 11 (SIGSEGV)") == 0);
	free(out);
	return 0;
}

static int LongStderrAndStdout(void)
{
	bsProcessOutput* out = malloc(sizeof(bsProcessOutput));
	ENSURE(out != NULL);
	// 30,000 bytes of 'x', then a last line: the tail keeps the last bs_processTailSize - 1 bytes.
	RUN_SUBTEST(RunShell("i=0; while [ $i -lt 300 ]; do printf '%0100d' 0 | tr 0 x >&2; i=$((i+1)); done; "
		"echo the end >&2", NULL, out));
	size_t n = strlen(out->stderrTail);
	ENSURE(out->stderrTruncated && n == bs_processTailSize - 1);
	ENSURE(strcmp(out->stderrTail + n - 8, "the end\n") == 0);
	ENSURE(out->stderrTail[0] == 'x');

	char path[] = "/tmp/blobsim-test-process-XXXXXX";
	int fd = mkstemp(path);
	ENSURE(fd >= 0);
	close(fd);
	RUN_SUBTEST(RunShell("echo to stdout; echo to stderr >&2", path, out));
	FILE* f = fopen(path, "r");
	char line[64] = "";
	ENSURE(f != NULL && fgets(line, sizeof(line), f) != NULL);
	fclose(f);
	unlink(path);
	ENSURE(strcmp(line, "to stdout\n") == 0 && strcmp(out->stderrTail, "to stderr\n") == 0);
	free(out);
	return 0;
}

static int CannotStart(void)
{
	char* argv[] = {"nosuch", NULL};
	bsProcessInput in = {"/nonexistent/program", argv, NULL};
	bsProcess p;
	char err[256] = "";
	ENSURE(!bsProcess_Start(&in, &p, err, sizeof(err)));
	ENSURE(p.pid == -1 && strstr(err, "cannot start /nonexistent/program: ") == err);
	char self[4096];
	ENSURE(bsProcess_SelfPath(NULL, self, sizeof(self)));
	ENSURE(strstr(self, "blobsim-tests") != NULL);
	return 0;
}

typedef struct Spawner
{
	int id;
	int failures;
	pthread_t thread;
} Spawner;

static void* SpawnMany(void* context)
{
	Spawner* s = context;
	char script[64], expected[32];
	snprintf(script, sizeof(script), "echo child %d >&2", s->id);
	snprintf(expected, sizeof(expected), "child %d\n", s->id);
	bsProcessOutput* out = malloc(sizeof(bsProcessOutput));
	for (int k = 0; k < 8 && out != NULL; ++k)
	{
		if (RunShell(script, NULL, out) != 0 || strcmp(out->stderrTail, expected) != 0 || out->exitCode != 0)
		{
			s->failures += 1;
		}
	}
	s->failures += out == NULL;
	free(out);
	return NULL;
}

static int ManyThreads(void)
{
	Spawner s[4];
	for (int t = 0; t < 4; ++t)
	{
		s[t].id = t;
		s[t].failures = 0;
		ENSURE(pthread_create(&s[t].thread, NULL, SpawnMany, s + t) == 0);
	}
	int failures = 0;
	for (int t = 0; t < 4; ++t)
	{
		pthread_join(s[t].thread, NULL);
		failures += s[t].failures;
	}
	ENSURE(failures == 0);
	return 0;
}

int ProcessTest(void)
{
	RUN_SUBTEST(ExitAndStderr());
	RUN_SUBTEST(LongStderrAndStdout());
	RUN_SUBTEST(CannotStart());
	RUN_SUBTEST(ManyThreads());
	return 0;
}
