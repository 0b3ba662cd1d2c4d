// test_process.c — bsProcess: exit codes and signals as the shell produces them, the stderr tail
// (short, and longer than the buffer), stdout to a file (alone, and with stderr), the last-lines
// helper, a program that cannot start, children started from several threads at once, each seeing
// only its own stderr, a child reaped behind Wait's back (a failure, never a success), and the
// signal table: a child stays in it until it has ended and leaves it before it is reaped;
// StopAllOnSignal kills and reaps.
#include "test.h"

#include "process.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// Runs `sh -c script` and waits.
static int RunShell(const char* script, const char* stdoutPath, bsProcessOutput* out)
{
	char* argv[] = {"sh", "-c", (char*)script, NULL};
	bsProcessInput in = {.program = "/bin/sh", .argv = argv, .stdoutPath = stdoutPath};
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

// stderrToStdout: both streams in the file, in the order written; nothing captured.
static int StderrToStdout(void)
{
	char path[] = "/tmp/blobsim-test-process-XXXXXX";
	int fd = mkstemp(path);
	ENSURE(fd >= 0);
	close(fd);
	char* argv[] = {"sh", "-c", "echo one; echo two >&2; echo three", NULL};
	bsProcessInput in = {.program = "/bin/sh", .argv = argv, .stdoutPath = path, .stderrToStdout = true};
	bsProcess p;
	char err[256];
	ENSURE(bsProcess_Start(&in, &p, err, sizeof(err)));
	ENSURE(p.stderrFd == -1);
	bsProcessOutput* out = malloc(sizeof(bsProcessOutput));
	ENSURE(out != NULL);
	bsProcess_Wait(&p, out);
	bool ok = out->state == bs_processExited && out->exitCode == 0 && out->stderrTail[0] == '\0';
	free(out);
	ENSURE(ok);
	char text[64] = "";
	FILE* f = fopen(path, "r");
	ENSURE(f != NULL);
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	unlink(path);
	text[n] = '\0';
	ENSURE(strcmp(text, "one\ntwo\nthree\n") == 0);
	return 0;
}

// A child reaped by someone else (against process.h's rules): Wait cannot know how it ended, and must
// say so as a failure, never as an exit status (a lost POV-Ray once counted as a good render).
static int ReapedElsewhere(void)
{
	char* argv[] = {"sh", "-c", "exit 0", NULL};
	bsProcessInput in = {.program = "/bin/sh", .argv = argv};
	bsProcess p;
	char err[256];
	ENSURE(bsProcess_Start(&in, &p, err, sizeof(err)));
	int status = -1;
	ENSURE(waitpid(p.pid, &status, 0) == p.pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	bsProcessOutput* out = malloc(sizeof(bsProcessOutput));
	ENSURE(out != NULL);
	bsProcess_Wait(&p, out);
	char text[128];
	bsProcess_Describe(out, text, sizeof(text));
	bool lost = out->state == bs_processLost && out->waitError == ECHILD && out->exitCode == -1;
	free(out);
	ENSURE(lost);
	ENSURE(strcmp(text, "lost (cannot wait for it: No child processes)") == 0);
	ENSURE(p.pid == -1 && bsProcess_RunningCount() == 0);
	return 0;
}

// The signal table lists a child that has ended but is not yet reaped (its pid cannot be reused: a
// signal to it reaches the zombie), and no longer lists it once Wait returns.
static int SignalTable(void)
{
	ENSURE(bsProcess_RunningCount() == 0 && bsProcess_SignalAll(0) == 0);
	char* argv[] = {"sh", "-c", "exit 4", NULL};
	bsProcessInput in = {.program = "/bin/sh", .argv = argv};
	bsProcess p;
	char err[256];
	ENSURE(bsProcess_Start(&in, &p, err, sizeof(err)));
	ENSURE(bsProcess_RunningCount() == 1);
	siginfo_t info;
	memset(&info, 0, sizeof(info));
	ENSURE(waitid(P_PID, (id_t)p.pid, &info, WEXITED | WNOWAIT) == 0 && info.si_pid == p.pid);
	ENSURE(bsProcess_RunningCount() == 1 && bsProcess_SignalAll(0) == 1);
	bsProcessOutput* out = malloc(sizeof(bsProcessOutput));
	ENSURE(out != NULL);
	bsProcess_Wait(&p, out);
	bool ok = out->state == bs_processExited && out->exitCode == 4;
	free(out);
	ENSURE(ok);
	ENSURE(bsProcess_RunningCount() == 0 && bsProcess_SignalAll(0) == 0);
	return 0;
}

// StopAllOnSignal leaves the table's entries claimed (the process is about to _exit), so it runs in a
// forked copy of this process: a long child is gone (killed and reaped: no zombie either) when it
// returns. The exit status of the copy carries the verdict.
static int StopAll(void)
{
	pid_t copy = fork();
	ENSURE(copy >= 0);
	if (copy == 0)
	{
		char* argv[] = {"sleep", "60", NULL};
		bsProcessInput in = {.program = "/bin/sleep", .argv = argv};
		bsProcess p;
		char err[256];
		if (!bsProcess_Start(&in, &p, err, sizeof(err)))
		{
			_exit(2);
		}
		bsProcess_StopAllOnSignal();
		bool reaped = waitpid(p.pid, NULL, WNOHANG) < 0 && errno == ECHILD;
		bool gone = kill(p.pid, 0) < 0 && errno == ESRCH;
		_exit(reaped && gone ? 0 : 3);
	}
	int status = -1;
	ENSURE(waitpid(copy, &status, 0) == copy);
	ENSURE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return 0;
}

static int CannotStart(void)
{
	char* argv[] = {"nosuch", NULL};
	bsProcessInput in = {.program = "/nonexistent/program", .argv = argv};
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
	RUN_SUBTEST(StderrToStdout());
	RUN_SUBTEST(CannotStart());
	RUN_SUBTEST(ReapedElsewhere());
	RUN_SUBTEST(SignalTable());
	RUN_SUBTEST(StopAll());
	RUN_SUBTEST(ManyThreads());
	return 0;
}
