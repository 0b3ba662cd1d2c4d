// run_child.c — `blobsim run` children for batch and regress: command line, signals, description.
#include "run_child.h"

#include "render_progress.h"
#include "blobsim/base.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int bs_runChildStop;

// The first signal wins; every one is passed on (a second Ctrl-C reaches runs started meanwhile).
static void bsRunChild_OnSignal(int sig)
{
	int expected = 0;
	atomic_compare_exchange_strong(&bs_runChildStop, &expected, sig);
	bsProcess_SignalAll(sig);
}

void bsRunChild_InstallSignals(bsRunChildSignals* saved)
{
	atomic_store(&bs_runChildStop, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bsRunChild_OnSignal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &saved->oldInt);
	sigaction(SIGTERM, &sa, &saved->oldTerm);
}

void bsRunChild_RestoreSignals(const bsRunChildSignals* saved)
{
	sigaction(SIGINT, &saved->oldInt, NULL);
	sigaction(SIGTERM, &saved->oldTerm, NULL);
}

int bsRunChild_StopSignal(void)
{
	return atomic_load(&bs_runChildStop);
}

bsRunChildDef bsDefaultRunChildDef(void)
{
	bsRunChildDef def;
	memset(&def, 0, sizeof(def));
	def.threads = -1;
	return def;
}

// The child's stderr, split into lines: its progress lines go to def->onProgress.
typedef struct bsRunChildReader
{
	const bsRunChildDef* def;
	char line[64];
	size_t used;
	bool overlong;  // the current line outgrew the buffer: not a progress line
} bsRunChildReader;

static void bsRunChild_OnOutput(void* context, const char* data, size_t n)
{
	bsRunChildReader* r = context;
	for (size_t k = 0; k < n; ++k)
	{
		if (data[k] != '\n')
		{
			r->overlong |= r->used == sizeof(r->line);
			r->line[r->used] = data[k];
			r->used += r->used < sizeof(r->line);
			continue;
		}
		double fraction;
		if (!r->overlong && bsRenderProgress_ParseChildLine(r->line, r->used, &fraction))
		{
			r->def->onProgress(r->def->progressContext, fraction);
		}
		r->used = 0;
		r->overlong = false;
	}
}

bool bsRunChild_Run(const bsRunChildDef* def, bsRunChildOutput* out, char* err, size_t errlen)
{
	char threads[16];
	snprintf(threads, sizeof(threads), "%d", def->threads);
	char** argv = malloc((size_t)(13 + 2 * def->setCount) * sizeof(char*));
	if (argv == NULL)
	{
		snprintf(err, errlen, "out of memory");
		return false;
	}
	int n = 0;
	argv[n++] = (char*)def->exe;
	argv[n++] = "run";
	argv[n++] = (char*)def->config;
	argv[n++] = "-o";
	argv[n++] = (char*)def->output;
	argv[n++] = "--quiet";
	if (def->threads >= 0)
	{
		argv[n++] = "--threads";
		argv[n++] = threads;
	}
	if (def->render)
	{
		argv[n++] = "--render";
	}
	if (def->onProgress != NULL)
	{
		argv[n++] = "--progress-lines";
	}
	for (int k = 0; k < def->setCount; ++k)
	{
		argv[n++] = "--set";
		argv[n++] = (char*)def->sets[k];
	}
	argv[n] = NULL;

	double start = bsNow();
	bsProcessInput in = {.program = def->exe, .argv = argv};
	bsProcess p;
	bool started = bsProcess_Start(&in, &p, err, errlen);
	free(argv);
	if (!started)
	{
		return false;
	}
	// The child is in the signal table from its spawn on, but a signal that came before it was, and
	// was passed on to the children then running, has not reached it.
	int sig = atomic_load(&bs_runChildStop);
	if (sig != 0)
	{
		kill(p.pid, sig);
	}
	bsRunChildReader reader = {.def = def};
	bsProcess_WaitRead(&p, &out->process, def->onProgress != NULL ? bsRunChild_OnOutput : NULL, &reader);
	out->seconds = bsNow() - start;
	const bsProcessOutput* q = &out->process;
	out->ok = q->state == bs_processExited && q->exitCode == 0;
	out->interrupted = atomic_load(&bs_runChildStop) != 0 &&
		((q->state == bs_processSignaled && (q->signal == SIGINT || q->signal == SIGTERM)) ||
			(q->state == bs_processExited && (q->exitCode == 130 || q->exitCode == 143)));
	return true;
}

void bsRunChild_Describe(const bsRunChildOutput* out, int lines, char* text, size_t size)
{
	// Without the progress lines (--progress-lines), which are not messages.
	char messages[bs_processTailSize];
	size_t used = 0;
	for (const char* line = out->process.stderrTail; *line != '\0';)
	{
		const char* end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line) + 1 : strlen(line);
		if (strncmp(line, "blobsim-progress ", 17) != 0)
		{
			memcpy(messages + used, line, len);
			used += len;
		}
		line += len;
	}
	messages[used] = '\0';
	char last[1024], how[128];
	bsProcess_LastLines(messages, lines, last, sizeof(last));
	bsProcess_Describe(&out->process, how, sizeof(how));
	const char* message = strncmp(last, "blobsim: ", 9) == 0 ? last + 9 : last;
	if (message[0] == '\0')
	{
		snprintf(text, size, "%s, no message", how);
	}
	else if (out->process.state == bs_processExited && out->process.exitCode == 1)
	{
		snprintf(text, size, "%s", message);
	}
	else
	{
		snprintf(text, size, "%s (%s)", message, how);
	}
}
